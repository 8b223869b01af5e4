// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The training loops of a node or of several ranks (stall.loops), grouped
 * by workload (stall.workloads: a pod, a Slurm job, a cgroup, a process),
 * the most waiting first, in the text report's words (report/stall.c):
 * each workload's loops, their data-wait shares and causes, and what its
 * cgroups read. A single loop is the verdict's and the timeline's already.
 */
#include <string.h>
#include "html/html_int.h"

/* One column of the loops' table: a part of a loop's wall time. */
struct part {
	const char *key;	/* of stall.loops[] */
	const char *words;	/* the text report's */
	bool optional;		/* a column only when some loop has it */
};

static const struct part parts[] = {
	{ "data_wait_ns", "waits for data", false },
	{ "own_io_ns", "own file I/O", false },
	{ "loader_wait_ns", "woken by the loader", false },
	{ "receive_ns", "receiving batches", true },
	{ "write_wait_ns", "waits on writes", true },
	{ "on_cpu_ns", "on CPU", false },
	{ "rank_wait_ns", "waits for other ranks", true },
	{ "other_wait_ns", "other waits", false },
	{ "runnable_ns", "waiting for a CPU", false },
};

#define NR_PARTS	(sizeof(parts) / sizeof(parts[0]))

/* How a loop's thread was chosen, as model/stall.c words it in stall.why. */
static const char *how_words(const char *how)
{
	if (!how)
		return NULL;
	if (!strcmp(how, "given"))
		return "given with --consumer";
	if (!strcmp(how, "root"))
		return "the main thread of the traced process";
	if (!strcmp(how, "fed"))
		return "a process main thread the loader feeds";
	return how;
}

/* A workload's name: its pod, Slurm job, cgroup, or process (its first pid). */
static void heading(FILE *out, const json_t *w)
{
	const char *kind = jstr(w, "kind") ?: "";

	if (!strcmp(kind, "pod")) {
		fputs("pod ", out);
		esc__text(out, jstr(w, "pod_uid"), "?");
	} else if (!strcmp(kind, "slurm_job")) {
		fputs("Slurm job ", out);
		esc__text(out, jstr(w, "slurm_job"), "?");
	} else if (!strcmp(kind, "cgroup")) {
		fputs("cgroup ", out);
		esc__text(out, jstr(w, "cgroup"), "?");
	} else {
		const json_t *pid = json_array_get(jget(w, "pids"), 0);

		fprintf(out, "pid %lld", json_is_integer(pid) ? (long long)json_integer_value(pid) : 0);
	}
}

/* Where a pod's or a job's loops run: the worst loop's cgroup, the containers. */
static void cgroups_line(FILE *out, const json_t *w)
{
	const json_t *ids = jget(w, "container_ids"), *id;
	const char *kind = jstr(w, "kind") ?: "";
	size_t i;

	if (!strcmp(kind, "cgroup") || !jstr(w, "cgroup"))
		return;		/* named by it already, or none known */
	fputs("<p class=\"meta\">cgroup <code>", out);
	esc__text(out, jstr(w, "cgroup"), "");
	fputs("</code>", out);
	json_array_foreach(ids, i, id) {
		fputs(i ? ", " : json_array_size(ids) > 1 ? "; containers " : "; container ",
		      out);
		esc__text(out, json_string_value(id), "?");
	}
	if (jcount(w, "storage.cgroups") > 1)
		fprintf(out, "; its I/O sums its %llu cgroups", jcount(w, "storage.cgroups"));
	fputs("</p>\n", out);
}

/* A share of the JSON, 0..1, or n/a where null. */
static const char *share(char *buf, size_t len, const json_t *v)
{
	return units__page_share(buf, len, json_is_number(v) ? json_number_value(v) : -1);
}

/*
 * A workload's loops, the worst one's wait and cause, and what its
 * cgroups did (report/stall.c, work_text()).
 */
