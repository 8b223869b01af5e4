// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Distributions: the latency histograms (read, open, and the target's
 * block reads: total, queue, device, summed over devices) folded into
 * log2 rows as biolatency prints them, and read sizes both in log2 rows
 * and in Darshan's decade buckets. A bucket of the report counts in the
 * row (or decade) of its lower bound.
 */
#include <math.h>
#include <string.h>
#include "html/html_int.h"

#define ROWS		64
#define BARS_H		170
#define DECADES		10

/* Add the buckets of a HIST object into log2 rows of its lower bound. */
static void rows_add(const json_t *hist, double rows[ROWS])
{
	size_t i;
	const json_t *b;

	json_array_foreach(json_object_get(hist, "buckets"), i, b) {
		double lower = json_number_value(json_array_get(b, 0));
		int r = lower >= 2 ? (int)floor(log2(lower)) : 0;

		rows[r < ROWS ? r : ROWS - 1] += json_number_value(json_array_get(b, 2));
	}
}

/* Bars with a label under each, count on the y axis. */
static void bars(struct page *p, const char *id, const char *title, const char *xlabel,
		 const double *counts, char labels[][16], int n)
{
	struct chart c;
	double max = 0, w;

	for (int i = 0; i < n; i++)
		max = counts[i] > max ? counts[i] : max;
	chart__begin(&c, p->out, id, title, BARS_H, 1, max, NULL, "count");
	w = (SVG_W - SVG_LEFT - SVG_RIGHT) / (double)n;
	for (int i = 0; i < n; i++) {
		double x = SVG_LEFT + i * w, y = chart__y(&c, counts[i]);

		fprintf(p->out, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\"><title>%s: %.0f</title></rect>", x + 1, y,
			w - 2 > 1 ? w - 2 : 1, chart__y(&c, 0) - y, labels[i], counts[i]);
		if (n <= 24 || i % 2 == 0)
			svg__text(p->out, x + w / 2, chart__y(&c, 0) + 14, "middle", "tick",
				  labels[i]);
	}
	svg__text(p->out, (SVG_LEFT + SVG_W - SVG_RIGHT) / 2.0, BARS_H - 6, "middle", "label",
		  xlabel);
	chart__end(&c);
}

/* log2 rows between the first and the last non-empty one, as bars. */
static void log2_bars(struct page *p, const char *id, const char *title,
		      const double rows[ROWS], bool bytes)
{
	char labels[ROWS][16];
	int r0 = 0, r1 = ROWS - 1;

	while (r0 < ROWS - 1 && rows[r0] == 0)
		r0++;
	while (r1 > r0 && rows[r1] == 0)
		r1--;
	for (int r = r0; r <= r1; r++) {
		double lower = r ? pow(2, r) : 0;

		if (bytes)
			units__page_bytes(labels[r - r0], sizeof(labels[0]), lower);
		else
			units__page_ns(labels[r - r0], sizeof(labels[0]), lower);
	}
	bars(p, id, title, bytes ? "bytes (lower bound of each power of two)" :
	     "latency (lower bound of each power of two)", rows + r0, labels, r1 - r0 + 1);
}

/* A latency HIST with its count and percentiles in the caption's note. */
static void latency(struct page *p, const char *id, const char *what, const json_t *h,
		    const double *rows)
{
	char a[24], b[24], c[24], title[160];

	snprintf(title, sizeof(title), "%s: %llu calls, p50 %s, p99 %s, max %s", what,
		 jcount(h, "count"), units__page_ns(a, sizeof(a), jnum(h, "p50")),
		 units__page_ns(b, sizeof(b), jnum(h, "p99")), units__page_ns(c, sizeof(c), jnum(h, "max")));
	log2_bars(p, id, title, rows, false);
}

static void block_hist(struct page *p, const char *id, const char *title, const char *key)
{
	double rows[ROWS] = { 0 };
	size_t i;
	const json_t *d, *lt = jget(p->root, "layers");
	char path[64], a[24], b[24], c[24], full[160];
	const json_t *sum;

	snprintf(path, sizeof(path), "ops.read.target.latency.%s", key);
	json_array_foreach(jget(p->root, "block.devices"), i, d) {
		rows_add(jget(d, path), rows);
	}
	snprintf(path, sizeof(path), "block_%s", key);
	sum = jget(lt, path);
	snprintf(full, sizeof(full), "%s: %llu requests, p50 %s, p99 %s, mean %s", title,
		 jcount(sum, "count"), units__page_ns(a, sizeof(a), jnum(sum, "p50")),
		 units__page_ns(b, sizeof(b), jnum(sum, "p99")), units__page_ns(c, sizeof(c), jnum(sum, "mean")));
	log2_bars(p, id, full, rows, false);
}

/* Darshan's SIZE_READ_* buckets: 0-100, 100-1K, 1K-10K, ... 1G+. */
static void decades(struct page *p, const json_t *h)
{
	static const double edges[DECADES] = { 0, 100, 1e3, 1e4, 1e5, 1e6, 4e6, 1e7, 1e8, 1e9 };
	static char labels[DECADES][16] = { "0-100", "100-1K", "1K-10K", "10K-100K",
		"100K-1M", "1M-4M", "4M-10M", "10M-100M", "100M-1G", "1G+" };
	double counts[DECADES] = { 0 };
	size_t i;
	const json_t *b;

	json_array_foreach(json_object_get(h, "buckets"), i, b) {
		double lower = json_number_value(json_array_get(b, 0));
		int d = DECADES - 1;

		while (d > 0 && lower < edges[d])
			d--;
		counts[d] += json_number_value(json_array_get(b, 2));
	}
	bars(p, "sizes-decade", "read() sizes in Darshan's buckets", "bytes per read",
	     counts, labels, DECADES);
}

void html_hists__section(struct page *p)
{
	const json_t *read = jget(p->root, "latency.read"), *open = jget(p->root, "latency.open");
	const json_t *sizes = jget(p->root, "sizes.read");
	double rows[ROWS];

	fputs("<section id=\"latency\"><h2>Latency</h2>\n<div>\n", p->out);
	memset(rows, 0, sizeof(rows));
	rows_add(read, rows);
	latency(p, "hist-read", "read() latency", read, rows);
	memset(rows, 0, sizeof(rows));
	rows_add(open, rows);
	latency(p, "hist-open", "open() latency", open, rows);
	block_hist(p, "hist-block-total", "block reads, start to done", "total");
	block_hist(p, "hist-block-queue", "block reads, in the queue", "queue");
	block_hist(p, "hist-block-device", "block reads, in the device", "device");
	fputs("</div></section>\n<section id=\"sizes\"><h2>Access sizes</h2>\n"
	      "<div>\n", p->out);
	memset(rows, 0, sizeof(rows));
	rows_add(sizes, rows);
	log2_bars(p, "sizes-log2", "read() sizes in log2 buckets", rows, true);
	decades(p, sizes);
	fputs("</div></section>\n", p->out);
}
