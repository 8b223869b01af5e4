/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The text report: one screen, for people. */
#ifndef REPORT_TEXT_H
#define REPORT_TEXT_H

#include <stdio.h>
#include "report/report_int.h"
#include "model/trace.h"

/*
 * Print the report of t to out; o may be NULL for the defaults. Returns 0,
 * -ENOMEM, or the -errno of a failed write (out is flushed).
 */
int report_text__print(FILE *out, const struct trace *t, const struct report_opts *o);

#endif /* REPORT_TEXT_H */