static void figures_line(FILE *out, const json_t *w)
{
	const json_t *io = jget(w, "storage");
	size_t n = json_array_size(jget(w, "loops"));
	char a[24], b[24], c[24], d[24], e[24];

	fprintf(out, "<p>%zu loop%s, %s waits for data %s", n, n == 1 ? "" : "s",
		n == 1 ? "it" : "the worst", share(a, sizeof(a), jget(w, "share_max")));
	if (jstr(w, "cause")) {
		fputs(" (cause ", out);
		esc__text(out, jstr(w, "cause"), "");
		fputc(')', out);
	}
	if (!json_is_object(io)) {
		fputs("; its cgroup is not known</p>\n", out);
		return;
	}
	if (!jcount(io, "opens") && !jcount(io, "reads") && !jcount(io, "stats")) {
		fputs("; no file I/O seen in its cgroups</p>\n", out);
		return;
	}
	fprintf(out, "; its I/O: %llu opens (%s/s), %llu reads (%s/s) of %s, %s a read, "
		"%s in metadata calls%s</p>\n", jcount(io, "opens"),
		units__page_num(a, sizeof(a), jnum(io, "opens_per_s")), jcount(io, "reads"),
		units__page_num(b, sizeof(b), jnum(io, "reads_per_s")),
		units__page_bytes(c, sizeof(c), jnum(io, "read_bytes")),
		json_is_number(jget(io, "read_avg_s")) ?
		units__page_ns(d, sizeof(d), jnum(io, "read_avg_s") * 1e9) : "-",
		units__page_ns(e, sizeof(e), jnum(io, "meta_s") * 1e9),
		json_is_true(jget(io, "partial")) ?
		" (at least: some cgroups were summed into other)" : "");
}

/* One loop's row: its thread, cause, time and the parts of it shown. */
static void loop_row(FILE *out, size_t i, const json_t *l, const bool *shown)
{
	double wall = jnum(l, "wall_ns");
	char buf[24];

	fprintf(out, "<tr><td class=\"num\">%zu</td><td>", i);
	esc__text(out, jstr(l, "consumer.comm"), "?");
	fprintf(out, " (tid %llu, pid %llu, ", jcount(l, "consumer.tid"), jcount(l, "consumer.pid"));
	esc__text(out, how_words(jstr(l, "how")), "?");
	fputs(")</td><td>", out);
	esc__text(out, jstr(l, "cause"), "-");
	fprintf(out, "</td><td class=\"num\">%s</td>", units__page_ns(buf, sizeof(buf), wall));
	for (size_t k = 0; k < NR_PARTS; k++)
		if (shown[k])
			fprintf(out, "<td class=\"num\">%s</td>", units__page_share(buf,
				sizeof(buf), wall > 0 ? jnum(l, parts[k].key) / wall : -1));
	fputs("</tr>\n", out);
}

/* A workload: its name, where it runs, its line, and its loops' table. */
static void workload_rows(FILE *out, const json_t *w, const json_t *loops, const bool *shown)
{
	const json_t *idx;
	size_t i;

	fputs("<article class=\"workload\"><h3>", out);
	heading(out, w);
	fputs("</h3>\n", out);
	cgroups_line(out, w);
	figures_line(out, w);
	fputs("<table class=\"list\"><tr><th>loop</th><th>thread</th><th>cause</th>"
	      "<th>its time</th>", out);
	for (size_t k = 0; k < NR_PARTS; k++)
		if (shown[k])
			fprintf(out, "<th>%s</th>", parts[k].words);
	fputs("</tr>\n", out);
	json_array_foreach(jget(w, "loops"), i, idx) {
		size_t n = json_is_integer(idx) ? (size_t)json_integer_value(idx) : (size_t)-1;

		if (n < json_array_size(loops))
			loop_row(out, n, json_array_get(loops, n), shown);
	}
	fputs("</table></article>\n", out);
}

void html_loops__section(struct page *p)
{
	const json_t *loops = jget(p->root, "stall.loops"), *works = jget(p->root, "stall.workloads");
	const json_t *w, *l;
	size_t nl = json_array_size(loops), nw = json_array_size(works), i;
	bool shown[NR_PARTS];
	char a[24], b[24];

	if (nl < 2 || !nw)
		return;		/* one loop, none, or a report from before workloads */
	for (size_t k = 0; k < NR_PARTS; k++) {
		shown[k] = !parts[k].optional;
		json_array_foreach(loops, i, l)
			shown[k] |= jnum(l, parts[k].key) > 0;
	}
	fprintf(p->out, "<section id=\"loops\"><h2>Training loops by workload</h2>\n"
		"<p>%zu training loops (one per process: data-parallel ranks) in %zu workload%s; "
		"the one that waits most for data %s, the least %s%s</p>\n", nl, nw,
		nw == 1 ? "" : "s", share(a, sizeof(a), jget(json_array_get(loops, 0), "share")),
		share(b, sizeof(b), jget(json_array_get(loops, nl - 1), "share")),
		json_is_true(jget(p->root, "stall.data_wait_lower_bound")) ?
		" (lower bounds: the wakeups table was full, see lost)" : "");
	fputs("<p class=\"note\">Each workload with its loops, the one that waits most for data "
	      "first; a loop's figures are shares of its time. Its I/O is what its cgroups "
	      "did, the loaders' included, over the whole trace.</p>\n", p->out);
	json_array_foreach(works, i, w) {
		workload_rows(p->out, w, loops, shown);
	}
	fputs("</section>\n", p->out);
}
