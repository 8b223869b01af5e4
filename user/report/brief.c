// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The default text report: one screen, at most REPORT_BRIEF_LINES lines of
 * at most REPORT_BRIEF_COLS columns. In order: what was traced, the
 * verdict and the findings, the training loop's line, the phases, the key
 * figures, the top dataset files, each FUSE and NFS mount the files were
 * on, each device and latency by layer, what was lost, and how to see
 * every table (--full).
 *
 * Each part is printed into memory, then every line wider than the screen
 * is wrapped at a space, under its own text (a hanging indent). When the
 * parts hold more lines than the screen, the least important are cut,
 * one step at a time (cuts[] below), until they fit; what was lost is
 * never cut.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/report_int.h"

#define BRIEF_FILES	5	/* rows of the top dataset files */

enum part {
	P_HEAD,		/* iostorm: <target>, traced ...; kernel's missing layers */
	P_VERDICT,	/* the verdict and the findings */
	P_LOOP,		/* the training loop(s) */
	P_PHASES,	/* when the run changed */
	P_FIGURES,	/* files, opens, reads, metadata, writes, code */
	P_FILES,	/* the top dataset files */
	P_REMOTE,	/* each FUSE and NFS mount: round trips, latency by layer */
	P_BLOCK,	/* each device, latency by layer */
	P_LOST,		/* always */
	P_HINT,		/* --full */
	P__MAX,
};

/* The levels a part is cut to, least important first: 1 less, ... */
static const struct {
	enum part part;
	int level;
} cuts[] = {
	{ P_PHASES, 1 },	/* each phase's verdict */
	{ P_FILES, 1 },		/* 3 rows */
	{ P_VERDICT, 1 },	/* the first finding's advice */
	{ P_VERDICT, 2 },	/* INFO and OK findings */
	{ P_BLOCK, 1 },		/* the devices: latency by layer alone */
	{ P_FILES, 2 },		/* gone */
	{ P_REMOTE, 1 },	/* gone */
	{ P_LOOP, 1 },		/* several loops: their workloads' lines, no loop's */
	{ P_PHASES, 2 },	/* gone */
	{ P_BLOCK, 2 },		/* gone */
	{ P_LOOP, 2 },		/* several loops: the line that sums them up */
	{ P_VERDICT, 3 },	/* the verdict alone */
	{ P_FIGURES, 1 },	/* gone */
};

/* ---- wrapping ---- */

/* Bytes of the UTF-8 character at s. */
static size_t char_len(const char *s)
{
	unsigned char c = *s;

	if (c < 0xc0)
		return 1;
	return c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
}

/*
 * Where a line's continuations start: under its text, past its label
 * ("reads     ", "  HIGH ", "       -> "), or two columns in.
 */
static int hang_of(const char *line)
{
	static const char *const sev[] = { "HIGH ", "WARN ", "INFO ", "OK   " };
	int lead = 0, col;

	while (line[lead] == ' ')
		lead++;
	for (size_t i = 0; i < sizeof(sev) / sizeof(sev[0]); i++)
		if (!strncmp(line + lead, sev[i], 5))
			return lead + 5;
	if (!strncmp(line + lead, "-> ", 3))
		return lead + 3;
	for (col = lead; line[col] >= 'a' && line[col] <= 'z'; col++)
		;
	if (col > lead && line[col] == ' ' && line[col + 1] == ' ') {
		while (line[col] == ' ')
			col++;
		if (col <= 12)
			return col;
	}
	return lead + 2;
}

/*
 * Print line (no newline in it) in lines of at most width columns, broken
 * at spaces (a word wider than a line is cut); out NULL counts alone.
 * Returns the lines printed.
 */
static int wrap_line(FILE *out, const char *line, size_t len, int width)
{
	int hang = hang_of(line), lines = 0, indent = 0;
	const char *p = line, *end = line + len;

	do {
		const char *q = p, *brk = NULL;
		int cols = indent;

		/* The longest run that fits, then back to its last space. */
		while (q < end && cols < width) {
			if (*q == ' ' && q > p)
				brk = q;
			q += char_len(q);
			cols++;
		}
		if (q < end && *q != ' ' && brk)
			q = brk;
		if (out) {
			fprintf(out, "%*s", indent, "");
			fwrite(p, 1, q - p, out);
			fputc('\n', out);
		}
		lines++;
		while (q < end && *q == ' ')
			q++;
		p = q;
		indent = hang;
	} while (p < end);
	return lines;
}

