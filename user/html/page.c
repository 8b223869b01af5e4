// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The page: one HTML5 document, its style inline (light, dark through
 * prefers-color-scheme, and print), no script and nothing fetched; then
 * the sections in the order a reader asks: what is wrong, when, how it is
 * distributed, where.
 */
#include <errno.h>
#include "html/html_int.h"

static const char style[] =
"<style>\n"
":root{--bg:#fff;--fg:#1b1f24;--muted:#57606a;--grid:#d0d7de;--panel:#f6f8fa;"
"--s1:#0969da;--s2:#cf222e;--s3:#1a7f37;--s4:#9a6700;--heat:#8250df;"
"--high:#cf222e;--warn:#bf8700;--info:#0969da;--ok:#1a7f37}\n"
"@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#8d96a0;"
"--grid:#30363d;--panel:#161b22;--s1:#58a6ff;--s2:#ff7b72;--s3:#3fb950;--s4:#d29922;"
"--heat:#bc8cff;--high:#f85149;--warn:#d29922;--info:#58a6ff;--ok:#3fb950}}\n"
"body{background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,sans-serif;"
"margin:0 auto;max-width:1100px;padding:0 16px 40px}\n"
"h1{font-size:22px;margin:18px 0 4px}h2{font-size:18px;border-bottom:1px solid var(--grid);"
"padding-bottom:4px;margin-top:28px}h3{font-size:15px;margin:0 0 6px}\n"
".meta,.note,figcaption{color:var(--muted)}figure{margin:8px 0 16px}"
"figcaption{font-size:13px;margin-bottom:2px}\n"
"svg{width:100%;height:auto;display:block}svg text{fill:var(--fg);font-size:11px}"
"svg .label{font-size:12px}svg .legend{font-size:11px}\n"
".grid line{stroke:var(--grid);stroke-width:1}.axis{stroke:var(--muted)}\n"
".phase{stroke:var(--muted);stroke-dasharray:4 3}\n"
"polyline{fill:none;stroke-width:1.6}.l1{stroke:var(--s1)}.l2{stroke:var(--s2)}"
".l3{stroke:var(--s3)}.l4{stroke:var(--s4)}\n"
".f1{fill:var(--s1)}.f2{fill:var(--s2)}.f3{fill:var(--s3)}.f4{fill:var(--s4)}"
".bar{fill:var(--s1)}.heat{fill:var(--heat)}\n"
".grid2{display:grid;grid-template-columns:1fr 1fr;gap:0 24px}"
"@media (max-width:800px){.grid2{grid-template-columns:1fr}}\n"
"table{border-collapse:collapse;margin:6px 0}th,td{padding:2px 10px 2px 0;"
"text-align:left;vertical-align:top}td.num{text-align:right;font-variant-numeric:"
"tabular-nums}table.list td,table.list th{border-bottom:1px solid var(--grid)}"
"td.path{word-break:break-all;font-family:ui-monospace,monospace;font-size:12px}\n"
".verdict{border-left:6px solid var(--muted);background:var(--panel);padding:4px 14px}"
".verdict p{font-size:16px;font-weight:600}\n"
".finding{border-left:6px solid var(--muted);background:var(--panel);padding:10px 14px;"
"margin:10px 0}.badge{display:inline-block;min-width:44px;text-align:center;"
"border-radius:4px;color:#fff;background:var(--muted);font-size:12px;padding:1px 6px}\n"
".sev-high{border-color:var(--high)}.sev-high .badge{background:var(--high)}"
".sev-warn{border-color:var(--warn)}.sev-warn .badge{background:var(--warn)}"
".sev-info{border-color:var(--info)}.sev-info .badge{background:var(--info)}"
".sev-ok{border-color:var(--ok)}.sev-ok .badge{background:var(--ok)}\n"
".advice{margin:6px 0 0}table.evidence{font-size:12px}p.warn{color:var(--high)}"
".tag{font-family:system-ui,sans-serif;font-size:11px;color:var(--muted);"
"border:1px solid var(--grid);border-radius:4px;padding:0 4px}"
"code{font-size:12px;color:var(--muted)}\n"
"@media print{body{max-width:none;font-size:11px}.grid2{grid-template-columns:1fr 1fr}"
"figure,.finding,table{break-inside:avoid}h2{break-after:avoid}}\n"
"</style>\n";

