// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The FUSE request layer, in both reports: per FUSE connection, its
 * requests by opcode and requester ("fuse.connections"), and latency by
 * layer for FUSE, each syscall next to the requests it caused
 * ("fuse.layers").
 */
#include <stdio.h>
#include <stdlib.h>
#include "lib/json.h"
#include "lib/units.h"
#include "report/report_int.h"

static const struct hist empty_hist;


/* ---- FUSE: JSON ---- */

static void json_stats(struct json *j, const char *key, const struct fuse_stats *s)
{
	json__key(j, key);
	json__begin_object(j);
	json__kv_u64(j, "reqs", s->reqs);
	json__kv_u64(j, "in_bytes", s->in_bytes);
	json__kv_u64(j, "out_bytes", s->out_bytes);
	json__kv_u64(j, "total_ns", s->total_ns);
	json__kv_u64(j, "errors", s->errors);
	json__kv_u64(j, "background", s->background);
	json__kv_u64(j, "inflight_sum", s->inflight_sum);
	json__end_object(j);
}

static const struct hist *hist_or_empty(const struct fuse_op *op, int id, int scope)
{
	const struct hist *h = fuse_op__hist(op, id, scope);

	return h ? h : &empty_hist;
}

static void json_op(struct json *j, const struct fuse_op *op)
{
	struct fuse_stats s;
	char name[16];
	__u64 inflight = 0;

	json__begin_object(j);
	json__kv_string(j, "opcode", fuse__op_name(op->opcode, name, sizeof(name)));
	json__kv_u64(j, "code", op->opcode);
	fuse_op__sum(op, FUSE_WHO_ALL, &s);
	json_stats(j, "all", &s);
	json_stats(j, "target", &op->st[FUSE_WHO_TARGET]);
	json_stats(j, "background", &op->st[FUSE_WHO_BACKGROUND]);
	json_stats(j, "other", &op->st[FUSE_WHO_OTHER]);
	json_stats(j, "untracked", &op->st[FUSE_WHO_UNTRACKED]);
	for (int w = 0; w < FUSE_WHO__MAX; w++)
		inflight += op->inflight_end[w];
	json__kv_u64(j, "inflight_end", inflight);
	json__kv_u64(j, "inflight_end_target", op->inflight_end[FUSE_WHO_TARGET]);
	emit__json_hist(j, "latency", hist_or_empty(op, FUSE_H_LAT, FUSE_SCOPE_CONN), "ns");
	emit__json_hist(j, "latency_target", hist_or_empty(op, FUSE_H_LAT, FUSE_SCOPE_TARGET),
			"ns");
	emit__json_hist(j, "inflight", hist_or_empty(op, FUSE_H_INFLIGHT, FUSE_SCOPE_CONN),
			"requests");
	json__end_object(j);
}

static void json_lat(struct json *j, const char *key, const struct layer_lat *l)
{
	json__key(j, key);
	json__begin_object(j);
	json__kv_u64(j, "count", l->count);
	json__kv_u64(j, "p50_ns", l->p50);
	json__kv_u64(j, "p99_ns", l->p99);
	json__kv_double(j, "mean_ns", l->mean);
	json__end_object(j);
}

static void json_layers(struct json *j, const struct fuse_layers *fl)
{
	json__key(j, "layers");
	json__begin_object(j);
	json__kv_u64(j, "files_opened", fl->sys.files_opened);
	json__kv_u64(j, "opens", fl->sys.opens);
	json__kv_u64(j, "stats", fl->sys.stats);
	json__kv_u64(j, "reads", fl->sys.reads);
	json__kv_u64(j, "read_bytes", fl->sys.read_bytes);
	json__kv_double(j, "read_mean_ns", fl->sys.read_mean_ns);
	json__kv_double(j, "meta_mean_ns", fl->sys.meta_mean_ns);
	json__kv_u64(j, "requests", fl->reqs);
	json__kv_double(j, "round_trips_per_file", fl->round_trips);
	json__kv_double(j, "rtt_mean_ns", fl->rtt_mean_ns);
	json__kv_u64(j, "read_requests", fl->read_reqs);
	json__kv_u64(j, "read_request_bytes", fl->read_bytes_fuse);
	json__kv_double(j, "read_inflight_mean", fl->read_inflight);
	json_lat(j, "read", &fl->read);
	json_lat(j, "lookup", &fl->lookup);
	json_lat(j, "getattr", &fl->getattr);
	json_lat(j, "open", &fl->open);
	json__kv_u64(j, "unattributed", fl->unattributed);
	json__kv_u64(j, "inflight_end", fl->inflight_end);
	json__end_object(j);
}

