// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A report loaded for the page without its per-record lists held whole
 * (lib/jskim.h): a 1.28M-file report would take ~4.5 GB parsed. The page
 * draws the first rows of "files" and "dirs" (busiest first, as the report
 * sorts them), how many there are, and a summary of the dataset's file
 * records; it never draws "threads" (thread_groups has their sums by name).
 * So each record is parsed alone, added to the summary, and kept only when
 * among the first top; the counts and the summary go under "_html" (see
 * html.h). What stays is top records and 8 bytes per dataset file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "html/html_int.h"
#include "lib/jskim.h"
#include "lib/log.h"
#include "lib/schema.h"	/* WHOLE_SHARE */

struct list {
	json_t *kept;		/* the first top records */
	size_t n;		/* records in all */
	size_t top;
	bool dataset;		/* file records: summed into the dataset's summary */
	unsigned long long *sizes;	/* of the dataset's records */
	size_t nr_sizes, cap;
	unsigned long long bytes, whole, partly, unread;
	json_error_t jerr;	/* of a record that is no JSON */
};

int html__check_schema(const json_t *root, const char *name)
{
	const char *schema = json_string_value(json_object_get(root, "schema"));

	if (json_is_object(root) && schema && !strcmp(schema, IOSTORM_REPORT_SCHEMA))
		return 0;
	if (!json_is_object(root))
		pr_err("'%s' is not an iostorm report (not a JSON object)", name);
	else
		pr_err("'%s' is not an iostorm report (schema '%s', expected '%s')", name,
		       schema ?: "none", IOSTORM_REPORT_SCHEMA);
	return HTML_EXIT_UNUSABLE;
}

/* A dataset record (type "file", not code): its size, and how much was read. */
static int summarize(struct list *l, const json_t *f)
{
	const json_t *max = json_object_get(f, "max_byte_read");
	unsigned long long size = jcount(f, "size");

	if (strcmp(jstr(f, "type") ?: "", "file") || html__is_code(f))
		return 0;
	if (l->nr_sizes == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 1024;
		unsigned long long *v = realloc(l->sizes, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->sizes = v;
		l->cap = cap;
	}
	l->sizes[l->nr_sizes++] = size;
	l->bytes += size;
	if (!jcount(f, "reads"))
		l->unread++;
	else if (json_is_integer(max) && json_integer_value(max) + 1 >= WHOLE_SHARE * size)
		l->whole++;
	else
		l->partly++;
	return 0;
}

static int add_record(const char *text, size_t len, void *arg)
{
	struct list *l = arg;
	json_t *r = json_loadb(text, len, 0, &l->jerr);
	int err = 0;

	if (!r)
		return -EBADMSG;
	l->n++;
	if (l->dataset)
		err = summarize(l, r);
	if (!err && json_array_size(l->kept) < l->top)
		err = json_array_append(l->kept, r) ? -ENOMEM : 0;
	json_decref(r);
	return err;
}

static int u64_cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

static double median(struct list *l)
{
	size_t n = l->nr_sizes;

	if (!n)
		return 0;
	qsort(l->sizes, n, sizeof(*l->sizes), u64_cmp);
	return n % 2 ? l->sizes[n / 2] : (l->sizes[n / 2 - 1] + (double)l->sizes[n / 2]) / 2;
}

/* Put the kept records, the counts and the summary into root. 0 or -ENOMEM. */
static int lists_set(json_t *root, struct list *files, struct list *dirs)
{
	json_t *h = json_pack("{s:I, s:I, s:{s:I, s:I, s:f, s:I, s:I, s:I}}",
			      "files", (json_int_t)files->n, "dirs", (json_int_t)dirs->n,
			      "dataset", "records", (json_int_t)files->nr_sizes,
			      "bytes", (json_int_t)files->bytes, "median", median(files),
			      "whole", (json_int_t)files->whole, "partly", (json_int_t)files->partly,
			      "unread", (json_int_t)files->unread);

	if (!h || json_object_set_new(root, "_html", h) ||
	    json_object_set(root, "files", files->kept) ||
	    json_object_set(root, "dirs", dirs->kept))
		return -ENOMEM;
	return 0;
}

int html__load(FILE *in, const char *name, int top, json_t **root)
{
	struct list files = { .kept = json_array(), .dataset = true },
		    dirs = { .kept = json_array() };
	const struct jskim_key keys[] = {
		{ "files", add_record, &files }, { "dirs", add_record, &dirs },
		{ .name = "threads" },
	};
	struct jskim *s = jskim__new(in, keys, sizeof(keys) / sizeof(keys[0]));
	json_error_t jerr;
	int err = 0;

	*root = NULL;
	files.top = dirs.top = top > 0 ? top : HTML_TOP_DEFAULT;
	if (s && files.kept && dirs.kept)
		*root = json_load_callback(jskim__read, s, 0, &jerr);
	else
		err = ENOMEM;
	if (s && jskim__err(s) == EBADMSG)
		pr_err("'%s' is not JSON: %s (in a record of files or dirs, line %d of it)",
		       name, files.jerr.text[0] ? files.jerr.text : dirs.jerr.text,
		       files.jerr.text[0] ? files.jerr.line : dirs.jerr.line);
	else if (err || (s && jskim__err(s)))
		pr_err("cannot read '%s': %s", name, strerror(err ?: jskim__err(s)));
	else if (!*root)
		pr_err("'%s' is not JSON: %s (line %d, column %d)", name, jerr.text, jerr.line,
		       jerr.column);
	else
		err = html__check_schema(*root, name);
	if (!err && *root && lists_set(*root, &files, &dirs)) {
		pr_err("cannot read '%s': %s", name, strerror(ENOMEM));
		err = ENOMEM;
	}
	if (err || !*root) {
		json_decref(*root);
		*root = NULL;
	}
	json_decref(files.kept);
	json_decref(dirs.kept);
	free(files.sizes);
	jskim__free(s);
	return *root ? 0 : HTML_EXIT_UNUSABLE;
}
