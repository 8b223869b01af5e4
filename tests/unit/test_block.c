// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The block layer's pure parts: /proc/diskstats parsing, iostat's
 * formulas, sums over submitters, the layer verdict, interval lines, and
 * the block part of both reports from a trace whose every number is known.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "model/block.h"
#include "model/diskstats.h"
#include "model/hist.h"
#include "run/interval.h"
#include "model/iostat.h"
#include "findings/layers.h"
#include "report/json.h"
#include "report/report.h"
#include "model/trace.h"
#include "unit.h"

#define MS		1000000ULL	/* ns */
#define LOOP0		(7 << 20 | 0)
#define NEAR(a, b)	(fabs((double)(a) - (b)) < 1e-9 * (fabs((double)(b)) + 1))

/* A 6.x line: 17 counters after the name. */
static const char line_6x[] =
	"   7       0 loop0 529 1 28770 526 64 304 95120 77 0 156 633 2 0 1048584 9 18 28\n";

TEST(diskstats_parse)
{
	struct diskstat ds;

	REQUIRE(!diskstats__parse_line(line_6x, &ds));
	CHECK_STR(ds.name, "loop0");
	CHECK_EQ_U64(ds.dev, LOOP0);
	CHECK_EQ_U64(ds.reads, 529);
	CHECK_EQ_U64(ds.reads_merged, 1);
	CHECK_EQ_U64(ds.read_sectors, 28770);
	CHECK_EQ_U64(ds.read_ms, 526);
	CHECK_EQ_U64(ds.writes, 64);
	CHECK_EQ_U64(ds.write_sectors, 95120);
	CHECK_EQ_U64(ds.write_ms, 77);
	CHECK_EQ_U64(ds.io_ms, 156);
	CHECK_EQ_U64(ds.weighted_ms, 633);
	CHECK_EQ_U64(ds.discards, 2);
	CHECK_EQ_U64(ds.discard_sectors, 1048584);
	CHECK_EQ_U64(ds.discard_ms, 9);
	CHECK_EQ_U64(ds.flushes, 18);
	CHECK_EQ_U64(ds.flush_ms, 28);
	/* Before 4.18: 11 counters, no discards or flushes. */
	REQUIRE(!diskstats__parse_line(" 259 1 nvme0n1p1 10 0 80 5 3 0 24 1 0 6 7\n", &ds));
	CHECK_EQ_U64(ds.dev, 259 << 20 | 1);
	CHECK_EQ_U64(ds.weighted_ms, 7);
	CHECK_EQ_U64(ds.discards, 0);
	CHECK_EQ_INT(diskstats__parse_line("8 0 sda 1 2 3 4 5\n", &ds), -EINVAL);
	CHECK_EQ_INT(diskstats__parse_line("garbage\n", &ds), -EINVAL);
	CHECK_EQ_INT(diskstats__parse_line("", &ds), -EINVAL);
}

TEST(diskstats_read_and_delta)
{
	char path[] = "/tmp/iostorm-unit-diskstats.XXXXXX";
	struct diskstats d = {};
	struct diskstat later, delta;
	const struct diskstat *f;
	int fd = mkstemp(path);
	FILE *out;

	REQUIRE(fd >= 0);
	out = fdopen(fd, "w");
	REQUIRE(out);
	fprintf(out, "%s 254 0 vda 1 0 8 1 0 0 0 0 0 1 1 0 0 0 0 0 0\nnot a line\n", line_6x);
	fclose(out);
	CHECK_EQ_INT(diskstats__read(path, &d), 0);
	unlink(path);
	CHECK_EQ_U64(d.n, 2);
	CHECK(diskstats__find(&d, 254 << 20) != NULL);
	CHECK(diskstats__find(&d, 8 << 20) == NULL);
	f = diskstats__find(&d, LOOP0);
	REQUIRE(f);
	later = *f;
	later.reads += 100;
	later.read_sectors += 6216;
	later.in_flight = 3;
	later.writes -= 1;	/* a counter going back (reset): 0, not 2^64 - 1 */
	diskstats__delta(f, &later, &delta);
	CHECK_EQ_U64(delta.reads, 100);
	CHECK_EQ_U64(delta.read_sectors, 6216);
	CHECK_EQ_U64(delta.writes, 0);
	CHECK_EQ_U64(delta.io_ms, 0);
	CHECK_EQ_U64(delta.in_flight, 3);	/* a level: the end's */
	CHECK_EQ_U64(delta.dev, LOOP0);
	diskstats__free(&d);
	CHECK_EQ_INT(diskstats__read("/nonexistent/diskstats", &d), -ENOENT);
}

