// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * iostorm diff: checking one limit against the figures of BASE and NEW,
 * with the evidence in words.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "diff/diff_int.h"

#define EPS		1e-9		/* +10% from 1.0 to 1.1 is not "more than 10%" */

/* snprintf at the end of what buf holds; never overflows, always ends. */
static void append(char *buf, size_t len, const char *fmt, ...)
{
	size_t off = strnlen(buf, len);
	va_list ap;

	if (off + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + off, len - off, fmt, ap);
	va_end(ap);
}

static enum diff_status check_finding(const struct diff_limit *l, const struct diff_figures *b,
				      const struct diff_figures *n, char *why, size_t len)
{
	enum diff_status st = DIFF_PASS;

	for (int i = 0; i < n->nr_findings; i++) {
		const char *id = n->findings[i].id;
		int sev = n->findings[i].sev, was;

		if (strcmp(l->finding, "*") && strcmp(l->finding, id))
			continue;
		was = diff__finding_sev(b, id);
		if (sev < l->min_sev || sev <= was)
			continue;
		append(why, len, "%s%s %s (was %s)", st == DIFF_FAIL ? ", " : "finding ",
		       id, diff__sev_name(sev),
		       was == DIFF_SEV_NONE ? "absent" : diff__sev_name(was));
		st = DIFF_FAIL;
	}
	return st;
}

static bool too_few(const struct diff_figures *f, int m, const char *which, char *why,
		    size_t len)
{
	if (!diff_metrics[m].samples || f->samples[m] >= DIFF_MIN_SAMPLES)
		return false;
	snprintf(why, len, "only %.0f %s in %s, fewer than %d", f->samples[m],
		 diff_metrics[m].samples, which, DIFF_MIN_SAMPLES);
	return true;
}

enum diff_status diff__check(const struct diff_limit *l, const struct diff_figures *b,
			     const struct diff_figures *n, char *why, size_t len)
{
	char none[1], vb[32], vn[32], ch[32];
	int m = l->metric;
	double x, bv, nv;
	bool fail;

	if (!why) {
		why = none;
		len = sizeof(none);
	}
	why[0] = 0;
	if (m < 0)
		return check_finding(l, b, n, why, len);
	if (!n->have[m] || (l->delta && !b->have[m])) {
		snprintf(why, len, "%s not in %s", diff_metrics[m].name,
			 n->have[m] ? "BASE" : "NEW");
		return DIFF_UNCHECKED;
	}
	if (too_few(n, m, "NEW", why, len) || (l->delta && too_few(b, m, "BASE", why, len)))
		return DIFF_UNCHECKED;
	bv = b->v[m];
	nv = n->v[m];
	if (!l->delta)
		x = nv;
	else if (!l->relative)
		x = nv - bv;
	else if (bv > 0)
		x = (nv - bv) / bv;
	else
		x = nv > bv ? INFINITY : nv < bv ? -INFINITY : 0;
	if (l->op == '>')
		fail = x - l->value > EPS * fmax(1, fabs(l->value));
	else
		fail = (l->delta ? -l->value : l->value) - x > EPS * fmax(1, fabs(l->value));
	if (l->delta && b->have[m])
		snprintf(why, len, "%s %s -> %s (%s)", diff_metrics[m].name,
			 diff__fmt_value(vb, sizeof(vb), m, bv),
			 diff__fmt_value(vn, sizeof(vn), m, nv),
			 diff__fmt_change(ch, sizeof(ch), m, bv, nv));
	else
		snprintf(why, len, "%s %s", diff_metrics[m].name,
			 diff__fmt_value(vn, sizeof(vn), m, nv));
	return fail ? DIFF_FAIL : DIFF_PASS;
}
