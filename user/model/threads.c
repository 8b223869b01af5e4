// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The threads table, see threads.h: an array that only grows (but for
 * threads__bound()) and an index on tid, open addressing with linear
 * probing (model/hash.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "model/counters.h"
#include "model/cut.h"
#include "model/hash.h"
#include "model/threads.h"

#define THREADS_CAP_MIN	64

void threads__free(struct threads *t)
{
	free(t->v);
	free(t->index);
	memset(t, 0, sizeof(*t));
}

/* The index slot holding tid, or the empty slot where it would go. */
static size_t thread_slot(const struct threads *t, const __u32 *index, size_t cap,
			  __u32 tid)
{
	size_t mask = cap - 1, i = hash__mix64(tid) & mask;

	while (index[i] && t->v[index[i] - 1].tid != tid)
		i = (i + 1) & mask;
	return i;
}

struct thread_rec *threads__find(const struct threads *t, __u32 tid)
{
	__u32 at;

	if (!t->index_cap)
		return NULL;
	at = t->index[thread_slot(t, t->index, t->index_cap, tid)];
	return at ? &t->v[at - 1] : NULL;
}

static int threads_grow(struct threads *t)
{
	size_t cap, icap;
	struct thread_rec *v;
	__u32 *index;

	if (t->n == t->cap) {
		cap = t->cap ? t->cap * 2 : THREADS_CAP_MIN;
		v = realloc(t->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	if (t->index_cap && !hash__over_load(t->n + 1, t->index_cap))
		return 0;
	icap = t->index_cap ? t->index_cap * 2 : THREADS_CAP_MIN * 2;
	index = calloc(icap, sizeof(*index));
	if (!index)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++)
		index[thread_slot(t, index, icap, t->v[i].tid)] = i + 1;
	free(t->index);
	t->index = index;
	t->index_cap = icap;
	return 0;
}

int threads__merge(struct threads *t, __u32 tid, const struct thread_stats *ts)
{
	struct thread_rec *th = threads__find(t, tid);
	int err;

	if (!th) {
		err = threads_grow(t);
		if (err)
			return err;
		th = &t->v[t->n];
		memset(th, 0, sizeof(*th));
		th->tid = tid;
		t->index[thread_slot(t, t->index, t->index_cap, tid)] = ++t->n;
	}
	/* The latest name wins: exec changes it. */
	th->seen = ++t->clock;
	th->tgid = ts->tgid;
	if (ts->comm[0]) {
		memcpy(th->comm, ts->comm, COMM_LEN);
		th->comm[COMM_LEN - 1] = '\0';
	}
	io_counters__add(&th->io, &ts->io);
	th->cpu_ns += ts->cpu_ns;
	th->io_wait_ns += ts->io_wait_ns;
	th->runq_ns += ts->runq_ns;
	th->sleep_ns += ts->sleep_ns;
	if (ts->cgid)
		th->cgid = ts->cgid;
	return 0;
}

/* Add the counters of thread record src to dst (a sum of dropped ones). */
static void thread_add(struct thread_rec *dst, const struct thread_rec *src)
{
	io_counters__add(&dst->io, &src->io);
	dst->cpu_ns += src->cpu_ns;
	dst->io_wait_ns += src->io_wait_ns;
	dst->runq_ns += src->runq_ns;
	dst->sleep_ns += src->sleep_ns;
}

/* The 3/4 merged last kept; v compacted, the index rebuilt. */
void threads__bound(struct threads *t)
{
	struct cut c = { .lo = ~0ULL };
	size_t j = 0;
	__u64 cut;

	if (!t->max || t->n <= t->max)
		return;
	for (size_t i = 0; i < t->n; i++)
		cut__range(&c, t->v[i].seen);
	for (size_t i = 0; i < t->n; i++)
		cut__count(&c, t->v[i].seen);
	cut = cut__at(&c, t->max - t->max / 4);
	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i].seen >= cut)
			t->v[j++] = t->v[i];
		else
			thread_add(&t->gone, &t->v[i]);
	}
	t->evicted += t->n - j;
	t->n = j;
	memset(t->index, 0, t->index_cap * sizeof(*t->index));
	for (size_t i = 0; i < t->n; i++)
		t->index[thread_slot(t, t->index, t->index_cap, t->v[i].tid)] = i + 1;
}

size_t threads__bytes(const struct threads *t)
{
	return t->cap * sizeof(*t->v) + t->index_cap * sizeof(*t->index);
}

/*
 * The name a thread is grouped under: numbered siblings are one pool
 * ("w-1".."w-4" and "worker_12" are "w-" and "worker_"). A trailing digit
 * run is dropped only after a separator ('-', '_', ':', '/', '#', ' ') with
 * a name before it; glued to a letter or a '.', digits are a version or
 * part of the name and are kept ("python3", "python3.11", "worker7"): an
 * index cannot be told from a version there.
 */
void threads__group(const struct thread_rec *th, char name[COMM_LEN])
{
	if (th->group[0])
		memcpy(name, th->group, COMM_LEN);
	else
		threads__comm_group(th->comm, name);
}

void threads__comm_group(const char *comm, char name[COMM_LEN])
{
	size_t n = strnlen(comm, COMM_LEN - 1), d = n;

	memcpy(name, comm, n);
	while (d > 0 && isdigit((unsigned char)name[d - 1]))
		d--;
	if (d < n && d >= 2 && strchr("-_:/# ", name[d - 1]))
		n = d;
	name[n] = '\0';
}
