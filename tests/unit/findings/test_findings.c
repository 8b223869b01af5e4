// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The verdict: the five scenarios of the small-file storm issue, evidence
 * taken from a synthetic trace, file order, thresholds.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "model/hist.h"
#include "model/trace.h"
#include "findings/rules.h"
#include "judged.h"
#include "unit.h"

#define GIB	(1024.0 * 1024 * 1024)

static double figure(const struct finding *f, const char *name)
{
	const struct figure *g = finding__figure(f, name);

	return g ? g->value : NAN;
}

/*
 * Scenario 1: 20,000 files of ~80 KB read whole in random order by 8
 * threads from storage capped at ~1,000 IOPS above the device, cold cache.
 */
static void storm_cold_capped(struct evidence *e)
{
	memset(e, 0, sizeof(*e));
	e->duration_s = 20;
	e->files_read = 20000;
	e->opens = 20000;
	e->reads = 40000;		/* a data read and an EOF read per file */
	e->read_bytes = 20000 * 80000ULL;
	e->stats = 20000;
	e->files_per_s = 1000;
	e->opens_per_s = 1000;
	e->reads_per_s = 2000;
	e->read_bytes_per_s = 80e6;
	e->median_file_bytes = 80000;
	e->whole_file_share = 1;
	e->file_order_random = 0.98;
	e->small_read_share = 1;
	e->meta_share = 0.1;
	e->meta_s = 17.8;
	e->read_s = 160;
	e->read_p50_us = 7900;
	e->read_p99_us = 16000;
	e->read_mean_us = 4000;
	e->open_p50_us = 30;
	e->stat_p50_us = 10;
	e->io_threads = 8;
	e->cpu_share = 0.1;
	e->io_wait_share = 0.8;
	e->runq_share = 0.02;
	e->sleep_share = 0.08;
	e->read_concurrency = 8;
	e->cache_bytes = e->read_bytes;
	e->miss_share = 1;
	e->working_set_bytes = e->read_bytes;
	e->mem_total_bytes = 16 * GIB;
	e->have_block = true;
	e->blk_reads = 20000;
	e->blk_mean_bytes = (double)e->read_bytes / e->blk_reads;
	e->blk_reads_per_s = 1000;
	e->blk_random_share = 0.9;
	e->blk_small_share = 0.97;
	e->blk_await_ms = 0.2;
	e->blk_queue_share = 0.05;
	e->blk_device_p50_us = 150;
	e->blk_inflight_mean = 0.2;
	e->blk_util = 0.15;
	e->layer = LAYER_ABOVE;
}

TEST(verdict_storm_cold_capped)
{
	struct evidence e;
	struct judged j;
	const struct finding *f;

	storm_cold_capped(&e);
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

	storm_cold_capped(&e);
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

	storm_cold_capped(&e);
	e.files_read = 127000;
	e.files_lower_bound = true;
	judge(&e, NULL, &j);
	f = get(&j, "small_file_storm");
	REQUIRE(f);
	CHECK_HAS(f->summary, "small-file storm: at least 127k files of median 78 KiB");
	CHECK_HAS(f->summary, "in random order, at least 1.0k files/s");
	CHECK_HAS(f->advice, "pack the files (at least 127k, 1.5 GiB) into");
	CHECK_EQ_INT(figure(f, "files_lower_bound"), 1);
	storm_cold_capped(&e);
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

	storm_cold_capped(&e);
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

	storm_cold_capped(&e);
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

/* Scenario 4: decode-like CPU work on the loader threads. */
TEST(verdict_cpu_bound)
{
	struct evidence e;
	struct judged j;
	const struct finding *f;

	storm_cold_capped(&e);
	e.files_per_s = 900;
	e.read_p50_us = 300;
	e.read_mean_us = 300;
	e.cpu_share = 0.91;
	e.io_wait_share = 0.03;
	e.runq_share = 0.02;
	e.sleep_share = 0.04;
	e.read_concurrency = 0.5;
	e.blk_util = 0.2;
	e.layer = LAYER_OK;
	judge(&e, NULL, &j);

	f = get(&j, "cpu_bound");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_INFO);
	CHECK_STR(f->label, "CPU-bound");
	CHECK_EQ_INT(get(&j, "storage_bottleneck")->severity, SEV_OK);
	/* The storm is there, but the threads hardly wait on it. */
	CHECK_EQ_INT(get(&j, "small_file_storm")->severity, SEV_INFO);
	CHECK_STR(j.headline, "VERDICT: CPU-bound (storage is not the problem): "
			      "loader threads 91% on CPU");

	/* Too many workers for the cores: CPU-starved. */
	e.cpu_share = 0.6;
	e.runq_share = 0.33;
	judge(&e, NULL, &j);
	f = get(&j, "cpu_bound");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_WARN);
	CHECK_STR(f->label, "CPU-starved");
}

