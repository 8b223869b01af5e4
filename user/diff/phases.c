// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Phase against phase: when both reports split their run into phases
 * ("phases", two or more each), the phases are compared in order (the
 * first with the first...), their loop's stall, share read from storage,
 * read rate and verdict side by side. Shown, never gated: the limits hold
 * for the whole runs.
 */
#include <math.h>
#include <stdio.h>
#include "diff/diff_int.h"

static const json_t *phases_of(const struct diff_run *r, int k)
{
	const json_t *p = json_object_get(r->root[k], "phases");

	return json_is_array(p) ? p : NULL;
}

/* How many phases pair up: 0 unless both runs changed (two or more each). */
static size_t paired(const struct diff_run *r)
{
	size_t b = json_array_size(phases_of(r, 0)), n = json_array_size(phases_of(r, 1));

	return b >= 2 && n >= 2 ? (b < n ? b : n) : 0;
}

static double num(const json_t *ph, const char *key)
{
	const json_t *v = json_object_get(ph, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* "52%", or "-" when not measured. */
static const char *pct(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f%%", 100 * fmin(1, v));
	return buf;
}

void diff__print_phases_text(FILE *out, const struct diff_run *r)
{
	size_t nb = json_array_size(phases_of(r, 0)), nn = json_array_size(phases_of(r, 1));
	size_t n = paired(r);

	if (nb < 2 && nn < 2)
		return;
	fprintf(out, "\nphases (BASE -> NEW): BASE %zu, NEW %zu%s\n", nb, nn,
		n ? "" : "; only one run changed: compared as whole runs above");
	for (size_t i = 0; i < n; i++) {
		const json_t *b = json_array_get(phases_of(r, 0), i);
		const json_t *m = json_array_get(phases_of(r, 1), i);
		char s[4][16];

		fprintf(out, "  %zu  %.1f-%.1f s -> %.1f-%.1f s: loop waits %s -> %s, from "
			"storage %s -> %s, %.0f -> %.0f reads/s\n", i + 1, num(b, "start_s"),
			num(b, "end_s"), num(m, "start_s"), num(m, "end_s"),
			pct(s[0], sizeof(s[0]), num(b, "stall_share")),
			pct(s[1], sizeof(s[1]), num(m, "stall_share")),
			pct(s[2], sizeof(s[2]), num(b, "miss_share")),
			pct(s[3], sizeof(s[3]), num(m, "miss_share")),
			num(b, "reads_per_s"), num(m, "reads_per_s"));
		fprintf(out, "     BASE %s\n     NEW  %s\n",
			json_string_value(json_object_get(b, "verdict")) ?: "-",
			json_string_value(json_object_get(m, "verdict")) ?: "-");
	}
}

/* A phase's figures and verdict, as its report has them. */
static json_t *phase_json(const json_t *ph)
{
	static const char *const keys[] = {
		"start_s", "end_s", "stall_share", "miss_share", "util", "reads_per_s", "verdict",
	};
	json_t *o = json_object();

	for (size_t k = 0; o && k < sizeof(keys) / sizeof(keys[0]); k++) {
		const json_t *v = json_object_get(ph, keys[k]);

		json_object_set_new(o, keys[k], v ? json_deep_copy(v) : json_null());
	}
	return o;
}

json_t *diff__phases_json(const struct diff_run *r)
{
	json_t *a = json_array();
	size_t n = paired(r);

	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, json_pack("{s:I, s:o, s:o}", "phase", (json_int_t)i + 1,
			"base", phase_json(json_array_get(phases_of(r, 0), i)),
			"new", phase_json(json_array_get(phases_of(r, 1), i))));
	return a;
}