TEST(iostat_formulas)
{
	struct iostat_in in = {
		.secs = 2, .reads = 200, .read_bytes = 200 * 16384, .read_ms = 100,
		.writes = 50, .write_bytes = 50 * 4096, .write_ms = 500,
		.busy_ms = 1000, .queue_ms = 600,
	};
	struct iostat io;

	iostat__compute(&in, &io);
	CHECK(NEAR(io.r_s, 100));
	CHECK(NEAR(io.rkb_s, 1600));
	CHECK(NEAR(io.r_await, 0.5));
	CHECK(NEAR(io.rareq_sz, 16));
	CHECK(NEAR(io.w_s, 25));
	CHECK(NEAR(io.wkb_s, 100));
	CHECK(NEAR(io.w_await, 10));
	CHECK(NEAR(io.wareq_sz, 4));
	CHECK(NEAR(io.aqu_sz, 0.3));
	CHECK(NEAR(io.util, 50));
	/* Jiffy rounding may push io_ticks past the window: capped, as sysstat. */
	in.busy_ms = 2100;
	iostat__compute(&in, &io);
	CHECK(NEAR(io.util, 100));
	/* No window, no requests: zeros, never a division by zero. */
	in = (struct iostat_in){ .secs = 0, .read_ms = 5, .busy_ms = 5 };
	iostat__compute(&in, &io);
	CHECK(io.r_s == 0 && io.r_await == 0 && io.rareq_sz == 0 && io.util == 0 &&
	      io.aqu_sz == 0 && io.w_await == 0);
}

TEST(iostat_from_diskstat)
{
	struct diskstat d = {
		.reads = 100, .read_sectors = 6216, .read_ms = 21, .writes = 3,
		.write_sectors = 2112, .write_ms = 4, .io_ms = 20, .weighted_ms = 25,
	};
	struct iostat_in in;
	struct iostat io;

	iostat__from_diskstat(&d, 4, &in);
	CHECK_EQ_U64(in.read_bytes, 6216 * 512);
	CHECK_EQ_U64(in.write_bytes, 2112 * 512);
	iostat__compute(&in, &io);
	CHECK(NEAR(io.r_s, 25));
	CHECK(NEAR(io.rkb_s, 6216 / 2.0 / 4));	/* iostat: rd_sec / 2 / secs */
	CHECK(NEAR(io.r_await, 0.21));
	CHECK(NEAR(io.rareq_sz, 6216 / 2.0 / 100));
	CHECK(NEAR(io.aqu_sz, 25 / 4000.0));
	CHECK(NEAR(io.util, 0.5));
}

static struct layer_sums reads_of(__u64 n, __u64 bytes, __u64 ns_each)
{
	return (struct layer_sums){ .reads = n, .read_bytes = bytes, .read_ns = n * ns_each };
}

/* The target's block reads: n requests, total bytes, queue and device ns each. */
static void blk_of(struct layer_sums *s, __u64 n, __u64 bytes, __u64 q, __u64 d)
{
	s->blk_reqs = n;
	s->blk_bytes = bytes;
	s->queue_ns = n * q;
	s->device_ns = n * d;
	s->blk_ns = n * (q + d);
}

TEST(layers_judge)
{
	struct layer_sums s = {};

	CHECK_EQ_INT(layers__judge(&s), LAYER_NONE);
	/* IOPS cap: 20 ms per read, 0.3 ms per request. */
	s = reads_of(200, 200 * 32768, 20 * MS);
	blk_of(&s, 200, 200 * 32768, 5000, 300000);
	CHECK_EQ_INT(layers__judge(&s), LAYER_ABOVE);
	/* ... even when most requests were dispatched by a kworker. */
	blk_of(&s, 20, 20 * 32768, 5000, 300000);
	CHECK_EQ_INT(layers__judge(&s), LAYER_ABOVE);
	/* Warm cache: 10 µs reads, 1% of the bytes from the device. */
	s = reads_of(10000, 10000 * 65536, 10000);
	blk_of(&s, 50, 10000 * 65536 / 100, 2000, 200000);
	CHECK_EQ_INT(layers__judge(&s), LAYER_CACHE);
	/* Saturated: 8 ms per request, 7 of them queued. */
	s = reads_of(1000, 1000 * 131072, 8 * MS + 20000);
	blk_of(&s, 1000, 1000 * 131072, 7 * MS, MS);
	CHECK_EQ_INT(layers__judge(&s), LAYER_QUEUE);
	/* Slow device: 8 ms per request, in the device. */
	blk_of(&s, 1000, 1000 * 131072, 100000, 7900000);
	CHECK_EQ_INT(layers__judge(&s), LAYER_DEVICE);
	/* Keeping up: 0.3 ms per request. */
	s = reads_of(1000, 1000 * 131072, 320000);
	blk_of(&s, 1000, 1000 * 131072, 10000, 290000);
	CHECK_EQ_INT(layers__judge(&s), LAYER_OK);
}

