// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The default text report is one screen (brief.c): at most 50 lines of at
 * most 100 columns, whatever the trace holds: the golden fixture, the
 * longest verdict and findings the structs can hold, a target name with
 * no space to break at; what was lost always shown, code and libraries
 * folded into one line, and every table left to --full.
 */
#include <stdlib.h>
#include <string.h>
#include "findings/findings.h"
#include "findings/thresholds.h"
#include "model/trace.h"
#include "lib/units.h"
#include "report/report_test.h"
#include "facts_test.h"
#include "fixture.h"
#include "unit.h"

static char *text_of(const struct trace *t, const struct findings *f, bool full)
{
	struct report_opts o = { .top = 10, .full = full };
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return NULL;
	CHECK_EQ_INT(text_printed(out, t, f, &o), 0);
	fclose(out);
	if (getenv("UNIT_SHOW"))
		fputs(buf, stdout);
	return buf;
}

/* Lines of s, and its widest line in terminal columns. */
static int screen_of(const char *s, int *widest)
{
	int lines = 0;

	*widest = 0;
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		char line[1024];
		int cols;

		snprintf(line, sizeof(line), "%.*s", (int)n, s);
		cols = units__cols(line);
		if (cols > *widest)
			*widest = cols;
		lines++;
		s += n + (nl != NULL);
	}
	return lines;
}

#define CHECK_SCREEN(s) do {						\
	int w_, n_ = screen_of(s, &w_);					\
	CHECK(n_ <= REPORT_BRIEF_LINES);				\
	CHECK(w_ <= REPORT_BRIEF_COLS);					\
	if (n_ > REPORT_BRIEF_LINES || w_ > REPORT_BRIEF_COLS)		\
		fprintf(stderr, "  %d lines, widest %d columns\n", n_, w_); \
} while (0)

static struct trace *judged_fixture(struct findings **f)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct thresholds th;

	*f = calloc(1, sizeof(**f));
	if (!t || !*f || fixture__trace(t)) {
		free(t);
		free(*f);
		return NULL;
	}
	thresholds__defaults(&th);
	CHECK_EQ_INT(trace_judged(*f, t, &th), 0);
	return t;
}

static void fixture_free(struct trace *t, struct findings *f)
{
	fixture__free(t);
	free(t);
	free(f);
}

/* The golden fixture: 224 lines of up to 361 columns in full, one screen by default. */
TEST(brief_fixture_one_screen)
{
	struct findings *f;
	struct trace *t = judged_fixture(&f);
	char *brief, *full;
	int w;

	REQUIRE(t);
	brief = text_of(t, f, false);
	full = text_of(t, f, true);
	REQUIRE(brief && full);
	CHECK_SCREEN(brief);
	CHECK(screen_of(full, &w) > REPORT_BRIEF_LINES);	/* the test can fail */
	CHECK(w > REPORT_BRIEF_COLS);
	/* The same first line, verdict, loop and losses as the full report. */
	CHECK(!strncmp(brief, full, strchr(full, '\n') - full + 1));
	CHECK_HAS(brief, "\nVERDICT: the training loop waits for data 24% of its time");
	CHECK_HAS(brief, "\ntraining loop: python3 (tid 4242,");
	CHECK_HAS(brief, "waiting for a CPU 1.5%");
	CHECK(!strstr(brief, "runnable"));
	CHECK_HAS(brief, "\nlost: 27 events (files map full 12,");
	CHECK_HAS(brief, "\nwarning: the counts above are incomplete\n");
	CHECK_HAS(brief, "iostorm --full\n");
	/* The dataset's files, the code one line: no .so among the top files. */
	CHECK_HAS(brief, "\nfiles     at least 49 distinct files (44 of the dataset, 5 code)");
	CHECK_HAS(brief, "\ncode      5 files (modules, libraries, system files), 6 opens, 3 reads");
	CHECK_HAS(brief, "\ntop dataset files by I/O time");
	CHECK_HAS(brief, "\n/data/shards/train-00000-of-00004.tfrecord ");
	CHECK_HAS(brief, " 192 MiB ");			/* IEC units */
	CHECK(!strstr(brief, "_multiarray_umath"));
	CHECK_HAS(full, "_multiarray_umath");
	CHECK_HAS(brief, "\nlatency by layer, reads");
	CHECK_HAS(brief, "\ndevice    nvme0n1: 37.3% busy");
	/* Every table is the full report's alone. */
	CHECK(!strstr(brief, "read latency, "));
	CHECK(!strstr(brief, "iostat -x"));
	CHECK(!strstr(brief, "top directories"));
	CHECK(!strstr(brief, "busiest threads"));
	CHECK_HAS(full, "read latency, ");
	CHECK_HAS(full, "busiest threads");
	free(brief);
	free(full);
	fixture_free(t, f);
}

/*
 * A node's loops in two workloads (fixture__node_trace()): one screen, and
 * when the loops' lines must go, each workload keeps its line.
 */
