/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Threads rolled up by name: a tf.data pool or a set of DataLoader workers
 * is one row, its time split into CPU, I/O wait, run queue and sleep.
 */
#ifndef THREAD_GROUPS_H
#define THREAD_GROUPS_H

#include <stdio.h>
#include <stddef.h>
#include <linux/types.h>
#include "iostorm.h"

struct json;
struct store;

struct thread_group {
	char name[COMM_LEN];	/* comm without a trailing number: "tf_data_" */
	__u32 threads;
	__u64 opens;
	__u64 reads;
	__u64 read_bytes;
	__u64 io_ns;		/* read + metadata syscall time */
	__u64 cpu_ns;
	__u64 io_wait_ns;
	__u64 runq_ns;
	__u64 sleep_ns;
};

/* Groups busiest first (on-CPU + I/O wait time); free() *groups. */
int thread_groups__build(const struct store *s, struct thread_group **groups,
			 size_t *n);
/* The groups as a table, or as the JSON "thread_groups" array: 0 or -ENOMEM. */
int thread_groups__text(FILE *out, const struct store *s, size_t top);
int thread_groups__json(struct json *j, const struct store *s);

#endif /* THREAD_GROUPS_H */
