// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The run over time, from "timeline": charts on one time axis (each point
 * drawn as a step over its own span) and the read-latency heat map.
 */
#include <math.h>
#include "html/html_int.h"

#define CHART_H		170
#define HEAT_H		300
#define MIB		1048576.0

/* One series of a chart: key of each point, times scale. */
struct series {
	const char *key;
	double scale;
	const char *name;
};

static double point_end(const json_t *pt)
{
	return jnum(pt, "t_s") + jnum(pt, "dur_s");
}

static double series_max(const json_t *pts, const struct series *s, int n)
{
	double max = 0;
	size_t i;
	const json_t *pt;

	json_array_foreach(pts, i, pt) {
		for (int k = 0; k < n; k++) {
			double v = jnum(pt, s[k].key) * s[k].scale;

			if (v > max)
				max = v;
		}
	}
	return max;
}

/* Steps over each point's span; a null value (not measured) breaks the line. */
static void series_draw(struct chart *c, const json_t *pts, const struct series *s)
{
	bool open = false;
	size_t i;
	const json_t *pt;

	chart__legend(c, s->name);
	json_array_foreach(pts, i, pt) {
		const json_t *v = json_object_get(pt, s->key);
		double y;

		if (!json_is_number(v)) {
			if (open)
				fputs("\"/>", c->out);
			open = false;
			continue;
		}
		y = chart__y(c, json_number_value(v) * s->scale);
		if (!open)
			fprintf(c->out, "<polyline class=\"l%d\" points=\"", c->series);
		fprintf(c->out, "%s%.1f,%.1f %.1f,%.1f", open ? " " : "",
			chart__x(c, jnum(pt, "t_s")), y, chart__x(c, point_end(pt)), y);
		open = true;
	}
	if (open)
		fputs("\"/>", c->out);
	fputc('\n', c->out);
}

/* Where each phase after the first begins: a dashed line and its number. */
static void phase_marks(struct chart *c, const json_t *phases)
{
	const json_t *ph;
	char label[32];
	size_t i;

	json_array_foreach(phases, i, ph) {
		double x = chart__x(c, jnum(ph, "start_s"));

		if (!i || json_array_size(phases) < 2)
			continue;
		fprintf(c->out, "<line class=\"phase\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
			"y2=\"%d\"/>", x, SVG_TOP, x, c->h - SVG_BOTTOM);
		snprintf(label, sizeof(label), "phase %zu", i + 1);
		svg__text(c->out, x + 3, SVG_TOP + 10, "start", "tick", label);
	}
}

static void chart_draw(struct page *p, const json_t *pts, double x_max, const char *id,
		       const char *title, const char *ylabel, const struct series *s, int n)
{
	struct chart c;
	double y_max = series_max(pts, s, n);

	chart__begin(&c, p->out, id, title, CHART_H, x_max, y_max,
		     "time since tracing started (s)", ylabel);
	for (int k = 0; k < n; k++)
		series_draw(&c, pts, &s[k]);
	phase_marks(&c, jget(p->root, "phases"));
	chart__end(&c);
}

static const struct series throughput[] = {
	{ "read_bytes_per_s", 1 / MIB, "read() MiB/s" },
	{ "write_bytes_per_s", 1 / MIB, "write() MiB/s" },
};
static const struct series ops[] = {
	{ "files_per_s", 1, "file opens/s" },
	{ "opens_per_s", 1, "opens/s" },
	{ "reads_per_s", 1, "reads/s" },
	{ "blk_r_per_s", 1, "block reads/s" },
};
static const struct series latency[] = {
	{ "read_p50_ns", 1e-6, "read() p50" },
	{ "read_p99_ns", 1e-6, "read() p99" },
	{ "read_mean_ns", 1e-6, "read() mean" },
	{ "blk_r_await_ms", 1, "block r_await" },
};
static const struct series util[] = {
	{ "blk_util_pct", 1, "%util" },
};
static const struct series waits[] = {
	{ "loader_cpu_share", 100, "on CPU" },
	{ "loader_io_wait_share", 100, "I/O wait" },
	{ "stall_share", 100, "training loop waits for data" },
	{ "write_share", 100, "training loop waits on writes" },
};
static const struct series cache[] = {
	{ "cache_misses_per_s", 1, "pages added to the page cache/s" },
};

#define N(a)	((int)(sizeof(a) / sizeof((a)[0])))

/* The heat map's row labels: the lower bound of every other row. */
static void heat_labels(FILE *out, double top, double row_h, int r0, int r1,
			double from_ns)
{
	char label[32];

	for (int r = r0; r <= r1; r += 2) {
		double y = top + (r1 - r + 1) * row_h;

		units__page_ns(label, sizeof(label), from_ns * pow(2, r));
		svg__text(out, SVG_LEFT - 4, y + 3, "end", "tick", label);
	}
}

