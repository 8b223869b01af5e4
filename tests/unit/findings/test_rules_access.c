// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The access rules (rules_access.c): the storm of the small-file issue's
 * scenarios, packed shards, metadata, mapped and io_uring storms, on
 * evidence built by hand or from a synthetic trace.
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

/*
 * A storm through io_uring: one loader thread keeps 8 reads in flight on
 * its ring (no read() at all), 2,000 files of 80 KB read whole in random
 * order in 2 s. It is judged a storm as the same trace read by read() is,
 * and the reads in flight (Little's law on the requests' submit-to-
 * completion time) are the ring's depth.
 */
static struct trace *uring_storm(bool uring)
{
	enum { N = 2000, DEPTH = 8 };
	static int idx[N];
	struct trace *t = scene__trace_new();
	char path[64];

	if (!t)
		return NULL;
	trace__machine(t);
	t->duration_s = 2;
	for (int i = 0; i < N; i++)
		idx[i] = i;
	scene__shuffle(idx, N);
	for (int pos = 0; pos < N; pos++) {
		snprintf(path, sizeof(path), "/data/c%02d/f%05d.jpg", idx[pos] % 20, idx[pos]);
		if (scene__add_file(&t->store, 10 + idx[pos], path, 80000, 80000, 1000 + pos))
			return NULL;
	}
	if (scene__add_thread(&t->store, 101, N, 100000000, 1800000000, 0, 100000000))
		return NULL;
	t->counters[C_OPENS] = N;
	t->counters[C_READS] = N;
	t->counters[C_READ_BYTES] = N * 80000ULL;
	t->counters[C_READ_NS] = DEPTH * 2000000000ULL;	/* 8 in flight for 2 s */
	t->counters[C_CACHE_PAGES] = N * 20;
	if (uring) {
		t->counters[C_URING_READS] = N;
		t->counters[C_URING_READ_BYTES] = N * 80000ULL;
		t->counters[C_ASYNC_SUBMITS] = N;
		t->counters[C_ASYNC_DEPTH_SUM] = N * DEPTH;
		hist__add(&t->hists[H_URING_LAT], 8000000, N);
		hist__add(&t->hists[H_ASYNC_DEPTH], DEPTH, N);
	}
	hist__add(&t->hists[H_READ_SIZE], 80000, N);
	hist__add(&t->hists[H_READ_LAT], 8000000, N);
	return t;
}

TEST(verdict_storm_cold_capped)
{
	struct evidence e;
	struct judged j;
	const struct finding *f;

	scene__storm_cold_capped(&e);
	judge(&e, NULL, &j);
	REQUIRE(j.n > 0);
	CHECK_EQ_INT(j.f[0].severity, SEV_HIGH);
	for (int i = 1; i < j.n; i++)
		CHECK(j.f[i].severity <= j.f[i - 1].severity);

	f = get(&j, "small_file_storm");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_HIGH);
	CHECK_STR(f->label, "small-file random-read storm");
	CHECK_STR(f->summary, "small-file storm: 20000 files of median 78 KiB read whole "
			      "in random order at 1.0k files/s");
	CHECK_EQ_INT(figure(f, "files_read"), 20000);
	CHECK_EQ_INT(figure(f, "median_file_bytes"), 80000);
	/* 1.6 GB in 256 MiB shards: 6 (5.96); 80 MB/s in 1 MiB reads: 76 reads/s. */
	CHECK_EQ_INT(figure(f, "shards"), 6);
	CHECK_NEAR(figure(f, "packed_reads_per_s"), 80e6 / 1048576, 1e-9);
	CHECK_NEAR(figure(f, "shard_opens_per_s"), 80e6 / 268435456, 1e-9);
	CHECK_HAS(f->advice, "into 6 shards of 256 MiB");
	CHECK_HAS(f->advice, "~76 reads/s instead of 2.0k");
	CHECK_HAS(f->advice, "0.3 shard opens/s instead of 1.0k opens/s");

	f = get(&j, "storage_bottleneck");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_HIGH);
	CHECK_STR(f->label, "throttled above the device");
	CHECK_HAS(f->summary, "read() mean 4.0ms but block await 200µs");
	CHECK_NEAR(figure(f, "io_wait_share"), 0.8, 0);

	/* Drishti-like block findings: both well over their thresholds. */
	f = get(&j, "random_access");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_HIGH);
	CHECK_HAS(f->summary, "90% of 20000 read requests");
	f = get(&j, "small_requests");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_HIGH);
	CHECK_HAS(f->summary, "(mean 78 KiB)");

	/* 1.6 GB of 16 GiB fits: caching would remove the I/O after epoch 1. */
	f = get(&j, "page_cache");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_INFO);
	CHECK_STR(f->label, "working set fits in memory");
	CHECK(!get(&j, "cpu_bound"));
	CHECK(!get(&j, "metadata_overhead"));	/* 10% < 30% */

	CHECK_STR(j.headline, "VERDICT: small-file random-read storm, storage-bound (HIGH): "
			      "80% of loader thread time waits on I/O; pack files into shards");
}

