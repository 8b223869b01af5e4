// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * input_cause: why the training loop waits when storage does not say,
 * each cause at its thresholds (docs/findings.md), and the verdict line
 * that gives it ("input-bound ... because ...").
 */
#include <math.h>
#include "findings/rules.h"
#include "judged.h"
#include "unit.h"

/*
 * A warm job: 12,000 reads of 80 KB from the page cache in 30 s by 4
 * DataLoader workers on 2 CPUs; the loop waits 12% of its time. The
 * loader's split is each test's own.
 */
static void warm_job(struct evidence *e, double cpu, double runq, double io, double sleep)
{
	memset(e, 0, sizeof(*e));
	e->duration_s = 30;
	e->files_read = 6000;
	e->opens = 6000;
	e->reads = 12000;
	e->read_bytes = 6000 * 80000ULL;
	e->files_per_s = 200;
	e->reads_per_s = 400;
	e->median_file_bytes = 80000;
	e->whole_file_share = 1;
	e->file_order_random = 0.97;
	e->small_read_share = 1;
	e->meta_share = 0.05;
	e->read_p50_us = 20;
	e->read_p99_us = 90;
	e->read_mean_us = 25;
	e->read_s = 0.3;
	e->read_concurrency = 0.01;
	e->io_threads = 4;
	e->cpu_share = cpu;
	e->runq_share = runq;
	e->io_wait_share = io;
	e->sleep_share = sleep;
	e->miss_share = 0.001;
	e->cache_bytes = e->read_bytes / 1000;
	e->working_set_bytes = e->read_bytes;
	e->mem_total_bytes = 16ULL << 30;
	e->file_order_random = 0.97;
	e->have_stall = true;
	e->stall_share = 0.12;
	e->stall_loader_share = 0.11;
	e->stall_own_io_share = 0.001;
	e->stall_cpu_share = 0.8;
	e->stall_wall_s = 30;
	e->stall_loops = 1;
	e->ld_workers = 4;
	e->ld_procs = 4;
	e->ld_cpu_share = cpu;
	e->ld_runq_share = runq;
	e->ld_io_share = io;
	e->ld_sleep_share = sleep;
	e->ld_runnable = 4 * (cpu + runq);
	e->ld_busiest_share = cpu + runq;	/* alike, as DataLoader workers are */
	snprintf(e->ld_busiest_comm, sizeof(e->ld_busiest_comm), "pt_data_worker");
	e->nr_cpus = 2;
	e->blk_random_share = e->blk_small_share = -1;
}

/* More runnable loader threads than CPUs: CPU-starved, cpu_bound said once. */
TEST(cause_cpu_starved)
{
	struct evidence e;
	struct judged j;
	const struct finding *c;

	warm_job(&e, 0.55, 0.38, 0.01, 0.06);
	judge(&e, NULL, &j);
	c = get(&j, "input_cause");
	REQUIRE(c);
	CHECK_STR(c->label, "the loader is CPU-starved");
	CHECK_EQ_INT(c->severity, SEV_WARN);
	CHECK(!get(&j, "cpu_bound"));
	CHECK_STR(c->summary, "the loader is CPU-starved: its 4 threads (2 CPUs online) are "
		  "on CPU 55% of their time, waiting for a CPU 38% (3.7 of them ready to run on "
		  "average), on I/O 1%; the busiest (pt_data_worker) on CPU or waiting for "
		  "one 93%");
	CHECK(!strncmp(j.headline, "VERDICT: the training loop waits for data 12% of its time "
		       "(input-bound, WARN) because the loader is CPU-starved", 110));
	CHECK(strstr(j.headline, "; give the loader more CPUs"));
	CHECK(!strstr(j.headline, "storage keeps up"));
	/* Just under runq_high: CPU-bound, not starved. */
	warm_job(&e, 0.6, 0.19, 0.01, 0.2);
	judge(&e, NULL, &j);
	REQUIRE(get(&j, "input_cause"));
	CHECK_STR(get(&j, "input_cause")->label, "the loader is CPU-bound");
	/* Under cpu_bound (0.7) on CPU or runnable, idle under loader_idle: unclear. */
	warm_job(&e, 0.5, 0.19, 0.02, 0.29);
	judge(&e, NULL, &j);
	CHECK_STR(get(&j, "input_cause")->label, "the loader's wait not explained");
}

