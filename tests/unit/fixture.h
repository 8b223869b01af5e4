/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One fixed, rich trace for golden-output tests: a training job reading
 * small images, TFRecord shards, a checkpoint and libraries from two block
 * devices, through a tf.data pool and PyTorch workers, over 60 s. Every
 * number is a constant: no clock, pid, host or map is read. The fixture
 * fills only what a trace measures; judging it (diagnosis__run()) is the
 * caller's, because the findings are not measured data.
 */
#ifndef FIXTURE_H
#define FIXTURE_H

#include <stdbool.h>
#include "run/interval.h"
#include "model/trace.h"

/* Fill t (its old contents ignored); 0 or -ENOMEM, then t holds nothing. */
int fixture__trace(struct trace *t);
/* Free what fixture__trace() allocated. */
void fixture__free(struct trace *t);
/*
 * Two interval snapshots one second apart, near the end of the same
 * trace; 0 or -ENOMEM. Free them with fixture__snaps_free().
 */
int fixture__snaps(struct interval_snap *a, struct interval_snap *b);
void fixture__snaps_free(struct interval_snap *a, struct interval_snap *b);
/*
 * The findings read MemTotal from /proc/meminfo: while pinned, the unit
 * binary's fopen() hands them FIXTURE_MEM_TOTAL_KB instead, so the golden
 * files do not depend on the machine.
 */
#define FIXTURE_MEM_TOTAL_KB	16384000ULL	/* ~15.6 GiB */
void fixture__pin_meminfo(bool on);

#endif /* FIXTURE_H */
