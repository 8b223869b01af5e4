// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The NFS layer, in both reports: per RPC client (an NFS mount's, or the
 * NFS client's own to a server), its calls by procedure and requester,
 * with the figures of /proc/self/mountstats ("nfs.mounts"), and latency
 * by layer for NFS, each syscall next to the calls it caused, and the
 * round trips each file costs ("nfs.mounts[].layers").
 */
#include <stdio.h>
#include <stdlib.h>
#include "lib/json.h"
#include "lib/units.h"
#include "report/report_int.h"

static const struct hist empty_hist;

/* ---- NFS: JSON ---- */

static void json_stats(struct json *j, const char *key, const struct nfs_stats *s)
{
	json__key(j, key);
	json__begin_object(j);
	json__kv_u64(j, "calls", s->calls);
	json__kv_u64(j, "trans", s->trans);
	json__kv_u64(j, "retrans", s->trans > s->calls ? s->trans - s->calls : 0);
	json__kv_u64(j, "timeouts", s->timeouts);
	json__kv_u64(j, "bytes_sent", s->bytes_sent);
	json__kv_u64(j, "bytes_recv", s->bytes_recv);
	json__kv_u64(j, "queue_ns", s->queue_ns);
	json__kv_u64(j, "rtt_ns", s->rtt_ns);
	json__kv_u64(j, "total_ns", s->total_ns);
	json__kv_u64(j, "errors", s->errors);
	json__kv_u64(j, "async", s->async);
	json__kv_u64(j, "inflight_sum", s->inflight_sum);
	json__end_object(j);
}

static const struct hist *hist_or_empty(const struct nfs_op *op, int id, int scope)
{
	const struct hist *h = nfs_op__hist(op, id, scope);

	return h ? h : &empty_hist;
}