/* The loader idles while the loop waits: the prefetch is too short. */
TEST(cause_prefetch_short)
{
	struct evidence e;
	struct judged j;

	warm_job(&e, 0.3, 0.02, 0.01, 0.67);
	judge(&e, NULL, &j);
	REQUIRE(get(&j, "input_cause"));
	CHECK_STR(get(&j, "input_cause")->label, "prefetch too short");
	CHECK(strstr(j.headline, "because prefetch too short: the loader's 4 threads (2 CPUs "
			 "online) are idle 67% of their time"));
}

/* num_workers=0: the loop's own file I/O is its wait, no worker process. */
TEST(cause_serialized)
{
	struct evidence e;
	struct judged j;

	warm_job(&e, 0.3, 0.02, 0.6, 0.08);
	e.ld_procs = 0;
	e.ld_workers = 0;
	e.stall_own_io_share = 0.07;	/* of 0.12: 58% >= own_io 0.5 */
	judge(&e, NULL, &j);
	REQUIRE(get(&j, "input_cause"));
	CHECK_STR(get(&j, "input_cause")->label, "the loop loads its own data");
	CHECK_STR(get(&j, "input_cause")->fix, "load in worker processes");
	e.stall_own_io_share = 0.05;	/* 42%: the loader side woke it more */
	judge(&e, NULL, &j);
	CHECK(!get(&j, "input_cause"));	/* no worker to judge: the storage findings speak */
}

/*
 * Two readers on slow storage that is not capped: 1.8 reads in flight at
 * 4 ms, the loader waits on I/O 90%. The storage finding says slow reads,
 * the cause says too few of them at once, with Little's law's target.
 */
TEST(cause_few_readers)
{
	struct evidence e;
	struct judged j;
	const struct finding *c;

	warm_job(&e, 0.05, 0.01, 0.9, 0.04);
	e.files_read = e.opens = 300;	/* 300 files of 1.6 MB: no storm */
	e.files_per_s = 10;
	e.median_file_bytes = 1.6e6;
	e.ld_workers = 2;
	e.read_concurrency = 1.8;
	e.read_mean_us = e.read_p50_us = 4000;
	e.read_p99_us = 9000;
	e.io_wait_share = 0.9;
	e.stall_share = 0.6;
	e.miss_share = 1;
	judge(&e, NULL, &j);
	c = get(&j, "input_cause");
	REQUIRE(c);
	CHECK_STR(c->label, "too few readers for the latency");
	CHECK_EQ_INT(c->severity, SEV_HIGH);
	CHECK_NEAR(finding__figure(c, "readers_suggested")->value, 5, 0);	/* 1.8 / 0.4 */
	REQUIRE(get(&j, "storage_bottleneck"));
	CHECK(get(&j, "storage_bottleneck")->severity >= SEV_WARN);
	CHECK(strstr(j.headline, "(input-bound, HIGH) because too few readers for the latency"));
	/* Capped above the device: more readers only queue; storage is the cause. */
	e.have_block = true;
	e.layer = LAYER_ABOVE;
	e.blk_reads = 12000;
	e.blk_reads_per_s = 400;
	e.blk_util = 0.1;
	judge(&e, NULL, &j);
	CHECK(!get(&j, "input_cause"));
	CHECK(strstr(j.headline, "throttled above the device"));
	/* Reads cover less than half the loader's I/O wait: not the reads. */
	e.have_block = false;
	e.layer = LAYER_NONE;
	e.read_concurrency = 0.8;	/* < 0.5 * 2 threads * 0.9 */
	judge(&e, NULL, &j);
	CHECK(!get(&j, "input_cause"));
}

/* Below stall_warn there is nothing to explain. */
TEST(cause_none_when_loop_keeps_up)
{
	struct evidence e;
	struct judged j;

	warm_job(&e, 0.55, 0.38, 0.01, 0.06);
	e.stall_share = 0.04;
	judge(&e, NULL, &j);
	CHECK(!get(&j, "input_cause"));
	CHECK(get(&j, "cpu_bound"));
}

