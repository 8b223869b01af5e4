// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The block layer's section of both reports: per device, iostat -x figures
 * for the target, the whole device and /proc/diskstats, who submitted the
 * requests, their pattern; then latency by layer and its verdict.
 */
#include <stdio.h>
#include <string.h>
#include "lib/json.h"
#include "lib/units.h"
#include "report/report_int.h"

static const struct hist empty_hist;

/* ---- JSON ---- */

static void json_counts(struct json *j, const struct blk_stats *s)
{
	json__kv_u64(j, "reqs", s->reqs);
	json__kv_u64(j, "bytes", s->bytes);
	json__kv_u64(j, "merged", s->merged);
	json__kv_u64(j, "sequential", s->seq);
	json__kv_u64(j, "small", s->small);
	json__kv_u64(j, "total_ns", s->total_ns);
	json__kv_u64(j, "queue_ns", s->queue_ns);
	json__kv_u64(j, "device_ns", s->device_ns);
}

static const struct hist *hist_or_empty(const struct blk_dev *d, int op, int id,
					int scope)
{
	const struct hist *h = blk_dev__hist(d, op, id, scope);

	return h ? h : &empty_hist;
}

/* One operation of one scope: counts and every histogram. */
static void json_scope(struct json *j, const char *key, const struct blk_dev *d,
		       int op, int scope)
{
	struct blk_stats s;

	blk_dev__sum(d, op, blk_dev__who(scope), &s);
	json__key(j, key);
	json__begin_object(j);
	json_counts(j, &s);
	json__key(j, "latency");
	json__begin_object(j);
	emit__json_hist(j, "total", hist_or_empty(d, op, H_BLK_TOTAL_LAT, scope), "ns");
	emit__json_hist(j, "queue", hist_or_empty(d, op, H_BLK_QUEUE_LAT, scope), "ns");
	emit__json_hist(j, "device", hist_or_empty(d, op, H_BLK_DEV_LAT, scope), "ns");
	json__end_object(j);
	emit__json_hist(j, "sizes", hist_or_empty(d, op, H_BLK_SIZE, scope), "bytes");
	emit__json_hist(j, "inflight", hist_or_empty(d, op, H_BLK_INFLIGHT, scope),
			  "requests");
	json__end_object(j);
}

static void json_who(struct json *j, const char *key, const struct blk_dev *d, int op,
		     unsigned int who)
{
	struct blk_stats s;

	blk_dev__sum(d, op, who, &s);
	json__key(j, key);
	json__begin_object(j);
	json_counts(j, &s);
	json__end_object(j);
}

static void json_ops(struct json *j, const struct blk_dev *d)
{
	json__key(j, "ops");
	json__begin_object(j);
	for (int op = 0; op < BLK__MAX; op++) {
		json__key(j, block__op_name(op));
		json__begin_object(j);
		json_scope(j, "target", d, op, BLK_SCOPE_TARGET);
		json_scope(j, "device", d, op, BLK_SCOPE_DEVICE);
		json_who(j, "kthread", d, op, WHO_BIT(WHO_KTHREAD));
		json_who(j, "other", d, op, WHO_BIT(WHO_OTHER));
		json__end_object(j);
	}
	json__end_object(j);
}

static void json_iostat(struct json *j, const char *key, const struct iostat_in *in)
{
	struct iostat io;

	iostat__compute(in, &io);
	json__key(j, key);
	json__begin_object(j);
	json__kv_double(j, "secs", in->secs);
	json__kv_u64(j, "reads", in->reads);
	json__kv_u64(j, "read_bytes", in->read_bytes);
	json__kv_u64(j, "writes", in->writes);
	json__kv_u64(j, "write_bytes", in->write_bytes);
	json__kv_double(j, "r_per_s", io.r_s);
	json__kv_double(j, "rkb_per_s", io.rkb_s);
	json__kv_double(j, "r_await_ms", io.r_await);
	json__kv_double(j, "rareq_sz_kb", io.rareq_sz);
	json__kv_double(j, "w_per_s", io.w_s);
	json__kv_double(j, "wkb_per_s", io.wkb_s);
	json__kv_double(j, "w_await_ms", io.w_await);
	json__kv_double(j, "wareq_sz_kb", io.wareq_sz);
	json__kv_double(j, "aqu_sz", io.aqu_sz);
	json__kv_double(j, "util_pct", io.util);
	json__end_object(j);
}

