// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The JSON report, schema "iostorm.report/1" (docs/json.md). Every key is
 * always written, so consumers need no presence checks.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "lib/atomic_file.h"
#include "lib/json.h"
#include "lib/schema.h"
#include "report/report_int.h"

#define PRETTY_DEPTH	2	/* a line per top-level key and array element */

/* The whole document to out; 0 or the first -errno. */
static int write_report(FILE *out, const struct report *r)
{
	const struct trace *t = r->t;
	struct json j;
	int err;

	json__init(&j, out, PRETTY_DEPTH);
	json__begin_object(&j);
	json__kv_string(&j, "schema", IOSTORM_REPORT_SCHEMA);
	json__kv_string(&j, "target", t->target);
	json__kv_double(&j, "duration_s", t->duration_s);
	json__kv_string(&j, "stopped_by", trace__stop_name(t->stopped_by));
	json__key(&j, "exit_status");
	if (t->exit_status >= 0)
		json__i64(&j, t->exit_status);
	else
		json__null(&j);
	report_kernel__json(&j, r);
	report_findings__json(&j, r);
	report_phases__json(&j, r);
	report_stall__json(&j, r);
	report_vfs__json(&j, r);
	report_mounts__json(&j, r);
	report_block__json(&j, r);
	report_fuse__json(&j, r);
	report_nfs__json(&j, r);
	err = report_lists__json(&j, r);
	if (err)
		return err;
	report_cgroups__json(&j, r);
	report_lost__json(&j, r);
	report_timeline__json(&j, r);
	json__end_object(&j);
	return json__end(&j);
}

static int fill_report(FILE *out, const void *r)
{
	return write_report(out, r);
}

int report__print_json(FILE *out, const struct report *r)
{
	return write_report(out, r);
}

int report__write_json(const char *path, const struct report *r)
{
	return atomic_file__output(path, fill_report, r);
}
