// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * NFS, from the JSON's nfs.mounts: per mount, the round trips each file
 * costs and their time, then every procedure's calls as mountstats counts
 * them (queue, round trip, total, retransmissions, errors). Drawn only when
 * the trace saw an NFS call.
 */
#include <string.h>
#include "html/html_int.h"

/* "3.2 round trips a file (OPEN_NOATTR 1.0, READ_PLUS 1.0, CLOSE 1.0)" */
static void round_trips(struct page *p, const json_t *l)
{
	const json_t *per = jget(l, "per_file"), *e;
	char v[24], w[24];
	size_t i;

	if (jnum(l, "round_trips_per_file") < 0) {
		fputs("no file opened on the mount", p->out);
		return;
	}
	fprintf(p->out, "%s round trips a file (",
		units__page_num(v, sizeof(v), jnum(l, "round_trips_per_file")));
	json_array_foreach(per, i, e) {
		fputs(i ? ", " : "", p->out);
		esc__text(p->out, jstr(e, "name"), "?");
		fprintf(p->out, " %s", units__page_num(v, sizeof(v), jnum(e, "calls")));
	}
	fprintf(p->out, "), round trip %s, call %s with its queue",
		units__page_ns(v, sizeof(v), jnum(l, "rtt_mean_ns")),
		units__page_ns(w, sizeof(w), jnum(l, "total_mean_ns")));
}

static void op_row(struct page *p, const json_t *op)
{
	const json_t *a = jget(op, "all");
	double calls = jnum(a, "calls");
	char v[5][24];

	if (!calls)
		return;
	fputs("<tr><td>", p->out);
	esc__text(p->out, jstr(op, "name"), "?");
	fprintf(p->out, "</td><td class=\"num\">%llu</td><td class=\"num\">%llu</td>"
		"<td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
		"<td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%llu</td>"
		"<td class=\"num\">%llu</td></tr>\n", jcount(a, "calls"),
		jcount(op, "target.calls"), units__page_bytes(v[0], 24, jnum(a, "bytes_recv")),
		units__page_ns(v[1], 24, jnum(a, "queue_ns") / calls),
		units__page_ns(v[2], 24, jnum(op, "rtt.p50")),
		units__page_ns(v[3], 24, jnum(a, "rtt_ns") / calls),
		units__page_ns(v[4], 24, jnum(a, "total_ns") / calls), jcount(a, "retrans"),
		jcount(a, "errors"));
}

static void mount(struct page *p, const json_t *m)
{
	const json_t *ops = jget(m, "ops"), *op;
	size_t i;

	fputs("<h3>", p->out);
	if (jstr(m, "mount_point")) {
		esc__text(p->out, jstr(m, "source"), "?");
		fputs(" on ", p->out);
		esc__text(p->out, jstr(m, "mount_point"), "?");
	} else if (!strcmp(jstr(m, "role") ?: "", "client")) {
		fputs("the NFS client's own calls to ", p->out);
		esc__text(p->out, jstr(m, "server"), "?");
	} else {
		fputs("an unknown mount of ", p->out);
		esc__text(p->out, jstr(m, "server"), "?");
	}
	fputs(" (NFSv", p->out);
	esc__text(p->out, jstr(m, "version"), "?");
	fputs(")</h3>\n", p->out);
	if (jstr(m, "mount_point")) {
		fprintf(p->out, "<p>the target's %llu calls: ", jcount(m, "layers.calls"));
		round_trips(p, jget(m, "layers"));
		fputs("</p>\n", p->out);
	}
	fputs("<table class=\"list\"><tr><th>procedure</th><th>calls</th><th>target</th>"
	      "<th>received</th><th>queue</th><th>rtt p50</th><th>rtt</th><th>total</th>"
	      "<th>retrans</th><th>errors</th></tr>\n", p->out);
	json_array_foreach(ops, i, op) {
		op_row(p, op);
	}
	fputs("</table>\n", p->out);
}

void html_nfs__section(struct page *p)
{
	const json_t *mounts = jget(p->root, "nfs.mounts"), *m;
	size_t i;
	bool any = false;

	json_array_foreach(mounts, i, m) {
		any |= jcount(m, "layers.calls") || json_array_size(jget(m, "ops"));
	}
	if (!any)
		return;
	fputs("<section id=\"nfs\"><h2>NFS calls (mountstats' figures, by procedure)</h2>\n",
	      p->out);
	json_array_foreach(mounts, i, m) {
		mount(p, m);
	}
	fputs("</section>\n", p->out);
}
