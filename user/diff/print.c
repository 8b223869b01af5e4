// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * iostorm diff: printing the comparison, as a table for people or as JSON
 * (DIFF_OUT_SCHEMA) for tools.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "diff/diff_int.h"

static const char *const status_names[] = {
	[DIFF_PASS] = "ok", [DIFF_FAIL] = "REGRESSED", [DIFF_UNCHECKED] = "not checked",
};

/* One finding of either report, with its severity in each. */
struct finding_pair {
	const char *id;
	int sb, sn;		/* DIFF_SEV_*, DIFF_SEV_NONE where absent */
};

/* Each finding of either report once, NEW's first; returns how many. */
static int finding_pairs(const struct diff_run *r, struct finding_pair *out)
{
	const struct diff_figures *b = &r->fig[0], *n = &r->fig[1];
	int nr = 0;

	for (int k = 0; k < 2; k++) {
		const struct diff_figures *f = k ? b : n;

		for (int i = 0; i < f->nr_findings; i++) {
			const char *id = f->findings[i].id;
			int sn = diff__finding_sev(n, id);

			if (k && sn != DIFF_SEV_NONE)
				continue;	/* listed with NEW's */
			out[nr++] = (struct finding_pair){ id, diff__finding_sev(b, id), sn };
		}
	}
	return nr;
}

static const char *finding_change(const struct finding_pair *p)
{
	return p->sb == p->sn ? "same" : p->sb == DIFF_SEV_NONE ? "gained" :
	       p->sn == DIFF_SEV_NONE ? "lost" : p->sn > p->sb ? "worse" : "better";
}

/* Terminal columns of UTF-8 text: one per character. */
static int cols(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void put_col(FILE *out, const char *s, int width)
{
	fprintf(out, "%*s%s", width > cols(s) ? width - cols(s) : 0, "", s);
}

static void print_metric(FILE *out, const struct diff_run *r, int m)
{
	const struct diff_figures *b = &r->fig[0], *n = &r->fig[1];
	char vb[32], vn[32], ch[32];
	bool first = true;

	fprintf(out, "%-17s", diff_metrics[m].name);
	put_col(out, b->have[m] ? diff__fmt_value(vb, sizeof(vb), m, b->v[m]) : "-", 12);
	put_col(out, n->have[m] ? diff__fmt_value(vn, sizeof(vn), m, n->v[m]) : "-", 12);
	put_col(out, b->have[m] && n->have[m] ?
		diff__fmt_change(ch, sizeof(ch), m, b->v[m], n->v[m]) : "-", 10);
	for (int i = 0; i < r->nr_limits; i++) {
		const struct diff_limit *l = &r->limits[i];

		if (l->metric != m)
			continue;
		if (!first)
			fprintf(out, "\n%-17s%34s", "", "");
		fprintf(out, "  %-9s %s", l->text + strlen(diff_metrics[m].name),
			status_names[r->status[i]]);
		first = false;
	}
	fputc('\n', out);
}

static void print_findings(FILE *out, const struct diff_run *r)
{
	const struct diff_figures *b = &r->fig[0], *n = &r->fig[1];
	struct finding_pair pairs[2 * DIFF_MAX_FINDINGS];
	int nr = finding_pairs(r, pairs), same = 0, shown = 0;

	fprintf(out, "\nfindings (BASE -> NEW):\n");
	for (int i = 0; i < nr; i++) {
		const struct finding_pair *p = &pairs[i];

		if (p->sb == p->sn) {
			same++;
			continue;
		}
		fprintf(out, "  %-22s %-6s -> %-6s %s\n", p->id, diff__sev_name(p->sb),
			diff__sev_name(p->sn), finding_change(p));
		shown++;
	}
	if (!b->nr_findings && !n->nr_findings)
		fprintf(out, "  none in either report\n");
	else if (!shown)
		fprintf(out, "  no change (%d the same)\n", same);
	else if (same)
		fprintf(out, "  %d more the same\n", same);
	for (int i = 0; i < r->nr_limits; i++)
		if (r->limits[i].metric < 0)
			fprintf(out, "  %-38s %s\n", r->limits[i].text, status_names[r->status[i]]);
}

void diff__print_text(FILE *out, const struct diff_run *r)
{
	for (int k = 0; k < 2; k++) {
		const struct diff_figures *f = &r->fig[k];
		char d[32];

		fprintf(out, "%s '%s': %s, %s\n", k ? "NEW: " : "BASE:", r->path[k],
			f->target[0] ? f->target : "unknown target", f->have[DM_DURATION] ?
			diff__fmt_value(d, sizeof(d), DM_DURATION, f->v[DM_DURATION]) : "-");
	}
	fprintf(out, "\n%-17s%12s%12s%10s  %s\n", "metric", "BASE", "NEW", "change",
		"limit     result");
	for (int m = 0; m < DM__MAX; m++)
		print_metric(out, r, m);
	print_findings(out, r);
	diff__print_phases_text(out, r);
	fputc('\n', out);
	for (int i = 0; i < r->nr_limits; i++)
		if (r->status[i] == DIFF_FAIL ||
		    (r->status[i] == DIFF_UNCHECKED && !r->limits[i].is_default))
			fprintf(out, "%s: %s: %s\n", r->status[i] == DIFF_FAIL ? "REGRESSED" :
				"not checked", r->limits[i].text, r->why[i]);
	if (r->failed)
		fprintf(out, "iostorm diff: REGRESSION: %d of %d limits failed\n", r->failed,
			r->nr_limits);
	else
		fprintf(out, "iostorm diff: no regression: %d limits ok, %d not checked\n",
			r->nr_limits - r->unchecked, r->unchecked);
}

static json_t *json_num(int m, bool have, double v)
{
	if (!have || !isfinite(v))
		return json_null();
	if (diff_metrics[m].kind != DK_RATIO && diff_metrics[m].kind != DK_SHARE &&
	    v == floor(v) && fabs(v) < 9007199254740992.0)
		return json_integer((json_int_t)v);
	return json_real(v);
}

/* (new - base) / base; null when it is not a finite number (a base near 0). */
static json_t *json_change(bool both, double b, double n)
{
	double v = both && b > 0 ? (n - b) / b : NAN;

	return isfinite(v) ? json_real(v) : json_null();
}

/*
 * Every metric has its entry: json_real() of an infinite change once made
 * json_pack() fail and the metric vanish from the array, silently.
 */
static json_t *json_metrics(const struct diff_run *r)
{
	static const char *const units[] = {
		[DK_COUNT] = "count", [DK_BYTES] = "bytes", [DK_RATIO] = "ratio",
		[DK_SHARE] = "fraction", [DK_TIME] = "ns",
	};
	const struct diff_figures *b = &r->fig[0], *n = &r->fig[1];
	json_t *a = json_array();

	for (int m = 0; m < DM__MAX; m++) {
		bool both = b->have[m] && n->have[m];

		if (json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:o, s:o, s:o}",
			"name", diff_metrics[m].name, "unit", units[diff_metrics[m].kind],
			"base", json_num(m, b->have[m], b->v[m]),
			"new", json_num(m, n->have[m], n->v[m]),
			"delta", json_num(m, both, n->v[m] - b->v[m]),
			"change", json_change(both, b->v[m], n->v[m])))) {
			json_decref(a);
			return NULL;	/* json_pack() of the document fails: -ENOMEM */
		}
	}
	return a;
}

