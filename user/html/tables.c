// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the job touched and who did it: the file-count summary (as
 * Darshan's job summary gives it, the dataset apart from the job's code),
 * mapped data read by page faults, the busiest directories and files, time
 * by thread name as stacked bars, the devices, and what was lost and held.
 */
#include <stdlib.h>
#include <string.h>
#include "html/html_int.h"

#define THREAD_BAR_H	22

/* The job's code and libraries, counted apart from the dataset (vfs.code). */
static void code_row(struct page *p)
{
	const json_t *c = jget(p->root, "vfs.code");
	char a[24], b[24];

	fprintf(p->out, "<tr><th>of them code (modules, libraries, system files; not the "
		"dataset)</th><td class=\"num\">%llu</td></tr>\n"
		"<tr><th>code: opens, reads, bytes read, I/O time</th><td class=\"num\">"
		"%llu, %llu, %s, %s</td></tr>\n", jcount(c, "files"), jcount(c, "opens"),
		jcount(c, "reads"), units__page_bytes(a, sizeof(a), jnum(c, "read_bytes")),
		units__page_ns(b, sizeof(b), jnum(c, "ns")));
}

/*
 * The reads by interface (vfs.interfaces), and the queue io_uring and AIO
 * keep (vfs.async); io_uring's null where the kernel did not give it.
 */
static void interfaces(struct page *p)
{
	const json_t *i = jget(p->root, "vfs.interfaces"), *a = jget(p->root, "vfs.async");
	const json_t *u = jget(i, "io_uring");
	char n[24], f[24];

	if (!i)
		return;		/* a report from before the interfaces were counted */
	fprintf(p->out, "<tr><th>reads by interface: read() calls, io_uring, Linux AIO</th>"
		"<td class=\"num\">%llu, ", jcount(i, "syscall.reads"));
	if (json_is_null(jget(u, "reads")))
		fputs("not measured", p->out);
	else
		fprintf(p->out, "%llu", jcount(u, "reads"));
	fprintf(p->out, ", %llu</td></tr>\n", jcount(i, "aio.reads"));
	if (!jcount(a, "reads") && !jcount(a, "in_flight_at_end"))
		return;
	fprintf(p->out, "<tr><th>io_uring and AIO reads: queue depth mean, in flight at the "
		"end</th><td class=\"num\">%s, %llu</td></tr>\n",
		units__page_num(n, sizeof(n), jnum(a, "depth_mean")), jcount(a, "in_flight_at_end"));
	if (!json_object_get(a, "file_depth_max"))
		return;		/* a report from before the files' depth was kept */
	fprintf(p->out, "<tr><th>their depth on their file: mean, max; reads whose file was "
		"known only at completion</th><td class=\"num\">%s, %s%llu; %llu</td></tr>\n",
		units__page_num(f, sizeof(f), jnum(a, "file_depth_mean")),
		json_is_true(json_object_get(a, "file_depth_max_upper_bound")) ? "at most " : "",
		jcount(a, "file_depth_max"), jcount(a, "file_unresolved"));
}

