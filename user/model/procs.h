/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The target's process tree: each process's parent, from forks seen by the
 * programs and from live threads at every drain. It tells a training loop's
 * worker processes (its children) from its peers (data-parallel ranks,
 * siblings under a launcher): model/stall.c.
 */
#ifndef MODEL_PROCS_H
#define MODEL_PROCS_H

#include <stddef.h>
#include <linux/types.h>

struct proc_parent {
	__u32 tgid;
	__u32 ptgid;
};

struct procs {
	struct proc_parent *v;	/* sorted by tgid */
	size_t nr;
	size_t cap;
};

/* tgid's parent is ptgid (the latest word wins: a reparented process). 0 or -ENOMEM. */
int procs__set(struct procs *p, __u32 tgid, __u32 ptgid);
/* tgid's parent, or 0 when not known. */
__u32 procs__parent(const struct procs *p, __u32 tgid);
void procs__free(struct procs *p);

#endif /* MODEL_PROCS_H */
