// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The target's process tree, see procs.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "model/procs.h"

/* Where tgid is, or would go, in p->v. */
static size_t procs__slot(const struct procs *p, __u32 tgid)
{
	size_t lo = 0, hi = p->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->v[mid].tgid < tgid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int procs__set(struct procs *p, __u32 tgid, __u32 ptgid)
{
	size_t i = procs__slot(p, tgid);

	if (!tgid || tgid == ptgid)
		return 0;
	if (i < p->nr && p->v[i].tgid == tgid) {
		p->v[i].ptgid = ptgid;
		return 0;
	}
	if (p->nr == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		struct proc_parent *v = realloc(p->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->v = v;
		p->cap = cap;
	}
	memmove(p->v + i + 1, p->v + i, (p->nr - i) * sizeof(*p->v));
	p->v[i] = (struct proc_parent){ tgid, ptgid };
	p->nr++;
	return 0;
}

__u32 procs__parent(const struct procs *p, __u32 tgid)
{
	size_t i = procs__slot(p, tgid);

	return i < p->nr && p->v[i].tgid == tgid ? p->v[i].ptgid : 0;
}

void procs__free(struct procs *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}