static json_t *json_sev(int sev)
{
	return sev == DIFF_SEV_NONE ? json_null() : json_string(diff__sev_name(sev));
}

static json_t *json_findings(const struct diff_run *r)
{
	struct finding_pair pairs[2 * DIFF_MAX_FINDINGS];
	int nr = finding_pairs(r, pairs);
	json_t *a = json_array();

	for (int i = 0; i < nr; i++)
		json_array_append_new(a, json_pack("{s:s, s:o, s:o, s:s}", "id", pairs[i].id,
			"base", json_sev(pairs[i].sb), "new", json_sev(pairs[i].sn),
			"change", finding_change(&pairs[i])));
	return a;
}

static json_t *json_limits(const struct diff_run *r)
{
	static const char *const results[] = {
		[DIFF_PASS] = "ok", [DIFF_FAIL] = "regressed", [DIFF_UNCHECKED] = "unchecked",
	};
	json_t *a = json_array();

	for (int i = 0; i < r->nr_limits; i++)
		json_array_append_new(a, json_pack("{s:s, s:b, s:s, s:s}",
			"limit", r->limits[i].text, "default", r->limits[i].is_default,
			"result", results[r->status[i]], "detail", r->why[i]));
	return a;
}

int diff__print_json(FILE *out, const struct diff_run *r)
{
	json_t *doc;
	int err;

	doc = json_pack("{s:s, s:{s:s, s:o}, s:{s:s, s:o}, s:o, s:o, s:o, s:o, s:i, s:s}",
		"schema", DIFF_OUT_SCHEMA,
		"base", "path", r->path[0], "target",
			r->fig[0].target[0] ? json_string(r->fig[0].target) : json_null(),
		"new", "path", r->path[1], "target",
			r->fig[1].target[0] ? json_string(r->fig[1].target) : json_null(),
		"metrics", json_metrics(r), "findings", json_findings(r),
		"phases", diff__phases_json(r), "limits", json_limits(r), "regressions", r->failed,
		"result", r->failed ? "regressed" : "ok");
	if (!doc)
		return -ENOMEM;
	err = json_dumpf(doc, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	fputc('\n', out);
	json_decref(doc);
	return err ? -EIO : 0;
}