static void summary(struct page *p)
{
	const json_t *s = jget(p->root, "_html.dataset");
	char a[24], b[24];

	fprintf(p->out, "<section id=\"file-summary\"><h2>Files</h2>\n<table>\n"
		"<tr><th>regular files</th><td class=\"num\">%llu</td></tr>\n",
		jcount(p->root, "vfs.files"));
	code_row(p);
	fprintf(p->out,
		"<tr><th>directories</th><td class=\"num\">%llu</td></tr>\n"
		"<tr><th>dataset file records (regular and cache-only, code apart)</th>"
		"<td class=\"num\">%llu</td></tr>\n"
		"<tr><th>total size</th><td class=\"num\">%s (%llu bytes)</td></tr>\n"
		"<tr><th>median size</th><td class=\"num\">%s</td></tr>\n"
		"<tr><th>read whole (to 90%% of their size or more)</th><td class=\"num\">%llu</td></tr>\n"
		"<tr><th>read in part</th><td class=\"num\">%llu</td></tr>\n"
		"<tr><th>not read</th><td class=\"num\">%llu</td></tr>\n"
		"<tr><th>opens, reads, stats</th><td class=\"num\">%llu, %llu, %llu</td></tr>\n",
		jcount(p->root, "vfs.dirs"), jcount(s, "records"),
		units__page_bytes(a, sizeof(a), jnum(s, "bytes")), jcount(s, "bytes"),
		units__page_bytes(b, sizeof(b), jnum(s, "median")), jcount(s, "whole"),
		jcount(s, "partly"), jcount(s, "unread"),
		jcount(p->root, "vfs.opens"), jcount(p->root, "vfs.reads"),
		jcount(p->root, "vfs.stats"));
	interfaces(p);
	fputs("</table></section>\n", p->out);
}

/*
 * Mapped data read by page faults (vfs.mapped): a dataset read through mmap
 * (LMDB, np.memmap, Arrow) issues no read() calls.
 */
static void mapped(struct page *p)
{
	const json_t *m = jget(p->root, "vfs.mapped");
	unsigned long long seq = jcount(m, "fault_reads_sequential");
	unsigned long long rnd = jcount(m, "fault_reads_random");
	char a[24], b[24], c[24];

	fputs("<section id=\"mapped\"><h2>Mapped data (reads by page faults)</h2>\n", p->out);
	if (json_is_null(jget(m, "fault_reads"))) {	/* the kernel gave no fault tracepoints */
		fputs("<p>Faults on file mappings not measured on this kernel (see the "
		      "header).</p></section>\n", p->out);
		return;
	}
	if (!jcount(m, "fault_reads")) {
		fputs("<p>No fault on a mapped data file read from storage.</p></section>\n", p->out);
		return;
	}
	fprintf(p->out, "<table>\n"
		"<tr><th>data files read by faults</th><td class=\"num\">%llu</td></tr>\n"
		"<tr><th>faults that read from storage</th><td class=\"num\">%llu</td></tr>\n"
		"<tr><th>pages they brought in</th><td class=\"num\">%llu (%s)</td></tr>\n"
		"<tr><th>random (not within the previous fault's stride)</th>"
		"<td class=\"num\">%s of %llu</td></tr>\n"
		"<tr><th>threads' wait for the pages</th><td class=\"num\">%s</td></tr>\n"
		"</table></section>\n", jcount(m, "files"), jcount(m, "fault_reads"),
		jcount(m, "fault_pages"), units__page_bytes(a, sizeof(a), jnum(m, "fault_bytes")),
		units__page_share(b, sizeof(b), seq + rnd ? (double)rnd / (seq + rnd) : -1), seq + rnd,
		units__page_ns(c, sizeof(c), jnum(m, "fault_ns")));
}

/* The path cell: the path escaped, and a tag for the job's code. */
static void path_cell(FILE *out, const json_t *r)
{
	fputs("<tr><td class=\"path\">", out);
	esc__text(out, jstr(r, "path"), "<i>unknown path</i>");
	if (html__is_code(r))
		fputs(" <span class=\"tag\">code</span>", out);
	fputs("</td>", out);
}

/*
 * The top rows of "files" or "dirs", busiest first as the report sorts
 * them; files add their faults that read from storage (mapped data).
 */
