// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * write_wait: the training loop's wait on its checkpoint writes, at its
 * thresholds (docs/findings.md), the verdict line it leads when it is the
 * largest loss, and the saves evidence__add_saves() finds in the files.
 */
#include <stdlib.h>
#include "findings/rules.h"
#include "model/trace.h"
#include "judged.h"
#include "unit.h"

#define MIB	(1024ULL * 1024)

/*
 * A warm job whose DataLoader keeps ahead (the loop waits 1% for data)
 * and that saves 6 checkpoints of 20 MiB in line at 20 MiB/s: 6 s of its
 * 8.5 s (71%).
 */
static void saving_job(struct evidence *e, double write_share, double own_share)
{
	memset(e, 0, sizeof(*e));
	e->duration_s = 8.5;
	e->files_read = 800;
	e->opens = 800;
	e->reads = 1600;
	e->read_bytes = 800 * 8000ULL;
	e->reads_per_s = 190;
	e->read_p50_us = 20;
	e->read_mean_us = 25;
	e->miss_share = 0.001;
	e->io_threads = 2;
	e->cpu_share = 0.5;
	e->sleep_share = 0.5;
	e->io_wait_share = 0.01;
	e->have_stall = true;
	e->stall_share = 0.01;
	e->stall_loader_share = 0.01;
	e->stall_cpu_share = 0.25;
	e->stall_wall_s = 8.5;
	e->stall_loops = 1;
	snprintf(e->stall_comm, sizeof(e->stall_comm), "python3");
	e->have_write_wait = true;
	e->write_share = write_share;
	e->write_own_share = write_share * own_share;
	e->write_writer_share = write_share * (1 - own_share);
	e->write_data_share = 0.01;
	e->write_wall_s = 8.5;
	snprintf(e->write_comm, sizeof(e->write_comm), "python3");
	e->writes = 42;
	e->write_bytes = 120 * MIB;
	e->saves = 6;
	e->save_files = 6;
	e->save_bytes = 120 * MIB;
	e->save_s = 6;
	snprintf(e->save_dir, sizeof(e->save_dir), "/mnt/ckpt");
	e->blk_random_share = e->blk_small_share = -1;
	e->ld_cpu_share = e->ld_runq_share = e->ld_io_share = e->ld_sleep_share = -1;
	e->ld_busiest_share = -1;
}

/* The example, word for word: HIGH, the headline, advice to save asynchronously. */
TEST(write_wait_inline_saves)
{
	struct evidence e;
	struct judged j;
	const struct finding *w;

	saving_job(&e, 6.0 / 8.5, 1);
	judge(&e, NULL, &j);
	w = get(&j, "write_wait");
	REQUIRE(w);
	CHECK_EQ_INT(w->severity, SEV_HIGH);
	CHECK_STR(w->summary, "the training loop (python3) waits on checkpoint writes 71% of its "
		  "time (6 saves of 20 MiB, 1.0s each at 20 MiB/s, to /mnt/ckpt)");
	CHECK_HAS(w->advice, "the loop saves in line");
	CHECK_HAS(w->advice, "async_save");
	CHECK_HAS(w->advice, "local disk");
	CHECK_HAS(w->advice, "less often");
	CHECK_STR(w->fix, "save asynchronously");
	CHECK_STR(j.headline, "VERDICT: the training loop (python3) waits on checkpoint writes "
		  "71% of its time (6 saves of 20 MiB, 1.0s each at 20 MiB/s, to /mnt/ckpt) "
		  "(write-bound, HIGH); save asynchronously; it waits for data 1%");
	/* Never a data stall: input_bound says the loader keeps up. */
	REQUIRE(get(&j, "input_bound"));
	CHECK_EQ_INT(get(&j, "input_bound")->severity, SEV_OK);
	CHECK(!get(&j, "input_cause"));
}

/* A saver thread the loop joins: the advice is the saver's. */
TEST(write_wait_saver_joined)
{
	struct evidence e;
	struct judged j;
	const struct finding *w;

	saving_job(&e, 0.4, 0);
	judge(&e, NULL, &j);
	w = get(&j, "write_wait");
	REQUIRE(w);
	CHECK_EQ_INT(w->severity, SEV_HIGH);
	CHECK_HAS(w->advice, "the loop waits for its saver");
	CHECK_HAS(j.headline, "waits on checkpoint writes 40% of its time");
}