/* The rows with reads, at least 8 of them so a quiet run still reads as a map. */
static void heat_rows(const json_t *pts, int *r0, int *r1, double *max)
{
	size_t i, k;
	const json_t *pt, *v;

	*r0 = 1000;
	*r1 = -1;
	*max = 0;
	json_array_foreach(pts, i, pt) {
		json_array_foreach(json_object_get(pt, "read_lat_log2"), k, v) {
			double n = json_number_value(v);

			if (n <= 0)
				continue;
			*r0 = (int)k < *r0 ? (int)k : *r0;
			*r1 = (int)k > *r1 ? (int)k : *r1;
			*max = n > *max ? n : *max;
		}
	}
	if (*r1 < 0)
		*r0 = *r1 = 0;
	while (*r1 - *r0 < 7)
		*r1 += 1, *r0 -= *r0 > 0;
}

static void heat_map(struct page *p, const json_t *tl, const json_t *pts, double x_max)
{
	struct chart c = { .out = p->out, .h = HEAT_H, .x_max = chart__nice(x_max), .y_max = 1 };
	double from = jnum(tl, "read_lat_log2_from_ns"), max, row_h;
	double top = SVG_TOP, bottom = HEAT_H - SVG_BOTTOM;
	int r0, r1;
	size_t i, k;
	const json_t *pt, *v;

	heat_rows(pts, &r0, &r1, &max);
	row_h = (bottom - top) / (r1 - r0 + 1);
	svg__open(p->out, "chart-heatmap", "Read latency over time: reads per log2 bucket "
		  "(darker: more reads)", HEAT_H);
	json_array_foreach(pts, i, pt) {
		double x0 = chart__x(&c, jnum(pt, "t_s")), x1 = chart__x(&c, point_end(pt));

		json_array_foreach(json_object_get(pt, "read_lat_log2"), k, v) {
			double n = json_number_value(v);

			if (n <= 0 || (int)k < r0 || (int)k > r1)
				continue;
			fprintf(p->out, "<rect class=\"heat\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				"height=\"%.1f\" fill-opacity=\"%.2f\"><title>%.0f reads</title></rect>",
				x0, top + (r1 - (int)k) * row_h, x1 - x0 > 0.5 ? x1 - x0 : 0.5,
				row_h, 0.15 + 0.85 * log1p(n) / log1p(max), n);
		}
	}
	fputc('\n', p->out);
	/* The axes over the cells, the time axis as the charts above. */
	c.y_max = chart__nice(1);
	heat_labels(p->out, top, row_h, r0, r1, from);
	for (int t = 0; t * chart__step(c.x_max) <= c.x_max * (1 + 1e-9); t++) {
		char label[32];
		double v = t * chart__step(c.x_max);

		snprintf(label, sizeof(label), "%g", v);
		svg__text(p->out, chart__x(&c, v), bottom + 16, "middle", "tick", label);
	}
	fprintf(p->out, "<line class=\"axis\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>",
		SVG_LEFT, bottom, SVG_W - SVG_RIGHT, bottom);
	svg__text(p->out, (SVG_LEFT + SVG_W - SVG_RIGHT) / 2.0, HEAT_H - 6, "middle", "label",
		  "time since tracing started (s)");
	fprintf(p->out, "<g transform=\"translate(14 %.1f) rotate(-90)\">", (top + bottom) / 2);
	svg__text(p->out, 0, 0, "middle", "label", "read() latency (lower bound)");
	fputs("</g>\n", p->out);
	svg__close(p->out);
}

void html_timeline__section(struct page *p)
{
	const json_t *tl = jget(p->root, "timeline"), *pts = jget(tl, "points"), *last;
	char step[24];
	double x_max;

	fputs("<section id=\"timeline\"><h2>Over time</h2>\n", p->out);
	if (!json_array_size(pts)) {
		fputs("<p>This report holds no timeline.</p></section>\n", p->out);
		return;
	}
	last = json_array_get(pts, json_array_size(pts) - 1);
	x_max = point_end(last);
	fprintf(p->out, "<p class=\"note\">%zu points, one per %s s (%llu drain intervals "
		"each); every chart shares the time axis.</p>\n", json_array_size(pts),
		units__page_num(step, sizeof(step), jnum(tl, "step_s")),
		jcount(tl, "intervals_per_point"));
	chart_draw(p, pts, x_max, "chart-throughput", "Read and write throughput", "MiB/s",
		   throughput, N(throughput));
	chart_draw(p, pts, x_max, "chart-ops", "Files, opens and reads", "per second",
		   ops, N(ops));
	chart_draw(p, pts, x_max, "chart-latency", "Read latency", "ms", latency, N(latency));
	chart_draw(p, pts, x_max, "chart-util", "Device utilization (the device the target reads most from)",
		   "% of the time", util, N(util));
	chart_draw(p, pts, x_max, "chart-waits", "Where the loader threads' time goes",
		   "% of the time", waits, N(waits));
	chart_draw(p, pts, x_max, "chart-cache", "Page-cache misses", "pages/s",
		   cache, N(cache));
	heat_map(p, tl, pts, x_max);
	fputs("</section>\n", p->out);
}
