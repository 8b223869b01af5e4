// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The bound rules (rules_bound.c): CPU-bound, the readers' parallelism,
 * the device saturated or not, the page cache, layers missing.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "model/hist.h"
#include "model/trace.h"
#include "findings/rules.h"
#include "judged.h"
#include "scenes.h"
#include "unit.h"

/* Scenario 4: decode-like CPU work on the loader threads. */
TEST(verdict_cpu_bound)
{
	struct evidence e;
	struct judged j;
	const struct finding *f;

	scene__storm_cold_capped(&e);
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

	scene__storm_cold_capped(&e);
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

	scene__storm_cold_capped(&e);
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

	scene__storm_cold_capped(&e);
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

	scene__storm_cold_capped(&e);
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

	scene__storm_cold_capped(&e);
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

	scene__storm_cold_capped(&e);
	e.io_wait_share = e.cpu_share = e.runq_share = e.sleep_share = -1;
	e.io_threads = 0;
	judge(&e, NULL, &j);
	f = get(&j, "storage_bottleneck");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_WARN);
	CHECK_STR(f->summary, "storage throttled above the device: read() mean 4.0ms but "
			      "block await 200µs, device 15% busy");
}

TEST(verdict_page_cache)
{
	struct evidence e;
	struct judged j;
	const struct finding *f;

	/* Epoch 2 of a dataset that fits, read from storage again: evicted. */
	scene__storm_cold_capped(&e);
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
	scene__storm_cold_capped(&e);
	e.mem_total_bytes = 2 * GIB;
	judge(&e, NULL, &j);
	f = get(&j, "page_cache");
	REQUIRE(f);
	CHECK_EQ_INT(f->severity, SEV_WARN);
	CHECK_STR(f->label, "working set larger than memory");
	CHECK_HAS(f->advice, "local NVMe");
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

	scene__storm_cold_capped(&e);
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