/* The thresholds, each just missed and just met. */
TEST(layers_judge_thresholds)
{
	struct layer_sums s;

	/* read() 2x the block time, 0.5 ms more per read: above. */
	s = reads_of(100, 100 * 4096, 2 * LAYER_ABOVE_MIN_NS);
	blk_of(&s, 100, 100 * 4096, 0, LAYER_ABOVE_MIN_NS);
	CHECK_EQ_INT(layers__judge(&s), LAYER_ABOVE);
	s.read_ns -= 1;		/* under twice the block time */
	CHECK(layers__judge(&s) != LAYER_ABOVE);
	/* 3x the block time but only 0.4 ms more per read: not above. */
	s = reads_of(100, 100 * 4096, 600000);
	blk_of(&s, 100, 100 * 4096, 0, 200000);
	CHECK(layers__judge(&s) != LAYER_ABOVE);
	/* The device brought exactly 10% of the bytes: not the cache... */
	s = reads_of(100, 100000, 1000);
	blk_of(&s, 1, 10000, 0, 1000);
	CHECK_EQ_INT(layers__judge(&s), LAYER_OK);
	/* ... one byte less is. */
	s.blk_bytes -= 1;
	CHECK_EQ_INT(layers__judge(&s), LAYER_CACHE);
	/* No block request at all, fast reads: the cache. */
	s = reads_of(100, 100000, 1000);
	CHECK_EQ_INT(layers__judge(&s), LAYER_CACHE);
	/* Exactly 1 ms per request is slow; queue == device time is the device. */
	s = reads_of(100, 100 * 4096, LAYER_SLOW_NS);
	blk_of(&s, 100, 100 * 4096, LAYER_SLOW_NS / 2, LAYER_SLOW_NS / 2);
	CHECK_EQ_INT(layers__judge(&s), LAYER_DEVICE);
	s.blk_ns -= 1;
	CHECK_EQ_INT(layers__judge(&s), LAYER_OK);
	CHECK_STR(layers__key(LAYER_ABOVE), "above_block");
	CHECK(strstr(layers__words(LAYER_ABOVE), "above the block layer") != NULL);
	CHECK_STR(layers__words(LAYER_QUEUE), "the device is saturated: requests wait in the queue");
	CHECK_STR(layers__key(LAYER__MAX), "unknown");
}

/*
 * loop0: the target read 100 requests of 32 KiB (2 ms each: 0.5 queued),
 * 90 sequential, all small, 2 merged, and wrote 10 of 4 KiB; a kernel
 * thread read 20 of 128 KiB; another process wrote 5 of 8 KiB. vda: a
 * kernel thread's reads only. Over 2 s, with diskstats around it.
 */
