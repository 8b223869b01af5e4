// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The training loop's wait for data, see stall.h; its parts, stall_int.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/stall_int.h"
#include "model/trace.h"

static int wake_cmp(const void *pa, const void *pb)
{
	const struct wake_rec *a = pa, *b = pb;

	if (a->wakee != b->wakee)
		return a->wakee < b->wakee ? -1 : 1;
	return (a->waker > b->waker) - (a->waker < b->waker);
}

/*
 * The headline loop's side named in the store's threads
 * (stall_sides__group_name()): the thread tables'.
 */
static void name_groups(struct stall_ctx *x, struct trace *t)
{
	long c = t->nr_loops ? thread_idx(x->s, t->stall.tid) : -1;
	char name[COMM_LEN];

	for (size_t i = 0; i < t->store.threads.n; i++)
		t->store.threads.v[i].group[0] = '\0';
	if (c < 0)
		return;
	stall_sides__loader(x, c);
	for (size_t i = 0; i < t->store.threads.n; i++) {
		struct thread_rec *th = &t->store.threads.v[i];

		stall_sides__group_name(x, c, i, name);
		threads__comm_group(th->comm, th->group);
		if (strcmp(name, th->group))
			memcpy(th->group, name, COMM_LEN);
		else
			th->group[0] = '\0';
	}
}

