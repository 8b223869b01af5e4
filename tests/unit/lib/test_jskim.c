// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The skimming filter: what reaches jansson, what each element function gets. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "lib/jskim.h"
#include "unit.h"

struct seen {
	char text[512];		/* the elements, one per line */
	size_t n;
	int fail_at;		/* return -EIO at this element (1-based), 0 never */
};

static int note(const char *text, size_t len, void *arg)
{
	struct seen *s = arg;
	size_t used = strlen(s->text);

	if (++s->n == (size_t)s->fail_at)
		return -EIO;
	snprintf(s->text + used, sizeof(s->text) - used, "%.*s\n", (int)len, text);
	return 0;
}

/* in through a filter of "files" (to note) and "threads" (dropped). */
static json_t *skim(const char *in, struct seen *files, int *err, json_error_t *jerr)
{
	const struct jskim_key keys[] = {
		{ "files", note, files }, { .name = "threads" },
	};
	FILE *f = fmemopen((void *)in, strlen(in), "r");
	struct jskim *s = jskim__new(f, keys, 2);
	json_t *root;

	CHECK(f && s);
	root = json_load_callback(jskim__read, s, 0, jerr);
	*err = jskim__err(s);
	jskim__free(s);
	fclose(f);
	return root;
}

TEST(jskim_elements_and_drops)
{
	/* Brackets and quotes in strings, nesting, a key that only looks alike. */
	const char *in = "{\"a\": 1, \"files\": [{\"p\": \"x]}\\\"[\", \"n\": [1, {}]},\n"
			 " [2], {\"q\": \"\"}], \"threads\": [{\"t\": 1},\n{\"t\": 2}],\n"
			 " \"filesx\": [3], \"b\": {\"files\": [4]}, \"threads2\": \"files\"}";
	struct seen files = {};
	json_error_t jerr;
	json_t *root;
	int err;

	root = skim(in, &files, &err, &jerr);
	CHECK(root);
	CHECK_EQ_INT(err, 0);
	CHECK_STR(files.text, "{\"p\": \"x]}\\\"[\", \"n\": [1, {}]}\n[2]\n{\"q\": \"\"}\n");
	CHECK_EQ_U64(json_array_size(json_object_get(root, "files")), 0);
	CHECK_EQ_U64(json_array_size(json_object_get(root, "threads")), 0);
	CHECK_EQ_U64(json_integer_value(json_object_get(root, "a")), 1);
	CHECK_EQ_U64(json_array_size(json_object_get(root, "filesx")), 1);
	CHECK_EQ_U64(json_array_size(json_object_get(json_object_get(root, "b"), "files")), 1);
	CHECK_STR(json_string_value(json_object_get(root, "threads2")), "files");
	json_decref(root);
}

/* An element function's error stops the load with it. */
TEST(jskim_element_error_stops)
{
	struct seen files = { .fail_at = 2 };
	json_error_t jerr;
	json_t *root;
	int err;

	root = skim("{\"files\": [{}, {}, {}]}", &files, &err, &jerr);
	CHECK(!root);
	CHECK_EQ_INT(err, EIO);
	CHECK_EQ_U64(files.n, 2);
}

/* Lines of a parse error after a skimmed value are the input's. */
TEST(jskim_error_lines_kept)
{
	struct seen files = {};
	json_error_t jerr;
	json_t *root;
	int err;

	root = skim("{\"threads\": [\n{},\n{}\n],\n\"x\": }", &files, &err, &jerr);
	CHECK(!root);
	CHECK_EQ_INT(err, 0);
	CHECK_EQ_INT(jerr.line, 5);
}
