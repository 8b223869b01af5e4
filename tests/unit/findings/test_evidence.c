// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The evidence (evidence.c) taken from a synthetic trace: its figures,
 * code kept apart, the order files are read in.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "model/hist.h"
#include "model/trace.h"
#include "findings/rules.h"
#include "facts_test.h"
#include "judged.h"
#include "scenes.h"
#include "unit.h"

/* file_order_random of n files /d/fNNNNN first read in the order of idx[]. */
static double order_of(const int *idx, int n)
{
	struct trace *t = scene__trace_new();
	struct evidence e;
	char path[64];

	if (!t)
		return NAN;
	t->duration_s = 1;
	for (int pos = 0; pos < n; pos++) {
		snprintf(path, sizeof(path), "/d/f%05d", idx[pos]);
		if (scene__add_file(&t->store, 1 + idx[pos], path, 1000, 1000, 1000 + pos))
			return NAN;
	}
	if (trace_evidence(&e, t))
		e.file_order_random = NAN;
	scene__trace_free(t);
	return e.file_order_random;
}

TEST(evidence_from_trace)
{
	struct trace *t = scene__trace_new();
	struct evidence e;
	char path[64];
	long page = sysconf(_SC_PAGESIZE);

	REQUIRE(t);
	trace__machine(t);
	t->duration_s = 2;
	/* 20 files: 19 of 100,000 bytes read whole, one of 300,000 read to 100,000. */
	for (int i = 0; i < 20; i++) {
		snprintf(path, sizeof(path), "/data/c%02d/f.jpg", i);
		REQUIRE(!scene__add_file(&t->store, 10 + i, path, i == 7 ? 300000 : 100000,
				  100000, 1000 + i));
	}
	REQUIRE(!scene__add_file(&t->store, 99, "/data/unread", 5000, 0, 1));
	{	/* a directory, listed and read: not a regular file */
		struct file_key k = { .ino = 98, .dev = 8 << 20 | 1 };
		struct file_stats fs = { .reads = 1, .getdents = 2, .flags = FILE_F_DIR };

		REQUIRE(!store__merge_file(&t->store, &k, &fs));
	}
	REQUIRE(!scene__add_thread(&t->store, 101, 10, 100, 300, 0, 100));
	REQUIRE(!scene__add_thread(&t->store, 102, 10, 100, 300, 0, 100));
	REQUIRE(!scene__add_thread(&t->store, 103, 0, 1000000, 0, 0, 0));	/* no I/O */
	t->counters[C_OPENS] = 22;
	t->counters[C_READS] = 50;
	t->counters[C_READ_BYTES] = 4000000;
	t->counters[C_READ_NS] = 3000000000ULL;
	t->counters[C_META_NS] = 1000000000ULL;
	t->counters[C_STATS] = 20;
	t->counters[C_CACHE_PAGES] = 500;
	/* 20 reads of 100,000 bytes and 10 of 1 MiB; 20 EOF reads of 0 bytes. */
	hist__add(&t->hists[H_READ_SIZE], 100000, 20);
	hist__add(&t->hists[H_READ_SIZE], 1 << 20, 10);
	hist__add(&t->hists[H_READ_SIZE], 0, 20);
	hist__add(&t->hists[H_READ_LAT], 5000, 40);
	hist__add(&t->hists[H_READ_LAT], 2000000, 10);

	REQUIRE(!trace_evidence(&e, t));
	CHECK_EQ_U64(e.files_read, 20);
	CHECK_NEAR(e.files_per_s, 10, 1e-9);
	CHECK_NEAR(e.median_file_bytes, 100000, 0);
	CHECK_NEAR(e.whole_file_share, 19 / 20.0, 1e-9);
	CHECK_NEAR(e.file_order_random, 0, 1e-9);	/* first read in path order */
	CHECK_NEAR(e.small_read_share, 20 / 30.0, 1e-9);
	CHECK_NEAR(e.meta_share, 0.25, 1e-9);
	CHECK_NEAR(e.read_mean_us, 60000, 1e-6);
	CHECK_NEAR(e.read_p50_us, hist__quantile(&t->hists[H_READ_LAT], 0.5) / 1e3, 0);
	CHECK(e.read_p50_us >= 5 && e.read_p50_us <= 5 * (1 + HIST_REL_ERROR));
	CHECK(e.read_p99_us >= 2000 && e.read_p99_us <= 2000 * (1 + HIST_REL_ERROR));
	CHECK_NEAR(e.read_concurrency, 1.5, 1e-9);
	CHECK_NEAR(e.reads_per_s, 25, 1e-9);
	CHECK_EQ_U64(e.io_threads, 2);
	CHECK_NEAR(e.cpu_share, 0.2, 1e-9);
	CHECK_NEAR(e.io_wait_share, 0.6, 1e-9);
	CHECK_NEAR(e.runq_share, 0, 1e-9);
	CHECK_NEAR(e.sleep_share, 0.2, 1e-9);
	CHECK_EQ_U64(e.cache_bytes, 500 * (__u64)page);
	CHECK_NEAR(e.miss_share, 500.0 * page / 4000000, 1e-9);
	CHECK_EQ_U64(e.working_set_bytes, 20 * 100000ULL);
	CHECK_EQ_U64(e.reread_bytes, 4000000 - 2000000);
	CHECK(e.mem_total_bytes > 0);		/* the machine's, from the trace */
	CHECK_EQ_U64(e.mem_total_bytes, t->mem_bytes);
	CHECK(!e.have_block);
	CHECK_EQ_INT(e.layer, LAYER_NONE);
	scene__trace_free(t);
}