static void head(struct page *p)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"color-scheme\" content=\"light dark\">\n<title>iostorm: ", p->out);
	esc__text(p->out, jstr(p->root, "target"), "a trace");
	fputs("</title>\n", p->out);
	fputs(style, p->out);
	fputs("</head>\n<body>\n", p->out);
}

/* The layers the kernel did not give, and why: their figures are not zeros. */
static void unmeasured(struct page *p)
{
	const json_t *layers = jget(p->root, "kernel.layers"), *l;
	const char *name, *sep = "";

	json_object_foreach((json_t *)layers, name, l) {
		if (!json_is_false(json_object_get(l, "measured")) ||
		    json_is_true(json_object_get(l, "absent")))
			continue;	/* measured, or nothing of it here (no NFS client) */
		if (!*sep) {
			fputs("<p class=\"meta\">not measured on this kernel (", p->out);
			esc__text(p->out, jstr(p->root, "kernel.release"), "?");
			fputs("): ", p->out);
		}
		fputs(sep, p->out);
		esc__text(p->out, name, "?");
		fputs(": ", p->out);
		esc__text(p->out, jstr(l, "why"), "?");
		sep = "; ";
	}
	if (*sep)
		fputs("</p>\n", p->out);
}

/* What was traced, for how long, and how it ended. */
static void header(struct page *p)
{
	const json_t *status = jget(p->root, "exit_status");
	char rate[24], traced[24];

	fputs("<header><h1>iostorm: ", p->out);
	esc__text(p->out, jstr(p->root, "target"), "a trace");
	fprintf(p->out, "</h1>\n<p class=\"meta\">traced %s, stopped by ",
		units__page_ns(traced, sizeof(traced), jnum(p->root, "duration_s") * 1e9));
	esc__text(p->out, jstr(p->root, "stopped_by"), "?");
	if (json_is_integer(status))
		fprintf(p->out, ", exit status %lld", (long long)json_integer_value(status));
	fprintf(p->out, "; %llu files, %llu opens, %llu reads of %s (%llu bytes), %llu stats"
		"</p>\n", jcount(p->root, "vfs.files"), jcount(p->root, "vfs.opens"),
		jcount(p->root, "vfs.reads"), units__page_bytes(rate, sizeof(rate),
		jnum(p->root, "vfs.read_bytes")), jcount(p->root, "vfs.read_bytes"),
		jcount(p->root, "vfs.stats"));
	unmeasured(p);
	fputs("</header>\n", p->out);
}

int html__render(FILE *out, const json_t *root, int top)
{
	struct page p = { .out = out, .root = root, .top = top > 0 ? top : HTML_TOP_DEFAULT };

	/* A write that fails (ENOSPC) leaves its errno; nothing here sets errno else. */
	errno = 0;
	head(&p);
	header(&p);
	fputs("<main>\n", out);
	html_findings__section(&p);
	html_loops__section(&p);
	html_timeline__section(&p);
	html_hists__section(&p);
	html_tables__section(&p);
	fputs("</main>\n<footer class=\"note\"><p>Drawn by iostorm from a report of schema "
	      IOSTORM_REPORT_SCHEMA "; percentiles are bucket upper bounds (within 6.25%); see "
	      "docs/json.md for every figure.</p></footer>\n</body>\n</html>\n", out);
	if (fflush(out))
		return -errno;
	return ferror(out) ? (errno ? -errno : -EIO) : 0;
}
