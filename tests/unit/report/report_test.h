/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One output of a trace as run.c makes it: the facts measured, the report
 * built once on them (report__build()), printed, both freed. For tests
 * that print a single one.
 */
#ifndef TESTS_UNIT_REPORT_TEST_H
#define TESTS_UNIT_REPORT_TEST_H

#include <stdio.h>
#include "model/facts.h"
#include "report/report.h"

static inline int json_written(const char *path, const struct trace *t,
			       const struct findings *f)
{
	struct report *r = NULL;
	struct facts fa;
	int err = facts__measure(&fa, t);

	if (!err)
		err = report__build(&r, t, &fa, f);
	if (!err)
		err = report__write_json(path, r);
	report__free(r);
	facts__free(&fa);
	return err;
}

static inline int text_printed(FILE *out, const struct trace *t, const struct findings *f,
			       const struct report_opts *o)
{
	struct report *r = NULL;
	struct facts fa;
	int err = facts__measure(&fa, t);

	if (!err)
		err = report__build(&r, t, &fa, f);
	if (!err)
		err = report__print_text(out, r, o);
	report__free(r);
	facts__free(&fa);
	return err;
}

#endif /* TESTS_UNIT_REPORT_TEST_H */
