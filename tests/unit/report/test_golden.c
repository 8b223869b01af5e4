// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Golden outputs: the text report, the JSON report, the Prometheus metrics
 * and the interval lines of one fixed, rich trace (fixture.c), byte for
 * byte as committed in tests/fixtures/golden/. They pin today's output so
 * that a change meant to move code, not behaviour, shows any difference.
 * A mismatch leaves the actual output in /tmp and names the diff to run;
 * IOSTORM_UPDATE_GOLDEN=1 rewrites the golden files instead. The files are
 * found from the repository root (make unit, tests/run.sh run there), or
 * in IOSTORM_GOLDEN_DIR.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "findings/findings.h"
#include "html/html.h"
#include "facts_test.h"
#include "fixture.h"
#include "prom/prom.h"
#include "report/report.h"
#include "report/report_test.h"
#include "unit.h"

#define GOLDEN_DIR	"tests/fixtures/golden"
#define GOLDEN_JOB	"resnet50-golden"
#define GOLDEN_TOP	10

struct text {
	char *buf;
	size_t len;
};

static const char *golden_dir(void)
{
	const char *dir = getenv("IOSTORM_GOLDEN_DIR");

	return dir && *dir ? dir : GOLDEN_DIR;
}

static int read_file(const char *path, struct text *out)
{
	FILE *f = fopen(path, "r"), *m;
	char chunk[4096];
	size_t n;

	if (!f)
		return -errno;
	m = open_memstream(&out->buf, &out->len);
	if (!m) {
		fclose(f);
		return -ENOMEM;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, m);
	fclose(f);
	return fclose(m) ? -ENOMEM : 0;
}

static int write_file(const char *path, const struct text *t)
{
	FILE *f = fopen(path, "w");
	int err;

	if (!f)
		return -errno;
	fwrite(t->buf, 1, t->len, f);
	err = ferror(f);
	return fclose(f) || err ? -EIO : 0;
}

/* 1-based line of the first difference, for the failure message. */
static int first_diff_line(const struct text *a, const struct text *b)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int line = 1;

	for (size_t i = 0; i < n && a->buf[i] == b->buf[i]; i++)
		line += a->buf[i] == '\n';
	return line;
}

