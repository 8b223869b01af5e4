// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The verdict and the findings, worst first, as the report orders them. */
#include <ctype.h>
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

void html_findings__section(struct page *p)
{
	const json_t *all = jget(p->root, "findings"), *f;
	const char *worst = jstr(json_array_get(all, 0), "severity");
	size_t i;

	fputs("<section id=\"verdict\" class=\"verdict ", p->out);
	severity_class(p->out, worst);
	fputs("\"><h2>Verdict</h2><p>", p->out);
	esc__text(p->out, jstr(p->root, "verdict"), "no diagnosis was made");
	fputs("</p></section>\n<section id=\"findings\"><h2>Findings</h2>\n", p->out);
	if (!json_array_size(all))
		fputs("<p>None.</p>\n", p->out);
	json_array_foreach(all, i, f) {
		finding(p->out, f);
	}
	fputs("</section>\n", p->out);
}