static void json_iostats(struct json *j, const struct block *b, const struct blk_dev *d)
{
	double secs = block__secs(b);
	struct iostat_in in;
	struct diskstat ds;

	json__key(j, "iostat");
	json__begin_object(j);
	blk_dev__iostat_in(d, BLK_SCOPE_TARGET, secs, &in);
	json_iostat(j, "target", &in);
	blk_dev__iostat_in(d, BLK_SCOPE_DEVICE, secs, &in);
	json_iostat(j, "device", &in);
	if (block__diskstats(b, d, &ds)) {
		json__key(j, "diskstats");
		json__null(j);
	} else {
		iostat__from_diskstat(&ds, secs, &in);
		json_iostat(j, "diskstats", &in);
	}
	json__end_object(j);
}

static void json_unattributed(struct json *j, const struct blk_dev *d)
{
	struct blk_stats all, un;

	blk_dev__sum(d, BLK__MAX, WHO_ALL, &all);
	blk_dev__sum(d, BLK__MAX, WHO_UNATTRIBUTED, &un);
	json__key(j, "unattributed");
	json__begin_object(j);
	json__kv_u64(j, "reqs", un.reqs);
	json__kv_u64(j, "bytes", un.bytes);
	json__kv_double(j, "share", all.reqs ? (double)un.reqs / all.reqs : 0);
	json_who(j, "kthread", d, BLK__MAX, WHO_BIT(WHO_KTHREAD));
	json_who(j, "other", d, BLK__MAX, WHO_BIT(WHO_OTHER));
	json__end_object(j);
}

/* Requests counted apart, per operation: unfinished or untracked. */
static void json_apart(struct json *j, const char *key, const __u64 *per_op)
{
	__u64 n = 0;

	for (int op = 0; op < BLK__MAX; op++)
		n += per_op[op];
	json__key(j, key);
	json__begin_object(j);
	json__kv_u64(j, "reqs", n);
	json__kv_u64(j, "reads", per_op[BLK_READ]);
	json__kv_u64(j, "writes", per_op[BLK_WRITE]);
	json__end_object(j);
}

static void json_device(struct json *j, const struct block *b, const struct blk_dev *d)
{
	struct blk_stats r, w, all;
	char dev[24];

	blk_dev__sum(d, BLK_READ, WHO_BIT(WHO_TARGET), &r);
	blk_dev__sum(d, BLK_WRITE, WHO_BIT(WHO_TARGET), &w);
	blk_dev__sum(d, BLK__MAX, WHO_BIT(WHO_TARGET), &all);
	units__dev(dev, sizeof(dev), d->dev);
	json__begin_object(j);
	json__kv_string(j, "name", d->name[0] ? d->name : NULL);
	json__kv_string(j, "dev", dev);
	json__kv_u64(j, "reads", r.reqs);
	json__kv_u64(j, "read_bytes", r.bytes);
	json__kv_u64(j, "writes", w.reqs);
	json__kv_u64(j, "write_bytes", w.bytes);
	json__kv_u64(j, "merged", all.merged);
	json__kv_u64(j, "sequential", all.seq);
	json__kv_u64(j, "small", all.small);
	json_unattributed(j, d);
	json_apart(j, "unfinished", d->unfinished);
	json_apart(j, "untracked", d->untracked);
	json_iostats(j, b, d);
	json_ops(j, d);
	json__end_object(j);
}

static void json_lat(struct json *j, const char *key, const struct layer_lat *l)
{
	json__key(j, key);
	json__begin_object(j);
	json__kv_u64(j, "count", l->count);
	json__kv_u64(j, "p50", l->p50);
	json__kv_u64(j, "p99", l->p99);
	json__kv_double(j, "mean", l->mean);
	json__end_object(j);
}