/* Scenario 5: 64 readers against storage capped at 2,000 reads/s. */
TEST(verdict_too_many_readers)
{
	struct evidence e;
	struct judged j;
	const struct finding *f;

	storm_cold_capped(&e);
	e.io_threads = 64;
	e.reads_per_s = 2000;
	e.read_mean_us = 32000;
	e.read_concurrency = 64;	/* Little: 2000/s x 32 ms */
	e.io_wait_share = 0.95;
	e.cpu_share = 0.03;
	e.runq_share = 0.01;
	e.sleep_share = 0.01;
	e.blk_reads_per_s = 2000;
	e.blk_device_p50_us = 150;
	judge(&e, NULL, &j);

	f = get(&j, "parallelism");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_WARN);
	CHECK_STR(f->label, "more readers than the storage serves");
	CHECK_HAS(f->summary, "64 reads in flight get 2.0k reads/s at 32ms each");
	CHECK_HAS(f->advice, "About 1 in flight would sustain");
	CHECK_HAS(f->advice, "will not help");
	CHECK_HAS(f->advice, "cap above the device");
	/* 2000 requests/s x 150 µs = 0.3: one read in flight would do. */
	CHECK_EQ_INT(figure(f, "readers_needed"), 1);

	/* A saturated device (queue time dominates) says the same. */
	e.layer = LAYER_QUEUE;
	e.blk_queue_share = 0.8;
	e.blk_inflight_mean = 60;
	e.blk_util = 1;
	e.blk_device_p50_us = 500;
	judge(&e, NULL, &j);
	f = get(&j, "parallelism");
	REQUIRE(f);
	CHECK_HAS(f->advice, "saturated device");
	CHECK_EQ_INT(figure(f, "readers_needed"), 1);
	CHECK_STR(get(&j, "storage_bottleneck")->label, "device saturated");

	/* So does a SATA SSD saturated at its own queue (the real case: 38 ms, 99%). */
	e.layer = LAYER_DEVICE;
	e.blk_queue_share = 0.02;
	e.blk_await_ms = 38;
	e.blk_inflight_mean = 84;
	e.blk_util = 0.99;
	e.blk_device_p50_us = 38000;
	e.blk_reads_per_s = 2200;
	judge(&e, NULL, &j);
	f = get(&j, "parallelism");
	REQUIRE(f);
	CHECK_STR(f->label, "more readers than the storage serves");
	CHECK_EQ_INT(figure(f, "readers_needed"), 84);	/* 2200 x 38 ms = 83.6 */
	CHECK(!strstr(f->advice, "would sustain"));	/* not fewer than now */
	f = get(&j, "storage_bottleneck");
	REQUIRE(f);
	CHECK_STR(f->label, "device saturated");
	CHECK_HAS(f->summary, "84 block reads in flight, await 38ms");
	/* The same device time, idle: slow, not saturated. */
	e.blk_util = 0.3;
	e.blk_inflight_mean = 1;
	judge(&e, NULL, &j);
	CHECK_STR(get(&j, "storage_bottleneck")->label, "slow device");
}

/*
 * Requests queued before a device that is idle most of the time: not
 * "device saturated" (once said at 2% busy with 0.1 requests in flight),
 * and more readers are not called useless for it.
 */