/* Scenario 2: the same 1.6 GB packed into 7 shards of 256 MB read in 1 MiB reads. */
TEST(verdict_packed_shards)
{
	struct evidence e;
	struct judged j;
	const struct finding *f;

	scene__storm_cold_capped(&e);
	e.files_read = 7;
	e.opens = 7;
	e.stats = 7;
	e.files_per_s = 0.35;
	e.opens_per_s = 0.35;
	e.reads = 1540;
	e.reads_per_s = 77;
	e.median_file_bytes = 256e6;
	e.file_order_random = -1;
	e.small_read_share = 0;
	e.meta_share = 0.001;
	e.read_p50_us = 2000;
	e.read_mean_us = 2000;
	e.read_concurrency = 0.15;
	e.cpu_share = 0.6;
	e.io_wait_share = 0.1;
	e.runq_share = 0.02;
	e.sleep_share = 0.28;
	e.blk_reads = 6200;		/* readahead: 256 KiB requests */
	e.blk_reads_per_s = 310;
	e.blk_random_share = 0.02;
	e.blk_small_share = 0.01;
	e.blk_await_ms = 0.5;
	e.blk_util = 0.3;
	e.blk_inflight_mean = 0.2;
	e.layer = LAYER_OK;
	judge(&e, NULL, &j);

	CHECK(!get(&j, "small_file_storm"));
	CHECK(!get(&j, "parallelism"));
	f = get(&j, "storage_bottleneck");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_OK);
	f = get(&j, "random_access");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_OK);
	CHECK_HAS(f->summary, "98% of 6200 read requests continue");
	f = get(&j, "small_requests");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_OK);
	for (int i = 0; i < j.n; i++)
		CHECK(j.f[i].severity <= SEV_INFO);
	CHECK_STR(j.headline, "VERDICT: storage keeps up");
}

/* Scenario 3: the storm again, from a warm page cache. */
/* Files lost to a full kernel map: the storm's counts say "at least". */
TEST(verdict_storm_lower_bound)
{
	struct evidence e;
	struct judged j;
	const struct finding *f;

	scene__storm_cold_capped(&e);
	e.files_read = 127000;
	e.files_lower_bound = true;
	judge(&e, NULL, &j);
	f = get(&j, "small_file_storm");
	REQUIRE(f);
	CHECK_HAS(f->summary, "small-file storm: at least 127k files of median 78 KiB");
	CHECK_HAS(f->summary, "in random order, at least 1.0k files/s");
	CHECK_HAS(f->advice, "pack the files (at least 127k, 1.5 GiB) into");
	CHECK_EQ_INT(figure(f, "files_lower_bound"), 1);
	scene__storm_cold_capped(&e);
	judge(&e, NULL, &j);
	CHECK(isnan(figure(get(&j, "small_file_storm"), "files_lower_bound")));
}

/*
 * A phase's storm: which distinct files a phase read is not kept, so it
 * names the run's files and counts its own opens (a warm phase of 7 epochs
 * once said "14060 files" of a 2,000-file dataset).
 */
TEST(verdict_storm_in_a_phase)
{
	struct evidence e;
	struct judged j;
	const struct finding *f;

	scene__storm_cold_capped(&e);
	e.files_read = 2000;
	e.phase_file_opens = 14060;
	e.files_per_s = 4300;
	judge(&e, NULL, &j);
	f = get(&j, "small_file_storm");
	REQUIRE(f);
	CHECK_STR(f->summary, "small-file storm: 14060 opens of the run's 2000 files of median "
			      "78 KiB read whole in random order at 4.3k opens/s");
	CHECK_HAS(f->advice, "pack the 2000 files (");
}

