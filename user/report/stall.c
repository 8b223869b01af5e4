// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The training loop's wait for data, in both reports: which thread is the
 * consumer and how it was chosen, its time split, and who woke it; every
 * loop when several processes run one (data-parallel ranks).
 */
#include <stdio.h>
#include <string.h>
#include "lib/json.h"
#include "lib/units.h"
#include "report/report_int.h"

/*
 * Loop s's cgroup path and what it names (*n), as its metrics label them:
 * its ledger entry's (model/ledger.h), else its cgroup's where resolved;
 * NULL where neither is known.
 */
static const char *loop_workload(const struct trace *t, const struct stall *s,
				 struct cgroup_name *n)
{
	const struct ledger_entry *e = ledger__find(&t->ledger, s->tgid);
	const struct cgroup_rec *r = s->cgid ? cgroups__find(&t->cgroups, s->cgid) : NULL;

	if (e && e->cgroup[0]) {
		*n = e->name;
		return e->cgroup;
	}
	if (!r || !r->path)
		return NULL;
	cgroup__parse(r->path, n);
	return r->path;
}

/* A loop's cause: over the whole run, else the last judged live; NULL: none. */
static const char *loop_cause(const struct trace *t, const struct stall *s)
{
	const struct ledger_entry *e = ledger__find(&t->ledger, s->tgid);

	return s->cause ? s->cause : e ? e->cause : NULL;
}

/* ---- text ---- */

/* Where several loops run (a node, -a), each one's workload and cause, ": " after. */
static void loop_where(FILE *out, const struct trace *t, const struct stall *s)
{
	struct cgroup_name n;
	const char *path = loop_workload(t, s, &n), *cause = loop_cause(t, s);

	if (path && n.pod_uid[0])
		fprintf(out, "pod %s", n.pod_uid);
	else if (path && n.slurm_job[0])
		fprintf(out, "Slurm job %s", n.slurm_job);
	else if (path)
		emit__safe(out, path);
	else
		fprintf(out, "pid %u", s->tgid);
	if (cause)
		fprintf(out, ", cause %s", cause);
	fprintf(out, ": ");
}

/*
 * One loop's line: its share and its time split; a lower bound when
 * sleeps were not charged to their wakers (lost.wakes_full).
 */
static void loop_text(FILE *out, const struct stall *s, bool lower)
{
	char wall[16], a[16], b[16], c[16], d[16], e[16], f[16], g[16], h[16];
	double w = s->wall_ns ? s->wall_ns : 1;

	emit__safe(out, s->comm);
	fprintf(out, " (tid %u, %s) waits for data %s%s of its %s (own file I/O %s, "
		"woken by the loader %s", s->tid, s->why,
		units__pct(a, sizeof(a), s->data_wait_ns / w),
		lower ? " (a lower bound: the wakeups table was full, see lost)" : "",
		units__ns(wall, sizeof(wall), s->wall_ns),
		units__pct(b, sizeof(b), s->own_io_ns / w),
		units__pct(c, sizeof(c), s->loader_wait_ns / w));
	if (s->receive_ns)
		fprintf(out, ", receiving batches %s", units__pct(h, sizeof(h), s->receive_ns / w));
	fprintf(out, "); ");
	if (s->write_wait_ns)
		fprintf(out, "waits on writes %s (its own %s, woken by the writers %s); ",
			units__pct(a, sizeof(a), s->write_wait_ns / w),
			units__pct(b, sizeof(b), s->own_write_ns / w),
			units__pct(c, sizeof(c), s->writer_wait_ns / w));
	fprintf(out, "on CPU %s, ", units__pct(d, sizeof(d), s->on_cpu_ns / w));
	if (s->rank_wait_ns)
		fprintf(out, "waits for other ranks %s, ",
			units__pct(g, sizeof(g), s->rank_wait_ns / w));
	fprintf(out, "other waits %s, waiting for a CPU %s\n",
		units__pct(e, sizeof(e), s->other_wait_ns / w),
		units__pct(f, sizeof(f), s->runnable_ns / w));
}

void report_stall__text(FILE *out, const struct report *r)
{
	const struct trace *t = r->t;
	const struct stall *s = &t->stall;
	bool lower = trace__data_wait_lower_bound(t);
	char a[16], b[16];

	if (s->how == CONSUMER_NONE) {
		if (s->why[0])		/* empty: not measured at all */
			fprintf(out, "%s\n", s->why);
		return;
	}
	if (t->nr_loops <= 1) {
		fprintf(out, "training loop: ");
		loop_text(out, s, lower);
		return;
	}
	fprintf(out, "training loops: %zu (one per process: data-parallel ranks); the one that "
		"waits most for data %s, the least %s\n", t->nr_loops,
		units__pct(a, sizeof(a), stall__share(&t->loops[0])),
		units__pct(b, sizeof(b), stall__share(&t->loops[t->nr_loops - 1])));
	for (size_t i = 0; i < t->nr_loops; i++) {
		fprintf(out, "  loop %zu, ", i);
		loop_where(out, t, &t->loops[i]);
		loop_text(out, &t->loops[i], lower);
	}
}

