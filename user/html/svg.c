// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The charts' frame, drawn as perf timechart and iowatcher draw theirs:
 * plain SVG written here, coloured by CSS classes so the page's dark mode
 * and print styles apply. Every chart has labelled axes with units.
 */
#include <math.h>
#include "html/html_int.h"

#define TICKS	5	/* about this many ticks per axis */

/* 1, 2 or 5 times a power of ten, at least v. */
static double nice125(double v)
{
	double p, f;

	if (!(v > 0) || !isfinite(v))
		return 1;
	p = pow(10, floor(log10(v)));
	f = v / p;
	f = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
	return f * p;
}

double chart__step(double v)
{
	return nice125(v / TICKS);
}

double chart__nice(double v)
{
	double step = chart__step(v);

	return (v > 0 && isfinite(v) ? ceil(v / step - 1e-9) : 1) * step;
}

double chart__x(const struct chart *c, double x)
{
	return SVG_LEFT + x / c->x_max * (SVG_W - SVG_LEFT - SVG_RIGHT);
}

double chart__y(const struct chart *c, double y)
{
	return c->h - SVG_BOTTOM - y / c->y_max * (c->h - SVG_TOP - SVG_BOTTOM);
}

void svg__text(FILE *out, double x, double y, const char *anchor, const char *cls,
	       const char *s)
{
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" class=\"%s\">", x, y,
		anchor, cls);
	esc__text(out, s, "");
	fputs("</text>", out);
}

void svg__open(FILE *out, const char *id, const char *title, int h)
{
	fprintf(out, "<figure id=\"%s\"><figcaption>", id);
	esc__text(out, title, "");
	fprintf(out, "</figcaption>\n<svg viewBox=\"0 0 %d %d\" role=\"img\" "
		"xmlns=\"http://www.w3.org/2000/svg\"><title>", SVG_W, h);
	esc__text(out, title, "");
	fputs("</title>\n", out);
}

void svg__close(FILE *out)
{
	fputs("</svg></figure>\n", out);
}

/* A tick label: integers plainly, else with the digits the step needs. */
static void tick_label(char *buf, size_t len, double v, double step)
{
	int digits = step >= 1 ? 0 : (int)ceil(-log10(step));

	snprintf(buf, len, "%.*f", digits > 6 ? 6 : digits, v);
}

static void axes(struct chart *c, const char *xlabel, const char *ylabel)
{
	double xs = chart__step(c->x_max), ys = chart__step(c->y_max);
	double bottom = chart__y(c, 0), right = chart__x(c, c->x_max);
	char label[32];

	fprintf(c->out, "<g class=\"grid\">");
	for (int i = 0; i * ys <= c->y_max * (1 + 1e-9); i++) {
		double y = chart__y(c, i * ys);

		fprintf(c->out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
			SVG_LEFT, y, right, y);
		tick_label(label, sizeof(label), i * ys, ys);
		svg__text(c->out, SVG_LEFT - 4, y + 4, "end", "tick", label);
	}
	for (int i = 0; xlabel && i * xs <= c->x_max * (1 + 1e-9); i++) {
		double x = chart__x(c, i * xs);

		fprintf(c->out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
			x, bottom, x, bottom + 4);
		tick_label(label, sizeof(label), i * xs, xs);
		svg__text(c->out, x, bottom + 16, "middle", "tick", label);
	}
	fprintf(c->out, "</g><line class=\"axis\" x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
		SVG_LEFT, bottom, right, bottom);
	if (xlabel)
		svg__text(c->out, (SVG_LEFT + right) / 2, c->h - 6, "middle", "label", xlabel);
	fprintf(c->out, "<g transform=\"translate(14 %.1f) rotate(-90)\">",
		(SVG_TOP + bottom) / 2);
	svg__text(c->out, 0, 0, "middle", "label", ylabel);
	fputs("</g>\n", c->out);
}

void chart__begin(struct chart *c, FILE *out, const char *id, const char *title,
		  int h, double x_max, double y_max, const char *xlabel,
		  const char *ylabel)
{
	c->out = out;
	c->h = h;
	c->x_max = chart__nice(x_max);
	c->y_max = chart__nice(y_max);
	c->series = 0;
	svg__open(out, id, title, h);
	axes(c, xlabel, ylabel);
}

void chart__legend(struct chart *c, const char *name)
{
	double x = SVG_LEFT + 8 + c->series * 150;

	c->series++;
	fprintf(c->out, "<rect class=\"f%d\" x=\"%.1f\" y=\"8\" width=\"12\" height=\"4\"/>",
		c->series, x);
	svg__text(c->out, x + 16, 14, "start", "legend", name);
}

void chart__end(struct chart *c)
{
	svg__close(c->out);
}
