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

/* tgid's record, made (zeroed) when missing; NULL on -ENOMEM. */
static struct proc_rec *procs__get(struct procs *p, __u32 tgid)
{
	size_t i = procs__slot(p, tgid);

	if (i < p->nr && p->v[i].tgid == tgid)
		return &p->v[i];
	if (p->nr == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		struct proc_rec *v = realloc(p->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		p->v = v;
		p->cap = cap;
	}
	memmove(p->v + i + 1, p->v + i, (p->nr - i) * sizeof(*p->v));
	p->v[i] = (struct proc_rec){ .tgid = tgid };
	p->nr++;
	return &p->v[i];
}

static const struct proc_rec *procs__find(const struct procs *p, __u32 tgid)
{
	size_t i = procs__slot(p, tgid);

	return i < p->nr && p->v[i].tgid == tgid ? &p->v[i] : NULL;
}

int procs__set(struct procs *p, __u32 tgid, __u32 ptgid)
{
	struct proc_rec *r;

	if (!tgid || tgid == ptgid)
		return 0;
	r = procs__get(p, tgid);
	if (!r)
		return -ENOMEM;
	r->ptgid = ptgid;
	return 0;
}

static __u64 max_u64(__u64 a, __u64 b)
{
	return a > b ? a : b;
}

int procs__note(struct procs *p, __u32 tgid, const struct proc_life *ev)
{
	struct proc_rec *r;

	if (!tgid || tgid == ev->ptgid)
		return 0;
	r = procs__get(p, tgid);
	if (!r)
		return -ENOMEM;
	if (ev->fork_ns && r->fork_ns && ev->fork_ns < r->fork_ns)
		return 0;		/* an earlier process of this tgid */
	if (ev->fork_ns && ev->fork_ns != r->fork_ns)
		*r = (struct proc_rec){ .tgid = tgid, .ptgid = r->ptgid,
					.fork_ns = ev->fork_ns };
	if (ev->ptgid)
		r->ptgid = ev->ptgid;
	r->exec_ns = max_u64(r->exec_ns, ev->exec_ns);
	r->exit_ns = max_u64(r->exit_ns, ev->exit_ns);
	return 0;
}

__u32 procs__parent(const struct procs *p, __u32 tgid)
{
	const struct proc_rec *r = procs__find(p, tgid);

	return r ? r->ptgid : 0;
}

__u64 procs__began(const struct procs *p, __u32 tgid)
{
	const struct proc_rec *r = procs__find(p, tgid);

	return r ? max_u64(r->exec_ns, r->fork_ns) : 0;
}

__u64 procs__exited(const struct procs *p, __u32 tgid)
{
	const struct proc_rec *r = procs__find(p, tgid);

	return r ? r->exit_ns : 0;
}

void procs__free(struct procs *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}
