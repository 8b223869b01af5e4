// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The node's loops, each with one identity for its life: see ledger.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/ledger.h"
#include "model/trace.h"

static size_t ledger_max(const struct ledger *l)
{
	return l->max ? l->max : LEDGER_MAX;
}

static struct ledger_entry *entry_of(struct ledger *l, __u32 pid, __u64 start)
{
	for (size_t i = 0; i < l->nr; i++)
		if (l->v[i].pid == pid && l->v[i].start == start)
			return &l->v[i];
	return NULL;
}

/* At the end, a loop's entry by its pid: its process may be gone. */
static struct ledger_entry *entry_of_pid(struct ledger *l, __u32 pid)
{
	for (size_t i = 0; i < l->nr; i++)
		if (l->v[i].pid == pid)
			return &l->v[i];
	return NULL;
}

const struct ledger_entry *ledger__find(const struct ledger *l, __u32 pid)
{
	for (size_t i = 0; i < l->nr; i++)
		if (l->v[i].pid == pid)
			return &l->v[i];
	return NULL;
}

/*
 * Label a new entry by its workload: the cgroup /proc says the process is
 * in now (a job moved into its pod's cgroup just before its exec: the
 * kernel's id for its first drain is still the cgroup it came from), the
 * path as the per-container families have it; else, where /proc says
 * nothing or gives it from another cgroup namespace ("/../.."), the cgroup
 * the kernel named the loop's thread with. A Slurm job from a cgroup v1
 * path when the v2 one names none.
 */
static void label(struct ledger_entry *e, const struct trace *t, const struct stall *st,
		  const struct loop_proc *pr)
{
	const struct cgroup_rec *r = st->cgid ? cgroups__find(&t->cgroups, st->cgid) : NULL;
	bool own_ns = pr->cgroup[0] == '/' && strncmp(pr->cgroup, "/..", 3);
	struct cgroup_name v1;

	if (own_ns)
		snprintf(e->cgroup, sizeof(e->cgroup), "%s", pr->cgroup);
	else if (r && r->path)
		snprintf(e->cgroup, sizeof(e->cgroup), "%s", r->path);
	else if (pr->cgroup[0])
		snprintf(e->cgroup, sizeof(e->cgroup), "%s", pr->cgroup);
	else if (st->cgid)
		snprintf(e->cgroup, sizeof(e->cgroup), "id:%llu", (unsigned long long)st->cgid);
	cgroup__parse(e->cgroup, &e->name);
	if (!e->name.slurm_job[0] && pr->slurm[0]) {
		cgroup__parse(pr->slurm, &v1);
		memcpy(e->name.slurm_job, v1.slurm_job, sizeof(v1.slurm_job));
		memcpy(e->name.slurm_step, v1.slurm_step, sizeof(v1.slurm_step));
	}
}

/* The entry for loop st, made if new and the bound allows; NULL: none (*gone: exited). */
static struct ledger_entry *entry_for(struct ledger *l, const struct trace *t,
				      const struct stall *st, ledger_proc_fn proc, void *ctx,
				      bool *gone)
{
	struct loop_proc *pr = calloc(1, sizeof(*pr));
	struct ledger_entry *e = NULL;

	*gone = !pr || (proc && proc(st->tgid, pr, ctx));
	if (*gone)
		goto out_free;
	e = proc ? entry_of(l, st->tgid, pr->start) : entry_of_pid(l, st->tgid);
	if (e || l->nr >= ledger_max(l))
		goto out_free;
	e = &l->v[l->nr++];
	memset(e, 0, sizeof(*e));
	e->pid = st->tgid;
	e->start = pr->start;
	label(e, t, st, pr);
out_free:
	free(pr);
	return e;
}

/* Drop the entries whose process exited or was replaced, before new loops take room. */
static int sweep(struct ledger *l, ledger_proc_fn proc, void *ctx)
{
	struct loop_proc *pr;
	size_t k = 0;

	if (!proc)
		return 0;	/* the trace is over: every entry stays */
	pr = malloc(sizeof(*pr));
	if (!pr)
		return -ENOMEM;
	for (size_t i = 0; i < l->nr; i++) {
		struct ledger_entry *e = &l->v[i];
		bool keep = !proc(e->pid, pr, ctx) && pr->start == e->start;

		if (!keep) {
			l->gone++;
			continue;
		}
		if (k != i)
			l->v[k] = *e;
		k++;
	}
	l->nr = k;
	free(pr);
	return 0;
}

