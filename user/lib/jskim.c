// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A JSON report read without holding its per-record lists: see jskim.h. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "lib/jskim.h"

#define SKIM_FAIL	-2	/* skim_byte(): stop, s->err says why */

struct jskim {
	FILE *f;
	const struct jskim_key *keys;
	size_t nr_keys;
	int err;		/* errno of a failed read or element function */
	unsigned char buf[65536];
	size_t len, pos;
	int depth;
	bool in_str, esc;
	bool want_key;		/* at depth 1, the next string is a key */
	bool in_key;		/* reading a top-level key */
	bool key_done;		/* a top-level key ended, its ':' is due */
	const struct jskim_key *due;	/* its ':' seen: the value is next */
	const struct jskim_key *in;	/* inside the value of this key */
	bool in_array;		/* that value is an array */
	bool capturing;		/* inside one of its elements */
	char *elem;		/* the element so far */
	size_t elem_len, elem_cap;
	char key[16];
	size_t key_len;
};

static const struct jskim_key *skimmed_key(const struct jskim *s)
{
	for (size_t i = 0; i < s->nr_keys; i++)
		if (s->key_len == strlen(s->keys[i].name) &&
		    !memcmp(s->key, s->keys[i].name, s->key_len))
			return &s->keys[i];
	return NULL;
}

static int capture(struct jskim *s, int c)
{
	if (s->elem_len == s->elem_cap) {
		size_t cap = s->elem_cap ? 2 * s->elem_cap : 4096;
		char *e = realloc(s->elem, cap);

		if (!e) {
			s->err = ENOMEM;
			return SKIM_FAIL;
		}
		s->elem = e;
		s->elem_cap = cap;
	}
	s->elem[s->elem_len++] = c;
	return 0;
}

/* An element ended: give it to its key's function. */
static int elem_done(struct jskim *s)
{
	int err = s->in->elem(s->elem, s->elem_len, s->in->arg);

	s->capturing = false;
	s->elem_len = 0;
	if (err) {
		s->err = -err;
		return SKIM_FAIL;
	}
	return 0;
}

static void skim_string_byte(struct jskim *s, int c)
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
		s->key_len = sizeof(s->key) + 1;	/* too long for a skimmed key */
}

/* The byte to pass on for input byte c, -1 for none, or SKIM_FAIL. */
static int skim_byte(struct jskim *s, int c)
{
	bool hidden = s->in;

	if (s->capturing && capture(s, c))
		return SKIM_FAIL;
	if (s->in_str) {
		skim_string_byte(s, c);
		return hidden ? (c == '\n' ? c : -1) : c;
	}
	if (s->due && !isspace(c)) {
		if (c == '[' || c == '{') {
			s->depth++;
			s->in = s->due;
			s->in_array = c == '[';
			s->due = NULL;
			return '[';
		}
		s->due = NULL;		/* a scalar: passed as it is */
	}
	switch (c) {
	case '"':
		s->in_str = true;
		if (s->depth == 1 && s->want_key && !s->in) {
			s->in_key = true;
			s->key_len = 0;
			s->want_key = false;
		}
		break;
	case '{':
	case '[':
		if (s->in && s->in_array && s->in->elem && s->depth == 2) {
			s->capturing = true;
			if (capture(s, c))
				return SKIM_FAIL;
		}
		s->depth++;
		s->want_key = s->depth == 1 && c == '{';
		break;
	case '}':
	case ']':
		s->depth--;
		if (s->capturing && s->depth == 2 && elem_done(s))
			return SKIM_FAIL;
		if (s->in && s->depth == 1) {
			s->in = NULL;
			return ']';
		}
		break;
	case ',':
		s->want_key = s->depth == 1;
		break;
	case ':':
		if (s->depth == 1 && s->key_done && !s->in)
			s->due = skimmed_key(s);
		break;
	}
	if (!isspace(c))
		s->key_done = false;
	return hidden ? (c == '\n' ? c : -1) : c;
}

size_t jskim__read(void *buffer, size_t buflen, void *data)
{
	struct jskim *s = data;
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
		if (c == SKIM_FAIL)
			return (size_t)-1;
		if (c >= 0)
			out[n++] = c;
	}
	return n;
}

struct jskim *jskim__new(FILE *f, const struct jskim_key *keys, size_t n)
{
	struct jskim *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->f = f;
	s->keys = keys;
	s->nr_keys = n;
	return s;
}

int jskim__err(const struct jskim *s)
{
	return s->err;
}

void jskim__free(struct jskim *s)
{
	if (!s)
		return;
	free(s->elem);
	free(s);
}
