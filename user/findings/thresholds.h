/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The thresholds the findings are judged by: one table of names, defaults,
 * units and rationale (thresholds.c), set from --threshold NAME=VALUE and
 * listed by --help and the JSON. docs/findings.md describes them.
 */
#ifndef THRESHOLDS_H
#define THRESHOLDS_H

#include <stdio.h>

/* Indices into struct thresholds.v, in the order --help lists them. */
enum threshold {
	TH_MIN_READS,
	TH_STORM_FILES,
	TH_STORM_MEDIAN,
	TH_STORM_RATE,
	TH_STORM_WHOLE,
	TH_STORM_RANDOM,
	TH_SHARD_BYTES,
	TH_PACKED_READ,
	TH_RANDOM_SHARE,
	TH_RANDOM_MIN,
	TH_SMALL_SHARE,
	TH_SMALL_MIN,
	TH_META_SHARE,
	TH_META_HIGH,
	TH_META_MIN,
	TH_IO_WAIT_HIGH,
	TH_IO_WAIT_WARN,
	TH_CPU_BOUND,
	TH_CPU_IO_WAIT,
	TH_RUNQ_HIGH,
	TH_CACHE_MISS,
	TH_MEM_FIT,
	TH_READERS_MANY,
	TH_READERS_FEW,
	TH_READERS_GAIN,
	TH_UTIL_IDLE,
	TH_UTIL_BUSY,
	TH_SLOW_READ_US,
	TH_IOPS_BOUND,
	TH_LARGE_REQ,
	TH_STALL_HIGH,
	TH_STALL_WARN,
	TH_CONSUMER_CPU,
	TH_CONSUMER_WAKES,
	TH_MAPPED_MIN,
	TH_MAPPED_RANDOM,
	TH_LOADER_IDLE,
	TH_OWN_IO,
	TH_SLOW_REQ_US,
	TH_SLOW_REQ_US_PER_MIB,
	TH_WRITE_WAIT_HIGH,
	TH_WRITE_WAIT_WARN,
	TH_SAVE_BYTES,
	TH__MAX,
};

/* Room for every threshold; thresholds.c asserts that TH__MAX fits. */
#define THRESHOLDS_MAX	48

struct thresholds {
	double v[THRESHOLDS_MAX];	/* by enum threshold */
};

void thresholds__defaults(struct thresholds *t);
/*
 * Apply "NAME=VALUE"; -EINVAL (after printing why) for an unknown name or
 * value. Byte thresholds take K, M, G, T suffixes (powers of 1024),
 * fractions a % suffix ("random_share=25%").
 */
int thresholds__set(struct thresholds *t, const char *assignment);
/* Lines "NAME=VALUE  rationale (unit)" for --help and docs/findings.md. */
void thresholds__print(FILE *out);
/* The i-th threshold's name and unit, NULL past the last: for the JSON. */
const char *thresholds__name(int i);
const char *thresholds__unit(int i);
/* A threshold's value by name; -1 for an unknown name. */
double thresholds__get(const struct thresholds *t, const char *name);

#endif /* THRESHOLDS_H */
