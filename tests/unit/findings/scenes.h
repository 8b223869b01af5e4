/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the findings tests judge (scenes.c): the storm of the small-file
 * issue's first scenario as evidence, and a synthetic trace.
 */
#ifndef TESTS_UNIT_FINDINGS_SCENES_H
#define TESTS_UNIT_FINDINGS_SCENES_H

#include <linux/types.h>

struct evidence;
struct store;
struct trace;

#define GIB	(1024.0 * 1024 * 1024)

void scene__storm_cold_capped(struct evidence *e);
struct trace *scene__trace_new(void);
void scene__trace_free(struct trace *t);
int scene__add_file(struct store *s, __u64 ino, const char *path, __u64 size,
		    __u64 bytes_read, __u64 ts);
int scene__add_thread(struct store *s, __u32 tid, __u64 opens, __u64 cpu,
		      __u64 io, __u64 runq, __u64 sleep);
void scene__shuffle(int *a, int n);

#endif /* TESTS_UNIT_FINDINGS_SCENES_H */
