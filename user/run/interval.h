/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * -i SECONDS: one iostat-like line per interval while tracing, for the
 * target, from the difference of two snapshots of the cumulative counters:
 *
 *   time      files/s  opens/s  reads/s  MiB/s  rd_p50  rd_p99  dev_r/s r_await  %util
 *
 * files/s is opens of regular files per second (a file opened twice counts
 * twice), opens/s opens of anything; reads/s and MiB/s are read-family
 * syscalls on regular files and their bytes; rd_p50 and rd_p99 the read()
 * latency percentiles of the interval, ms; dev_r/s and r_await (ms) the
 * target's block read requests on every device; %util the share of the
 * interval the target had a request in flight on its busiest device.
 */
#ifndef INTERVAL_H
#define INTERVAL_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "model/block.h"
#include "iostorm.h"

#define INTERVAL_HEADER_EVERY	20	/* rows between two header lines */

struct drain;
struct iostorm_bpf;
struct trace;

struct interval_snap {
	__u64 ns;			/* CLOCK_MONOTONIC */
	__u64 counters[C__MAX];
	__u64 reg_opens;		/* store.reg_opens */
	struct hist read_lat;		/* H_READ_LAT */
	struct block block;		/* counts and busy time, no histograms */
};

struct interval {
	FILE *out;
	double period;			/* seconds; 0: no interval lines */
	__u64 next_ns;			/* when the next line is due */
	int rows;			/* lines since the last header */
	struct interval_snap *snap[2];	/* [cur]: the latest */
	int cur;
};

/*
 * Nothing is printed when period is 0; else take the first snapshot. A
 * snapshot drains the per-file maps into t's store (files/s comes from it).
 */
int interval__start(struct interval *iv, FILE *out, double period,
		    struct drain *d, struct iostorm_bpf *skel, struct trace *t,
		    __u64 now_ns);
bool interval__due(const struct interval *iv, __u64 now_ns);
/* Snapshot (draining), then print the line since the previous snapshot. */
int interval__tick(struct interval *iv, struct drain *d, struct iostorm_bpf *skel,
		   struct trace *t, __u64 now_ns);
void interval__free(struct interval *iv);

/* The header and one line from two snapshots; pure, for tests. */
void interval__header(FILE *out);
void interval__line(FILE *out, const struct interval_snap *a,
		    const struct interval_snap *b, const char *clock);

#endif /* INTERVAL_H */
