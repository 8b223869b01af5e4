/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The diagnosis: from the figures of one trace (struct evidence) to
 * findings with a severity, the numbers behind them and advice, and one
 * verdict line. Pure code but evidence__from_trace() (which reads
 * /proc/meminfo once): no BPF, unit-tested. Rules, thresholds and advice
 * are described in docs/findings.md.
 */
#ifndef VERDICT_H
#define VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "layers.h"	/* enum layer_verdict: where a read's time goes */

struct trace;

enum severity {
	SEV_OK = 0,
	SEV_INFO,
	SEV_WARN,
	SEV_HIGH,
};

/*
 * Every figure a finding may cite, computed once from a trace. Rates are
 * per second of traced time; shares are 0..1; -1 means "not measured".
 * evidence__from_trace() fills all but the block part, which the caller
 * fills from the block layer (have_block, blk_*, layer).
 */
struct evidence {
	double duration_s;
	/* VFS */
	__u64 files_read;		/* distinct regular files with reads */
	__u64 opens;
	__u64 reads;
	__u64 read_bytes;
	__u64 stats;
	__u64 getdents;
	double files_per_s;
	double opens_per_s;
	double reads_per_s;
	double read_bytes_per_s;
	double median_file_bytes;	/* over files read; -1 without */
	double whole_file_share;	/* files read to >= 90% of their size */
	double file_order_random;	/* 0 = files read in path order, ~1 = shuffled; -1 < 10 files */
	double small_read_share;	/* reads returning < 256 KiB, EOF reads excluded */
	double meta_share;		/* open+stat+close+getdents / (that + read) time */
	double meta_s;			/* open+stat+close+getdents time, summed over calls */
	double read_s;			/* read time, summed over calls */
	double read_p50_us;
	double read_p99_us;
	double read_mean_us;
	double open_p50_us;
	double stat_p50_us;
	/* threads (sched) */
	__u64 io_threads;		/* threads that read or opened files */
	double cpu_share;		/* of the I/O threads' time: on CPU */
	double io_wait_share;		/* off CPU in file syscalls or D state */
	double runq_share;		/* waiting for a CPU */
	double sleep_share;		/* asleep otherwise */
	double read_concurrency;	/* mean reads in flight: sum(read time) / duration */
	/* page cache */
	__u64 cache_bytes;		/* brought into the page cache by the target */
	double miss_share;		/* cache_bytes / read_bytes; may exceed 1 (readahead) */
	__u64 working_set_bytes;	/* distinct bytes of files read */
	__u64 reread_bytes;		/* bytes read beyond each file's first pass */
	__u64 mem_total_bytes;		/* MemTotal; 0 when unknown */
	/* block layer: the target's reads; filled by the caller */
	bool have_block;
	__u64 blk_reads;
	__u64 blk_read_bytes;
	double blk_reads_per_s;
	double blk_random_share;
	double blk_small_share;		/* requests of at most BLK_SMALL bytes */
	double blk_await_ms;		/* mean start -> done */
	double blk_queue_share;		/* queue time / total time */
	double blk_device_p50_us;
	double blk_inflight_mean;	/* aqu-sz: sum(total time) / duration */
	double blk_util;		/* busy share, 0..1 */
	enum layer_verdict layer;	/* layers__judge(); read only when have_block */
};

#define FINDING_FIGURES	12

struct figure {
	const char *name;		/* JSON key, e.g. "files_per_s" */
	double value;
	const char *unit;		/* "files/s", "bytes", "fraction" (0..1), ... */
};

struct finding {
	const char *id;			/* stable: small_file_storm, ... */
	enum severity severity;
	char label[64];			/* what was found, a few words for the verdict line */
	char fix[64];			/* the first thing to do, imperative; may be empty */
	char summary[256];		/* one line, with its numbers */
	char advice[512];
	struct figure figures[FINDING_FIGURES];
	int nr_figures;
};

/* Room for every finding verdict__judge() can return. */
#define VERDICT_MAX_FINDINGS	16

/* Thresholds: defaults with their rationale live in verdict.c's table. */
#define THRESHOLDS_MAX	48

struct thresholds {
	double v[THRESHOLDS_MAX];
};

void thresholds__defaults(struct thresholds *t);
/*
 * Apply "NAME=VALUE"; -EINVAL (after printing why) for an unknown name or
 * value. Byte thresholds take K, M, G, T suffixes (powers of 1024),
 * fractions a % suffix ("random_share=25%").
 */
int thresholds__set(struct thresholds *t, const char *assignment);
/* Lines "NAME=VALUE  rationale (unit)" for --help and the README. */
void thresholds__print(FILE *out);
/* The i-th threshold's name and unit, NULL past the last: for the JSON. */
const char *thresholds__name(int i);
const char *thresholds__unit(int i);
/* A threshold's value by name; -1 for an unknown name. */
double thresholds__get(const struct thresholds *t, const char *name);

int evidence__from_trace(struct evidence *e, const struct trace *t);
/* Fill out[] (at most max) ordered by severity; returns how many. */
int verdict__judge(const struct evidence *e, const struct thresholds *t,
		   struct finding *out, int max);
/* One line: the worst finding in words, or that storage is fine. */
void verdict__headline(const struct finding *f, int n, char *buf, size_t len);
/* A figure of f by name; NULL when f does not cite it. */
const struct figure *finding__figure(const struct finding *f, const char *name);
const char *severity__name(enum severity s);
/* Same as layers__key(): kept for the report code. */
const char *layer__name(enum layer_verdict l);

#endif /* VERDICT_H */
