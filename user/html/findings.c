// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The verdict and the findings, worst first, as the report orders them. */
#include <ctype.h>
#include <math.h>
#include <string.h>
#include "html/html_int.h"

/* "HIGH" -> "sev-high": the colour class; unknown severities are plain. */
static void severity_class(FILE *out, const char *sev)
{
	fputs("sev-", out);
	for (const char *c = sev ? sev : "none"; *c; c++)
		fputc(isalpha((unsigned char)*c) ? tolower((unsigned char)*c) : '-', out);
}

/*
 * Each figure in human units (a share as %, bytes in KiB..GiB, a time in
 * µs..s); the number as the JSON writes it, and its unit, in the title.
 */
static void evidence(FILE *out, const json_t *f)
{
	const json_t *ev = json_object_get(f, "evidence"), *units = json_object_get(f, "units");
	const char *key, *unit;
	const json_t *v;
	char num[40], human[64];

	if (!json_object_size(ev))
		return;
	fputs("<table class=\"evidence\"><tr><th>figure</th><th>value</th></tr>\n", out);
	json_object_foreach((json_t *)ev, key, v) {
		unit = json_string_value(json_object_get(units, key));
		fputs("<tr><td>", out);
		esc__text(out, key, "");
		fputs("</td><td class=\"num\" title=\"", out);
		esc__text(out, esc__num(num, sizeof(num), v), "");
		if (unit) {
			fputc(' ', out);
			esc__text(out, unit, "");
		}
		fputs("\">", out);
		if (json_is_number(v))
			esc__text(out, units__page_figure(human, sizeof(human),
							  json_number_value(v), unit), "");
		else
			fputs("n/a", out);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

static void finding(FILE *out, const json_t *f)
{
	const char *sev = jstr(f, "severity"), *advice = jstr(f, "advice");

	fputs("<article class=\"finding ", out);
	severity_class(out, sev);
	fputs("\"><h3><span class=\"badge\">", out);
	esc__text(out, sev, "?");
	fputs("</span> ", out);
	esc__text(out, jstr(f, "summary"), "");
	fputs(" <code>", out);
	esc__text(out, jstr(f, "id"), "");
	fputs("</code></h3>\n", out);
	evidence(out, f);
	if (advice) {
		fputs("<p class=\"advice\">&rarr; ", out);
		esc__text(out, advice, "");
		fputs("</p>\n", out);
	}
	fputs("</article>\n", out);
}

/* A share of a phase as a percentage, "-" when null (not measured). */
static void phase_pct(FILE *out, const json_t *ph, const char *key)
{
	const json_t *v = json_object_get(ph, key);
	char buf[32];

	fputs("<td class=\"num\">", out);
	if (json_is_number(v))
		esc__text(out, units__page_figure(buf, sizeof(buf),
						  fmin(1, json_number_value(v)), "fraction"), "");
	else
		fputc('-', out);
	fputs("</td>", out);
}

/*
 * The phases when the run changed (two or more): each with its interval,
 * figures, verdict and top findings; the charts mark where each begins.
 */
static void phases(FILE *out, const json_t *all)
{
	const json_t *ph, *f;
	char buf[32];
	size_t i, k;

	if (json_array_size(all) < 2)
		return;
	fputs("<section id=\"phases\"><h2>Phases</h2>\n<p class=\"note\">The run changed "
	      "behaviour; each part is judged on its own (the verdict above is the whole "
	      "run's). The charts below mark where each phase begins.</p>\n"
	      "<table class=\"phases\"><tr><th>phase</th><th>from, s</th><th>to, s</th>"
	      "<th>loop waits</th><th>from storage</th><th>device busy</th><th>reads/s</th>"
	      "<th>verdict and findings</th></tr>\n", out);
	json_array_foreach(all, i, ph) {
		fprintf(out, "<tr><td>%zu%s</td><td class=\"num\">%.1f</td><td class=\"num\">%.1f"
			"</td>", i + 1, json_is_true(json_object_get(ph, "unsplit")) ?
			" <span title=\"changed again within: the cap of 8 phases kept it whole\">*"
			"</span>" : "", jnum(ph, "start_s"), jnum(ph, "end_s"));
		phase_pct(out, ph, "stall_share");
		phase_pct(out, ph, "miss_share");
		phase_pct(out, ph, "util");
		fputs("<td class=\"num\">", out);
		esc__text(out, units__page_figure(buf, sizeof(buf), jnum(ph, "reads_per_s"),
						  "reads/s"), "");
		fputs("</td><td>", out);
		esc__text(out, jstr(ph, "verdict"), "");
		json_array_foreach(json_object_get(ph, "findings"), k, f) {
			fputs("<br><span class=\"badge ", out);
			severity_class(out, jstr(f, "severity"));
			fputs("\">", out);
			esc__text(out, jstr(f, "severity"), "?");
			fputs("</span> ", out);
			esc__text(out, jstr(f, "summary"), "");
		}
		fputs("</td></tr>\n", out);
	}
	fputs("</table></section>\n", out);
}

void html_findings__section(struct page *p)
{
	const json_t *all = jget(p->root, "findings"), *f;
	const char *worst = jstr(json_array_get(all, 0), "severity");
	size_t i;

	fputs("<section id=\"verdict\" class=\"verdict ", p->out);
	severity_class(p->out, worst);
	fputs("\"><h2>Verdict</h2><p>", p->out);
	esc__text(p->out, jstr(p->root, "verdict"), "no diagnosis was made");
	fputs("</p></section>\n", p->out);
	phases(p->out, jget(p->root, "phases"));
	fputs("<section id=\"findings\"><h2>Findings</h2>\n", p->out);
	if (!json_array_size(all))
		fputs("<p>None.</p>\n", p->out);
	json_array_foreach(all, i, f) {
		finding(p->out, f);
	}
	fputs("</section>\n", p->out);
}