/* The actual output, kept in a directory of its own under /tmp. */
static void keep_actual(const char *name, const struct text *got, const char *want_path,
			int line)
{
	char dir[] = "/tmp/iostorm-golden.XXXXXX", path[64];

	if (!mkdtemp(dir)) {
		unit__fail(__FILE__, __LINE__, "%s differs from %s at line %d (cannot "
			   "keep the actual output: %s)", name, want_path, line, strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (write_file(path, got))
		unit__fail(__FILE__, __LINE__, "cannot write '%s'", path);
	unit__fail(__FILE__, __LINE__, "%s differs from the golden file at line %d: "
		   "diff -u %s %s (IOSTORM_UPDATE_GOLDEN=1 accepts the new output)",
		   name, line, want_path, path);
}

/* Compare got with the golden file name, or rewrite it when asked to. */
static void golden_check(const char *name, const struct text *got)
{
	const char *update = getenv("IOSTORM_UPDATE_GOLDEN");
	struct text want = {};
	char path[512];
	int err;

	snprintf(path, sizeof(path), "%s/%s", golden_dir(), name);
	if (update && !strcmp(update, "1")) {
		err = write_file(path, got);
		if (err)
			unit__fail(__FILE__, __LINE__, "cannot write '%s': %s", path,
				   strerror(-err));
		else
			fprintf(stderr, "golden: rewrote %s (%zu bytes)\n", path, got->len);
		return;
	}
	err = read_file(path, &want);
	if (err) {
		unit__fail(__FILE__, __LINE__, "cannot read golden file '%s': %s (run from "
			   "the repository root, or set IOSTORM_GOLDEN_DIR)", path,
			   strerror(-err));
		return;
	}
	if (want.len != got->len || memcmp(want.buf, got->buf, got->len))
		keep_actual(name, got, path, first_diff_line(&want, got));
	free(want.buf);
}

static int text_with(const struct trace *t, const struct findings *fs,
		     struct text *out, bool full)
{
	struct report_opts o = { .top = GOLDEN_TOP, .full = full };
	FILE *f = open_memstream(&out->buf, &out->len);
	int err;

	if (!f)
		return -ENOMEM;
	err = text_printed(f, t, fs, &o);
	return fclose(f) ? -ENOMEM : err;
}

/* The full text (--full): every table. */
static int text_report(const struct trace *t, const struct findings *fs, struct text *out)
{
	return text_with(t, fs, out, true);
}

/* The default text: one screen. */
static int brief_report(const struct trace *t, const struct findings *fs, struct text *out)
{
	return text_with(t, fs, out, false);
}

static int json_report(const struct trace *t, const struct findings *fs,
		       struct text *out)
{
	char path[] = "/tmp/iostorm-golden-json.XXXXXX";
	int fd = mkstemp(path), err;

	if (fd < 0)
		return -errno;
	close(fd);
	err = json_written(path, t, fs) ?: read_file(path, out);
	unlink(path);
	return err;
}

static int prom_text(const struct trace *t, const struct findings *fs,
		     struct text *out)
{
	FILE *f = open_memstream(&out->buf, &out->len);
	int err;

	if (!f)
		return -ENOMEM;
	err = prom__render(f, t, fs, GOLDEN_JOB);
	return fclose(f) ? -ENOMEM : err;
}

/* The page is drawn from the JSON, as --html and `iostorm html` draw it. */
static int html_page(const struct trace *t, const struct findings *fs, struct text *out)
{
	struct text json = {};
	json_t *root = NULL;
	FILE *in, *f;
	int err = json_report(t, fs, &json);

	in = err ? NULL : fmemopen(json.buf, json.len, "r");
	if (!err && (!in || html__load(in, "golden JSON", GOLDEN_TOP, &root)))
		err = -EINVAL;
	if (in)
		fclose(in);
	f = err ? NULL : open_memstream(&out->buf, &out->len);
	if (!err && !f)
		err = -ENOMEM;
	if (!err)
		err = html__render(f, root, GOLDEN_TOP);
	if (f && fclose(f) && !err)
		err = -ENOMEM;
	json_decref(root);
	free(json.buf);
	return err;
}

typedef int (*render_fn)(const struct trace *t, const struct findings *fs,
			 struct text *out);

static void golden_render(const char *name, render_fn render, const struct trace *t,
			  const struct findings *fs)
{
	struct text got = {};
	int err = render(t, fs, &got);

	if (err)
		unit__fail(__FILE__, __LINE__, "%s: rendering failed: %s", name, strerror(-err));
	else
		golden_check(name, &got);
	free(got.buf);
}

TEST(golden_reports)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct findings *fs = calloc(1, sizeof(*fs));
	struct thresholds th;

	if (!t || !fs || fixture__trace(t)) {
		free(fs);
		free(t);
		REQUIRE(!"the fixture trace");
	}
	/* Judging is not the fixture's: it measures, the findings judge. */
	thresholds__defaults(&th);
	CHECK_EQ_INT(trace_judged(fs, t, &th), 0);
	golden_render("report.txt", text_report, t, fs);
	golden_render("report-brief.txt", brief_report, t, fs);
	golden_render("report.json", json_report, t, fs);
	golden_render("metrics.prom", prom_text, t, fs);
	golden_render("report.html", html_page, t, fs);
	fixture__free(t);
	free(fs);
	free(t);
}

/* The loop part of the full text: from "training loop" to the blank line after. */
static int loops_part(const struct trace *t, const struct findings *fs, struct text *out)
{
	struct text all = {};
	int err = text_report(t, fs, &all);
	char *a = err ? NULL : strstr(all.buf, "\ntraining loop"), *b;

	if (!err && !a)
		err = -ENOENT;
	if (!err) {
		b = strstr(a + 1, "\n\n");
		out->len = b ? (size_t)(b + 1 - (a + 1)) : strlen(a + 1);
		out->buf = strndup(a + 1, out->len);
		err = out->buf ? 0 : -ENOMEM;
	}
	free(all.buf);
	return err;
}

/*
 * A node's loops in two workloads (fixture__node_trace()): the trainer's
 * pod, its two ranks under it, and a Slurm job; the one screen, the full
 * report's loop part, and the page (its workloads' section).
 */
TEST(golden_node_loops)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct findings *fs = calloc(1, sizeof(*fs));
	struct thresholds th;

	if (!t || !fs || fixture__node_trace(t)) {
		free(fs);
		free(t);
		REQUIRE(!"the node fixture trace");
	}
	thresholds__defaults(&th);
	CHECK_EQ_INT(trace_judged(fs, t, &th), 0);
	t->loops[0].cause = findings__loop_cause(&fs->e, &t->loops[0], t->duration_s, &th);
	golden_render("node-report-brief.txt", brief_report, t, fs);
	golden_render("node-loops.txt", loops_part, t, fs);
	golden_render("node-report.html", html_page, t, fs);
	fixture__free(t);
	free(fs);
	free(t);
}

