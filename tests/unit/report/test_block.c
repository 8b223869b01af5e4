// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The block layer in both reports and the interval lines, from a trace
 * whose every number is known (fixture__block_sample()).
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "facts_test.h"
#include "fixture.h"
#include "findings/findings.h"
#include "model/hist.h"
#include "model/trace.h"
#include "report/report.h"
#include "report/report_test.h"
#include "unit.h"

#define MS		1000000ULL	/* ns */
#define NEAR(a, b)	(fabs((double)(a) - (b)) < 1e-9 * (fabs((double)(b)) + 1))

TEST(interval_line)
{
	struct trace_snap *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	char *buf = NULL, clock[16];
	double v[9];
	size_t len;
	FILE *out;

	REQUIRE(a && b);
	fixture__block_sample(&a->block);
	fixture__block_sample(&b->block);
	REQUIRE(b->block.devs);
	a->ns = 10 * 1000 * MS;
	b->ns = a->ns + 500 * MS;
	a->reg_opens = 1000;
	b->reg_opens = 1100;
	a->counters[C_OPENS] = 2000;
	b->counters[C_OPENS] = 2120;
	b->counters[C_READS] = 400;
	b->counters[C_READ_BYTES] = 2 * 1024 * 1024;
	hist__add(&a->read_lat, 5000, 10);
	hist__add(&b->read_lat, 5000, 10);
	hist__add(&b->read_lat, 3 * MS, 400);	/* the interval's reads: all 3 ms */
	b->block.devs[0].st[BLK_READ][WHO_TARGET].reqs += 50;
	b->block.devs[0].st[BLK_READ][WHO_TARGET].total_ns += 50 * 4 * MS;
	b->block.devs[0].busy_ns[BLK_SCOPE_TARGET] += 250 * MS;
	out = open_memstream(&buf, &len);
	REQUIRE(out);
	report__interval_header(out);
	report__interval_line(out, a, b, "12:00:01");
	fclose(out);
	REQUIRE(buf);
	CHECK(strncmp(buf, "time ", 5) == 0);
	REQUIRE(sscanf(strchr(buf, '\n') + 1, "%15s %lf %lf %lf %lf %lf %lf %lf %lf %lf",
		       clock, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
		       &v[8]) == 10);
	CHECK_STR(clock, "12:00:01");
	CHECK(NEAR(v[0], 200));		/* files/s: 100 regular opens in 0.5 s */
	CHECK(NEAR(v[1], 240));		/* opens/s */
	CHECK(NEAR(v[2], 800));		/* reads/s */
	CHECK(NEAR(v[3], 4));		/* MiB/s */
	CHECK(fabs(v[4] - 3) < 3 * HIST_REL_ERROR);	/* p50 ms, within a bucket */
	CHECK(fabs(v[5] - 3) < 3 * HIST_REL_ERROR);
	CHECK(NEAR(v[6], 100));		/* target block reads/s */
	CHECK(NEAR(v[7], 4));		/* r_await ms */
	CHECK(NEAR(v[8], 50));		/* %util: 250 ms of 500 */
	free(buf);
	block__free(&a->block);
	block__free(&b->block);
	free(a);
	free(b);
}

/* The JSON report of t judged with f (NULL: not judged). */
static json_t *json_of(const struct trace *t, const struct findings *f)
{
	char path[] = "/tmp/iostorm-unit-block.XXXXXX";
	json_error_t jerr;
	json_t *root;
	int fd = mkstemp(path);

	if (fd < 0)
		return NULL;
	close(fd);
	root = json_written(path, t, f) ? NULL : json_load_file(path, 0, &jerr);
	unlink(path);
	return root;
}

static __u64 u64_of(json_t *root, const char *path)
{
	json_t *v = json_object_get(root, path);

	return json_is_integer(v) ? (__u64)json_integer_value(v) : ~0ULL;
}

static struct trace *trace_fixture__block_sample(void)
{
	struct trace *t = calloc(1, sizeof(*t));

	if (!t || store__init(&t->store)) {
		free(t);
		return NULL;
	}
	t->exit_status = -1;
	t->duration_s = 2;
	fixture__block_sample(&t->block);
	t->counters[C_READS] = 200;
	t->counters[C_READ_BYTES] = 100 * 32768;
	t->counters[C_READ_NS] = 200 * 20 * MS;
	hist__add(&t->hists[H_READ_LAT], 20 * MS, 200);
	return t;
}

static void trace_block_free(struct trace *t)
{
	block__free(&t->block);
	store__free(&t->store);
	free(t);
}