static int loop_cmp(const void *pa, const void *pb)
{
	const struct stall *a = pa, *b = pb;
	double sa = stall__share(a), sb = stall__share(b);

	if (sa != sb)
		return sa < sb ? 1 : -1;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

/* Split every loop of x->loop into t->loops, the most waiting first. */
static int split_loops(struct stall_ctx *x, struct trace *t, enum consumer_how how,
		       __u32 root_tgid)
{
	size_t n = 0;

	for (size_t i = 0; i < x->s->threads.n; i++)
		n += x->loop[i];
	free(t->loops);
	t->nr_loops = 0;
	t->loops = calloc(n ? n : 1, sizeof(*t->loops));
	if (!t->loops)
		return -ENOMEM;
	for (size_t i = 0; i < x->s->threads.n; i++) {
		struct stall *st = &t->loops[t->nr_loops];

		if (!x->loop[i])
			continue;
		if (how == CONSUMER_GIVEN)
			stall_split__loop(x, i, st);
		else if (stall_setup__split(x, t, i, st))
			return -ENOMEM;
		st->how = how != CONSUMER_FED ? how :
			  st->tgid == root_tgid ? CONSUMER_ROOT : CONSUMER_FED;
		snprintf(st->why, sizeof(st->why), "%s",
			 st->how == CONSUMER_GIVEN ? "given with --consumer" :
			 st->how == CONSUMER_ROOT ? "the main thread of the traced process" :
			 "a process main thread the loader feeds");
		t->nr_loops++;
	}
	qsort(t->loops, t->nr_loops, sizeof(*t->loops), loop_cmp);
	return 0;
}

/*
 * No loop: t->stall says why. Where the kernel gives no fault tracepoints,
 * a loader that only maps its data (LMDB) reads nothing iostorm sees: say so.
 */
static void no_loop(struct trace *t, bool given)
{
	bool faults = kernel__measured(&t->kernel, KL_FAULTS);

	memset(&t->stall, 0, sizeof(t->stall));
	t->stall.how = CONSUMER_NONE;
	snprintf(t->stall.why, sizeof(t->stall.why), "%s", given ?
		 "no training loop found: the thread given with --consumer did not run" :
		 faults ? "no training loop found: no thread computes while the loader feeds "
			  "it (a pure reader?): data stall not measured (--consumer "
			  "TID|COMM names a loop iostorm missed)" :
		 "no training loop found: no thread computes while the loader feeds it "
		 "(a pure reader, or one of mapped data: faults not measured here): data "
		 "stall not measured (--consumer TID|COMM names a loop iostorm missed)");
}

/* No scheduler programs (IOSTORM_FALLBACKS=no_sched): no wait to split. */
static void no_sched(struct trace *t, const struct stall_opts *o)
{
	t->nr_loops = 0;
	t->data_seen = t->data_seen || !o->launched || stall_setup__data_read(&t->store);
	memset(&t->stall, 0, sizeof(t->stall));
	t->stall.how = CONSUMER_NONE;
	snprintf(t->stall.why, sizeof(t->stall.why), "no training loop looked for: the scheduler "
		 "programs are not loaded (%.180s)",
		 t->kernel.layers[KL_SCHED].why);
}

static void ctx_free(struct stall_ctx *x)
{
	free(x->work);
	free(x->tf);
	free(x->pool);
	free(x->with);
	free(x->tot);
	free(x->reads);
	free(x->launcher);
	free(x->runtime);
	free(x->tracer);
	free(x->loop);
	free(x->peer);
	free(x->writes);
	free(x->writer);
	free(x->loader);
	free(x->wakes);
}

/* x's tables for t's threads, and t's wakes sorted by sleeper. 0 or -ENOMEM. */
static int ctx_alloc(struct stall_ctx *x, const struct trace *t)
{
	size_t n = t->store.threads.n;

	x->wakes = malloc((t->wakes.n ? t->wakes.n : 1) * sizeof(*x->wakes));
	x->loader = calloc(n ? n : 1, sizeof(*x->loader));
	x->writer = calloc(n ? n : 1, sizeof(*x->writer));
	x->writes = calloc(n ? n : 1, sizeof(*x->writes));
	x->peer = calloc(n ? n : 1, sizeof(*x->peer));
	x->loop = calloc(n ? n : 1, sizeof(*x->loop));
	x->tracer = calloc(n ? n : 1, sizeof(*x->tracer));
	x->launcher = calloc(n ? n : 1, sizeof(*x->launcher));
	x->runtime = calloc(n ? n : 1, sizeof(*x->runtime));
	x->reads = calloc(n ? n : 1, sizeof(*x->reads));
	x->tot = calloc(n ? n : 1, sizeof(*x->tot));
	x->with = calloc(n ? n : 1, sizeof(*x->with));
	x->pool = calloc(n ? n : 1, sizeof(*x->pool));
	x->tf = calloc(n ? n : 1, sizeof(*x->tf));
	if (!x->wakes || !x->loader || !x->writer || !x->writes || !x->peer || !x->loop ||
	    !x->tracer || !x->launcher || !x->runtime || !x->reads || !x->tot || !x->with || !x->pool || !x->tf)
		return -ENOMEM;
	memcpy(x->wakes, t->wakes.v, t->wakes.n * sizeof(*x->wakes));
	qsort(x->wakes, x->nr_wakes, sizeof(*x->wakes), wake_cmp);
	return 0;
}

int stall__measure(struct trace *t, const struct stall_opts *o)
{
	struct stall_ctx x = {
		.s = &t->store, .procs = &t->procs, .nr_wakes = t->wakes.n,
		.traced_ns = t->duration_s * 1e9, .page_size = t->page_size ?: 4096,
		.min_wakeups = o->min_wakeups, .since_i = -1,
	};
	int err = -ENOMEM, missing = 0;

	if (!kernel__measured(&t->kernel, KL_SCHED)) {
		no_sched(t, o);
		return 0;
	}
	if (ctx_alloc(&x, t) || stall_roles__mark(&x, o->workloads))
		goto out_free;
	if (o->nr_given)
		missing = stall_find__given(&x, o);
	else if (stall_find__loops(&x, t, o))
		goto out_free;
	t->data_seen = t->data_seen || !o->launched || stall_setup__data_read(x.s);
	if (!o->nr_given && stall_setup__keep(&x, t))
		goto out_free;
	if (split_loops(&x, t, o->nr_given ? CONSUMER_GIVEN : CONSUMER_FED, o->root_tgid))
		goto out_free;
	if (t->nr_loops)
		t->stall = t->loops[0];
	else
		no_loop(t, o->nr_given);
	if (t->nr_loops && missing)
		snprintf(t->stall.why, sizeof(t->stall.why),
			 "given with --consumer; %d of those given did not run", missing);
	name_groups(&x, t);
	err = 0;
out_free:
	ctx_free(&x);
	return err;
}

double stall__share(const struct stall *s)
{
	if (s->how == CONSUMER_NONE)
		return -1;
	return s->wall_ns ? (double)s->data_wait_ns / s->wall_ns : 0;
}

double stall__write_share(const struct stall *s)
{
	if (s->how == CONSUMER_NONE)
		return -1;
	return s->wall_ns ? (double)s->write_wait_ns / s->wall_ns : 0;
}

const struct stall *stall__most_writing(const struct trace *t)
{
	const struct stall *best = NULL;

	for (size_t i = 0; i < t->nr_loops; i++)
		if (t->loops[i].write_wait_ns &&
		    (!best || stall__write_share(&t->loops[i]) > stall__write_share(best)))
			best = &t->loops[i];
	return best;
}

const char *stall__how_name(enum consumer_how how)
{
	static const char *const names[] = {
		[CONSUMER_NONE] = "none", [CONSUMER_GIVEN] = "given",
		[CONSUMER_ROOT] = "root", [CONSUMER_FED] = "fed",
	};

	return how <= CONSUMER_FED ? names[how] : "unknown";
}