TEST(verdict_storm_warm_cache)
{
	struct evidence e;
	struct judged j;
	const struct finding *f;

	scene__storm_cold_capped(&e);
	e.files_per_s = 16500;
	e.opens_per_s = 16500;
	e.reads_per_s = 33000;
	e.read_bytes_per_s = 1.32e9;
	e.read_p50_us = 15;
	e.read_mean_us = 20;
	e.read_concurrency = 0.66;
	e.cpu_share = 0.6;
	e.io_wait_share = 0.02;
	e.runq_share = 0.05;
	e.sleep_share = 0.33;
	e.cache_bytes = 0;
	e.miss_share = 0;
	e.blk_reads = 40;
	e.blk_reads_per_s = 2;
	e.layer = LAYER_CACHE;
	judge(&e, NULL, &j);

	f = get(&j, "small_file_storm");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_INFO);
	CHECK_HAS(f->summary, "at 16.5k files/s, served from the page cache for now");
	f = get(&j, "storage_bottleneck");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_OK);
	CHECK_HAS(f->summary, "storage is not the bottleneck");
	CHECK(!get(&j, "random_access"));	/* 40 requests: too few to judge */
	CHECK(!get(&j, "parallelism"));
	CHECK(!get(&j, "cpu_bound"));		/* 60% + 5% < 70% */
	for (int i = 0; i < j.n; i++)
		CHECK(j.f[i].severity < SEV_WARN);
	CHECK_STR(j.headline, "VERDICT: storage keeps up: reads served from the page cache");

	/* Without the block layer, the miss share alone says the same. */
	e.have_block = false;
	e.layer = LAYER_NONE;
	judge(&e, NULL, &j);
	f = get(&j, "storage_bottleneck");
	REQUIRE(f);
	CHECK_STR(f->label, "reads served from the page cache");
	CHECK_EQ_INT(get(&j, "small_file_storm")->severity, SEV_INFO);
}

TEST(verdict_metadata_and_little_io)
{
	struct evidence e;
	struct judged j;
	const struct finding *f;

	scene__storm_cold_capped(&e);
	e.meta_share = 0.7;		/* e.g. NFS: opens and stats dominate */
	e.meta_s = 373;
	e.open_p50_us = 9000;
	judge(&e, NULL, &j);
	f = get(&j, "metadata_overhead");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_HIGH);
	CHECK_HAS(f->summary, "70% of file I/O time");
	CHECK_HAS(f->summary, "1.0 stats per open");
	e.meta_share = 0.4;
	judge(&e, NULL, &j);
	CHECK_EQ_INT(get(&j, "metadata_overhead")->severity, SEV_WARN);

	/* Almost nothing read: one finding, and it says so. */
	memset(&e, 0, sizeof(e));
	e.duration_s = 10;
	e.reads = 37;
	e.opens = 2;
	judge(&e, NULL, &j);
	REQUIRE(j.n == 1);
	CHECK_STR(j.f[0].id, "little_io");
	CHECK_STR(j.headline, "VERDICT: too little file I/O to judge: 37 reads and 2 opens "
			      "in 10.0 s");
}

/*
 * A mapped dataset: 3,000 faults read 3,000 pages, random, and 5 reads;
 * min_reads counts the faults, mapped_reads leads the verdict.
 */
TEST(verdict_mapped_random)
{
	struct evidence e;
	struct judged j;
	const struct finding *m;

	memset(&e, 0, sizeof(e));
	e.duration_s = 10;
	e.reads = 5;
	e.fault_reads = 3000;
	e.fault_bytes = 3000 * 4096;
	e.fault_reads_per_s = 300;
	e.fault_random_share = 1;
	e.fault_wait_s = 9;
	e.files_mapped = 1;
	e.mapped_bytes = 64ULL << 30;
	e.mem_total_bytes = 16ULL << 30;
	e.io_wait_share = 0.9;
	e.miss_share = -1;
	e.file_order_random = e.blk_random_share = e.blk_small_share = -1;
	e.median_file_bytes = -1;
	judge(&e, NULL, &j);
	CHECK(!get(&j, "little_io"));
	m = get(&j, "mapped_reads");
	REQUIRE(m);
	CHECK_EQ_U64(m->severity, SEV_HIGH);
	CHECK_NEAR(figure(m, "fault_reads"), 3000, 0);
	CHECK(strstr(m->advice, "MADV_RANDOM") && strstr(m->advice, "more than the page cache"));
	CHECK(!strncmp(j.headline, "VERDICT: random reads through a file mapping", 44));
	/* Below mapped_min_faults, with few reads: too little to judge, faults said. */
	e.fault_reads = 50;
	judge(&e, NULL, &j);
	REQUIRE(get(&j, "little_io"));
	CHECK(strstr(get(&j, "little_io")->summary, "50 faults on mapped data"));
}

