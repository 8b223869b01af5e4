// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The block layer's pure parts: /proc/diskstats parsing, iostat's
 * formulas and sums over submitters.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "fixture.h"
#include "model/block.h"
#include "model/diskstats.h"
#include "model/iostat.h"
#include "unit.h"

#define MS		1000000ULL	/* ns */
#define NEAR(a, b)	(fabs((double)(a) - (b)) < 1e-9 * (fabs((double)(b)) + 1))
#define LOOP0		(7 << 20 | 0)

/* A 6.x line: 17 counters after the name. */
static const char line_6x[] = FIXTURE_DISKSTATS_6X;

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

TEST(block_sums_and_iostat)
{
	struct block b;
	struct blk_stats s;
	struct iostat_in in;
	struct diskstat ds;
	const struct blk_dev *d;

	fixture__block_sample(&b);
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
	blk_dev__iostat_in(d, BLK_SCOPE_TARGET, block__secs(&b), &in);
	CHECK_EQ_U64(in.reads, 100);
	CHECK_EQ_U64(in.writes, 10);
	CHECK(NEAR(in.read_ms, 200));
	CHECK(NEAR(in.busy_ms, 400));
	CHECK(NEAR(in.queue_ms, 210));
	blk_dev__iostat_in(d, BLK_SCOPE_DEVICE, block__secs(&b), &in);
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
