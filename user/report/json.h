/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The JSON report: every number the trace holds, for programs (docs/json.md). */
#ifndef REPORT_JSON_H
#define REPORT_JSON_H

#include "model/trace.h"

struct json;

/*
 * Write the report of t to path ("-": stdout). A regular file is written
 * to "path.tmp.<pid>", synced and renamed over path, so a failure (a full
 * disk) leaves no partial report and an older one intact; a device or FIFO
 * is written in place. On failure removes the temporary file and returns
 * -errno (-ENOSPC, -EFBIG, -EACCES...); the caller says what failed.
 */
int report_json__write(const char *path, const struct trace *t);
/* A histogram as the HIST object of docs/json.md, under key. */
void report_json__hist(struct json *j, const char *key, const struct hist *h,
		       const char *unit);

#endif /* REPORT_JSON_H */