/* The measurement, and findings' verdict on it (null when not judged). */
static void json_layers(struct json *j, const struct layers *l, const struct findings *f,
			bool faults, bool block)
{
	json__key(j, "layers");
	json__begin_object(j);
	json_lat(j, "read", &l->read);
	json__kv_u64(j, "read_bytes", l->sums.read_bytes);
	json__key(j, "fault");
	if (faults) {
		json__begin_object(j);
		json__kv_u64(j, "count", l->fault.count);
		json__kv_double(j, "mean", l->fault.mean);
		json__kv_u64(j, "bytes", l->sums.fault_bytes);
		json__end_object(j);
	} else {
		json__null(j);	/* the kernel gives no fault tracepoints */
	}
	if (block) {
		json_lat(j, "block_total", &l->total);
		json_lat(j, "block_queue", &l->queue);
		json_lat(j, "block_device", &l->device);
		json__kv_u64(j, "block_bytes", l->sums.blk_bytes);
	} else {		/* the kernel did not give the block layer */
		json__kv_string(j, "block_total", NULL);
		json__kv_string(j, "block_queue", NULL);
		json__kv_string(j, "block_device", NULL);
		json__kv_string(j, "block_bytes", NULL);
	}
	json__kv_string(j, "verdict", f ? layers__key(f->e.layer) : NULL);
	json__kv_string(j, "finding", f ? layers__words(f->e.layer) : NULL);
	json__end_object(j);
}

void report_block__json(struct json *j, const struct report *r)
{
	const struct block *b = &r->t->block;

	json__key(j, "block");
	json__begin_object(j);
	json__kv_double(j, "secs", block__secs(b));
	json__key(j, "devices");
	if (!kernel__measured(&r->t->kernel, KL_BLOCK)) {
		json__null(j);		/* not measured: never an empty list */
	} else {
		json__begin_array(j);
		for (size_t i = 0; i < b->nr_devs; i++)
			if (blk_dev__active(&b->devs[i]))
				json_device(j, b, &b->devs[i]);
		json__end_array(j);
	}
	json__end_object(j);
	json_layers(j, &r->fa->layers, r->f, kernel__measured(&r->t->kernel, KL_FAULTS),
		    kernel__measured(&r->t->kernel, KL_BLOCK));
}

/* ---- text ---- */

static void text_iostat_row(FILE *out, const char *dev, const char *scope,
			    const struct iostat_in *in)
{
	struct iostat io;

	iostat__compute(in, &io);
	fprintf(out, "%-10s %-9s %8.1f %9.1f %7.2f %8.1f %8.1f %9.1f %7.2f %6.2f %5.1f\n",
		dev, scope, io.r_s, io.rkb_s, io.r_await, io.rareq_sz, io.w_s, io.wkb_s,
		io.w_await, io.aqu_sz, io.util);
}

static void text_device(FILE *out, const struct block *b, const struct blk_dev *d)
{
	double secs = block__secs(b);
	char name[40];
	struct iostat_in in;
	struct diskstat ds;

	if (d->name[0])
		snprintf(name, sizeof(name), "%s", d->name);
	else
		units__dev(name, sizeof(name), d->dev);
	blk_dev__iostat_in(d, BLK_SCOPE_TARGET, secs, &in);
	text_iostat_row(out, name, "target", &in);
	blk_dev__iostat_in(d, BLK_SCOPE_DEVICE, secs, &in);
	text_iostat_row(out, "", "device", &in);
	if (block__diskstats(b, d, &ds)) {
		fprintf(out, "%-10s %-9s (unavailable)\n", "", "diskstats");
	} else {
		iostat__from_diskstat(&ds, secs, &in);
		text_iostat_row(out, "", "diskstats", &in);
	}
}