TEST(verdict_queued_idle_device_not_saturated)
{
	struct evidence e;
	struct judged j;
	const struct finding *f;

	storm_cold_capped(&e);
	e.layer = LAYER_QUEUE;
	e.blk_queue_share = 0.9;
	e.blk_await_ms = 3;
	e.blk_util = 0.02;
	e.blk_inflight_mean = 0.1;
	judge(&e, NULL, &j);
	f = get(&j, "storage_bottleneck");
	REQUIRE(f);
	CHECK_STR(f->label, "queued before an idle device");
	CHECK_HAS(f->summary, "device is 2% busy with 0.1 reads in flight: not saturated");
	CHECK(!strstr(f->summary, "device saturated"));
	f = get(&j, "parallelism");
	CHECK(!f || !strstr(f->advice, "saturated device"));
	/* Busy, or many in flight: saturated after all. */
	e.blk_util = 0.95;
	e.blk_inflight_mean = 12;
	judge(&e, NULL, &j);
	CHECK_STR(get(&j, "storage_bottleneck")->label, "device saturated");
}

/*
 * A saturated device whose requests are already large (shards read in
 * 1 MiB reads, as the demo's packed run on a busy disk): the fix is faster
 * storage or memory, not fewer, larger reads; small requests keep it.
 */
TEST(verdict_saturated_large_requests)
{
	struct evidence e;
	struct judged j;
	const struct finding *f;

	storm_cold_capped(&e);
	e.layer = LAYER_QUEUE;
	e.blk_queue_share = 0.1;
	e.blk_await_ms = 180;
	e.blk_inflight_mean = 5;
	e.blk_util = 0.96;
	e.blk_reads = 138;
	e.blk_mean_bytes = 1200000;
	judge(&e, NULL, &j);
	f = get(&j, "storage_bottleneck");
	REQUIRE(f);
	CHECK_STR(f->label, "device saturated");
	CHECK_STR(f->fix, "move the data to faster storage or memory");
	CHECK_HAS(f->advice, "already large (mean 1.1 MiB)");
	CHECK(!strstr(f->advice, "fewer, larger"));
	CHECK_EQ_INT(figure(f, "blk_mean_bytes"), 1200000);
	/* The same device, slow in itself: staged, not packed. */
	e.layer = LAYER_DEVICE;
	e.blk_queue_share = 0.02;
	e.blk_util = 0.3;
	e.blk_inflight_mean = 1;
	judge(&e, NULL, &j);
	f = get(&j, "storage_bottleneck");
	CHECK_STR(f->label, "slow device");
	CHECK(!strstr(f->advice, "pack files"));
	/* Small requests, saturated: fewer, larger reads. */
	e.layer = LAYER_QUEUE;
	e.blk_queue_share = 0.1;
	e.blk_util = 0.96;
	e.blk_inflight_mean = 5;
	e.blk_mean_bytes = 80000;
	judge(&e, NULL, &j);
	f = get(&j, "storage_bottleneck");
	CHECK_STR(f->fix, "ask for fewer, larger reads");
	CHECK_HAS(f->advice, "fewer, larger requests");
}

TEST(verdict_too_few_readers)
{
	struct evidence e;
	struct judged j;
	const struct finding *f;

	storm_cold_capped(&e);
	e.layer = LAYER_OK;		/* fast device ... */
	e.blk_util = 0.2;		/* ... mostly idle ... */
	e.read_concurrency = 1;		/* ... one read at a time */
	e.read_mean_us = 500;
	e.reads_per_s = 2000;
	e.io_wait_share = 0.6;
	judge(&e, NULL, &j);
	f = get(&j, "parallelism");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_WARN);
	CHECK_STR(f->label, "too few readers for the latency");
	/* 1 / max(0.2, 1/4) = 4x: 4 reads in flight, ~8k reads/s. */
	CHECK_EQ_INT(figure(f, "readers_suggested"), 4);
	CHECK_NEAR(figure(f, "reads_per_s_estimate"), 8000, 1e-9);
	CHECK_HAS(f->advice, "~4 reads in flight");
	CHECK_EQ_INT(get(&j, "storage_bottleneck")->severity, SEV_INFO);

	/* A busy device has no headroom: no advice to add readers. */
	e.blk_util = 0.8;
	judge(&e, NULL, &j);
	CHECK(!get(&j, "parallelism"));
}