static void block_sample(struct block *b)
{
	struct blk_dev *d;

	memset(b, 0, sizeof(*b));
	b->devs = calloc(2, sizeof(*b->devs));
	if (!b->devs)
		return;
	b->nr_devs = 2;
	d = &b->devs[0];
	d->dev = LOOP0;
	snprintf(d->name, sizeof(d->name), "loop0");
	d->st[BLK_READ][WHO_TARGET] = (struct blk_stats){
		.reqs = 100, .bytes = 100 * 32768, .total_ns = 200 * MS,
		.queue_ns = 50 * MS, .device_ns = 150 * MS, .seq = 90, .small = 100,
		.merged = 2 };
	d->st[BLK_WRITE][WHO_TARGET] = (struct blk_stats){
		.reqs = 10, .bytes = 10 * 4096, .total_ns = 10 * MS, .device_ns = 10 * MS,
		.small = 10 };
	d->st[BLK_READ][WHO_KTHREAD] = (struct blk_stats){
		.reqs = 20, .bytes = 20 * 131072, .total_ns = 20 * MS, .device_ns = 20 * MS,
		.small = 20 };
	d->st[BLK_WRITE][WHO_OTHER] = (struct blk_stats){
		.reqs = 5, .bytes = 5 * 8192, .total_ns = 5 * MS, .device_ns = 5 * MS,
		.small = 5 };
	d->busy_ns[SCOPE_DEVICE] = 500 * MS;
	d->busy_ns[SCOPE_TARGET] = 400 * MS;
	d->unfinished[BLK_READ] = 1;
	d->untracked[BLK_WRITE] = 2;
	d->hists[BLK_READ][H_BLK_TOTAL_LAT - H_BLK_QUEUE_LAT][SCOPE_TARGET] =
		calloc(1, sizeof(struct hist));
	if (d->hists[BLK_READ][H_BLK_TOTAL_LAT - H_BLK_QUEUE_LAT][SCOPE_TARGET])
		hist__add(d->hists[BLK_READ][H_BLK_TOTAL_LAT - H_BLK_QUEUE_LAT][SCOPE_TARGET],
			  2 * MS, 100);
	d = &b->devs[1];
	d->dev = 254 << 20;
	snprintf(d->name, sizeof(d->name), "vda");
	d->st[BLK_READ][WHO_KTHREAD] = (struct blk_stats){
		.reqs = 7, .bytes = 7 * 4096, .total_ns = 7 * MS, .device_ns = 7 * MS };
	b->start_ns = 1000 * MS;
	b->end_ns = 3000 * MS;
	b->ds_start.v = calloc(1, sizeof(struct diskstat));
	b->ds_end.v = calloc(1, sizeof(struct diskstat));
	if (!b->ds_start.v || !b->ds_end.v)
		return;
	b->ds_start.n = b->ds_end.n = 1;
	diskstats__parse_line(line_6x, b->ds_start.v);
	*b->ds_end.v = *b->ds_start.v;
	b->ds_end.v->reads += 120;
	b->ds_end.v->read_sectors += (100 * 32768 + 20 * 131072) / 512;
}

TEST(block_sums_and_iostat)
{
	struct block b;
	struct blk_stats s;
	struct iostat_in in;
	struct diskstat ds;
	const struct blk_dev *d;

	block_sample(&b);
	REQUIRE(b.ds_end.v);
	d = block__find(&b, LOOP0);
	REQUIRE(d);
	CHECK(block__find(&b, 1) == NULL);
	CHECK(NEAR(block__secs(&b), 2));
	blk_dev__sum(d, BLK_READ, WHO_ALL, &s);
	CHECK_EQ_U64(s.reqs, 120);
	blk_dev__sum(d, BLK__MAX, WHO_UNATTRIBUTED, &s);
	CHECK_EQ_U64(s.reqs, 25);
	CHECK_EQ_U64(s.bytes, 20 * 131072 + 5 * 8192);
	blk_dev__sum(d, BLK__MAX, WHO_BIT(WHO_TARGET), &s);
	CHECK_EQ_U64(s.reqs, 110);
	CHECK_EQ_U64(s.merged, 2);
	CHECK(blk_dev__active(d));
	blk_dev__iostat_in(d, SCOPE_TARGET, block__secs(&b), &in);
	CHECK_EQ_U64(in.reads, 100);
	CHECK_EQ_U64(in.writes, 10);
	CHECK(NEAR(in.read_ms, 200));
	CHECK(NEAR(in.busy_ms, 400));
	CHECK(NEAR(in.queue_ms, 210));
	blk_dev__iostat_in(d, SCOPE_DEVICE, block__secs(&b), &in);
	CHECK_EQ_U64(in.reads, 120);
	CHECK_EQ_U64(in.writes, 15);
	CHECK(NEAR(in.busy_ms, 500));
	CHECK(NEAR(in.queue_ms, 235));
	REQUIRE(!block__diskstats(&b, d, &ds));
	CHECK_EQ_U64(ds.reads, 120);
	CHECK_EQ_U64(ds.read_sectors * 512, 100 * 32768 + 20 * 131072);
	CHECK_EQ_INT(block__diskstats(&b, &b.devs[1], &ds), -ENOENT);
	block__sum(&b, BLK_READ, WHO_BIT(WHO_KTHREAD), &s);
	CHECK_EQ_U64(s.reqs, 27);
	CHECK_STR(block__op_name(BLK_DISCARD), "discard");
	block__free(&b);
	CHECK(b.devs == NULL && b.nr_devs == 0 && b.ds_start.v == NULL);
}