/* Every line of text wrapped; returns the lines printed (out NULL: counted). */
static int wrap_text(FILE *out, const char *text, size_t len, int width)
{
	const char *p = text, *end = text + len;
	int lines = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (!n) {
			if (out)
				fputc('\n', out);
			lines++;
		} else {
			lines += wrap_line(out, p, n, width);
		}
		p += n + (nl != NULL);
	}
	return lines;
}

/* ---- the parts ---- */

/* The verdict, the findings by severity, and the first one's advice. */
static void print_verdict(FILE *out, const struct findings *d, int level)
{
	bool advised = level >= 1;

	if (!d || !d->done)
		return;
	fprintf(out, "\n%s\n", d->headline);
	for (int i = 0; level < 3 && i < d->nr_findings; i++) {
		const struct finding *f = &d->findings[i];

		if (level >= 2 && f->severity < SEV_WARN)
			continue;
		fprintf(out, "  %-4s %s\n", severity__name(f->severity), f->summary);
		if (!advised && f->advice[0] && f->severity >= SEV_WARN) {
			fprintf(out, "       -> %s\n", f->advice);
			advised = true;
		}
	}
}

static void print_part(FILE *out, const struct report *r, enum part p, int level, size_t top)
{
	const struct trace *t = r->t;

	switch (p) {
	case P_HEAD:
		report_header__text(out, r);
		report_kernel__text(out, r);
		break;
	case P_VERDICT:
		print_verdict(out, r->f, level);
		break;
	case P_LOOP:
		report_stall__brief_text(out, r, level);
		break;
	case P_PHASES:
		if (level < 2)
			report_phases__text(out, r, 1 - level);
		break;
	case P_FIGURES:
		if (trace__empty(t))
			fprintf(out, "\nno file I/O by the target was seen\n");
		else if (level < 1) {
			fputc('\n', out);
			report_vfs__brief_text(out, r);
		}
		break;
	case P_FILES:
		if (level < 2)
			report_lists__brief_text(out, r, level ? (top < 3 ? top : 3) : top);
		break;
	case P_REMOTE:
		if (level < 1) {
			report_fuse__brief_text(out, r);
			report_nfs__brief_text(out, r);
		}
		break;
	case P_BLOCK:
		if (level < 2)
			report_block__brief_text(out, r, level < 1, true);
		break;
	case P_LOST:
		fputc('\n', out);
		report_lost__text(out, r, false);
		break;
	case P_HINT:
		fprintf(out, "every table (histograms, mounts, devices, files, directories, "
			"threads): iostorm --full\n");
		break;
	default:
		break;
	}
}

struct part_text {
	char *buf;
	size_t len;
	int lines;
};

/* Part p at level into *pt, its lines counted as wrapped; 0 or -ENOMEM. */
static int part__render(struct part_text *pt, const struct report *r, enum part p,
			int level, size_t top)
{
	FILE *m;

	free(pt->buf);
	pt->buf = NULL;
	pt->len = 0;
	m = open_memstream(&pt->buf, &pt->len);
	if (!m)
		return -ENOMEM;
	print_part(m, r, p, level, top);
	if (fclose(m))
		return -ENOMEM;
	pt->lines = wrap_text(NULL, pt->buf, pt->len, REPORT_BRIEF_COLS);
	return 0;
}

static int total_lines(const struct part_text *pt)
{
	int n = 0;

	for (int p = 0; p < P__MAX; p++)
		n += pt[p].lines;
	return n;
}

int report_brief__text(FILE *out, const struct report *r, size_t top)
{
	struct part_text pt[P__MAX] = {};
	size_t rows = top < BRIEF_FILES ? top : BRIEF_FILES;
	int err = 0;

	for (int p = 0; !err && p < P__MAX; p++)
		err = part__render(&pt[p], r, p, 0, rows);
	for (size_t c = 0; !err && c < sizeof(cuts) / sizeof(cuts[0]) &&
	     total_lines(pt) > REPORT_BRIEF_LINES; c++)
		err = part__render(&pt[cuts[c].part], r, cuts[c].part, cuts[c].level, rows);
	for (int p = 0; !err && p < P__MAX; p++)
		wrap_text(out, pt[p].buf, pt[p].len, REPORT_BRIEF_COLS);
	for (int p = 0; p < P__MAX; p++)
		free(pt[p].buf);
	return err;
}
