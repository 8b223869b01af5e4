// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The phases of the run (findings.h struct phase): in the text, after the
 * verdict, only when the run changed (two phases or more): each with its
 * interval, its figures, its own verdict and its most severe findings. The
 * JSON has them always ("phases", one for a steady run).
 */
#include "lib/json.h"
#include "lib/units.h"
#include "model/phases.h"
#include "report/report_int.h"

/* Phases that still hold a change the cap (PHASES_MAX) kept from splitting. */
static int unsplit_phases(const struct findings *d)
{
	int n = 0;

	for (int i = 0; i < d->nr_phases; i++)
		n += d->phases[i].unsplit;
	return n;
}

/* "-" for a share not measured. */
static const char *pct_or_dash(char *buf, size_t len, double share)
{
	if (share < 0)
		return "-";
	return units__pct(buf, len, share);
}

void report_phases__text(FILE *out, const struct report *r, int detail)
{
	const struct findings *d = r->f;
	char a[16], b[16], c[16], rps[16];
	int unsplit;

	if (!d || !d->done || d->nr_phases < 2)
		return;
	fprintf(out, "\nPHASES: the run changed %s; each part judged on its own "
		"(the verdict above is the whole run's)\n",
		d->nr_phases == 2 ? "once" : d->nr_phases == 3 ? "twice" : "several times");
	unsplit = unsplit_phases(d);
	if (unsplit)
		fprintf(out, "  (%d phases at most: %d of them changed again within, not split; "
			"marked *)\n", PHASES_MAX, unsplit);
	for (int i = 0; i < d->nr_phases; i++) {
		const struct phase *ph = &d->phases[i];

		fprintf(out, " %s%d  %.1f-%.1f s: loop waits %s", ph->unsplit ? "*" : " ", i + 1,
			ph->start_s, ph->end_s, pct_or_dash(a, sizeof(a), ph->stall_share));
		if (ph->write_share > 0)
			fprintf(out, " (on writes %s)", pct_or_dash(a, sizeof(a), ph->write_share));
		fprintf(out, ", from storage %s, device busy %s, %s reads/s\n",
			pct_or_dash(b, sizeof(b), ph->miss_share < 0 ? -1 :
				    ph->miss_share > 1 ? 1 : ph->miss_share),
			pct_or_dash(c, sizeof(c), ph->util),
			units__num(rps, sizeof(rps), ph->reads_per_s));
		if (detail >= 1)
			fprintf(out, "     %s\n", ph->headline);
		for (int k = 0; detail >= 2 && k < ph->nr_top; k++)
			fprintf(out, "     %-4s %s\n", severity__name(ph->top[k].severity),
				ph->top[k].summary);
	}
}

/* A share, or null when not measured. */
static void kv_share(struct json *j, const char *key, double v)
{
	if (v < 0) {
		json__key(j, key);
		json__null(j);
	} else {
		json__kv_double(j, key, v);
	}
}

void report_phases__json(struct json *j, const struct report *r)
{
	const struct findings *d = r->f;
	bool done = d && d->done;

	json__key(j, "phases");
	json__begin_array(j);
	for (int i = 0; done && i < d->nr_phases; i++) {
		const struct phase *ph = &d->phases[i];

		json__begin_object(j);
		json__kv_double(j, "start_s", ph->start_s);
		json__kv_double(j, "end_s", ph->end_s);
		json__kv_u64(j, "start_ts_ns", ph->start_ns);
		kv_share(j, "stall_share", ph->stall_share);
		kv_share(j, "write_share", ph->write_share);
		kv_share(j, "miss_share", ph->miss_share);
		kv_share(j, "util", ph->util);
		json__kv_double(j, "reads_per_s", ph->reads_per_s);
		json__kv_double(j, "files_per_s", ph->files_per_s);
		json__kv_double(j, "read_p50_us", ph->read_p50_us);
		json__key(j, "unsplit");
		json__bool(j, ph->unsplit);
		json__kv_string(j, "verdict", ph->headline);
		json__key(j, "findings");
		json__begin_array(j);
		for (int k = 0; k < ph->nr_top; k++) {
			json__begin_object(j);
			json__kv_string(j, "id", ph->top[k].id);
			json__kv_string(j, "severity", severity__name(ph->top[k].severity));
			json__kv_string(j, "summary", ph->top[k].summary);
			json__end_object(j);
		}
		json__end_array(j);
		json__end_object(j);
	}
	json__end_array(j);
	json__kv_u64(j, "phases_unsplit", done ? unsplit_phases(d) : 0);
}