/* Two snapshots one second apart; the line's fields are the deltas. */
TEST(interval_line)
{
	struct interval_snap *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	char *buf = NULL, clock[16];
	double v[9];
	size_t len;
	FILE *out;

	REQUIRE(a && b);
	block_sample(&a->block);
	block_sample(&b->block);
	REQUIRE(b->block.devs);
	a->ns = 10 * 1000 * MS;
	b->ns = a->ns + 500 * MS;
	a->reg_opens = 1000;
	b->reg_opens = 1100;
	a->counters[C_OPENS] = 2000;
	b->counters[C_OPENS] = 2120;
	b->counters[C_READS] = 400;
	b->counters[C_READ_BYTES] = 2 * 1024 * 1024;
	hist__add(&a->read_lat, 5000, 10);
	hist__add(&b->read_lat, 5000, 10);
	hist__add(&b->read_lat, 3 * MS, 400);	/* the interval's reads: all 3 ms */
	b->block.devs[0].st[BLK_READ][WHO_TARGET].reqs += 50;
	b->block.devs[0].st[BLK_READ][WHO_TARGET].total_ns += 50 * 4 * MS;
	b->block.devs[0].busy_ns[SCOPE_TARGET] += 250 * MS;
	out = open_memstream(&buf, &len);
	REQUIRE(out);
	interval__header(out);
	interval__line(out, a, b, "12:00:01");
	fclose(out);
	REQUIRE(buf);
	CHECK(strncmp(buf, "time ", 5) == 0);
	REQUIRE(sscanf(strchr(buf, '\n') + 1, "%15s %lf %lf %lf %lf %lf %lf %lf %lf %lf",
		       clock, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
		       &v[8]) == 10);
	CHECK_STR(clock, "12:00:01");
	CHECK(NEAR(v[0], 200));		/* files/s: 100 regular opens in 0.5 s */
	CHECK(NEAR(v[1], 240));		/* opens/s */
	CHECK(NEAR(v[2], 800));		/* reads/s */
	CHECK(NEAR(v[3], 4));		/* MiB/s */
	CHECK(fabs(v[4] - 3) < 3 * HIST_REL_ERROR);	/* p50 ms, within a bucket */
	CHECK(fabs(v[5] - 3) < 3 * HIST_REL_ERROR);
	CHECK(NEAR(v[6], 100));		/* target block reads/s */
	CHECK(NEAR(v[7], 4));		/* r_await ms */
	CHECK(NEAR(v[8], 50));		/* %util: 250 ms of 500 */
	free(buf);
	block__free(&a->block);
	block__free(&b->block);
	free(a);
	free(b);
}

static json_t *json_of(const struct trace *t)
{
	char path[] = "/tmp/iostorm-unit-block.XXXXXX";
	json_error_t jerr;
	json_t *root;
	int fd = mkstemp(path);

	if (fd < 0)
		return NULL;
	close(fd);
	root = report_json__write(path, t) ? NULL : json_load_file(path, 0, &jerr);
	unlink(path);
	return root;
}

static __u64 u64_of(json_t *root, const char *path)
{
	json_t *v = json_object_get(root, path);

	return json_is_integer(v) ? (__u64)json_integer_value(v) : ~0ULL;
}

static struct trace *trace_block_sample(void)
{
	struct trace *t = calloc(1, sizeof(*t));

	if (!t || store__init(&t->store)) {
		free(t);
		return NULL;
	}
	t->exit_status = -1;
	t->duration_s = 2;
	block_sample(&t->block);
	t->counters[C_READS] = 200;
	t->counters[C_READ_BYTES] = 100 * 32768;
	t->counters[C_READ_NS] = 200 * 20 * MS;
	hist__add(&t->hists[H_READ_LAT], 20 * MS, 200);
	return t;
}

static void trace_block_free(struct trace *t)
{
	block__free(&t->block);
	store__free(&t->store);
	free(t);
}

