// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The training loop's wait for data, in both reports: which thread is the
 * consumer and how it was chosen, its time split, and who woke it; every
 * loop when several processes run one (data-parallel ranks).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/json.h"
#include "lib/units.h"
#include "model/counters.h"
#include "report/report_int.h"

/* A loop's cause: over the whole run, else the last judged live; NULL: none. */
static const char *loop_cause(const struct trace *t, const struct stall *s)
{
	const struct ledger_entry *e = ledger__find(&t->ledger, s->tgid);

	return s->cause ? s->cause : e ? e->cause : NULL;
}

/* ---- text ---- */

/* A workload's name: its pod, Slurm job, cgroup, or process. */
static void work_name(FILE *out, const struct workload *w)
{
	switch (w->kind) {
	case WORK_POD:
		fprintf(out, "pod %s", w->name.pod_uid);
		break;
	case WORK_SLURM:
		fprintf(out, "Slurm job %s", w->name.slurm_job);
		break;
	case WORK_CGROUP:
		fprintf(out, "cgroup ");
		emit__safe(out, w->path);
		break;
	default:
		fprintf(out, "pid %u", w->first->tgid);
		break;
	}
}

/* Where several loops run (a node, -a), each one's workload and cause, ": " after. */
static void loop_where(FILE *out, const struct trace *t, const struct stall *s)
{
	struct cgroup_name n;
	const char *path = report__loop_workload(t, s, &n), *cause = loop_cause(t, s);

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
 * A workload's heading: its loops, the worst one's wait and cause, and
 * what its cgroups did (opens and reads, each a second, the bytes, the
 * time a read took on average, the time in metadata calls).
 */
static void work_text(FILE *out, const struct trace *t, const struct workload *w)
{
	const struct io_counters *io = &w->io;
	const char *cause = loop_cause(t, w->first);
	char a[16], b[16], c[16], d[16], e[16], f[16], g[16];

	fprintf(out, "  ");
	work_name(out, w);
	fprintf(out, ": %zu loop%s, %s waits for data %s", w->nr_loops,
		w->nr_loops == 1 ? "" : "s", w->nr_loops == 1 ? "it" : "the worst",
		units__pct(a, sizeof(a), stall__share(w->first)));
	if (cause)
		fprintf(out, " (cause %s)", cause);
	if (w->kind == WORK_PROCESS) {
		fprintf(out, "; its cgroup is not known\n");
		return;
	}
	if (!io->opens && !io->reads && !io->stats) {
		fprintf(out, "; no file I/O seen in its cgroups\n");
		return;
	}
	fprintf(out, "; its I/O: %s opens (%s/s), %s reads (%s/s) of %s, %s a read, "
		"%s in metadata calls%s\n",
		units__count(a, sizeof(a), io->opens),
		units__num(b, sizeof(b), units__rate(io->opens, t->duration_s)),
		units__count(c, sizeof(c), io->reads),
		units__num(d, sizeof(d), units__rate(io->reads, t->duration_s)),
		units__bytes(e, sizeof(e), io->read_bytes),
		io->reads ? units__ns(f, sizeof(f), (double)io->read_ns / io->reads) : "-",
		units__ns(g, sizeof(g), io->meta_ns),
		t->cgroups.folded ? " (at least: some cgroups were summed into other)" : "");
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

/*
 * Loops in more than one workload, at least one of them named by its
 * cgroup: grouped under their workloads. Loops whose cgroups are all
 * unknown are listed as they come, one process each.
 */
static bool grouped(const struct report *r)
{
	for (size_t k = 0; r->nr_workloads > 1 && k < r->nr_workloads; k++)
		if (r->workloads[k].kind != WORK_PROCESS)
			return true;
	return false;
}

void report_stall__brief_text(FILE *out, const struct report *r, int level)
{
	const struct trace *t = r->t;
	const struct stall *s = &t->stall;
	bool lower = trace__data_wait_lower_bound(t);
	char a[16], b[16];

	if (s->how == CONSUMER_NONE) {
		if (s->why[0])		/* empty: not measured at all; cut: its first line */
			fprintf(out, "%.*s\n", level ? (int)strcspn(s->why, "\n") :
				(int)strlen(s->why), s->why);
		return;
	}
	if (t->nr_loops <= 1) {
		fprintf(out, "training loop: ");
		loop_text(out, s, lower);
		return;
	}
	fprintf(out, "training loops: %zu (one per process: data-parallel ranks)", t->nr_loops);
	if (grouped(r))
		fprintf(out, " in %zu workloads", r->nr_workloads);
	fprintf(out, "; the one that waits most for data %s, the least %s\n",
		units__pct(a, sizeof(a), stall__share(&t->loops[0])),
		units__pct(b, sizeof(b), stall__share(&t->loops[t->nr_loops - 1])));
	if (level >= 2)
		return;
	if (!grouped(r)) {
		for (size_t i = 0; level < 1 && i < t->nr_loops; i++) {
			fprintf(out, "  loop %zu, ", i);
			loop_where(out, t, &t->loops[i]);
			loop_text(out, &t->loops[i], lower);
		}
		return;
	}
	/* The workloads came in their worst loop's order: the most waiting first. */
	for (size_t k = 0; k < r->nr_workloads; k++) {
		work_text(out, t, &r->workloads[k]);
		for (size_t i = 0; level < 1 && i < t->nr_loops; i++) {
			const char *cause = loop_cause(t, &t->loops[i]);

			if (r->work_of[i] != k)
				continue;
			fprintf(out, "    loop %zu%s%s: ", i, cause ? ", cause " : "",
				cause ? cause : "");
			loop_text(out, &t->loops[i], lower);
		}
	}
}

void report_stall__text(FILE *out, const struct report *r)
{
	report_stall__brief_text(out, r, 0);
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
	json__kv_u64(j, "handshake_ns", s->handshake_ns);
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

/* A loop's workload (report__loop_workload()) and cause (loop_cause()); null where not known. */
static void workload_json(struct json *j, const struct trace *t, const struct stall *s)
{
	struct cgroup_name n;
	const char *path = report__loop_workload(t, s, &n);

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

/* A workload's cgroups' sums; null for a process (its cgroup not known). */
static void storage_json(struct json *j, const struct trace *t, const struct workload *w)
{
	const struct io_counters *io = &w->io;

	json__key(j, "storage");
	if (w->kind == WORK_PROCESS) {
		json__null(j);
		return;
	}
	json__begin_object(j);
	json__kv_u64(j, "cgroups", w->cgroups);
	json__key(j, "partial");
	json__bool(j, t->cgroups.folded > 0);
	json__kv_u64(j, "opens", io->opens);
	json__kv_u64(j, "stats", io->stats);
	json__kv_u64(j, "reads", io->reads);
	json__kv_u64(j, "read_bytes", io->read_bytes);
	json__kv_double(j, "read_s", io->read_ns / 1e9);
	json__kv_double(j, "meta_s", io->meta_ns / 1e9);
	json__kv_u64(j, "cache_pages", io->cache_pages);
	json__kv_u64(j, "fault_reads", io->fault_reads);
	json__kv_double(j, "opens_per_s", units__rate(io->opens, t->duration_s));
	json__kv_double(j, "reads_per_s", units__rate(io->reads, t->duration_s));
	json__kv_double(j, "read_bytes_per_s", units__rate(io->read_bytes, t->duration_s));
	json__key(j, "read_avg_s");
	if (io->reads)
		json__double(j, io->read_ns / 1e9 / io->reads);
	else
		json__null(j);
	json__end_object(j);
}

/* The loops' workloads, the most waiting first: "workloads". */
static void workloads_json(struct json *j, const struct report *r)
{
	const struct trace *t = r->t;
	const size_t *work_of = r->work_of;

	json__key(j, "workloads");
	json__begin_array(j);
	for (size_t k = 0; k < r->nr_workloads; k++) {
		const struct workload *w = &r->workloads[k];
		const char *cause = loop_cause(t, w->first);
		double share = stall__share(w->first);

		json__begin_object(j);
		json__kv_string(j, "kind", work_kind_names[w->kind]);
		json__kv_string(j, "pod_uid", w->name.pod_uid);
		json__kv_string(j, "slurm_job", w->name.slurm_job);
		json__key(j, "cgroup");
		if (w->path)
			json__string(j, w->path);
		else
			json__null(j);
		/* The containers its loops run in, each once. */
		json__key(j, "container_ids");
		json__begin_array(j);
		for (size_t i = 0; i < t->nr_loops; i++) {
			struct cgroup_name n, m;
			bool dup = false;

			if (work_of[i] != k || !report__loop_workload(t, &t->loops[i], &n) ||
			    !n.container_id[0])
				continue;
			for (size_t h = 0; h < i && !dup; h++)
				dup = work_of[h] == k && report__loop_workload(t, &t->loops[h], &m) &&
				      !strcmp(m.container_id, n.container_id);
			if (!dup)
				json__string(j, n.container_id);
		}
		json__end_array(j);
		json__key(j, "loops");
		json__begin_array(j);
		for (size_t i = 0; i < t->nr_loops; i++)
			if (work_of[i] == k)
				json__u64(j, i);
		json__end_array(j);
		json__key(j, "pids");
		json__begin_array(j);
		for (size_t i = 0; i < t->nr_loops; i++)
			if (work_of[i] == k)
				json__u64(j, t->loops[i].tgid);
		json__end_array(j);
		json__key(j, "share_max");
		if (share >= 0)
			json__double(j, share);
		else
			json__null(j);
		json__key(j, "cause");
		if (cause)
			json__string(j, cause);
		else
			json__null(j);
		storage_json(j, t, w);
		json__end_object(j);
	}
	json__end_array(j);
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
	workloads_json(j, r);
	json__end_object(j);
}