TEST(golden_interval)
{
	struct trace_snap *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct text got = {};
	FILE *f;

	if (!a || !b || fixture__snaps(a, b)) {
		free(a);
		free(b);
		REQUIRE(!"interval snapshots");
	}
	f = open_memstream(&got.buf, &got.len);
	if (f) {
		report__interval_header(f);
		report__interval_line(f, a, b, "00:00:46");
		report__interval_line(f, b, b, "00:00:47");	/* nothing happened: zeros */
		CHECK(!fclose(f));
		golden_check("interval.txt", &got);
	}
	CHECK(f);
	free(got.buf);
	fixture__snaps_free(a, b);
	free(a);
	free(b);
}

/*
 * A small-file storm on NFS mounted under /run (fixture.c): every output
 * names NFS, its round trips per file and the mount; the files are data.
 */
TEST(golden_nfs)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct findings *fs = calloc(1, sizeof(*fs));
	struct text txt = {}, json = {}, prom = {};
	struct thresholds th;

	if (!t || !fs || fixture__nfs_trace(t, "/run/nfs", true)) {
		free(fs);
		free(t);
		REQUIRE(!"the NFS fixture trace");
	}
	thresholds__defaults(&th);
	CHECK_EQ_INT(trace_judged(fs, t, &th), 0);
	golden_render("nfs-report.txt", text_report, t, fs);
	golden_render("nfs-report-brief.txt", brief_report, t, fs);
	golden_render("nfs-report.json", json_report, t, fs);
	golden_render("nfs-metrics.prom", prom_text, t, fs);
	golden_render("nfs-report.html", html_page, t, fs);
	CHECK_EQ_INT(fs->e.layer, LAYER_NFS);
	CHECK_HAS(fs->headline, "VERDICT: NFS: each file costs 4.1 round trips of 1.1ms");
	REQUIRE(!text_report(t, fs, &txt) && !json_report(t, fs, &json) &&
		!prom_text(t, fs, &prom));
	CHECK_HAS(txt.buf, "NFS calls: nfs4 10.0.0.5:/data on /run/nfs (RPC client 7, NFSv4.2, "
		  "nconnect 1, rsize 524288)");
	CHECK_HAS(txt.buf, "target 1640 calls: 4.1 round trips per file opened (CLOSE 1.0, "
		  "LOOKUP 1.0, OPEN 1.0, READ 1.0, GETATTR 0.1), round trip 1.10ms");
	CHECK_HAS(txt.buf, "nconnect=8 (8 connections, now 1); rsize=1048576 (now 524288)");
	CHECK_HAS(txt.buf, "FS-Cache");
	CHECK_HAS(txt.buf, "NFS calls: the NFS client's own calls to 10.0.0.5 (leases");
	CHECK_HAS(txt.buf, "reads go through NFS: its server, over the network, returned most");
	CHECK(!strstr(txt.buf, "\ncode "));		/* nothing set aside as code */
	CHECK_HAS(json.buf, "\"nfs\": {\n    \"mounts\": [{\"rpc_client\":7,\"role\":\"mount\","
		  "\"parent\":3,\"mount_point\":\"/run/nfs\"");
	CHECK_HAS(json.buf, "\"verdict\": \"nfs\"");
	CHECK_HAS(prom.buf, "iostorm_nfs_calls_total{training_job=\"resnet50-golden\","
		  "mount=\"/run/nfs\",server=\"10.0.0.5\",version=\"4.2\",role=\"mount\","
		  "procedure=\"READ\",requester=\"target\"} 400");
	CHECK_HAS(prom.buf, "iostorm_layer_verdict{training_job=\"resnet50-golden\","
		  "verdict=\"nfs\"} 1");
	free(txt.buf);
	free(json.buf);
	free(prom.buf);
	fixture__free(t);
	free(fs);
	free(t);
}