/*
 * "loop0 writes: by the target 40 requests (20.0 MiB: ...), by kernel
 * threads ...": who submitted the device's write requests. The target's
 * are those it submitted itself (fsync, O_DIRECT, sync writes); its other
 * writes reach the device later as writeback, submitted by the kernel's
 * flusher threads among everyone's: the kernel does not say whose.
 */
static void text_writes(FILE *out, const char *name, const struct blk_dev *d)
{
	struct blk_stats mine, kth, oth;
	char a[32], b[32], c[32];

	blk_dev__sum(d, BLK_WRITE, WHO_BIT(WHO_TARGET), &mine);
	blk_dev__sum(d, BLK_WRITE, WHO_BIT(WHO_KTHREAD), &kth);
	blk_dev__sum(d, BLK_WRITE, WHO_BIT(WHO_OTHER), &oth);
	if (!mine.reqs && !kth.reqs && !oth.reqs)
		return;
	fprintf(out, "%s writes: by the target %llu requests (%s: its fsyncs, O_DIRECT and sync "
		"writes), by kernel threads %llu (%s: writeback of dirty pages, the target's "
		"buffered writes among them, and journals), by other processes %llu (%s)\n", name,
		mine.reqs, units__size(a, sizeof(a), mine.bytes, true), kth.reqs,
		units__size(b, sizeof(b), kth.bytes, true), oth.reqs,
		units__size(c, sizeof(c), oth.bytes, true));
}

/* "loop0: target 2013 requests, 95.0% sequential, ...; not attributed ..." */
static void text_pattern(FILE *out, const struct blk_dev *d)
{
	struct blk_stats mine, all, kth, oth;
	char name[40], buf[32], small[32];
	__u64 unfinished = 0, untracked = 0;

	blk_dev__sum(d, BLK__MAX, WHO_BIT(WHO_TARGET), &mine);
	blk_dev__sum(d, BLK__MAX, WHO_ALL, &all);
	blk_dev__sum(d, BLK__MAX, WHO_BIT(WHO_KTHREAD), &kth);
	blk_dev__sum(d, BLK__MAX, WHO_BIT(WHO_OTHER), &oth);
	if (d->name[0])
		snprintf(name, sizeof(name), "%s", d->name);
	else
		units__dev(name, sizeof(name), d->dev);
	fprintf(out, "%s: target %llu requests", name, mine.reqs);
	if (mine.reqs)
		fprintf(out, " (%s), %.1f%% sequential, %.1f%% small (<= %s), %llu merged",
			units__size(buf, sizeof(buf), mine.bytes, true),
			emit__pct(mine.seq, mine.reqs), emit__pct(mine.small, mine.reqs),
			units__size(small, sizeof(small), BLK_SMALL, true), mine.merged);
	fprintf(out, "; not attributed %llu (%.1f%%: kernel threads %llu, other processes %llu)",
		kth.reqs + oth.reqs, emit__pct(kth.reqs + oth.reqs, all.reqs), kth.reqs, oth.reqs);
	for (int op = 0; op < BLK__MAX; op++) {
		unfinished += d->unfinished[op];
		untracked += d->untracked[op];
	}
	if (unfinished)
		fprintf(out, "; %llu unfinished", unfinished);
	if (untracked)
		fprintf(out, "; %llu untracked", untracked);
	fputc('\n', out);
	text_writes(out, name, d);
}

static void text_lat_row(FILE *out, const char *what, const struct layer_lat *l)
{
	fprintf(out, "  %-28s %8llu", what, l->count);
	if (l->count) {
		emit__cell_ns(out, l->p50, 8);
		emit__cell_ns(out, l->p99, 8);
		emit__cell_ns(out, l->mean, 8);
	}
	fputc('\n', out);
}

