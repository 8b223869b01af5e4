// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Log-linear histograms: slots, bounds, quantiles, log2 folding. */
#include "model/hist.h"
#include "unit.h"

static __u64 xorshift(__u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void check_value(__u64 v)
{
	__u32 s = hist__slot(v);
	__u64 lo, hi;

	CHECK(s < HIST_SLOTS);
	if (s >= HIST_SLOTS)
		return;
	lo = hist__lower(s);
	hi = hist__upper(s);
	CHECK(lo <= v && v <= hi);
	CHECK_EQ_U64(hist__slot(lo), s);
	CHECK_EQ_U64(hist__slot(hi), s);
	if (v < HIST_SUB)
		CHECK(lo == v && hi == v);
	else
		CHECK((hi - lo + 1) * HIST_SUB <= lo);	/* within 1/16 */
}

TEST(hist_slot_roundtrip)
{
	static const __u64 edges[] = { 0, 1, 15, 16, 17, 31, 32, 33, 1000, 4095, 4096,
				       1ULL << 62, (1ULL << 63) - 1, 1ULL << 63,
				       (1ULL << 63) + 1, ~0ULL - 1, ~0ULL };
	__u64 seed = 42;

	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		check_value(edges[i]);
	for (__u64 v = 0; v < 5000; v++)
		check_value(v);
	for (int k = 0; k < 64; k++) {
		check_value(1ULL << k);
		check_value((1ULL << k) - 1);
		check_value((1ULL << k) + 1);
	}
	for (int i = 0; i < 100000; i++) {
		__u64 r = xorshift(&seed);

		check_value(r >> (r & 63));	/* every magnitude */
	}
	CHECK_EQ_U64(hist__slot(15), 15);
	CHECK_EQ_U64(hist__slot(16), 16);
	CHECK_EQ_U64(hist__slot(~0ULL), HIST_SLOTS - 1);
	CHECK_EQ_U64(hist__lower(0), 0);
	CHECK_EQ_U64(hist__upper(HIST_SLOTS - 1), ~0ULL);
	CHECK_EQ_U64(hist__lower(hist__slot(1ULL << 63)), 1ULL << 63);
	/* Slots tile the u64 range with no gap and no overlap. */
	for (__u32 s = 0; s + 1 < HIST_SLOTS; s++)
		CHECK_EQ_U64(hist__upper(s) + 1, hist__lower(s + 1));
}

TEST(hist_quantiles)
{
	struct hist h = {};

	CHECK_EQ_U64(hist__quantile(&h, 0.5), 0);
	CHECK_EQ_U64(hist__max(&h), 0);
	CHECK_EQ_U64(hist__count(&h), 0);
	for (__u64 v = 1; v <= 10; v++)
		hist__add(&h, v, 1);
	CHECK_EQ_U64(hist__count(&h), 10);
	CHECK_EQ_U64(hist__quantile(&h, 0.5), 5);
	CHECK_EQ_U64(hist__quantile(&h, 0.9), 9);
	CHECK_EQ_U64(hist__quantile(&h, 0.99), 10);
	CHECK_EQ_U64(hist__quantile(&h, 1.0), 10);
	CHECK_EQ_U64(hist__quantile(&h, 0.01), 1);
	CHECK_EQ_U64(hist__max(&h), 10);

	/* 1000 reads of 1 µs, 10 of 1 ms: the tail shows only at p99.9. */
	memset(&h, 0, sizeof(h));
	hist__add(&h, 1000, 1000);
	hist__add(&h, 1000000, 10);
	CHECK_EQ_U64(hist__quantile(&h, 0.5), 1023);	/* slot [992, 1023] */
	CHECK_EQ_U64(hist__quantile(&h, 0.99), 1023);
	CHECK_EQ_U64(hist__quantile(&h, 0.999), 1015807);	/* [983040, 1015807] */
	CHECK_EQ_U64(hist__max(&h), 1015807);

	/* merge adds counts */
	{
		struct hist g = {};

		hist__add(&g, 1000, 5);
		hist__merge(&g, &h);
		CHECK_EQ_U64(hist__count(&g), 1015);
		CHECK_EQ_U64(g.slots[hist__slot(1000)], 1005);
	}
}

TEST(hist_log2_folding)
{
	struct hist h = {};
	__u64 rows[64], rows2[64], total = 0, seed = 7;

	hist__add(&h, 0, 1);
	hist__add(&h, 1, 1);
	hist__add(&h, 2, 1);
	hist__add(&h, 3, 1);
	hist__add(&h, 15, 1);
	hist__add(&h, 16, 1);
	hist__add(&h, 1000, 1);
	hist__add(&h, 1ULL << 63, 1);
	hist__add(&h, ~0ULL, 1);
	hist__log2_rows(&h, 1, rows);
	CHECK_EQ_U64(rows[0], 2);
	CHECK_EQ_U64(rows[1], 2);
	CHECK_EQ_U64(rows[3], 1);
	CHECK_EQ_U64(rows[4], 1);
	CHECK_EQ_U64(rows[9], 1);
	CHECK_EQ_U64(rows[63], 2);
	for (int r = 0; r < 64; r++)
		total += rows[r];
	CHECK_EQ_U64(total, 9);

	/* Any data: every count lands in a row whose range holds its slot. */
	for (int i = 0; i < 10000; i++) {
		__u64 r = xorshift(&seed);

		hist__add(&h, r >> (r & 63), 1);
	}
	hist__log2_rows(&h, 1, rows2);
	total = 0;
	for (int r = 0; r < 64; r++)
		total += rows2[r];
	CHECK_EQ_U64(total, hist__count(&h));
	for (int i = 0; i < HIST_SLOTS; i++) {
		__u64 lo = hist__lower(i);
		int r = lo < 2 ? 0 : 63 - __builtin_clzll(lo);

		if (h.slots[i] && !rows2[r])
			unit__fail(__FILE__, __LINE__, "slot %d not in row %d", i, r);
	}

	/* ns folded into µs rows */
	memset(&h, 0, sizeof(h));
	hist__add(&h, 500, 1);		/* 0 µs */
	hist__add(&h, 4096, 2);		/* 4 µs */
	hist__add(&h, 1 << 20, 3);	/* 1048 µs */
	hist__log2_rows(&h, 1000, rows);
	CHECK_EQ_U64(rows[0], 1);
	CHECK_EQ_U64(rows[2], 2);
	CHECK_EQ_U64(rows[10], 3);
}