TEST(verdict_uring_storm)
{
	struct trace *t = uring_storm(true), *r = uring_storm(false);
	struct evidence e, er;
	struct judged j, jr;
	const struct finding *f;

	REQUIRE(t && r);
	REQUIRE(!trace_evidence(&e, t));
	REQUIRE(!trace_evidence(&er, r));
	CHECK_EQ_U64(e.files_read, 2000);
	CHECK_NEAR(e.files_per_s, 1000, 1e-9);
	CHECK_NEAR(e.read_concurrency, 8, 1e-9);	/* the ring's depth */
	CHECK_NEAR(e.reads_per_s, 1000, 1e-9);
	CHECK(e.file_order_random > 0.9);
	judge(&e, NULL, &j);
	judge(&er, NULL, &jr);
	f = get(&j, "small_file_storm");
	REQUIRE(f);
	CHECK_HAS(f->summary, "small-file storm: 2000 files of median 78 KiB read whole");
	CHECK_STR(j.headline, jr.headline);		/* io_uring or read(): one storm */
	CHECK_EQ_INT(j.n, jr.n);
	for (int i = 0; i < j.n && i < jr.n; i++)
		CHECK_STR(j.f[i].summary, jr.f[i].summary);
	scene__trace_free(t);
	scene__trace_free(r);
}

/* The same storm over NFS: the verdict names NFS, the round trips and the network. */
TEST(verdict_storm_on_nfs)
{
	struct evidence e;
	struct judged j;
	const struct finding *f;

	scene__storm_cold_capped(&e);
	e.have_block = false;
	e.blk_reads = 0;
	e.layer = LAYER_NONE;
	e.have_nfs = true;
	e.nfs_calls = 80000;
	e.nfs_read_bytes = e.read_bytes;
	e.nfs_round_trips = 4;
	e.nfs_rtt_us = 1100;
	e.nfs_total_us = 1300;
	e.nfs_read_p50_us = 1310;
	e.nfs_calls_per_s = 4000;
	e.nfs_nconnect = 1;
	e.nfs_rsize = 524288;
	snprintf(e.nfs_fs, sizeof(e.nfs_fs), "nfs4 10.0.0.5:/data");
	snprintf(e.nfs_mount, sizeof(e.nfs_mount), "/mnt/data");
	snprintf(e.nfs_per_file, sizeof(e.nfs_per_file), "CLOSE 1.0, LOOKUP 1.0, OPEN 1.0, "
		 "READ 1.0");
	judge(&e, NULL, &j);
	f = get(&j, "nfs_round_trips");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_HIGH);
	CHECK_STR(f->label, "small-file storm on NFS: 4 round trips of 1.1ms a file");
	CHECK_HAS(f->summary, "small-file storm on NFS (nfs4 10.0.0.5:/data at /mnt/data): "
		  "each file costs 4 round trips of 1.1ms (CLOSE 1.0, LOOKUP 1.0, OPEN 1.0, "
		  "READ 1.0)");
	CHECK_HAS(f->advice, "pack files into shards");
	CHECK_HAS(f->advice, "nocto,actimeo=600");
	CHECK_HAS(f->advice, "nconnect=8 (8 connections, now 1)");
	CHECK_HAS(f->advice, "rsize=1048576 (now 524288)");
	CHECK_HAS(f->advice, "FS-Cache");
	CHECK_NEAR(figure(f, "nfs_round_trips_per_file"), 4, 0);
	CHECK_HAS(j.headline, "VERDICT: small-file storm on NFS: 4 round trips of 1.1ms a file, "
		  "storage-bound (HIGH)");
	REQUIRE((f = get(&j, "storage_bottleneck")));
	CHECK_HAS(f->summary, "no block requests: the reads go over the network to NFS "
		  "(nfs4 10.0.0.5:/data at /mnt/data)");
	CHECK_HAS(f->advice, "over the network to the NFS server");
	/* The small-file storm is judged as one too, beside it. */
	REQUIRE((f = get(&j, "small_file_storm")));
	CHECK_EQ_INT(f->severity, SEV_HIGH);

	/* A mount that has what would help is not told to add it. */
	e.nfs_nocto = true;
	e.nfs_nconnect = 8;
	e.nfs_rsize = 1048576;
	judge(&e, NULL, &j);
	REQUIRE((f = get(&j, "nfs_round_trips")));
	CHECK(!strstr(f->advice, "nocto") && !strstr(f->advice, "nconnect") &&
	      !strstr(f->advice, "rsize="));
	/* Few files: round trips, not a storm; too few calls: no finding. */
	e.files_read = 50;
	judge(&e, NULL, &j);
	REQUIRE((f = get(&j, "nfs_round_trips")));
	CHECK_STR(f->label, "NFS: each file costs 4 round trips of 1.1ms");
	e.nfs_calls = 10;
	judge(&e, NULL, &j);
	CHECK(!get(&j, "nfs_round_trips"));
}