TEST(verdict_no_block_layer)
{
	struct evidence e;
	struct judged j;
	const struct finding *f;

	storm_cold_capped(&e);
	e.have_block = false;
	e.blk_reads = 0;	/* have_block is false only without block reads */
	e.layer = LAYER_NONE;
	judge(&e, NULL, &j);
	CHECK(!get(&j, "random_access"));
	CHECK(!get(&j, "small_requests"));
	CHECK(!get(&j, "parallelism"));
	f = get(&j, "storage_bottleneck");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_HIGH);
	CHECK_STR(f->label, "storage-bound");
	/* iostorm always traces the block layer: zero requests is the evidence. */
	CHECK_HAS(f->summary, "no block read requests by the target");
	CHECK_EQ_INT(get(&j, "small_file_storm")->severity, SEV_HIGH);
	CHECK_HAS(j.headline, "VERDICT: small-file random-read storm, storage-bound (HIGH)");

	/* The same storm over FUSE: the verdict names the file system and mount. */
	e.have_fuse = true;
	e.fuse_reqs = 9000;
	e.fuse_read_bytes = e.read_bytes;
	e.fuse_round_trips = 3.1;
	e.fuse_lookup_p50_us = 2100;
	e.fuse_read_p50_us = 2300;
	e.fuse_rtt_us = 2200;
	e.fuse_reqs_per_s = 450;
	snprintf(e.fuse_fs, sizeof(e.fuse_fs), "fuse.sshfs");
	snprintf(e.fuse_mount, sizeof(e.fuse_mount), "/mnt/data");
	judge(&e, NULL, &j);
	f = get(&j, "fuse_round_trips");
	REQUIRE(f);
	CHECK_STR(f->label, "small-file storm on fuse.sshfs at /mnt/data");
	CHECK_HAS(f->summary, "3.1 round trips per file, LOOKUP p50 2.1ms, READ p50 2.3ms");
	CHECK_HAS(f->advice, "attr_timeout/entry_timeout");
	CHECK_HAS(get(&j, "storage_bottleneck")->summary,
		  "no block requests: the reads go through FUSE to fuse.sshfs at /mnt/data");
	CHECK_HAS(j.headline, "VERDICT: small-file storm on fuse.sshfs at /mnt/data, storage-bound");
	/* A few stray block requests (the job's code) are counted, not called none. */
	e.have_block = true;
	e.blk_reads = 4;
	e.layer = LAYER_FUSE;
	judge(&e, NULL, &j);
	REQUIRE((f = get(&j, "storage_bottleneck")));
	CHECK_HAS(f->summary,
		  "only 4 block requests: the reads go through FUSE to fuse.sshfs at /mnt/data");
	CHECK(!strstr(f->summary, "no block requests"));
	REQUIRE((f = get(&j, "fuse_round_trips")));
	CHECK_HAS(f->summary, "4 block requests: the data comes through the FUSE daemon");
	CHECK(!get(&j, "parallelism"));
	e.have_block = false;
	e.blk_reads = 0;
	e.layer = LAYER_NONE;

	/* Threads unmeasured too: slow reads still warn, without claiming HIGH. */
	e.io_wait_share = e.cpu_share = e.runq_share = e.sleep_share = -1;
	e.io_threads = 0;
	judge(&e, NULL, &j);
	f = get(&j, "storage_bottleneck");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_WARN);
	CHECK_EQ_INT(get(&j, "small_file_storm")->severity, SEV_WARN);
	CHECK_HAS(j.headline, "read p50 7.9ms");
	CHECK(!get(&j, "cpu_bound"));
}

/* Block layer measured, threads not (no sched data): nothing after "busy". */
TEST(verdict_block_without_threads)
{
	struct evidence e;
	struct judged j;
	const struct finding *f;

	storm_cold_capped(&e);
	e.io_wait_share = e.cpu_share = e.runq_share = e.sleep_share = -1;
	e.io_threads = 0;
	judge(&e, NULL, &j);
	f = get(&j, "storage_bottleneck");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_WARN);
	CHECK_STR(f->summary, "storage throttled above the device: read() mean 4.0ms but "
			      "block await 200µs, device 15% busy");
}