/*
 * A warm LMDB-like job: its data is mapped and in memory, so little file
 * I/O is seen (the little_io finding), yet the loop waits 24%: the verdict
 * gives the loader's cause, not "too little file I/O to judge" alone.
 */
TEST(cause_with_little_io)
{
	struct evidence e;
	struct judged j;

	warm_job(&e, 0.62, 0.12, 0.0, 0.26);
	e.reads = 40;
	e.files_read = e.opens = 2;
	e.files_per_s = e.reads_per_s = 1;
	e.stall_share = 0.24;
	judge(&e, NULL, &j);
	REQUIRE(get(&j, "little_io"));
	REQUIRE(get(&j, "input_cause"));
	CHECK_STR(get(&j, "input_cause")->label, "the loader is CPU-bound");
	CHECK(!strncmp(j.headline, "VERDICT: the training loop waits for data 24% of its time "
		       "(input-bound, HIGH) because the loader is CPU-bound", 108));
}

/*
 * The loader idles well ahead, and the loop's wait is its own CPU taking
 * each batch (receive bursts): the receiving is the cause, not the prefetch.
 */
TEST(cause_receiving)
{
	struct evidence e;
	struct judged j;

	warm_job(&e, 0.11, 0.05, 0.0, 0.84);
	e.stall_share = 0.064;
	e.stall_receive_share = 0.049;	/* 77% of the wait */
	e.stall_runq_share = 0.34;
	judge(&e, NULL, &j);
	REQUIRE(get(&j, "input_cause"));
	CHECK_STR(get(&j, "input_cause")->label, "the loop's CPU goes to receiving batches");
	CHECK(strstr(j.headline, "because the loop's CPU goes to receiving batches: 4.9% of its "
			 "time on CPU or waiting for one while it takes them from the loader, 77% "
			 "of its wait for data;"));	/* no handshakes: none said */
	e.stall_receive_share = 0.03;	/* under half: the loader's idling */
	judge(&e, NULL, &j);
	CHECK_STR(get(&j, "input_cause")->label, "prefetch too short");
	/* Half with the handshakes' round trips: taking batches is the wait. */
	e.stall_shake_share = 0.001;
	judge(&e, NULL, &j);
	CHECK_STR(get(&j, "input_cause")->label, "prefetch too short");
	e.stall_shake_share = 0.003;
	judge(&e, NULL, &j);
	CHECK_STR(get(&j, "input_cause")->label, "the loop's CPU goes to receiving batches");
	CHECK(strstr(get(&j, "input_cause")->summary, ": 3% of its time on CPU or waiting for "
		     "one while it takes them from the loader, 0.3% asleep in handshakes with it, "
		     "together 52% of its wait for data"));
	/* A loader short of CPU answers the handshakes late: its CPU is the cause. */
	e.ld_runq_share = 0.25;
	judge(&e, NULL, &j);
	CHECK_STR(get(&j, "input_cause")->label, "the loader is CPU-starved");
}

/*
 * A pipeline's one slow stage: a decoder on CPU all the time, its reader
 * asleep behind a full queue. The sum reads "idle"; the busiest thread is
 * the cause: CPU-bound, not prefetch.
 */
TEST(cause_one_busy_stage)
{
	struct evidence e;
	struct judged j;

	warm_job(&e, 0.5, 0.0, 0.01, 0.49);
	e.ld_workers = 2;
	e.ld_procs = 0;
	e.stall_own_io_share = 0;
	e.ld_busiest_share = 0.99;
	snprintf(e.ld_busiest_comm, sizeof(e.ld_busiest_comm), "decoder");
	judge(&e, NULL, &j);
	REQUIRE(get(&j, "input_cause"));
	CHECK_STR(get(&j, "input_cause")->label, "the loader is CPU-bound");
	CHECK(strstr(get(&j, "input_cause")->summary, "the busiest (decoder) on CPU or waiting "
		     "for one 99%"));
	e.ld_busiest_share = 0.6;	/* no stage saturated: the loader idles */
	judge(&e, NULL, &j);
	CHECK_STR(get(&j, "input_cause")->label, "prefetch too short");
}
