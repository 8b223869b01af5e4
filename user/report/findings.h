/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The verdict and findings, in the text report (first) and the JSON. */
#ifndef REPORT_VERDICT_H
#define REPORT_VERDICT_H

#include <stdio.h>

struct json;
struct trace;

void report_verdict__text(FILE *out, const struct trace *t);
void report_verdict__json(struct json *j, const struct trace *t);

#endif /* REPORT_VERDICT_H */
