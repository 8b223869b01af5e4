/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The block layer's part of both reports: per device, iostat -x figures
 * for the target, the whole device and /proc/diskstats, who submitted the
 * requests, their pattern; then latency by layer and its verdict.
 */
#ifndef REPORT_BLOCK_H
#define REPORT_BLOCK_H

#include <stdio.h>
#include "model/trace.h"

struct json;

/* The "block" and "layers" keys of the JSON report (docs/json.md). */
void report_block__json(struct json *j, const struct trace *t);
/* The block section and the latency-by-layer lines of the text report. */
void report_block__text(FILE *out, const struct trace *t);

#endif /* REPORT_BLOCK_H */