TEST(report_block_json)
{
	struct trace *t = trace_block_sample();
	json_t *root, *devs, *d, *un, *io, *layers, *rd;

	REQUIRE(t && t->block.ds_end.v);
	root = json_of(t);
	REQUIRE(root);
	devs = json_object_get(json_object_get(root, "block"), "devices");
	REQUIRE(json_is_array(devs));
	CHECK_EQ_U64(json_array_size(devs), 2);
	d = json_array_get(devs, 0);
	CHECK_STR(json_string_value(json_object_get(d, "name")), "loop0");
	CHECK_STR(json_string_value(json_object_get(d, "dev")), "7:0");
	CHECK_EQ_U64(u64_of(d, "reads"), 100);
	CHECK_EQ_U64(u64_of(d, "read_bytes"), 100 * 32768);
	CHECK_EQ_U64(u64_of(d, "writes"), 10);
	CHECK_EQ_U64(u64_of(d, "merged"), 2);
	CHECK_EQ_U64(u64_of(d, "sequential"), 90);
	CHECK_EQ_U64(u64_of(d, "small"), 110);
	CHECK_EQ_U64(u64_of(json_object_get(d, "unfinished"), "reqs"), 1);
	CHECK_EQ_U64(u64_of(json_object_get(d, "unfinished"), "reads"), 1);
	CHECK_EQ_U64(u64_of(json_object_get(d, "unfinished"), "writes"), 0);
	CHECK_EQ_U64(u64_of(json_object_get(d, "untracked"), "reqs"), 2);
	CHECK_EQ_U64(u64_of(json_object_get(d, "untracked"), "writes"), 2);
	un = json_object_get(d, "unattributed");
	CHECK_EQ_U64(u64_of(un, "reqs"), 25);
	CHECK_EQ_U64(u64_of(json_object_get(un, "kthread"), "reqs"), 20);
	CHECK_EQ_U64(u64_of(json_object_get(un, "other"), "bytes"), 5 * 8192);
	CHECK(NEAR(json_real_value(json_object_get(un, "share")), 25.0 / 135));
	io = json_object_get(d, "iostat");
	CHECK_EQ_U64(u64_of(json_object_get(io, "device"), "reads"), 120);
	CHECK_EQ_U64(u64_of(json_object_get(io, "diskstats"), "reads"), 120);
	CHECK(NEAR(json_number_value(json_object_get(json_object_get(io, "target"),
						      "r_await_ms")), 2));
	CHECK(NEAR(json_number_value(json_object_get(json_object_get(io, "target"),
						      "util_pct")), 20));
	/* vda has no diskstats line here: null, not zeros. */
	CHECK(json_is_null(json_object_get(json_object_get(json_array_get(devs, 1),
							   "iostat"), "diskstats")));
	rd = json_object_get(json_object_get(json_object_get(d, "ops"), "read"), "target");
	CHECK_EQ_U64(u64_of(rd, "queue_ns"), 50 * MS);
	CHECK_EQ_U64(u64_of(json_object_get(json_object_get(rd, "latency"), "total"), "count"),
		     100);
	CHECK_EQ_U64(u64_of(json_object_get(json_object_get(rd, "latency"), "queue"), "count"),
		     0);
	layers = json_object_get(root, "layers");
	CHECK_STR(json_string_value(json_object_get(layers, "verdict")), "above_block");
	CHECK_EQ_U64(u64_of(json_object_get(layers, "read"), "count"), 200);
	CHECK_EQ_U64(u64_of(json_object_get(layers, "block_total"), "count"), 100);
	CHECK(NEAR(json_number_value(json_object_get(json_object_get(layers, "block_total"),
						      "mean")), 2 * MS));
	json_decref(root);
	trace_block_free(t);
}

TEST(report_block_text)
{
	struct trace *t = trace_block_sample();
	char *buf = NULL;
	size_t len;
	FILE *out;

	REQUIRE(t && t->block.ds_end.v);
	out = open_memstream(&buf, &len);
	REQUIRE(out);
	report_text__print(out, t, NULL);
	fclose(out);
	REQUIRE(buf);
	CHECK(strstr(buf, "block devices, iostat -x over 2.0 s") != NULL);
	CHECK(strstr(buf, "\nloop0      target        50.0") != NULL);
	CHECK(strstr(buf, "\n           diskstats     60.0") != NULL);
	CHECK(strstr(buf, "loop0: target 110 requests") != NULL);
	CHECK(strstr(buf, "not attributed 25 (18.5%: kernel threads 20, other processes 5); 1 unfinished; 2 untracked\n") != NULL);
	CHECK(strstr(buf, "=> time is spent above the block layer") != NULL);
	free(buf);
	trace_block_free(t);
}