static void top_list(struct page *p, const char *key, const char *id, const char *title)
{
	const json_t *list = jget(p->root, key), *r;
	bool files = !strcmp(key, "files");
	char a[24], b[24], all[16];
	size_t i;

	fprintf(p->out, "<section id=\"%s\"><h2>%s</h2>\n<table class=\"list\"><tr><th>path</th>"
		"<th>opens</th><th>reads</th><th>bytes read</th><th>read time</th>"
		"<th>metadata time</th>%s</tr>\n", id, title,
		files ? "<th>fault reads</th>" : "");
	json_array_foreach(list, i, r) {
		if ((int)i >= p->top)
			break;
		path_cell(p->out, r);
		fprintf(p->out, "<td class=\"num\">%llu</td><td class=\"num\">%llu</td>"
			"<td class=\"num\">%llu</td><td class=\"num\">%s</td>"
			"<td class=\"num\">%s</td>", jcount(r, "opens"), jcount(r, "reads"),
			jcount(r, "read_bytes"), units__page_ns(a, sizeof(a), jnum(r, "read_ns")),
			units__page_ns(b, sizeof(b), jnum(r, "meta_ns")));
		if (files && json_is_null(json_object_get(r, "fault_reads")))
			fputs("<td class=\"num\">not measured</td>", p->out);
		else if (files)
			fprintf(p->out, "<td class=\"num\">%llu</td>", jcount(r, "fault_reads"));
		fputs("</tr>\n", p->out);
	}
	snprintf(all, sizeof(all), "_html.%s", key);
	if (jcount(p->root, all) > (unsigned long long)p->top)
		fprintf(p->out, "<tr><td colspan=\"%d\">… %llu more</td></tr>\n", files ? 7 : 6,
			jcount(p->root, all) - p->top);
	fputs("</table></section>\n", p->out);
}

static const char *const thread_keys[] = { "cpu_ns", "io_wait_ns", "runq_ns", "sleep_ns" };
static const char *const thread_words[] = { "on CPU", "I/O wait", "waiting for a CPU", "asleep" };

/* One stacked bar per thread name: shares of its threads' time. */
static void thread_bar(FILE *out, const json_t *g, double y)
{
	double all = 0, x = 180, w = SVG_W - 180 - SVG_RIGHT;
	char label[64];

	for (int k = 0; k < 4; k++)
		all += jnum(g, thread_keys[k]);
	snprintf(label, sizeof(label), "%s (%llu)", jstr(g, "name") ?: "?", jcount(g, "threads"));
	svg__text(out, 174, y + 15, "end", "tick", label);
	for (int k = 0; k < 4 && all > 0; k++) {
		double part = jnum(g, thread_keys[k]) / all * w;
		char ns[24];

		fprintf(out, "<rect class=\"f%d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\">"
			"<title>%s: %s (%.1f%%)</title></rect>", k + 1, x, y + 3, part,
			THREAD_BAR_H - 6, thread_words[k],
			units__page_ns(ns, sizeof(ns), jnum(g, thread_keys[k])), part / w * 100);
		x += part;
	}
	fputc('\n', out);
}

static void thread_names(struct page *p)
{
	const json_t *groups = jget(p->root, "thread_groups"), *g;
	size_t n = json_array_size(groups), i;
	int rows = n < (size_t)p->top ? (int)n : p->top, h = SVG_TOP + rows * THREAD_BAR_H + 30;
	struct chart c = { .out = p->out, .h = h };

	fputs("<section id=\"threads\"><h2>Time by thread name</h2>\n", p->out);
	if (!n) {
		fputs("<p>No thread did file I/O.</p></section>\n", p->out);
		return;
	}
	svg__open(p->out, "chart-threads", "Where each thread name's time went (share of its "
		  "threads' time; the number of threads in brackets)", h);
	for (int k = 0; k < 4; k++) {
		c.series = k;
		c.out = p->out;
		chart__legend(&c, thread_words[k]);
	}
	json_array_foreach(groups, i, g) {
		if ((int)i >= rows)
			break;
		thread_bar(p->out, g, SVG_TOP + i * THREAD_BAR_H);
	}
	svg__text(p->out, 180 + (SVG_W - 180 - SVG_RIGHT) / 2.0, h - 6, "middle", "label",
		  "share of the time, 0 to 100%");
	svg__close(p->out);
	fputs("</section>\n", p->out);
}