/* Code files read at start-up are kept out of the dataset's figures. */
TEST(evidence_code_apart)
{
	struct trace *t = scene__trace_new();
	struct evidence e;
	char path[96];

	REQUIRE(t);
	t->duration_s = 1;
	for (int i = 0; i < 1500; i++) {
		snprintf(path, sizeof(path),
			 "/venv/lib/python3.11/site-packages/p/__pycache__/m%d.cpython-311.pyc", i);
		REQUIRE(!scene__add_file(&t->store, 1000 + i, path, 2000, 2000, 1 + i));
	}
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "/data/shards/shard-%d.tar", i);
		REQUIRE(!scene__add_file(&t->store, 10 + i, path, 1 << 28, 1 << 28, 5000 + i));
	}
	t->counters[C_OPENS] = 1504;
	t->counters[C_READS] = 1504;
	REQUIRE(!trace_evidence(&e, t));
	CHECK_EQ_U64(e.files_read, 4);
	CHECK_EQ_U64(e.code_files, 1500);
	CHECK_EQ_U64(e.code_opens, 1500);
	CHECK_EQ_U64(e.opens, 4);
	CHECK_NEAR(e.median_file_bytes, 1 << 28, 0);
	scene__trace_free(t);
}

TEST(evidence_file_order)
{
	enum { N = 2000, WORKERS = 8, BATCH = 32 };
	static int idx[N];

	for (int i = 0; i < N; i++)
		idx[i] = i;
	CHECK_NEAR(order_of(idx, N), 0, 1e-9);			/* path order */
	for (int i = 0; i < N; i++)
		idx[i] = N - 1 - i;
	CHECK_NEAR(order_of(idx, N), 0, 1e-9);			/* reverse: still an order */
	/*
	 * 8 DataLoader-style workers, each reading its own batches of 32
	 * consecutive files in path order, interleaved file by file: half of
	 * adjacent pairs step backwards, yet the job reads in path order.
	 */
	for (int pos = 0; pos < N; pos++) {
		int round = pos / (WORKERS * BATCH), w = pos % WORKERS;
		int k = (pos % (WORKERS * BATCH)) / WORKERS;

		idx[pos] = (round * WORKERS + w) * BATCH + k;
	}
	CHECK(order_of(idx, N) < 0.05);
	for (int i = 0; i < N; i++)
		idx[i] = i;
	scene__shuffle(idx, N);
	CHECK(order_of(idx, N) > 0.9);				/* a shuffle */
	CHECK_NEAR(order_of(idx, 9), -1, 0);			/* too few files */
}

/*
 * ImageFolder's index: every file stat-ed (first touched) in path order at
 * start-up, then read shuffled. The order is the reads', not the touches'.
 */
TEST(evidence_file_order_first_read)
{
	enum { N = 500 };
	static int idx[N];
	struct trace *t = scene__trace_new();
	struct evidence e;

	REQUIRE(t);
	t->duration_s = 1;
	for (int i = 0; i < N; i++)
		idx[i] = i;
	scene__shuffle(idx, N);
	for (int i = 0; i < N; i++) {
		struct file_key k = { .ino = 1 + i, .dev = 8 << 20 | 1 };
		struct file_stats st = { .stats = 1, .flags = FILE_F_REG | FILE_F_PATH,
					 .first_ts = 1000 + i, .last_ts = 1000 + i };
		struct file_stats rd = { .size = 1000, .reads = 1, .read_bytes = 1000,
					 .flags = FILE_F_REG | FILE_F_READ, .first_end = 1000,
					 .last_end = 1000, .max_end = 1000,
					 .first_ts = 1000000 + idx[i], .last_ts = 1000000 + idx[i],
					 .read_ts = 1000000 + idx[i] };

		snprintf(st.path, sizeof(st.path), "/d/f%05d", i);
		st.path_len = strlen(st.path);
		/* Two intervals: the stat in the first, the read in the second. */
		REQUIRE(!store__merge_file(&t->store, &k, &st));
		REQUIRE(!store__merge_file(&t->store, &k, &rd));
	}
	REQUIRE(!trace_evidence(&e, t));
	CHECK(e.file_order_random > 0.9);
	scene__trace_free(t);
}