static void json_conn(struct json *j, const struct fuse_conn *c,
		      const struct fuse_layers *l)
{
	const struct fuse_layers fl = *l;
	char dev[24];

	json__begin_object(j);
	json__kv_string(j, "connection", units__dev(dev, sizeof(dev), c->conn));
	json__kv_string(j, "mount_point", fl.mount ? fl.mount->point : NULL);
	json__kv_string(j, "fstype", fl.mount ? fl.mount->fstype : NULL);
	json__kv_string(j, "source", fl.mount ? fl.mount->source : NULL);
	json__key(j, "ops");
	json__begin_array(j);
	for (size_t i = 0; i < c->nr_ops; i++)
		json_op(j, &c->ops[i]);
	json__end_array(j);
	json_layers(j, &fl);
	json__end_object(j);
}

void report_fuse__json(struct json *j, const struct report *r)
{
	const struct trace *t = r->t;

	json__key(j, "fuse");
	json__begin_object(j);
	json__key(j, "connections");
	json__begin_array(j);
	for (size_t i = 0; i < t->fuse.nr_conns; i++)
		json_conn(j, &t->fuse.conns[i], &r->fa->fuse[i]);
	json__end_array(j);
	json__end_object(j);
}

/* ---- FUSE: text ---- */

static void text_op(FILE *out, const struct fuse_op *op)
{
	const struct hist *h = fuse_op__hist(op, FUSE_H_LAT, FUSE_SCOPE_CONN);
	struct fuse_stats s;
	char name[16], bytes[16];
	__u64 inflight = 0;

	fuse_op__sum(op, FUSE_WHO_ALL, &s);
	for (int w = 0; w < FUSE_WHO__MAX; w++)
		inflight += op->inflight_end[w];
	fprintf(out, "  %-12s", fuse__op_name(op->opcode, name, sizeof(name)));
	emit__cell_u64(out, s.reqs, 8);
	emit__cell_u64(out, op->st[FUSE_WHO_TARGET].reqs, 8);
	emit__cell(out, units__size(bytes, sizeof(bytes), s.out_bytes, true), 8);
	emit__cell_ns(out, h ? hist__quantile(h, 0.5) : 0, 8);
	emit__cell_ns(out, h ? hist__quantile(h, 0.99) : 0, 8);
	emit__cell_ns(out, s.reqs ? (double)s.total_ns / s.reqs : 0, 8);
	emit__cell_u64(out, s.errors, 6);
	fprintf(out, " %8.1f", s.reqs ? (double)s.inflight_sum / s.reqs : 0.0);
	emit__cell_u64(out, inflight, 6);
	fputc('\n', out);
}

static void text_lat_row(FILE *out, const char *what, __u64 count, double p50, double p99,
			 double mean)
{
	fprintf(out, "  %-32s %8llu", what, count);
	if (count) {
		if (p50 > 0) {
			emit__cell_ns(out, p50, 8);
			emit__cell_ns(out, p99, 8);
		} else {
			fprintf(out, " %8s %8s", "-", "-");
		}
		emit__cell_ns(out, mean, 8);
	}
	fputc('\n', out);
}

static void text_layers(FILE *out, const struct fuse_layers *fl)
{
	const struct layer_lat *l[] = { &fl->lookup, &fl->getattr, &fl->open, &fl->read };
	static const char *const names[] = { "LOOKUP requests", "GETATTR/STATX requests",
					     "OPEN requests", "READ requests" };

	fprintf(out, "  latency by layer (target)          %8s %8s %8s %8s\n",
		"count", "p50", "p99", "mean");
	text_lat_row(out, "open()/stat() on the mount", fl->sys.opens + fl->sys.stats, 0, 0,
		     fl->sys.meta_mean_ns);
	for (int i = 0; i < 3; i++)
		text_lat_row(out, names[i], l[i]->count, l[i]->p50, l[i]->p99, l[i]->mean);
	text_lat_row(out, "read() on the mount", fl->sys.reads, 0, 0, fl->sys.read_mean_ns);
	text_lat_row(out, names[3], l[3]->count, l[3]->p50, l[3]->p99, l[3]->mean);
}