/* iostat -x for the target's requests, per device. */
/* "5.52 MiB/s" */
static const char *bytes_per_s(char *buf, size_t len, double bps)
{
	char b[32];

	snprintf(buf, len, "%s/s", units__page_bytes(b, sizeof(b), bps));
	return buf;
}

static void devices(struct page *p)
{
	const json_t *devs = jget(p->root, "block.devices"), *d;
	size_t i;

	fputs("<section id=\"devices\"><h2>Block devices (the target's requests)</h2>\n", p->out);
	if (!json_array_size(devs)) {
		fputs("<p>No block request completed in the window.</p></section>\n", p->out);
		return;
	}
	fputs("<table class=\"list\"><tr><th>device</th><th>dev</th><th>r/s</th><th>read/s</th>"
	      "<th>r_await</th><th>rareq-sz</th><th>w/s</th><th>aqu-sz</th><th>util</th>"
	      "<th>not the target's</th></tr>\n", p->out);
	json_array_foreach(devs, i, d) {
		const json_t *io = jget(d, "iostat.target");
		char v[7][40];

		fputs("<tr><td>", p->out);
		esc__text(p->out, jstr(d, "name"), "?");
		fputs("</td><td>", p->out);
		esc__text(p->out, jstr(d, "dev"), "?");
		fprintf(p->out, "</td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
			"<td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
			"<td class=\"num\">%s</td><td class=\"num\">%s</td>"
			"<td class=\"num\">%llu</td></tr>\n",
			units__page_num(v[0], 40, jnum(io, "r_per_s")),
			bytes_per_s(v[1], 40, jnum(io, "rkb_per_s") * 1024),
			units__page_ns(v[2], 40, jnum(io, "r_await_ms") * 1e6),
			units__page_bytes(v[3], 40, jnum(io, "rareq_sz_kb") * 1024),
			units__page_num(v[4], 40, jnum(io, "w_per_s")),
			units__page_num(v[5], 40, jnum(io, "aqu_sz")),
			units__page_share(v[6], 40, jnum(io, "util_pct") / 100),
			jcount(d, "unattributed.reqs"));
	}
	fputs("</table></section>\n", p->out);
}

/* Every lost reason, zeros too: "0 lost" is a checked statement. */
static void lost(struct page *p)
{
	const json_t *l = jget(p->root, "lost"), *v;
	const char *key;
	char a[24], b[24], c[24];

	fprintf(p->out, "<section id=\"lost\"><h2>Lost events and memory</h2>\n<p class=\"%s\">"
		"%llu events could not be recorded%s</p>\n<table>\n",
		jcount(l, "total") ? "warn" : "ok", jcount(l, "total"),
		jcount(l, "total") ? ": the counts above are incomplete" : "");
	json_object_foreach((json_t *)l, key, v) {
		if (!strcmp(key, "total"))
			continue;
		fputs("<tr><th>", p->out);
		esc__text(p->out, key, "");
		fprintf(p->out, "</th><td class=\"num\">%s</td></tr>\n", esc__num(a, sizeof(a), v));
	}
	fprintf(p->out, "</table>\n<p>memory: %s for %llu files in iostorm (the timeline %s), "
		"%s of BPF maps in the kernel</p></section>\n",
		units__page_bytes(a, sizeof(a), jnum(p->root, "store.bytes")),
		jcount(p->root, "store.files"), units__page_bytes(b, sizeof(b), jnum(p->root, "timeline.bytes")),
		units__page_bytes(c, sizeof(c), jnum(p->root, "store.kernel_maps_bytes")));
}

void html_tables__section(struct page *p)
{
	summary(p);
	mapped(p);
	top_list(p, "dirs", "top-dirs", "Busiest directories");
	top_list(p, "files", "top-files", "Busiest files");
	thread_names(p);
	devices(p);
	html_nfs__section(p);
	lost(p);
}