TEST(verdict_metadata_and_little_io)
{
	struct evidence e;
	struct judged j;
	const struct finding *f;

	storm_cold_capped(&e);
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

TEST(verdict_page_cache)
{
	struct evidence e;
	struct judged j;
	const struct finding *f;

	/* Epoch 2 of a dataset that fits, read from storage again: evicted. */
	storm_cold_capped(&e);
	e.read_bytes *= 2;
	e.reread_bytes = e.working_set_bytes;
	e.cache_bytes = e.read_bytes;
	e.miss_share = 1;
	judge(&e, NULL, &j);
	f = get(&j, "page_cache");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_WARN);
	CHECK_STR(f->label, "re-reads miss the page cache");
	CHECK_NEAR(figure(f, "reread_miss_share"), 1, 1e-9);

	/* Larger than memory, storage-bound. */
	storm_cold_capped(&e);
	e.mem_total_bytes = 2 * GIB;
	judge(&e, NULL, &j);
	f = get(&j, "page_cache");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_WARN);
	CHECK_STR(f->label, "working set larger than memory");
	CHECK_HAS(f->advice, "local NVMe");
}

/* ---- evidence from a synthetic trace ---- */

static struct trace *trace_new(void)
{
	struct trace *t = calloc(1, sizeof(*t));

	if (t && store__init(&t->store)) {
		free(t);
		return NULL;
	}
	return t;
}

static void trace_free(struct trace *t)
{
	store__free(&t->store);
	free(t);
}

static int add_file(struct store *s, __u64 ino, const char *path, __u64 size,
		    __u64 bytes_read, __u64 ts)
{
	struct file_key k = { .ino = ino, .dev = 8 << 20 | 1 };
	struct file_stats fs = { .size = size, .opens = 1, .closes = 1, .first_ts = ts,
				 .last_ts = ts + 1000, .flags = FILE_F_REG };

	if (path) {
		snprintf(fs.path, sizeof(fs.path), "%s", path);
		fs.path_len = strlen(fs.path);
		fs.flags |= FILE_F_PATH;
	}
	if (bytes_read) {
		fs.flags |= FILE_F_READ;
		fs.reads = 2;
		fs.read_bytes = bytes_read;
		fs.first_end = fs.last_end = fs.max_end = bytes_read;
		fs.reads_consec = fs.reads_seq = 1;
	}
	return store__merge_file(s, &k, &fs);
}

static int add_thread(struct store *s, __u32 tid, __u64 opens, __u64 cpu, __u64 io,
		      __u64 runq, __u64 sleep)
{
	struct thread_stats ts = { .tgid = 100, .comm = "tf_data", .opens = opens,
				   .reads = 2 * opens, .cpu_ns = cpu, .io_wait_ns = io,
				   .runq_ns = runq, .sleep_ns = sleep };

	return store__merge_thread(s, tid, &ts);
}

TEST(evidence_from_trace)
{
	struct trace *t = trace_new();
	struct evidence e;
	char path[64];
	long page = sysconf(_SC_PAGESIZE);

	REQUIRE(t);
	trace__machine(t);
	t->duration_s = 2;
	/* 20 files: 19 of 100,000 bytes read whole, one of 300,000 read to 100,000. */
	for (int i = 0; i < 20; i++) {
		snprintf(path, sizeof(path), "/data/c%02d/f.jpg", i);
		REQUIRE(!add_file(&t->store, 10 + i, path, i == 7 ? 300000 : 100000,
				  100000, 1000 + i));
	}
	REQUIRE(!add_file(&t->store, 99, "/data/unread", 5000, 0, 1));
	{	/* a directory, listed and read: not a regular file */
		struct file_key k = { .ino = 98, .dev = 8 << 20 | 1 };
		struct file_stats fs = { .reads = 1, .getdents = 2, .flags = FILE_F_DIR };

		REQUIRE(!store__merge_file(&t->store, &k, &fs));
	}
	REQUIRE(!add_thread(&t->store, 101, 10, 100, 300, 0, 100));
	REQUIRE(!add_thread(&t->store, 102, 10, 100, 300, 0, 100));
	REQUIRE(!add_thread(&t->store, 103, 0, 1000000, 0, 0, 0));	/* no I/O */
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

	REQUIRE(!evidence__from_trace(&e, t));
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
	trace_free(t);
}

/* Deterministic shuffle (xorshift), so the test never flakes. */
static void shuffle(int *a, int n)
{
	__u64 x = 88172645463325252ULL;

	for (int i = n - 1; i > 0; i--) {
		int j, tmp;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = x % (i + 1);
		tmp = a[i];
		a[i] = a[j];
		a[j] = tmp;
	}
}