/* At the thresholds: WARN from write_wait_warn, HIGH from write_wait_high, OK below. */
TEST(write_wait_thresholds)
{
	struct evidence e;
	struct judged j;
	struct thresholds th;

	saving_job(&e, 0.049, 1);
	judge(&e, NULL, &j);
	REQUIRE(get(&j, "write_wait"));
	CHECK_EQ_INT(get(&j, "write_wait")->severity, SEV_OK);
	CHECK_STR(get(&j, "write_wait")->label, "saves do not stall the loop");
	CHECK(!strstr(j.headline, "checkpoint"));
	saving_job(&e, 0.05, 1);
	judge(&e, NULL, &j);
	CHECK_EQ_INT(get(&j, "write_wait")->severity, SEV_WARN);
	CHECK_HAS(j.headline, "(write-bound, WARN)");
	saving_job(&e, 0.2, 1);
	judge(&e, NULL, &j);
	CHECK_EQ_INT(get(&j, "write_wait")->severity, SEV_HIGH);
	thresholds__defaults(&th);
	REQUIRE(!thresholds__set(&th, "write_wait_high=30%"));
	judge(&e, &th, &j);
	CHECK_EQ_INT(get(&j, "write_wait")->severity, SEV_WARN);
}

/*
 * The loop waits for data more than on its writes: the verdict stays the
 * data stall, and the write wait is a finding of its own beside it.
 */
TEST(write_wait_smaller_than_data_wait)
{
	struct evidence e;
	struct judged j;

	saving_job(&e, 0.1, 1);
	e.stall_share = e.write_data_share = 0.3;
	e.stall_loader_share = 0.3;
	judge(&e, NULL, &j);
	CHECK_EQ_INT(get(&j, "write_wait")->severity, SEV_WARN);
	CHECK_HAS(j.headline, "VERDICT: the training loop waits for data 30% of its time");
	CHECK(!strstr(j.headline, "checkpoint"));
}

/*
 * No loop waits on writes: no finding at all; nor when it writes only a
 * log, and hardly waits on it; but a wait on writes that are no saves is
 * said as such, not as checkpoints.
 */
TEST(write_wait_none)
{
	struct evidence e;
	struct judged j;

	saving_job(&e, 0, 1);
	e.have_write_wait = false;
	judge(&e, NULL, &j);
	CHECK(!get(&j, "write_wait"));
	saving_job(&e, 0.01, 1);
	e.saves = e.save_files = e.save_bytes = 0;
	e.save_s = 0;
	e.writes = 4;
	e.write_bytes = 257;
	judge(&e, NULL, &j);
	CHECK(!get(&j, "write_wait"));
	saving_job(&e, 0.1, 1);
	e.saves = e.save_files = e.save_bytes = 0;
	e.writes = 4000;
	e.write_bytes = 400000;
	judge(&e, NULL, &j);
	REQUIRE(get(&j, "write_wait"));
	CHECK_STR(get(&j, "write_wait")->summary, "the training loop (python3) waits on its "
		  "writes 10% of its time (391 KiB written in 4000 calls, no save of 1 MiB or more)");
}

static void add_written(struct trace *t, __u64 ino, const char *path, __u64 bytes,
			__u64 fsyncs, __u64 commits)
{
	struct file_key k = { .ino = ino, .dev = 8 << 20 | 1 };
	struct file_stats fs = { .flags = FILE_F_REG | FILE_F_PATH, .writes = bytes / MIB + 1,
		.write_bytes = bytes, .write_ns = bytes / 20, .fsyncs = fsyncs,
		.fsync_ns = fsyncs * 1000, .commits = commits, .commit_ns = commits * 10 };

	snprintf(fs.path, sizeof(fs.path), "%s", path);
	fs.path_len = strlen(fs.path);
	CHECK_EQ_INT(store__merge_file(&t->store, &k, &fs), 0);
}

/*
 * The saves are the data files written with save_bytes or more: each
 * counted by its commits, else its syncs, else once; their directory the
 * one most of their bytes went to. A log and a small file are none.
 */
TEST(evidence_saves)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct thresholds th;
	struct evidence e;

	REQUIRE(t && !store__init(&t->store));
	thresholds__defaults(&th);
	add_written(t, 10, "/mnt/ckpt/a.pt", 20 * MIB, 1, 1);
	add_written(t, 11, "/mnt/ckpt/b.pt", 20 * MIB, 1, 1);
	add_written(t, 12, "/mnt/ckpt/latest.pt", 20 * MIB, 4, 3);	/* rewritten in place */
	add_written(t, 13, "/scratch/opt.bin", 30 * MIB, 0, 0);
	add_written(t, 14, "/var/log/train.log", 40000, 0, 0);
	memset(&e, 0, sizeof(e));
	evidence__add_saves(&e, t, &th);
	CHECK_EQ_U64(e.save_files, 4);
	CHECK_EQ_U64(e.saves, 1 + 1 + 4 + 1);
	CHECK_EQ_U64(e.save_bytes, 90 * MIB);
	CHECK_STR(e.save_dir, "/mnt/ckpt");
	REQUIRE(!thresholds__set(&th, "save_bytes=25M"));
	memset(&e, 0, sizeof(e));
	evidence__add_saves(&e, t, &th);
	CHECK_EQ_U64(e.save_files, 1);
	CHECK_STR(e.save_dir, "/scratch");
	store__free(&t->store);
	free(t);
}