static void json_op(struct json *j, const struct nfs_op *op)
{
	static const char *const hist_keys[NFS_H__MAX] = {
		[NFS_H_QUEUE] = "queue", [NFS_H_RTT] = "rtt", [NFS_H_TOTAL] = "total",
		[NFS_H_INFLIGHT] = "inflight",
	};
	struct nfs_stats s;
	char name[16], key[32];
	__u64 inflight = 0;

	json__begin_object(j);
	json__kv_string(j, "name", nfs_op__name(op, name, sizeof(name)));
	json__kv_u64(j, "proc", op->proc);
	nfs_op__sum(op, NFS_WHO_ALL, &s);
	json_stats(j, "all", &s);
	json_stats(j, "target", &op->st[NFS_WHO_TARGET]);
	json_stats(j, "client", &op->st[NFS_WHO_CLIENT]);
	json_stats(j, "other", &op->st[NFS_WHO_OTHER]);
	json_stats(j, "untracked", &op->st[NFS_WHO_UNTRACKED]);
	for (int w = 0; w < NFS_WHO__MAX; w++)
		inflight += op->inflight_end[w];
	json__kv_u64(j, "inflight_end", inflight);
	json__kv_u64(j, "inflight_end_target", op->inflight_end[NFS_WHO_TARGET]);
	for (int h = 0; h < NFS_H__MAX; h++) {
		const char *unit = h == NFS_H_INFLIGHT ? "calls" : "ns";

		emit__json_hist(j, hist_keys[h], hist_or_empty(op, h, NFS_SCOPE_CLNT), unit);
		if (h == NFS_H_INFLIGHT)
			continue;
		snprintf(key, sizeof(key), "%s_target", hist_keys[h]);
		emit__json_hist(j, key, hist_or_empty(op, h, NFS_SCOPE_TARGET), unit);
	}
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

static void json_per_file(struct json *j, const struct nfs_layers *nl)
{
	json__key(j, "per_file");
	json__begin_array(j);
	for (int i = 0; i < nl->nr_per_file; i++) {
		json__begin_object(j);
		json__kv_string(j, "name", nl->per_file[i].name);
		json__kv_double(j, "calls", nl->per_file[i].calls);
		json__end_object(j);
	}
	json__end_array(j);
}

static void json_layers(struct json *j, const struct nfs_layers *nl)
{
	json__key(j, "layers");
	json__begin_object(j);
	json__kv_u64(j, "files_opened", nl->sys.files_opened);
	json__kv_u64(j, "opens", nl->sys.opens);
	json__kv_u64(j, "stats", nl->sys.stats);
	json__kv_u64(j, "reads", nl->sys.reads);
	json__kv_u64(j, "read_bytes", nl->sys.read_bytes);
	json__kv_double(j, "read_mean_ns", nl->sys.read_mean_ns);
	json__kv_double(j, "meta_mean_ns", nl->sys.meta_mean_ns);
	json__kv_u64(j, "calls", nl->calls);
	json__kv_double(j, "round_trips_per_file", nl->round_trips);
	json_per_file(j, nl);
	json__kv_double(j, "rtt_mean_ns", nl->rtt_mean_ns);
	json__kv_double(j, "queue_mean_ns", nl->queue_mean_ns);
	json__kv_double(j, "total_mean_ns", nl->total_mean_ns);
	json__kv_u64(j, "retrans", nl->retrans);
	json__kv_u64(j, "timeouts", nl->timeouts);
	json__kv_u64(j, "errors", nl->errors);
	json__kv_u64(j, "read_calls", nl->read_calls);
	json__kv_u64(j, "read_call_bytes", nl->read_call_bytes);
	json__kv_double(j, "read_inflight_mean", nl->read_inflight);
	json_lat(j, "read", &nl->read);
	json_lat(j, "lookup", &nl->lookup);
	json_lat(j, "getattr", &nl->getattr);
	json_lat(j, "access", &nl->access);
	json_lat(j, "open", &nl->open);
	json__kv_u64(j, "unattributed", nl->unattributed);
	json__kv_u64(j, "inflight_end", nl->inflight_end);
	json__kv_u64(j, "client_calls", nl->client_calls);
	json__end_object(j);
}

static void json_rpc(struct json *j, const struct nfs_rpc *r, const struct nfs_layers *nl)
{
	const struct mount_rec *m = nl->mount;

	json__begin_object(j);
	json__kv_u64(j, "rpc_client", r->clid);
	json__kv_string(j, "role", nfs__role_name(r->known ? r->info.role : NFS_ROLE_UNKNOWN));
	json__key(j, "parent");
	if (r->known && r->info.parent != r->clid)
		json__u64(j, r->info.parent);
	else
		json__null(j);
	json__kv_string(j, "mount_point", m ? m->point : NULL);
	json__kv_string(j, "fstype", m ? m->fstype : NULL);
	json__kv_string(j, "source", m ? m->source : NULL);
	json__kv_string(j, "server", nl->server);
	json__kv_string(j, "version", nl->version);
	json__key(j, "nconnect");
	if (nl->nconnect)
		json__u64(j, nl->nconnect);
	else
		json__null(j);
	json__key(j, "rsize");
	if (nl->rsize)
		json__u64(j, nl->rsize);
	else
		json__null(j);
	json__key(j, "ops");
	json__begin_array(j);
	for (size_t i = 0; i < r->nr_ops; i++)
		json_op(j, &r->ops[i]);
	json__end_array(j);
	json_layers(j, nl);
	json__end_object(j);
}

void report_nfs__json(struct json *j, const struct report *r)
{
	const struct trace *t = r->t;

	json__key(j, "nfs");
	json__begin_object(j);
	json__key(j, "mounts");
	json__begin_array(j);
	for (size_t i = 0; i < t->nfs.nr_rpcs; i++)
		json_rpc(j, &t->nfs.rpcs[i], &r->fa->nfs[i]);
	json__end_array(j);
	json__end_object(j);
}

/* ---- NFS: text ---- */

static void text_op(FILE *out, const struct nfs_op *op)
{
	const struct hist *h = nfs_op__hist(op, NFS_H_RTT, NFS_SCOPE_CLNT);
	struct nfs_stats s;
	char name[16], bytes[16];
	__u64 inflight = 0;

	nfs_op__sum(op, NFS_WHO_ALL, &s);
	if (!s.calls && !op->inflight_end[NFS_WHO_TARGET] && !op->inflight_end[NFS_WHO_CLIENT] &&
	    !op->inflight_end[NFS_WHO_OTHER])
		return;
	for (int w = 0; w < NFS_WHO__MAX; w++)
		inflight += op->inflight_end[w];
	fprintf(out, "  %-14s", nfs_op__name(op, name, sizeof(name)));
	emit__cell_u64(out, s.calls, 7);
	emit__cell_u64(out, op->st[NFS_WHO_TARGET].calls, 7);
	emit__cell(out, units__size(bytes, sizeof(bytes), s.bytes_recv, true), 8);
	emit__cell_ns(out, s.calls ? (double)s.queue_ns / s.calls : 0, 8);
	emit__cell_ns(out, h ? hist__quantile(h, 0.5) : 0, 8);
	emit__cell_ns(out, s.calls ? (double)s.rtt_ns / s.calls : 0, 8);
	emit__cell_ns(out, s.calls ? (double)s.total_ns / s.calls : 0, 8);
	emit__cell_u64(out, s.trans > s.calls ? s.trans - s.calls : 0, 7);
	emit__cell_u64(out, s.errors, 6);
	fprintf(out, " %8.1f", s.calls ? (double)s.inflight_sum / s.calls : 0.0);
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

static void text_layers(FILE *out, const struct nfs_layers *nl)
{
	const struct layer_lat *l[] = { &nl->lookup, &nl->open, &nl->getattr, &nl->access,
					&nl->read };
	static const char *const names[] = { "LOOKUP calls", "OPEN calls", "GETATTR calls",
					     "ACCESS calls", "READ/READ_PLUS calls" };

	fprintf(out, "  latency by layer (target)          %8s %8s %8s %8s\n",
		"count", "p50", "p99", "mean");
	text_lat_row(out, "open()/stat() on the mount", nl->sys.opens + nl->sys.stats, 0, 0,
		     nl->sys.meta_mean_ns);
	for (int i = 0; i < 4; i++)
		if (l[i]->count)
			text_lat_row(out, names[i], l[i]->count, l[i]->p50, l[i]->p99,
				     l[i]->mean);
	text_lat_row(out, "read() on the mount", nl->sys.reads, 0, 0, nl->sys.read_mean_ns);
	text_lat_row(out, names[4], l[4]->count, l[4]->p50, l[4]->p99, l[4]->mean);
}

/* "4.0 round trips per file opened (LOOKUP 1.0, OPEN 1.0, READ_PLUS 1.0, CLOSE 1.0)" */
static void text_round_trips(FILE *out, const struct nfs_layers *nl)
{
	char rtt[16];

	if (nl->round_trips < 0) {
		fprintf(out, "no file opened on the mount");
		return;
	}
	fprintf(out, "%.1f round trips per file opened (", nl->round_trips);
	for (int i = 0; i < nl->nr_per_file; i++)
		fprintf(out, "%s%s %.1f", i ? ", " : "", nl->per_file[i].name,
			nl->per_file[i].calls);
	fprintf(out, "), round trip %s", units__ns(rtt, sizeof(rtt), nl->rtt_mean_ns));
}

static void text_head(FILE *out, const struct nfs_rpc *r, const struct nfs_layers *nl)
{
	const struct mount_rec *m = nl->mount;

	fprintf(out, "\nNFS calls: ");
	if (m) {
		emit__safe(out, m->fstype);
		fputc(' ', out);
		emit__safe(out, m->source);
		fprintf(out, " on ");
		emit__safe(out, m->point);
	} else if (r->known && r->info.role == NFS_ROLE_CLIENT) {
		fprintf(out, "the NFS client's own calls to %s (leases, sessions; shared "
			"by its mounts)", nl->server);
	} else {
		fprintf(out, "unknown mount of %s (NFSv%s)", nl->server, nl->version);
	}
	fprintf(out, " (RPC client %u, NFSv%s", r->clid, nl->version);
	if (nl->nconnect)
		fprintf(out, ", nconnect %u", nl->nconnect);
	if (nl->rsize)
		fprintf(out, ", rsize %llu", (unsigned long long)nl->rsize);
	fprintf(out, ")\n");
}

static void text_rpc(FILE *out, const struct nfs_rpc *r, const struct nfs_layers *nl)
{
	struct nfs_stats all, s[NFS_WHO__MAX];
	bool mount = nl->mount != NULL;

	nfs_rpc__sum(r, NFS_WHO_ALL, &all);
	for (int w = 0; w < NFS_WHO__MAX; w++)
		nfs_rpc__sum(r, NFS_WHO_BIT(w), &s[w]);
	text_head(out, r, nl);
	fprintf(out, "  target %llu calls", nl->calls);
	if (mount) {
		fprintf(out, ": ");
		text_round_trips(out, nl);
	}
	fprintf(out, "\n  not attributed %llu (%.1f%%: the client's threads %llu, other processes "
		"%llu, begun before the attach %llu); in flight at the end %llu; retransmitted "
		"%llu, timeouts %llu\n", nl->unattributed, emit__pct(nl->unattributed, all.calls),
		s[NFS_WHO_CLIENT].calls, s[NFS_WHO_OTHER].calls, s[NFS_WHO_UNTRACKED].calls,
		nfs_rpc__inflight_end(r, NFS_WHO_ALL),
		all.trans > all.calls ? all.trans - all.calls : 0, all.timeouts);
	fprintf(out, "  %-14s %7s %7s %8s %8s %8s %8s %8s %7s %6s %8s %6s\n", "procedure", "calls",
		"target", "received", "queue", "rtt p50", "rtt", "total", "retrans", "errors",
		"inflight", "at end");
	for (size_t i = 0; i < r->nr_ops; i++)
		text_op(out, &r->ops[i]);
	if (mount)
		text_layers(out, nl);
}

/*
 * The one screen's: each NFS mount the target opened, stat-ed or read
 * files on, its round trips per file and latency by layer (no procedure
 * table).
 */
void report_nfs__brief_text(FILE *out, const struct report *r)
{
	const struct trace *t = r->t;

	if (!nfs_layer__active(&t->nfs))
		return;
	for (size_t i = 0; i < t->nfs.nr_rpcs; i++) {
		const struct nfs_layers *nl = &r->fa->nfs[i];

		if (!nl->mount || (!nl->sys.opens && !nl->sys.stats && !nl->sys.reads))
			continue;	/* none of the target's files: the full report's */
		text_head(out, &t->nfs.rpcs[i], nl);
		fprintf(out, "  target %llu calls: ", nl->calls);
		text_round_trips(out, nl);
		fputc('\n', out);
		text_layers(out, nl);
	}
}

void report_nfs__text(FILE *out, const struct report *r)
{
	const struct trace *t = r->t;

	if (!nfs_layer__active(&t->nfs))
		return;
	for (size_t i = 0; i < t->nfs.nr_rpcs; i++) {
		struct nfs_stats s;

		nfs_rpc__sum(&t->nfs.rpcs[i], NFS_WHO_ALL, &s);
		if (s.calls || nfs_rpc__inflight_end(&t->nfs.rpcs[i], NFS_WHO_ALL))
			text_rpc(out, &t->nfs.rpcs[i], &r->fa->nfs[i]);
	}
}
