// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * iostorm diff: loading a report. A streaming filter drops the per-record
 * lists unparsed, then the schema is checked.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diff/diff_int.h"
#include "lib/log.h"

/*
 * jansson holds ~3.5 KiB per parsed file record, so a 1M-file report
 * (~400 MB) would take ~4 GB. The figures need none of the per-record
 * arrays: not "files", "dirs" or "threads" (thread time comes from
 * "thread_groups", the same sums by name), nor "timeline" points ("fuse",
 * a few connections and opcodes, is kept: fuse_* figures). The filter passes everything but the value of those
 * top-level keys, which it turns into "[" + the newlines it held + "]"
 * (line numbers of parse errors stay right). It tracks strings and nesting
 * only: a value that does not balance runs to the end and fails to parse.
 */
struct skim {
	FILE *f;
	int err;		/* errno of a failed read */
	unsigned char buf[65536];
	size_t len, pos;
	int depth;
	bool in_str, esc;
	bool want_key;		/* at depth 1, the next string is a key */
	bool in_key;		/* reading a top-level key */
	bool key_done;		/* a top-level key ended, its ':' is due */
	bool value_due;		/* ':' of a skipped key seen, its value is next */
	bool skipping;		/* inside a skipped value */
	char key[16];
	size_t key_len;
};

static bool skipped_key(const struct skim *s)
{
	static const char *const skipped[] = { "files", "dirs", "threads", "timeline" };

	for (size_t i = 0; i < sizeof(skipped) / sizeof(skipped[0]); i++)
		if (s->key_len == strlen(skipped[i]) && !memcmp(s->key, skipped[i], s->key_len))
			return true;
	return false;
}

static void skim_string_byte(struct skim *s, int c)
{
	if (s->esc) {
		s->esc = false;
	} else if (c == '\\') {
		s->esc = true;
	} else if (c == '"') {
		s->in_str = false;
		if (s->in_key) {
			s->in_key = false;
			s->key_done = true;
		}
		return;
	}
	if (s->in_key && s->key_len < sizeof(s->key))
		s->key[s->key_len++] = c;
	else if (s->in_key)
		s->key_len = sizeof(s->key) + 1;	/* too long for a skipped key */
}

/* The byte to pass on for input byte c, or -1 for none. */
static int skim_byte(struct skim *s, int c)
{
	bool hidden = s->skipping;

	if (s->in_str) {
		skim_string_byte(s, c);
		return hidden ? (c == '\n' ? c : -1) : c;
	}
	if (s->value_due && !isspace(c)) {
		s->value_due = false;
		if (c == '[' || c == '{') {
			s->depth++;
			s->skipping = true;
			return '[';
		}
	}
	switch (c) {
	case '"':
		s->in_str = true;
		if (s->depth == 1 && s->want_key && !s->skipping) {
			s->in_key = true;
			s->key_len = 0;
			s->want_key = false;
		}
		break;
	case '{':
	case '[':
		s->depth++;
		s->want_key = s->depth == 1 && c == '{';
		break;
	case '}':
	case ']':
		s->depth--;
		if (s->skipping && s->depth == 1) {
			s->skipping = false;
			return ']';
		}
		break;
	case ',':
		s->want_key = s->depth == 1;
		break;
	case ':':
		if (s->depth == 1 && s->key_done && !s->skipping)
			s->value_due = skipped_key(s);
		break;
	}
	if (!isspace(c))
		s->key_done = false;
	return hidden ? (c == '\n' ? c : -1) : c;
}

static size_t skim_read(void *buffer, size_t buflen, void *data)
{
	struct skim *s = data;
	char *out = buffer;
	size_t n = 0;

	while (n < buflen) {
		int c;

		if (s->pos == s->len) {
			s->pos = 0;
			s->len = fread(s->buf, 1, sizeof(s->buf), s->f);
			if (!s->len) {
				if (ferror(s->f)) {
					s->err = errno ? errno : EIO;
					return (size_t)-1;
				}
				break;
			}
		}
		c = skim_byte(s, s->buf[s->pos++]);
		if (c >= 0)
			out[n++] = c;
	}
	return n;
}

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
		return unusable(path, "no schema, expected '%s'", DIFF_SCHEMA);
	if (strcmp(schema, DIFF_SCHEMA))
		return unusable(path, "schema '%s', expected '%s'", schema, DIFF_SCHEMA);
	if (!json_is_object(json_object_get(root, "vfs")))
		return unusable(path, "no 'vfs' section");
	return 0;
}

int diff__load(const char *path, json_t **root)
{
	struct skim *s;
	json_error_t jerr;
	int err = 0;

	*root = NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		pr_err("out of memory");
		return DIFF_EXIT_UNUSABLE;
	}
	s->f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	if (!s->f) {
		pr_err("cannot read '%s': %s", path, strerror(errno));
		err = DIFF_EXIT_UNUSABLE;
		goto out_free_skim;
	}
	*root = json_load_callback(skim_read, s, 0, &jerr);
	if (s->err) {
		pr_err("cannot read '%s': %s", path, strerror(s->err));
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
	if (s->f != stdin)
		fclose(s->f);
out_free_skim:
	free(s);
	return err;
}