static void text_conn(FILE *out, const struct fuse_conn *c, const struct fuse_layers *l)
{
	struct fuse_stats all, s[FUSE_WHO__MAX];
	const struct fuse_layers fl = *l;
	char dev[24], rt[32];

	fuse_conn__sum(c, FUSE_WHO_ALL, &all);
	for (int w = 0; w < FUSE_WHO__MAX; w++)
		fuse_conn__sum(c, FUSE_WHO_BIT(w), &s[w]);
	units__dev(dev, sizeof(dev), c->conn);
	fprintf(out, "\nFUSE requests: ");
	if (fl.mount) {
		emit__safe(out, fl.mount->fstype);
		fputc(' ', out);
		emit__safe(out, fl.mount->source);
		fprintf(out, " on ");
		emit__safe(out, fl.mount->point);
	} else {
		fprintf(out, "unknown mount");
	}
	if (fl.round_trips < 0)
		snprintf(rt, sizeof(rt), "no file opened on the mount");
	else
		snprintf(rt, sizeof(rt), "%.1f per file opened", fl.round_trips);
	fprintf(out, " (connection %s)\n  target %llu requests (%s); "
		"not attributed %llu (%.1f%%: background %llu, other processes %llu, sent "
		"before the attach %llu); in flight at the end %llu\n",
		dev, fl.reqs, rt, fl.unattributed,
		emit__pct(fl.unattributed, all.reqs), s[FUSE_WHO_BACKGROUND].reqs,
		s[FUSE_WHO_OTHER].reqs, s[FUSE_WHO_UNTRACKED].reqs,
		fuse_conn__inflight_end(c, FUSE_WHO_ALL));
	fprintf(out, "  %-12s %8s %8s %8s %8s %8s %8s %6s %8s %6s\n", "opcode", "reqs",
		"target", "bytes", "p50", "p99", "mean", "errors", "inflight", "at end");
	for (size_t i = 0; i < c->nr_ops; i++)
		text_op(out, &c->ops[i]);
	text_layers(out, &fl);
}

/*
 * The one screen's: each FUSE mount the target opened, stat-ed or read
 * files on, and its latency by layer (no opcode table).
 */
void report_fuse__brief_text(FILE *out, const struct report *r)
{
	const struct trace *t = r->t;

	if (!fuse_layer__active(&t->fuse))
		return;
	for (size_t i = 0; i < t->fuse.nr_conns; i++) {
		const struct fuse_layers *fl = &r->fa->fuse[i];
		char rt[32];

		if (!fl->sys.opens && !fl->sys.stats && !fl->sys.reads)
			continue;	/* none of the target's files: the full report's */
		fprintf(out, "\nFUSE requests: ");
		if (fl->mount) {
			emit__safe(out, fl->mount->fstype);
			fputc(' ', out);
			emit__safe(out, fl->mount->source);
			fprintf(out, " on ");
			emit__safe(out, fl->mount->point);
		} else {
			fprintf(out, "unknown mount");
		}
		if (fl->round_trips < 0)
			snprintf(rt, sizeof(rt), "no file opened on the mount");
		else
			snprintf(rt, sizeof(rt), "%.1f per file opened", fl->round_trips);
		fprintf(out, "\n  target %llu requests (%s)\n", fl->reqs, rt);
		text_layers(out, fl);
	}
}

void report_fuse__text(FILE *out, const struct report *r)
{
	const struct trace *t = r->t;

	if (!fuse_layer__active(&t->fuse))
		return;
	for (size_t i = 0; i < t->fuse.nr_conns; i++)
		text_conn(out, &t->fuse.conns[i], &r->fa->fuse[i]);
}
