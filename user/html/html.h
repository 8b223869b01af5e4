/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The HTML report: one self-contained page (inline SVG and CSS, no script,
 * no fetch) drawn from a JSON report, schema iostorm.report/1: the verdict
 * and findings, the timeline charts and the read-latency heat map, the
 * latency and size histograms, the files, directories and threads, what
 * was lost. Drawn from the JSON only, never from the model, so `iostorm
 * html REPORT.json` and `--html` while tracing write the same bytes.
 *
 * The public header of html/: other folders include only this one.
 */
#ifndef HTML_HTML_H
#define HTML_HTML_H

#include <stdio.h>
#include <jansson.h>
#include "lib/schema.h"

#define HTML_TOP_DEFAULT	10

/* Exit codes of iostorm html, also in its --help and iostorm(8). */
enum html_exit {
	HTML_EXIT_OK = 0,
	HTML_EXIT_USAGE = 2,		/* bad command line */
	HTML_EXIT_UNUSABLE = 3,		/* the report is missing, not JSON, of another schema */
	HTML_EXIT_WRITE = 4,		/* the page could not be written */
};

/* "iostorm html ..." with argv[0] == "html"; returns an enum html_exit. */
int html__main(int argc, char **argv);
/*
 * Read a report from in (name: for messages) and check its schema, for a
 * page of top rows per table: "files" and "dirs" keep their first top
 * records, "threads" is left out, and "_html" holds what the page needs of
 * the rest (html/load.c). 0, or HTML_EXIT_UNUSABLE after saying why on
 * stderr.
 */
int html__load(FILE *in, const char *name, int top, json_t **root);
/* The page of a loaded report, top rows per table, to out. 0 or -errno. */
int html__render(FILE *out, const json_t *root, int top);
/*
 * The page to path as every report is written (lib/atomic_file.h: "-" is
 * stdout, a device or FIFO in place, else written aside and renamed).
 * 0 or -errno; the caller says what failed.
 */
int html__write(const char *path, const json_t *root, int top);
/*
 * len bytes of s as HTML text or attribute value: & < > " ' escaped;
 * invalid UTF-8, control characters and noncharacters as U+FFFD.
 */
void html__escape(FILE *out, const char *s, size_t len);

#endif /* HTML_HTML_H */