const char *loop_state__name(enum loop_state s)
{
	static const char *const names[LOOP_STATES] = {
		[LOOP_DATA_WAIT] = "data_wait", [LOOP_WRITE_WAIT] = "write_wait",
		[LOOP_ON_CPU] = "on_cpu", [LOOP_RANK_WAIT] = "rank_wait",
		[LOOP_OTHER_WAIT] = "other_wait", [LOOP_RUNNABLE] = "runnable",
	};

	return s < LOOP_STATES ? names[s] : "unknown";
}

/* Loop e's new split st: its counters keep the most each state has been. */
static void count(struct ledger_entry *e, const struct stall *st)
{
	const __u64 ns[LOOP_STATES] = {
		[LOOP_DATA_WAIT] = st->data_wait_ns, [LOOP_WRITE_WAIT] = st->write_wait_ns,
		[LOOP_ON_CPU] = st->on_cpu_ns, [LOOP_RANK_WAIT] = st->rank_wait_ns,
		[LOOP_OTHER_WAIT] = st->other_wait_ns, [LOOP_RUNNABLE] = st->runnable_ns,
	};

	for (int k = 0; k < LOOP_STATES; k++)
		if (ns[k] > e->counted[k])
			e->counted[k] = ns[k];
	e->st = *st;
}

int ledger__update(struct ledger *l, const struct trace *t, ledger_proc_fn proc, void *ctx)
{
	bool gone;

	if (!l->v) {
		l->v = calloc(ledger_max(l), sizeof(*l->v));
		if (!l->v)
			return -ENOMEM;
	}
	if (sweep(l, proc, ctx))
		return -ENOMEM;
	for (size_t i = 0; i < l->nr; i++)
		l->v[i].found = false;
	l->over = 0;
	for (size_t i = 0; i < t->nr_loops; i++) {
		const struct stall *st = &t->loops[i];
		struct ledger_entry *e = entry_for(l, t, st, proc, ctx, &gone);

		if (!e) {
			l->over += !gone;
			continue;
		}
		e->found = true;
		e->tid = st->tid;
		memcpy(e->comm, st->comm, COMM_LEN);
		count(e, st);
	}
	return 0;
}

void ledger__free(struct ledger *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static __u64 since(__u64 now, __u64 then)
{
	return now > then ? now - then : 0;
}

void ledger__window(const struct ledger_entry *e, struct stall *w)
{
	const struct stall *a = &e->judged, *b = &e->st;

	*w = *b;
	w->data_wait_ns = since(b->data_wait_ns, a->data_wait_ns);
	w->own_io_ns = since(b->own_io_ns, a->own_io_ns);
	w->loader_wait_ns = since(b->loader_wait_ns, a->loader_wait_ns);
	w->write_wait_ns = since(b->write_wait_ns, a->write_wait_ns);
	w->rank_wait_ns = since(b->rank_wait_ns, a->rank_wait_ns);
	w->receive_ns = since(b->receive_ns, a->receive_ns);
	w->handshake_ns = since(b->handshake_ns, a->handshake_ns);
	w->other_wait_ns = since(b->other_wait_ns, a->other_wait_ns);
	w->runnable_ns = since(b->runnable_ns, a->runnable_ns);
	w->on_cpu_ns = since(b->on_cpu_ns, a->on_cpu_ns);
	w->wall_ns = w->data_wait_ns + w->write_wait_ns + w->on_cpu_ns + w->runnable_ns +
		     w->rank_wait_ns + w->other_wait_ns;
	w->loader_cpu_ns = since(b->loader_cpu_ns, a->loader_cpu_ns);
	w->loader_runq_ns = since(b->loader_runq_ns, a->loader_runq_ns);
	w->loader_io_ns = since(b->loader_io_ns, a->loader_io_ns);
	w->loader_sleep_ns = since(b->loader_sleep_ns, a->loader_sleep_ns);
}

void ledger__judge(struct ledger_entry *e, const char *cause, __u64 now_ns)
{
	e->cause = cause;
	e->judged = e->st;
	e->judged_ns = now_ns;
}
