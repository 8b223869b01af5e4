// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The JSON report, schema "iostorm.report/1" (docs/json.md). Every key is
 * always written, so consumers need no presence checks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/atomic_file.h"
#include "lib/json.h"
#include "report/report_int.h"

#define SCHEMA		"iostorm.report/1"
#define PRETTY_DEPTH	2	/* a line per top-level key and array element */

/* The whole document to out; 0 or the first -errno. */
static int write_report(FILE *out, const struct trace *t, const struct findings *f)
{
	struct file_totals tot;
	struct json j;
	int err;

	trace__file_totals(&t->store, &tot);
	json__init(&j, out, PRETTY_DEPTH);
	json__begin_object(&j);
	json__kv_string(&j, "schema", SCHEMA);
	json__kv_string(&j, "target", t->target);
	json__kv_double(&j, "duration_s", t->duration_s);
	json__kv_string(&j, "stopped_by", trace__stop_name(t->stopped_by));
	json__key(&j, "exit_status");
	if (t->exit_status >= 0)
		json__i64(&j, t->exit_status);
	else
		json__null(&j);
	report_findings__json(&j, f);
	report_vfs__json(&j, t, &tot);
	report_mounts__json(&j, t);
	report_block__json(&j, t);
	report_fuse__json(&j, t);
	err = report_lists__json(&j, t);
	if (err)
		return err;
	report_lost__json(&j, t);
	json__end_object(&j);
	return json__end(&j);
}

struct report_args {
	const struct trace *t;
	const struct findings *f;
};

static int fill_report(FILE *out, const void *arg)
{
	const struct report_args *a = arg;

	return write_report(out, a->t, a->f);
}

/* Write and flush to an open stream that is not ours to close. */
static int write_stream(FILE *f, const struct report_args *a)
{
	int err = fill_report(f, a);

	if (!err && fflush(f))
		err = -errno;
	if (!err && ferror(f))
		err = -EIO;
	return err;
}

/* A device or FIFO: cannot be replaced by rename, so write it in place. */
static int write_in_place(const char *path, const struct report_args *a)
{
	FILE *f;
	int fd, err;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	err = write_stream(f, a);
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

int report__write_json(const char *path, const struct trace *t, const struct findings *f)
{
	struct report_args a = { t, f };
	struct stat st;

	if (!strcmp(path, "-"))
		return write_stream(stdout, &a);
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		return write_in_place(path, &a);
	return atomic_file__write(path, true, fill_report, &a);
}