/* The measurement, and findings' verdict on it when judged. */
static void text_layers(FILE *out, const struct layers *l, const struct findings *f,
			bool block)
{
	fprintf(out, "\nlatency by layer, reads          %8s %8s %8s %8s\n",
		"count", "p50", "p99", "mean");
	text_lat_row(out, "read() syscalls", &l->read);
	if (l->fault.count) {
		fprintf(out, "  %-28s %8llu %8s %8s", "faults on mapped data", l->fault.count,
			"-", "-");
		emit__cell_ns(out, l->fault.mean, 8);
		fputc('\n', out);
	}
	if (block) {
		text_lat_row(out, "block requests (target)", &l->total);
		text_lat_row(out, "  queue (start -> issue)", &l->queue);
		text_lat_row(out, "  device (issue -> done)", &l->device);
	} else {
		fprintf(out, "  %-28s %8s\n", "block requests (target)", "not measured");
	}
	if (f)
		fprintf(out, "  => %s\n", layers__words(f->e.layer));
}

/*
 * The one screen's block lines: one per active device, the device's
 * reads, their wait and how busy it was (the %util of the full table's
 * "device" row, the one the findings judge), then latency by layer.
 * devices or layers false: without them.
 */
void report_block__brief_text(FILE *out, const struct report *r, bool devices, bool layers)
{
	const struct trace *t = r->t;
	const struct block *b = &t->block;
	double secs = block__secs(b);
	size_t active = 0;

	for (size_t i = 0; i < b->nr_devs; i++)
		active += blk_dev__active(&b->devs[i]);
	if (!active && !t->counters[C_READS])
		return;
	if (!kernel__measured(&t->kernel, KL_BLOCK)) {
		fprintf(out, "\nblock devices: not measured on this kernel\n");
		if (layers)
			text_layers(out, &r->fa->layers, r->f, false);
		return;
	}
	if (devices && active)
		fputc('\n', out);
	for (size_t i = 0; devices && i < b->nr_devs; i++) {
		const struct blk_dev *d = &b->devs[i];
		struct iostat_in in;
		struct iostat io;
		char name[40];

		if (!blk_dev__active(d))
			continue;
		if (d->name[0])
			snprintf(name, sizeof(name), "%s", d->name);
		else
			units__dev(name, sizeof(name), d->dev);
		blk_dev__iostat_in(d, BLK_SCOPE_DEVICE, secs, &in);
		iostat__compute(&in, &io);
		fprintf(out, "device    %s: %.1f%% busy, reads %.1f/s (%.1f MiB/s, await %.2f ms), "
			"writes %.1f/s (%.1f MiB/s)\n", name, io.util, io.r_s, io.rkb_s / 1024,
			io.r_await, io.w_s, io.wkb_s / 1024);
	}
	if (layers)
		text_layers(out, &r->fa->layers, r->f, true);
}

void report_block__text(FILE *out, const struct report *r)
{
	const struct trace *t = r->t;
	const struct block *b = &t->block;
	size_t shown = 0, active = 0;

	for (size_t i = 0; i < b->nr_devs; i++)
		active += blk_dev__active(&b->devs[i]);
	if (!active && !t->counters[C_READS])
		return;		/* nothing to say */
	if (!kernel__measured(&t->kernel, KL_BLOCK)) {
		fprintf(out, "\nblock devices: not measured on this kernel\n");
		text_layers(out, &r->fa->layers, r->f, false);
		return;
	}
	for (size_t i = 0; i < b->nr_devs; i++) {
		if (!blk_dev__active(&b->devs[i]))
			continue;
		if (!shown++)
			fprintf(out, "\nblock devices, iostat -x over %.1f s\n"
				"%-10s %-9s %8s %9s %7s %8s %8s %9s %7s %6s %5s\n",
				block__secs(b), "device", "scope", "r/s", "rkB/s",
				"r_await", "rareq-sz", "w/s", "wkB/s", "w_await",
				"aqu-sz", "%util");
		text_device(out, b, &b->devs[i]);
	}
	if (!shown)
		fprintf(out, "\nblock devices: no request completed in the window\n");
	for (size_t i = 0; i < b->nr_devs; i++)
		if (blk_dev__active(&b->devs[i]))
			text_pattern(out, &b->devs[i]);
	text_layers(out, &r->fa->layers, r->f, true);
}