TEST(report_block_json)
{
	struct trace *t = trace_fixture__block_sample();
	struct findings *f = calloc(1, sizeof(*f));
	struct thresholds th;
	json_t *root, *devs, *d, *un, *io, *layers, *rd;

	REQUIRE(t && t->block.ds_end.v && f);
	thresholds__defaults(&th);
	REQUIRE(trace_judged(f, t, &th) == 0);
	root = json_of(t, f);
	REQUIRE(root);
	devs = json_object_get(json_object_get(root, "block"), "devices");
	REQUIRE(json_is_array(devs));
	CHECK_EQ_U64(json_array_size(devs), 2);
	d = json_array_get(devs, 0);
	CHECK_STR(json_string_value(json_object_get(d, "name")), "loop0");
	CHECK_STR(json_string_value(json_object_get(d, "dev")), "7:0");
	CHECK_EQ_U64(u64_of(d, "reads"), 100);
	CHECK_EQ_U64(u64_of(d, "read_bytes"), 100 * 32768);
	CHECK_EQ_U64(u64_of(d, "writes"), 10);
	CHECK_EQ_U64(u64_of(d, "merged"), 2);
	CHECK_EQ_U64(u64_of(d, "sequential"), 90);
	CHECK_EQ_U64(u64_of(d, "small"), 110);
	CHECK_EQ_U64(u64_of(json_object_get(d, "unfinished"), "reqs"), 1);
	CHECK_EQ_U64(u64_of(json_object_get(d, "unfinished"), "reads"), 1);
	CHECK_EQ_U64(u64_of(json_object_get(d, "unfinished"), "writes"), 0);
	CHECK_EQ_U64(u64_of(json_object_get(d, "untracked"), "reqs"), 2);
	CHECK_EQ_U64(u64_of(json_object_get(d, "untracked"), "writes"), 2);
	un = json_object_get(d, "unattributed");
	CHECK_EQ_U64(u64_of(un, "reqs"), 25);
	CHECK_EQ_U64(u64_of(json_object_get(un, "kthread"), "reqs"), 20);
	CHECK_EQ_U64(u64_of(json_object_get(un, "other"), "bytes"), 5 * 8192);
	CHECK(NEAR(json_real_value(json_object_get(un, "share")), 25.0 / 135));
	io = json_object_get(d, "iostat");
	CHECK_EQ_U64(u64_of(json_object_get(io, "device"), "reads"), 120);
	CHECK_EQ_U64(u64_of(json_object_get(io, "diskstats"), "reads"), 120);
	CHECK(NEAR(json_number_value(json_object_get(json_object_get(io, "target"),
						      "r_await_ms")), 2));
	CHECK(NEAR(json_number_value(json_object_get(json_object_get(io, "target"),
						      "util_pct")), 20));
	/* vda has no diskstats line here: null, not zeros. */
	CHECK(json_is_null(json_object_get(json_object_get(json_array_get(devs, 1),
							   "iostat"), "diskstats")));
	rd = json_object_get(json_object_get(json_object_get(d, "ops"), "read"), "target");
	CHECK_EQ_U64(u64_of(rd, "queue_ns"), 50 * MS);
	CHECK_EQ_U64(u64_of(json_object_get(json_object_get(rd, "latency"), "total"), "count"),
		     100);
	CHECK_EQ_U64(u64_of(json_object_get(json_object_get(rd, "latency"), "queue"), "count"),
		     0);
	layers = json_object_get(root, "layers");
	CHECK_STR(json_string_value(json_object_get(layers, "verdict")), "above_block");
	CHECK_EQ_U64(u64_of(json_object_get(layers, "read"), "count"), 200);
	CHECK_EQ_U64(u64_of(json_object_get(layers, "block_total"), "count"), 100);
	CHECK(NEAR(json_number_value(json_object_get(json_object_get(layers, "block_total"),
						      "mean")), 2 * MS));
	json_decref(root);
	/* Not judged: the latencies all the same, no verdict. */
	root = json_of(t, NULL);
	REQUIRE(root);
	layers = json_object_get(root, "layers");
	CHECK(json_is_null(json_object_get(layers, "verdict")));
	CHECK(json_is_null(json_object_get(layers, "finding")));
	CHECK_EQ_U64(u64_of(json_object_get(layers, "block_total"), "count"), 100);
	json_decref(root);
	free(f);
	trace_block_free(t);
}

TEST(report_block_text)
{
	struct trace *t = trace_fixture__block_sample();
	struct findings *f = calloc(1, sizeof(*f));
	struct thresholds th;
	const struct report_opts full = { .full = true };
	char *buf = NULL;
	size_t len;
	FILE *out;

	REQUIRE(t && t->block.ds_end.v && f);
	thresholds__defaults(&th);
	REQUIRE(trace_judged(f, t, &th) == 0);
	out = open_memstream(&buf, &len);
	REQUIRE(out);
	text_printed(out, t, f, &full);
	fclose(out);
	REQUIRE(buf);
	CHECK(strstr(buf, "block devices, iostat -x over 2.0 s") != NULL);
	CHECK(strstr(buf, "\nloop0      target        50.0") != NULL);
	CHECK(strstr(buf, "\n           diskstats     60.0") != NULL);
	CHECK(strstr(buf, "loop0: target 110 requests") != NULL);
	CHECK(strstr(buf, "not attributed 25 (18.5%: kernel threads 20, other processes 5); 1 unfinished; 2 untracked\n") != NULL);
	CHECK(strstr(buf, "=> time is spent above the block layer") != NULL);
	free(buf);
	/* Not judged: the latencies, no verdict line. */
	buf = NULL;
	out = open_memstream(&buf, &len);
	REQUIRE(out);
	text_printed(out, t, NULL, &full);
	fclose(out);
	REQUIRE(buf);
	CHECK(strstr(buf, "latency by layer, reads") != NULL);
	CHECK(strstr(buf, "=> ") == NULL);
	free(buf);
	free(f);
	trace_block_free(t);
}
