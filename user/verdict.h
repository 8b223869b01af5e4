/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The diagnosis: from the figures of one trace (struct evidence) to
 * findings with a severity, the numbers behind them and advice, and one
 * verdict line. Pure code: no BPF, no I/O, unit-tested.
 */
#ifndef VERDICT_H
#define VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

struct trace;

enum severity {
	SEV_OK = 0,
	SEV_INFO,
	SEV_WARN,
	SEV_HIGH,
};

/* How the time between the application and the device splits (block layer). */
enum layer_verdict {
	LAYER_UNKNOWN = 0,	/* too few reads or block requests to say */
	LAYER_CACHE,		/* reads served from the page cache */
	LAYER_ABOVE_DEVICE,	/* read() slow, device fast: throttling, a cap */
	LAYER_SATURATED,	/* queue time dominates: the device is saturated */
	LAYER_SLOW_DEVICE,	/* device time dominates and is high */
	LAYER_KEEPING_UP,	/* storage serves reads quickly */
};

/*
 * Every figure a finding may cite, computed once from a trace. Rates are
 * per second of traced time; shares are 0..1; -1 means "not measured".
 */
struct evidence {
	double duration_s;
	/* VFS */
	__u64 files_read;		/* distinct regular files with reads */
	__u64 opens;
	__u64 reads;
	__u64 read_bytes;
	__u64 stats;
	double files_per_s;
	double opens_per_s;
	double reads_per_s;
	double read_bytes_per_s;
	double median_file_bytes;	/* over files read */
	double whole_file_share;	/* files read to (nearly) their end */
	double file_order_random;	/* 0 = files opened in path order, ~0.5+ = random */
	double small_read_share;	/* reads returning < 256 KiB, EOF reads excluded */
	double meta_share;		/* open+stat+close+getdents / (that + read) time */
	double read_p50_us;
	double read_p99_us;
	double read_mean_us;
	/* threads (sched) */
	__u64 io_threads;		/* threads that read or opened files */
	double cpu_share;		/* of the I/O threads' time: on CPU */
	double io_wait_share;		/* off CPU in file syscalls or D state */
	double runq_share;		/* waiting for a CPU */
	double sleep_share;		/* asleep otherwise */
	double read_concurrency;	/* mean reads in flight: sum(read time) / duration */
	/* page cache */
	__u64 cache_bytes;		/* brought into the page cache by the target */
	double miss_share;		/* cache_bytes / read_bytes */
	__u64 working_set_bytes;	/* distinct bytes of files read */
	__u64 reread_bytes;		/* bytes read beyond each file's first pass */
	__u64 mem_total_bytes;		/* MemTotal */
	/* block layer: the target's reads */
	bool have_block;
	__u64 blk_reads;
	double blk_reads_per_s;
	double blk_random_share;
	double blk_small_share;
	double blk_await_ms;		/* mean start -> done */
	double blk_queue_share;		/* queue time / total time */
	double blk_device_p50_us;
	double blk_inflight_mean;	/* aqu-sz: sum(total time) / duration */
	double blk_util;		/* busy share, 0..1 */
	enum layer_verdict layer;
};

#define FINDING_FIGURES	8

struct figure {
	const char *name;		/* JSON key, e.g. "files_per_s" */
	double value;
	const char *unit;		/* "files/s", "bytes", "%", ... */
};

struct finding {
	const char *id;			/* stable: small_file_storm, ... */
	enum severity severity;
	char summary[256];		/* one line, with its numbers */
	char advice[512];
	struct figure figures[FINDING_FIGURES];
	int nr_figures;
};

/* Thresholds: defaults with their rationale live in verdict.c's table. */
struct thresholds {
	double v[32];
};

void thresholds__defaults(struct thresholds *t);
/* Apply "NAME=VALUE"; -EINVAL (after printing why) for an unknown name or value. */
int thresholds__set(struct thresholds *t, const char *assignment);
/* Lines "NAME=VALUE  rationale" for --help and the README. */
void thresholds__print(FILE *out);

int evidence__from_trace(struct evidence *e, const struct trace *t);
/* Fill out[] (at most max) ordered by severity; returns how many. */
int verdict__judge(const struct evidence *e, const struct thresholds *t,
		   struct finding *out, int max);
/* One line: the worst finding in words, or that storage is fine. */
void verdict__headline(const struct finding *f, int n, char *buf, size_t len);
const char *severity__name(enum severity s);
const char *layer__name(enum layer_verdict l);

#endif /* VERDICT_H */
