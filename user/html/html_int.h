/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Private to html/. The page (page.c) calls the sections, each drawing one
 * part of the report from the JSON: findings.c, loops.c, timeline.c, hists.c,
 * tables.c, nfs.c; below them the SVG charts (svg.c), the text emitters (esc.c)
 * and the JSON getters (get.c). The command is main.c, the load load.c.
 */
#ifndef HTML_HTML_INT_H
#define HTML_HTML_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>
#include "html/html.h"
#include "lib/units.h"	/* units__page_*: numbers on the page */

struct page {
	FILE *out;
	const json_t *root;
	int top;		/* rows per table */
};

/* ---- loading (load.c) ---- */

/* 0, or HTML_EXIT_UNUSABLE after saying why root is no report of IOSTORM_REPORT_SCHEMA. */
int html__check_schema(const json_t *root, const char *name);

/* ---- sections ---- */

void html_findings__section(struct page *p);
/* The training loops by workload (stall.workloads), when there are two loops or more. */
void html_loops__section(struct page *p);
void html_timeline__section(struct page *p);
void html_hists__section(struct page *p);
/* The file-count summary, top directories and files, threads, devices, NFS, lost and memory. */
void html_tables__section(struct page *p);
/* NFS's calls per mount and procedure (nfs.c), when the trace saw any. */
void html_nfs__section(struct page *p);

/* ---- JSON getters (get.c): NULL or 0 when absent ---- */

/* The value at a dotted path ("vfs.rates.reads_per_s") under obj. */
const json_t *jget(const json_t *obj, const char *path);
double jnum(const json_t *obj, const char *path);
/* A count as written: integers exactly. */
unsigned long long jcount(const json_t *obj, const char *path);
const char *jstr(const json_t *obj, const char *path);
/* A record of kind "code" (modules, libraries); older reports have no kind: data. */
bool html__is_code(const json_t *r);

/* ---- text (esc.c) ---- */

/* NUL-terminated s escaped; NULL writes alt, unescaped. */
void esc__text(FILE *out, const char *s, const char *alt);
/* A JSON number as JSON writes it: integers exactly, else up to 10 digits. */
const char *esc__num(char *buf, size_t len, const json_t *v);

/* ---- charts (svg.c) ---- */

#define SVG_W		760	/* viewBox width */
#define SVG_LEFT	70	/* plot area margins */
#define SVG_RIGHT	16
#define SVG_TOP		26
#define SVG_BOTTOM	40

/* A plot area with linear axes, 0 .. x_max and 0 .. y_max (nice bounds). */
struct chart {
	FILE *out;
	int h;			/* viewBox height */
	double x_max;
	double y_max;
	int series;		/* legend entries so far */
};

/*
 * Open <figure id=id> with its caption and axes labelled xlabel, ylabel;
 * xlabel NULL: no x ticks, the caller labels its own categories.
 */
void chart__begin(struct chart *c, FILE *out, const char *id, const char *title,
		  int h, double x_max, double y_max, const char *xlabel,
		  const char *ylabel);
void chart__end(struct chart *c);
double chart__x(const struct chart *c, double x);
double chart__y(const struct chart *c, double y);
/* A legend entry for the next series, colour class "s<n>". */
void chart__legend(struct chart *c, const char *name);
/* The tick step of an axis up to v: 1, 2 or 5 times a power of ten, ~5 ticks. */
double chart__step(double v);
/* Where an axis up to v ends: the first tick at or above v. */
double chart__nice(double v);
/* Open and close the SVG of a figure without axes (heat map, bars). */
void svg__open(FILE *out, const char *id, const char *title, int h);
void svg__close(FILE *out);
/* Text at x, y; anchor "start", "middle" or "end"; s escaped. */
void svg__text(FILE *out, double x, double y, const char *anchor, const char *cls,
	       const char *s);

#endif /* HTML_HTML_INT_H */