/* file_order_random of n files /d/fNNNNN first read in the order of idx[]. */
static double order_of(const int *idx, int n)
{
	struct trace *t = trace_new();
	struct evidence e;
	char path[64];

	if (!t)
		return NAN;
	t->duration_s = 1;
	for (int pos = 0; pos < n; pos++) {
		snprintf(path, sizeof(path), "/d/f%05d", idx[pos]);
		if (add_file(&t->store, 1 + idx[pos], path, 1000, 1000, 1000 + pos))
			return NAN;
	}
	if (evidence__from_trace(&e, t))
		e.file_order_random = NAN;
	trace_free(t);
	return e.file_order_random;
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

/* Code files read at start-up are kept out of the dataset's figures. */
TEST(evidence_code_apart)
{
	struct trace *t = trace_new();
	struct evidence e;
	char path[96];

	REQUIRE(t);
	t->duration_s = 1;
	for (int i = 0; i < 1500; i++) {
		snprintf(path, sizeof(path),
			 "/venv/lib/python3.11/site-packages/p/__pycache__/m%d.cpython-311.pyc", i);
		REQUIRE(!add_file(&t->store, 1000 + i, path, 2000, 2000, 1 + i));
	}
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "/data/shards/shard-%d.tar", i);
		REQUIRE(!add_file(&t->store, 10 + i, path, 1 << 28, 1 << 28, 5000 + i));
	}
	t->counters[C_OPENS] = 1504;
	t->counters[C_READS] = 1504;
	REQUIRE(!evidence__from_trace(&e, t));
	CHECK_EQ_U64(e.files_read, 4);
	CHECK_EQ_U64(e.code_files, 1500);
	CHECK_EQ_U64(e.code_opens, 1500);
	CHECK_EQ_U64(e.opens, 4);
	CHECK_NEAR(e.median_file_bytes, 1 << 28, 0);
	trace_free(t);
}

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
	struct trace *t = trace_new();
	char path[64];

	if (!t)
		return NULL;
	trace__machine(t);
	t->duration_s = 2;
	for (int i = 0; i < N; i++)
		idx[i] = i;
	shuffle(idx, N);
	for (int pos = 0; pos < N; pos++) {
		snprintf(path, sizeof(path), "/data/c%02d/f%05d.jpg", idx[pos] % 20, idx[pos]);
		if (add_file(&t->store, 10 + idx[pos], path, 80000, 80000, 1000 + pos))
			return NULL;
	}
	if (add_thread(&t->store, 101, N, 100000000, 1800000000, 0, 100000000))
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

TEST(verdict_uring_storm)
{
	struct trace *t = uring_storm(true), *r = uring_storm(false);
	struct evidence e, er;
	struct judged j, jr;
	const struct finding *f;

	REQUIRE(t && r);
	REQUIRE(!evidence__from_trace(&e, t));
	REQUIRE(!evidence__from_trace(&er, r));
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
	trace_free(t);
	trace_free(r);
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
	shuffle(idx, N);
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
	struct trace *t = trace_new();
	struct evidence e;

	REQUIRE(t);
	t->duration_s = 1;
	for (int i = 0; i < N; i++)
		idx[i] = i;
	shuffle(idx, N);
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
	REQUIRE(!evidence__from_trace(&e, t));
	CHECK(e.file_order_random > 0.9);
	trace_free(t);
}

/* ---- thresholds ---- */

