// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * iostorm diff: loading a report. The figures need none of the per-record
 * arrays, dropped unparsed (lib/jskim.h): not "files", "dirs" or "threads"
 * (thread time comes from "thread_groups", the same sums by name), nor
 * "timeline" points ("fuse" and "nfs", a few connections or mounts and
 * their opcodes, are kept: fuse_* and nfs_* figures). Then the schema is checked.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diff/diff_int.h"
#include "lib/jskim.h"
#include "lib/log.h"

static int unusable(const char *path, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	pr_err("'%s' is not an iostorm report (%s)", path, why);
	return DIFF_EXIT_UNUSABLE;
}

static int check_schema(const char *path, const json_t *root)
{
	const char *schema;

	if (!json_is_object(root))
		return unusable(path, "not a JSON object");
	schema = json_string_value(json_object_get(root, "schema"));
	if (!schema)
		return unusable(path, "no schema, expected '%s'", IOSTORM_REPORT_SCHEMA);
	if (strcmp(schema, IOSTORM_REPORT_SCHEMA))
		return unusable(path, "schema '%s', expected '%s'", schema, IOSTORM_REPORT_SCHEMA);
	if (!json_is_object(json_object_get(root, "vfs")))
		return unusable(path, "no 'vfs' section");
	return 0;
}

int diff__load(const char *path, json_t **root)
{
	static const struct jskim_key dropped[] = {
		{ .name = "files" }, { .name = "dirs" }, { .name = "threads" },
		{ .name = "timeline" },
	};
	struct jskim *s = NULL;
	json_error_t jerr;
	FILE *f;
	int err = 0;

	*root = NULL;
	f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	if (f)
		s = jskim__new(f, dropped, sizeof(dropped) / sizeof(dropped[0]));
	if (!f || !s) {
		pr_err("cannot read '%s': %s", path, f ? "out of memory" : strerror(errno));
		err = DIFF_EXIT_UNUSABLE;
		goto out_close;
	}
	*root = json_load_callback(jskim__read, s, 0, &jerr);
	if (jskim__err(s)) {
		pr_err("cannot read '%s': %s", path, strerror(jskim__err(s)));
		err = DIFF_EXIT_UNUSABLE;
	} else if (!*root) {
		pr_err("'%s' is not JSON: %s (line %d, column %d)",
			path, jerr.text, jerr.line, jerr.column);
		err = DIFF_EXIT_UNUSABLE;
	} else {
		err = check_schema(path, *root);
	}
	if (err) {
		json_decref(*root);
		*root = NULL;
	}
	jskim__free(s);
out_close:
	if (f && f != stdin)
		fclose(f);
	return err;
}