TEST(brief_node_loops_one_screen)
{
	struct findings *f = calloc(1, sizeof(*f));
	struct trace *t = calloc(1, sizeof(*t));
	struct thresholds th;
	char *brief;

	if (!f || !t || fixture__node_trace(t)) {
		free(t);
		free(f);
		REQUIRE(!"the node fixture trace");
	}
	thresholds__defaults(&th);
	CHECK_EQ_INT(trace_judged(f, t, &th), 0);
	brief = text_of(t, f, false);
	REQUIRE(brief);
	CHECK_SCREEN(brief);
	CHECK_HAS(brief, "\ntraining loops: 3 (one per process: data-parallel ranks) in 2 workloads;");
	CHECK_HAS(brief, "\n  pod 8f2c1d4e-97ab-4c1e-b7a2-5d3e9f0a1b2c: 2 loops, the worst waits");
	CHECK_HAS(brief, "\n  Slurm job 4242: 1 loop, it waits for data 18% (cause small_file_storm)");
	free(brief);
	fixture_free(t, f);
}

static void fill(char *s, size_t len, const char *word)
{
	size_t n = 0;

	while (n + strlen(word) + 2 < len)
		n += snprintf(s + n, len - n, "%s ", word);
	s[n ? n - 1 : 0] = '\0';
}

/*
 * The most the findings can say: every slot used, each summary, advice
 * and the headline full. The screen still holds, the least important cut
 * first: advice, then INFO and OK findings; the verdict and losses stay.
 */
TEST(brief_budget_cuts_least_important)
{
	struct findings *f;
	struct trace *t = judged_fixture(&f);
	char *s;

	REQUIRE(t);
	fill(f->headline, sizeof(f->headline), "VERDICT: waits");
	for (int i = 0; i < FINDINGS_MAX; i++) {
		struct finding *x = &f->findings[i];

		x->id = "made_up";
		x->severity = i < 2 ? SEV_HIGH : i < 6 ? SEV_WARN : SEV_INFO;
		fill(x->summary, sizeof(x->summary), i < 6 ? "severe" : "minor");
		fill(x->advice, sizeof(x->advice), "advice");
	}
	f->nr_findings = FINDINGS_MAX;
	s = text_of(t, f, false);
	REQUIRE(s);
	CHECK_SCREEN(s);
	CHECK_HAS(s, "\nVERDICT: waits VERDICT: waits");
	CHECK_HAS(s, "\n  HIGH severe severe");
	CHECK(!strstr(s, "minor"));		/* INFO cut before HIGH and WARN */
	CHECK(!strstr(s, "-> advice"));
	CHECK_HAS(s, "\nlost: 27 events");
	free(s);

	/* A short verdict, one finding: it keeps its advice. */
	snprintf(f->headline, sizeof(f->headline), "VERDICT: short");
	f->nr_findings = 1;
	s = text_of(t, f, false);
	REQUIRE(s);
	CHECK_SCREEN(s);
	CHECK_HAS(s, "\n       -> advice advice");
	free(s);
	fixture_free(t, f);
}

/* A target whose name has no space to break at: cut at the screen's edge. */
TEST(brief_wraps_unbreakable)
{
	struct findings *f;
	struct trace *t = judged_fixture(&f);
	char *s;

	REQUIRE(t);
	memset(t->target, 'x', sizeof(t->target) - 1);
	t->target[sizeof(t->target) - 1] = '\0';
	s = text_of(t, f, false);
	REQUIRE(s);
	CHECK_SCREEN(s);
	CHECK(!strncmp(s, "iostorm:", 8));
	CHECK_HAS(s, "\n  xxxxxxxx");
	free(s);
	fixture_free(t, f);
}

/* A storm on NFS: the mount's round trips and latency by layer, on the screen. */
TEST(brief_nfs)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct findings *f = calloc(1, sizeof(*f));
	struct thresholds th;
	char *s;

	if (!t || !f || fixture__nfs_trace(t, "/run/nfs", true)) {
		free(f);
		free(t);
		REQUIRE(!"the NFS fixture trace");
	}
	thresholds__defaults(&th);
	CHECK_EQ_INT(trace_judged(f, t, &th), 0);
	s = text_of(t, f, false);
	REQUIRE(s);
	CHECK_SCREEN(s);
	CHECK_HAS(s, "\nVERDICT: NFS: each file costs 4.1 round trips of 1.1ms");
	CHECK_HAS(s, "\nNFS calls: nfs4 10.0.0.5:/data on /run/nfs (RPC client 7, NFSv4.2");
	CHECK_HAS(s, "\n  target 1640 calls: 4.1 round trips per file opened");
	CHECK_HAS(s, "\n  READ/READ_PLUS calls                  400   1.31ms");
	CHECK(!strstr(s, "procedure        calls"));	/* the table is --full's */
	CHECK(!strstr(s, "the NFS client's own calls"));
	free(s);
	fixture_free(t, f);
}

/* Nothing traced: said, with the losses, on a few lines. */
TEST(brief_empty)
{
	struct trace *t = calloc(1, sizeof(*t));
	char *s;

	REQUIRE(t);
	REQUIRE(!store__init(&t->store));
	snprintf(t->target, sizeof(t->target), "all processes");
	t->duration_s = 5;
	t->stopped_by = STOP_DURATION;
	s = text_of(t, NULL, false);
	REQUIRE(s);
	CHECK_STR(s, "iostorm: all processes, traced 5.0 s (stopped by duration)\n\n"
		     "no file I/O by the target was seen\n\n"
		     "lost: 0 events\n"
		     "every table (histograms, mounts, devices, files, directories, threads): "
		     "iostorm --full\n");
	free(s);
	store__free(&t->store);
	free(t);
}