/* ---- JSON ---- */

static void write_wakers(struct json *j, const struct stall *s)
{
	json__key(j, "wakers");
	json__begin_array(j);
	for (int i = 0; i < s->nr_wakers; i++) {
		const struct stall_waker *w = &s->wakers[i];

		json__begin_object(j);
		json__kv_string(j, "name", w->name);
		json__kv_u64(j, "threads", w->threads);
		json__key(j, "loader");
		json__bool(j, w->loader);
		json__key(j, "writer");
		json__bool(j, w->writer);
		json__kv_u64(j, "wakeups", w->wakeups);
		json__kv_u64(j, "sleep_ns", w->sleep_ns);
		json__end_object(j);
	}
	json__end_array(j);
}

/* One loop's figures, the keys of "stall" and of each of "loops". */
static void loop_json(struct json *j, const struct stall *s)
{
	double share = stall__share(s);

	json__key(j, "consumer");
	if (s->how == CONSUMER_NONE) {
		json__null(j);
	} else {
		json__begin_object(j);
		json__kv_u64(j, "tid", s->tid);
		json__kv_u64(j, "pid", s->tgid);
		json__key(j, "comm");
		json__stringn(j, s->comm, strnlen(s->comm, COMM_LEN));
		json__end_object(j);
	}
	json__kv_u64(j, "wall_ns", s->wall_ns);
	json__kv_u64(j, "setup_ns", s->setup_ns);
	json__kv_u64(j, "on_cpu_ns", s->on_cpu_ns);
	json__kv_u64(j, "data_wait_ns", s->data_wait_ns);
	json__kv_u64(j, "own_io_ns", s->own_io_ns);
	json__kv_u64(j, "loader_wait_ns", s->loader_wait_ns);
	json__kv_u64(j, "receive_ns", s->receive_ns);
	json__kv_u64(j, "write_wait_ns", s->write_wait_ns);
	json__kv_u64(j, "own_write_ns", s->own_write_ns);
	json__kv_u64(j, "writer_wait_ns", s->writer_wait_ns);
	json__kv_u64(j, "pool_data_wait_ns", s->pool_data_ns);
	json__kv_u64(j, "rank_wait_ns", s->rank_wait_ns);
	json__kv_u64(j, "other_wait_ns", s->other_wait_ns);
	json__kv_u64(j, "runnable_ns", s->runnable_ns);
	json__kv_u64(j, "loader_wakeups", s->loader_wakeups);
	json__kv_u64(j, "rank_wakeups", s->rank_wakeups);
	json__kv_u64(j, "loader_threads", s->loader_threads);
	json__kv_u64(j, "writer_wakeups", s->writer_wakeups);
	json__kv_u64(j, "writer_threads", s->writer_threads);
	json__kv_u64(j, "pool_threads", s->pool_threads);
	json__kv_u64(j, "pool_cpu_ns", s->pool_cpu_ns);
	json__kv_u64(j, "pool_wait_ns", s->pool_wait_ns);
	json__key(j, "share");
	if (share >= 0)
		json__double(j, share);
	else
		json__null(j);
	json__key(j, "write_share");
	if (share >= 0)
		json__double(j, stall__write_share(s));
	else
		json__null(j);
	write_wakers(j, s);
}

/* A loop's workload (loop_workload()) and cause (loop_cause()); null where not known. */
static void workload_json(struct json *j, const struct trace *t, const struct stall *s)
{
	struct cgroup_name n;
	const char *path = loop_workload(t, s, &n);

	json__key(j, "workload");
	if (!path) {
		json__null(j);
	} else {
		json__begin_object(j);
		json__kv_string(j, "cgroup", path);
		json__kv_string(j, "container_id", n.container_id);
		json__kv_string(j, "pod_uid", n.pod_uid);
		json__kv_string(j, "slurm_job", n.slurm_job);
		json__kv_string(j, "slurm_step", n.slurm_step);
		json__end_object(j);
	}
	json__key(j, "cause");
	if (loop_cause(t, s))
		json__string(j, loop_cause(t, s));
	else
		json__null(j);
}

void report_stall__json(struct json *j, const struct report *r)
{
	const struct trace *t = r->t;
	const struct stall *s = &t->stall;

	json__key(j, "stall");
	json__begin_object(j);
	json__key(j, "found");
	json__bool(j, s->how != CONSUMER_NONE);
	json__kv_string(j, "how", stall__how_name(s->how));
	json__kv_string(j, "why", s->why);
	json__key(j, "data_wait_lower_bound");
	json__bool(j, trace__data_wait_lower_bound(t));
	loop_json(j, s);
	json__key(j, "loops");
	json__begin_array(j);
	for (size_t i = 0; i < t->nr_loops; i++) {
		json__begin_object(j);
		json__kv_string(j, "how", stall__how_name(t->loops[i].how));
		loop_json(j, &t->loops[i]);
		workload_json(j, t, &t->loops[i]);
		json__end_object(j);
	}
	json__end_array(j);
	json__end_object(j);
}