TEST(thresholds_set)
{
	struct thresholds t;
	struct evidence e;
	struct judged j;

	thresholds__defaults(&t);
	CHECK_NEAR(thresholds__get(&t, "random_share"), 0.2, 0);
	CHECK_NEAR(thresholds__get(&t, "storm_files"), 1000, 0);
	CHECK_NEAR(thresholds__get(&t, "nope"), -1, 0);
	CHECK_EQ_INT(thresholds__set(&t, "storm_files=500"), 0);
	CHECK_NEAR(thresholds__get(&t, "storm_files"), 500, 0);
	CHECK_EQ_INT(thresholds__set(&t, "shard_bytes=512M"), 0);
	CHECK_NEAR(thresholds__get(&t, "shard_bytes"), 512 * 1048576.0, 0);
	CHECK_EQ_INT(thresholds__set(&t, "shard_bytes=1G"), 0);
	CHECK_NEAR(thresholds__get(&t, "shard_bytes"), GIB, 0);
	CHECK_EQ_INT(thresholds__set(&t, "random_share=25%"), 0);
	CHECK_NEAR(thresholds__get(&t, "random_share"), 0.25, 1e-12);
	CHECK_EQ_INT(thresholds__set(&t, "io_wait_high=0.6"), 0);
	CHECK_NEAR(thresholds__get(&t, "io_wait_high"), 0.6, 0);

	/* Errors leave the value as it was. */
	fprintf(stderr, "(expected errors follow)\n");
	CHECK_EQ_INT(thresholds__set(&t, "nope=1"), -EINVAL);
	CHECK_EQ_INT(thresholds__set(&t, "storm_files"), -EINVAL);
	CHECK_EQ_INT(thresholds__set(&t, "=5"), -EINVAL);
	CHECK_EQ_INT(thresholds__set(&t, "storm_files="), -EINVAL);
	CHECK_EQ_INT(thresholds__set(&t, "storm_files=abc"), -EINVAL);
	CHECK_EQ_INT(thresholds__set(&t, "storm_files=-1"), -EINVAL);
	CHECK_EQ_INT(thresholds__set(&t, "storm_files=12x"), -EINVAL);
	CHECK_EQ_INT(thresholds__set(&t, "storm_files=5M"), -EINVAL);	/* not bytes */
	CHECK_EQ_INT(thresholds__set(&t, "random_share=2"), -EINVAL);
	CHECK_EQ_INT(thresholds__set(&t, "random_share=150%"), -EINVAL);
	CHECK_EQ_INT(thresholds__set(&t, "random_share=nan"), -EINVAL);
	CHECK_EQ_INT(thresholds__set(&t, "shard_bytes=1X"), -EINVAL);
	CHECK_NEAR(thresholds__get(&t, "storm_files"), 500, 0);
	CHECK_NEAR(thresholds__get(&t, "random_share"), 0.25, 1e-12);
	CHECK_NEAR(thresholds__get(&t, "shard_bytes"), GIB, 0);

	/* Every threshold has a name, a unit and a line in the listing. */
	for (int i = 0; thresholds__name(i); i++) {
		CHECK(thresholds__unit(i) != NULL);
		CHECK(i < THRESHOLDS_MAX);
	}

	/* A threshold moves the verdict: a storm needs 50,000 files now. */
	thresholds__defaults(&t);
	CHECK_EQ_INT(thresholds__set(&t, "storm_files=50000"), 0);
	storm_cold_capped(&e);
	judge(&e, &t, &j);
	CHECK(!get(&j, "small_file_storm"));
	judge(&e, NULL, &j);
	CHECK(get(&j, "small_file_storm") != NULL);
}

TEST(thresholds_print)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int lines = 0, n = 0;

	REQUIRE(f);
	thresholds__print(f);
	fclose(f);
	for (char *p = text; *p; p++)
		lines += *p == '\n';
	while (thresholds__name(n))
		n++;
	CHECK_EQ_INT(lines, n);
	CHECK_HAS(text, "random_share=0.2 ");
	CHECK_HAS(text, "storm_median_bytes=1048576 ");
	CHECK_HAS(text, "(Drishti: 20%)");
	free(text);
}

TEST(verdict_names_and_order)
{
	struct evidence e;
	struct judged j;

	CHECK_STR(severity__name(SEV_HIGH), "HIGH");
	CHECK_STR(severity__name(SEV_OK), "OK");
	/* At most max findings, still the worst first. */
	storm_cold_capped(&e);
	{
		struct thresholds t;
		struct finding two[2];
		int n;

		thresholds__defaults(&t);
		n = judge__rules(&e, &t, two, 2);
		CHECK_EQ_INT(n, 2);
		CHECK_EQ_INT(two[0].severity, SEV_HIGH);
		CHECK_EQ_INT(two[1].severity, SEV_HIGH);
	}
	/* Every finding has an id, a label, a summary, advice and figures. */
	judge(&e, NULL, &j);
	for (int i = 0; i < j.n; i++) {
		CHECK(j.f[i].id && j.f[i].label[0] && j.f[i].summary[0] && j.f[i].advice[0]);
		/* A full array may have dropped a figure: one slot stays spare. */
		CHECK(j.f[i].nr_figures > 0 && j.f[i].nr_figures < FINDING_FIGURES);
	}
	judge__headline(NULL, 0, j.headline, sizeof(j.headline));
	CHECK_STR(j.headline, "VERDICT: storage keeps up");
}

