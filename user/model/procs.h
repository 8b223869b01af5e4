/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The target's process tree: each process's parent, from forks seen by the
 * programs and from live threads at every drain, and when each process was
 * forked, last exec'd and exited where the programs saw it. It tells a
 * training loop's worker processes (its children) from its peers
 * (data-parallel ranks, siblings under a launcher), and its launchers
 * (a shim's helpers, which ended before its program began) from its
 * loader: model/stall_sides.c.
 */
#ifndef MODEL_PROCS_H
#define MODEL_PROCS_H

#include <stddef.h>
#include <linux/types.h>
#include "iostorm.h"

struct proc_rec {
	__u32 tgid;
	__u32 ptgid;		/* 0: not known */
	__u64 fork_ns;		/* CLOCK_MONOTONIC; 0: not seen */
	__u64 exec_ns;		/* its last exec; 0: none seen */
	__u64 exit_ns;		/* its last thread's exit; 0: not seen (alive) */
};

struct procs {
	struct proc_rec *v;	/* sorted by tgid */
	size_t nr;
	size_t cap;
};

/* tgid's parent is ptgid (the latest word wins: a reparented process). 0 or -ENOMEM. */
int procs__set(struct procs *p, __u32 tgid, __u32 ptgid);
/*
 * What the programs saw of process tgid since the last drain: its parent
 * (when known) and times, merged (a later exec or exit wins); a later fork
 * is a new process of the same tgid, whose times replace the old. 0 or
 * -ENOMEM.
 */
int procs__note(struct procs *p, __u32 tgid, const struct proc_life *ev);
/* tgid's parent, or 0 when not known. */
__u32 procs__parent(const struct procs *p, __u32 tgid);
/* When tgid's program began (its last exec, else its fork); 0 when not seen. */
__u64 procs__began(const struct procs *p, __u32 tgid);
/* When tgid's last thread exited; 0 when not seen. */
__u64 procs__exited(const struct procs *p, __u32 tgid);
void procs__free(struct procs *p);

#endif /* MODEL_PROCS_H */
