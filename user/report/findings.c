// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The verdict leads the text report: one line, then the findings by
 * severity, each with its figures and advice. The JSON carries the same
 * under "verdict" and "findings".
 */
#include <string.h>
#include "lib/json.h"
#include "report/report_int.h"

void report_findings__text(FILE *out, const struct report *r)
{
	const struct findings *d = r->f;

	if (!d || !d->done)
		return;
	fprintf(out, "\n%s\n", d->headline);
	for (int i = 0; i < d->nr_findings; i++) {
		const struct finding *f = &d->findings[i];

		fprintf(out, "  %-4s %s\n", severity__name(f->severity), f->summary);
		if (f->advice[0] && f->severity >= SEV_WARN)
			fprintf(out, "       -> %s\n", f->advice);
	}
}

static void write_finding(struct json *j, const struct finding *f)
{
	json__begin_object(j);
	json__kv_string(j, "id", f->id);
	json__kv_string(j, "severity", severity__name(f->severity));
	json__kv_string(j, "summary", f->summary);
	json__key(j, "evidence");
	json__begin_object(j);
	for (int k = 0; k < f->nr_figures; k++)
		json__kv_double(j, f->figures[k].name, f->figures[k].value);
	json__end_object(j);
	json__key(j, "units");
	json__begin_object(j);
	for (int k = 0; k < f->nr_figures; k++)
		json__kv_string(j, f->figures[k].name, f->figures[k].unit);
	json__end_object(j);
	json__kv_string(j, "advice", f->advice);
	json__end_object(j);
}

void report_findings__json(struct json *j, const struct report *r)
{
	const struct findings *d = r->f;
	bool done = d && d->done;

	json__key(j, "verdict");
	if (done)
		json__string(j, d->headline);
	else
		json__null(j);
	json__key(j, "findings");
	json__begin_array(j);
	for (int i = 0; done && i < d->nr_findings; i++)
		write_finding(j, &d->findings[i]);
	json__end_array(j);
}
