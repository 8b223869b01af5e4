/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The reports of a trace: the text one screen for people, the JSON every
 * number for programs (schema in docs/json.md). Both print one struct
 * report, built once after the trace (report__build()): the file totals,
 * the ranked files, directories and threads, the per-mount sums, the
 * latency by layer, and the findings (NULL: not judged). The outputs
 * print; they neither compute again nor judge.
 *
 * The public header of report/: other folders include only this one.
 */
#ifndef REPORT_REPORT_H
#define REPORT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

struct facts;
struct findings;
struct report;
struct trace;
struct trace_snap;

#define REPORT_TOP_DEFAULT	10
#define REPORT_BRIEF_LINES	50
#define REPORT_BRIEF_COLS	100

struct report_opts {
	int top;		/* rows of file/dir/thread tables, default 10 */
	bool full;		/* every table (--full, -v); else one screen (brief.c) */
};

/*
 * Build the report of t, its facts fa (facts__measure(), the ones f was
 * judged on) and its findings f (NULL: not judged) into *r: every file is
 * ranked once, whichever outputs print it. t, fa and f must outlive it.
 * 0 or -ENOMEM (then *r is NULL). Free with report__free().
 */
int report__build(struct report **r, const struct trace *t, const struct facts *fa,
		  const struct findings *f);
void report__free(struct report *r);

/*
 * Print the text report to out; o may be NULL for the defaults: one screen
 * (at most REPORT_BRIEF_LINES lines of REPORT_BRIEF_COLS columns: the
 * verdict, the loop, the key figures, the top dataset files, latency by
 * layer), or every table with o->full. Returns 0,
 * -ENOMEM, or the -errno of a failed write (out is flushed).
 */
int report__print_text(FILE *out, const struct report *r, const struct report_opts *o);
/*
 * Write the JSON report to path ("-": stdout). A regular file is
 * written to "path.tmp.<pid>", synced and renamed over path, so a failure
 * (a full disk) leaves no partial report and an older one intact; a device
 * or FIFO is written in place. On failure removes the temporary file and
 * returns -errno (-ENOSPC, -EFBIG, -EACCES...); the caller says what failed.
 */
int report__write_json(const char *path, const struct report *r);
/* The same document to a stream (not closed); 0 or the first -errno. */
int report__print_json(FILE *out, const struct report *r);

/*
 * -i SECONDS: one iostat-like line per interval, for the target, from the
 * difference of two snapshots of the trace (trace__snap()):
 *
 *   time      files/s  opens/s  reads/s  MiB/s  rd_p50  rd_p99  dev_r/s r_await  %util %stall
 *
 * files/s is opens of regular files per second (a file opened twice counts
 * twice), opens/s opens of anything; reads/s and MiB/s are read-family
 * syscalls on regular files and their bytes; rd_p50 and rd_p99 the read()
 * latency percentiles of the interval, ms; dev_r/s and r_await (ms) the
 * target's block read requests on every device; %util the share of the
 * interval the target had a request in flight on its busiest device;
 * %stall the training loop's wait for data (model/stall.h), "-" when no
 * consumer was found.
 */
void report__interval_header(FILE *out);
void report__interval_line(FILE *out, const struct trace_snap *a,
			   const struct trace_snap *b, const char *clock);

#endif /* REPORT_REPORT_H */