/* Layers this kernel did not give are said, whatever else was found. */
TEST(verdict_layers_not_measured)
{
	struct evidence e;
	struct judged j;
	const struct finding *f;

	storm_cold_capped(&e);
	judge(&e, NULL, &j);
	CHECK(!get(&j, "layers_not_measured"));
	e.nr_unmeasured = 2;
	snprintf(e.unmeasured, sizeof(e.unmeasured), "faults, fuse");
	judge(&e, NULL, &j);
	f = get(&j, "layers_not_measured");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_INFO);
	CHECK_HAS(f->summary, "not measured on this kernel: faults, fuse");
	CHECK_EQ_INT(figure(f, "layers_not_measured"), 2);
	/* The storm is still judged, from the layers that were measured. */
	CHECK_EQ_INT(get(&j, "small_file_storm")->severity, SEV_HIGH);
	/* Too little I/O to judge: still said. */
	e.reads = e.fault_reads = 0;
	judge(&e, NULL, &j);
	CHECK(get(&j, "little_io"));
	CHECK(get(&j, "layers_not_measured"));
}

/*
 * One story: a slow device the threads hardly wait on is named as such;
 * neither the finding nor the verdict says "storage keeps up" beside it.
 */
TEST(verdict_slow_device_never_keeps_up)
{
	struct evidence e;
	struct judged j;
	const struct finding *f;

	storm_cold_capped(&e);
	e.layer = LAYER_DEVICE;
	e.blk_mean_bytes = 4096;
	e.blk_util = 0.3;
	e.blk_inflight_mean = 1;
	e.io_wait_share = 0.1;
	e.cpu_share = 0.8;
	judge(&e, NULL, &j);
	f = get(&j, "storage_bottleneck");
	REQUIRE(f);
	CHECK_STR(f->label, "slow device");
	CHECK_EQ_INT(f->severity, SEV_INFO);
	/* The limit at this size: 1 ms + 2 ms x 4 KiB / 1 MiB. */
	CHECK_HAS(f->summary, "for requests of 4 KiB (slow from 1.0ms at that size");
	REQUIRE(finding__figure(f, "blk_slow_us"));
	CHECK(fabs(finding__figure(f, "blk_slow_us")->value - 1007.8125) < 1e-6);
	CHECK(!strstr(j.headline, "keeps up"));
	CHECK_HAS(j.headline, "VERDICT: storage is not what the job waits on: slow device (INFO)");
	/* The page cache serves the reads: every line says so, from one share. */
	e.layer = LAYER_CACHE;
	e.miss_share = 0.04;
	judge(&e, NULL, &j);
	REQUIRE((f = get(&j, "storage_bottleneck")));
	CHECK_STR(f->label, "reads served from the page cache");
	REQUIRE((f = get(&j, "page_cache")));
	CHECK_STR(f->label, "reads served from the page cache");
	/* FUSE served them: neither says page cache, whatever the stray block requests. */
	e.layer = LAYER_FUSE;
	e.miss_share = 1;
	e.have_fuse = true;
	e.fuse_reqs = 9000;
	e.fuse_read_bytes = e.read_bytes;
	judge(&e, NULL, &j);
	REQUIRE((f = get(&j, "storage_bottleneck")));
	CHECK(strcmp(f->label, "reads served from the page cache"));
	REQUIRE((f = get(&j, "page_cache")));
	CHECK(strcmp(f->label, "reads served from the page cache"));
	CHECK_HAS(f->summary, "100% of the bytes read came from storage");
}

/* The same storm over NFS: the verdict names NFS, the round trips and the network. */
TEST(verdict_storm_on_nfs)
{
	struct evidence e;
	struct judged j;
	const struct finding *f;

	storm_cold_capped(&e);
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
