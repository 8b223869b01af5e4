// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Streaming JSON writer, see json.h. */
#include <errno.h>
#include <math.h>
#include <string.h>
#include "lib/json.h"

void json__init(struct json *j, FILE *out, int pretty_depth)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	j->pretty_depth = pretty_depth;
}

static void json_fail(struct json *j, int err)
{
	if (!j->err)
		j->err = err;
}

static void put(struct json *j, const char *s, size_t len)
{
	if (j->err || !len)
		return;
	errno = 0;
	/* Unlocked: the writer owns the stream; locking per token costs a third. */
	if (fwrite_unlocked(s, 1, len, j->out) != len)
		json_fail(j, errno ? -errno : -EIO);
}

static void puts_(struct json *j, const char *s)
{
	put(j, s, strlen(s));
}

static bool pretty(const struct json *j)
{
	return j->depth > 0 && j->depth <= j->pretty_depth;
}

static void newline(struct json *j, int depth)
{
	static const char spaces[] = "                                ";

	puts_(j, "\n");
	for (int i = 0; i < depth; i++)
		put(j, spaces, 2);
}

/* Before a key in an object, or a value in an array or at the top. */
static void member(struct json *j)
{
	if (j->has_members[j->depth])
		puts_(j, ",");
	if (pretty(j))
		newline(j, j->depth);
	j->has_members[j->depth] = true;
}

/* Before any value: after its key, or as an array member. */
static int value(struct json *j)
{
	if (j->err)
		return j->err;
	if (j->after_key) {
		j->after_key = false;
		return 0;
	}
	if (j->depth > 0 && j->is_object[j->depth]) {
		json_fail(j, -EINVAL);		/* a value with no key */
		return j->err;
	}
	if (j->depth == 0 && j->has_members[0]) {
		json_fail(j, -EINVAL);		/* a second document */
		return j->err;
	}
	member(j);
	return 0;
}

static int begin(struct json *j, bool object)
{
	if (value(j))
		return j->err;
	if (j->depth == JSON_DEPTH_MAX) {
		json_fail(j, -EINVAL);
		return j->err;
	}
	puts_(j, object ? "{" : "[");
	j->depth++;
	j->is_object[j->depth] = object;
	j->has_members[j->depth] = false;
	return j->err;
}

static int end(struct json *j, bool object)
{
	if (j->err)
		return j->err;
	if (!j->depth || j->is_object[j->depth] != object || j->after_key) {
		json_fail(j, -EINVAL);
		return j->err;
	}
	if (pretty(j) && j->has_members[j->depth])
		newline(j, j->depth - 1);
	j->depth--;
	puts_(j, object ? "}" : "]");
	return j->err;
}

int json__begin_object(struct json *j)
{
	return begin(j, true);
}

int json__end_object(struct json *j)
{
	return end(j, true);
}

int json__begin_array(struct json *j)
{
	return begin(j, false);
}

int json__end_array(struct json *j)
{
	return end(j, false);
}

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc2)
		return 0;		/* continuation byte, or overlong */
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : s[0] < 0xf5 ? 4 : 0;
	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) ||	/* overlong */
	    (s[0] == 0xed && s[1] >= 0xa0) ||	/* UTF-16 surrogate */
	    (s[0] == 0xf0 && s[1] < 0x90) ||	/* overlong */
	    (s[0] == 0xf4 && s[1] >= 0x90))	/* above U+10FFFF */
		return 0;
	return len;
}

/* JSON's two-character escape of c, or NULL. */
static const char *short_escape(unsigned char c)
{
	switch (c) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\b':
		return "\\b";
	case '\f':
		return "\\f";
	case '\n':
		return "\\n";
	case '\r':
		return "\\r";
	case '\t':
		return "\\t";
	}
	return NULL;
}

static void put_escaped(struct json *j, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t run = 0, i = 0;
	char esc[8];

	puts_(j, "\"");
	while (i < n) {
		unsigned char c = s[i];
		size_t len = utf8_len(s + i, n - i);
		const char *e = NULL;

		if (len && c >= 0x20 && c != '"' && c != '\\' && c != 0x7f) {
			i += len;
			run += len;
			continue;
		}
		put(j, (const char *)s + i - run, run);
		run = 0;
		e = short_escape(c);
		if (!e && len) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			e = esc;
		} else if (!e) {
			e = "\\ufffd";	/* one per invalid byte */
		}
		puts_(j, e);
		i++;
	}
	put(j, (const char *)s + i - run, run);
	puts_(j, "\"");
}

int json__key(struct json *j, const char *key)
{
	if (j->err)
		return j->err;
	if (!j->depth || !j->is_object[j->depth] || j->after_key) {
		json_fail(j, -EINVAL);
		return j->err;
	}
	member(j);
	put_escaped(j, key, strlen(key));
	puts_(j, pretty(j) ? ": " : ":");
	j->after_key = true;
	return j->err;
}

int json__stringn(struct json *j, const char *s, size_t len)
{
	if (!value(j))
		put_escaped(j, s, len);
	return j->err;
}

int json__string(struct json *j, const char *s)
{
	if (!s)
		return json__null(j);
	return json__stringn(j, s, strlen(s));
}

/* Decimal digits of v, ending at end (not NUL-terminated); returns the start. */
static char *u64_digits(char *end, __u64 v)
{
	do {
		*--end = '0' + v % 10;
		v /= 10;
	} while (v);
	return end;
}

int json__u64(struct json *j, __u64 v)
{
	char buf[24], *end = buf + sizeof(buf), *p;

	if (!value(j)) {
		p = u64_digits(end, v);
		put(j, p, end - p);
	}
	return j->err;
}

int json__i64(struct json *j, __s64 v)
{
	char buf[24], *end = buf + sizeof(buf), *p;

	if (!value(j)) {
		p = u64_digits(end, v < 0 ? -(__u64)v : (__u64)v);
		if (v < 0)
			*--p = '-';
		put(j, p, end - p);
	}
	return j->err;
}

int json__double(struct json *j, double v)
{
	char buf[40];

	if (!isfinite(v))
		return json__null(j);
	if (!value(j)) {
		snprintf(buf, sizeof(buf), "%.10g", v);
		/* A locale's decimal comma is not JSON. */
		for (char *p = buf; *p; p++)
			if (*p == ',')
				*p = '.';
		puts_(j, buf);
	}
	return j->err;
}

int json__bool(struct json *j, bool v)
{
	if (!value(j))
		puts_(j, v ? "true" : "false");
	return j->err;
}

int json__null(struct json *j)
{
	if (!value(j))
		puts_(j, "null");
	return j->err;
}

int json__kv_string(struct json *j, const char *key, const char *s)
{
	json__key(j, key);
	return json__string(j, s);
}

int json__kv_u64(struct json *j, const char *key, __u64 v)
{
	json__key(j, key);
	return json__u64(j, v);
}

int json__kv_u64_known(struct json *j, const char *key, __u64 v, bool known)
{
	json__key(j, key);
	return known ? json__u64(j, v) : json__null(j);
}

int json__kv_i64(struct json *j, const char *key, __s64 v)
{
	json__key(j, key);
	return json__i64(j, v);
}

int json__kv_double(struct json *j, const char *key, double v)
{
	json__key(j, key);
	return json__double(j, v);
}

int json__end(struct json *j)
{
	if (!j->err && (j->depth || j->after_key || !j->has_members[0]))
		json_fail(j, -EINVAL);
	puts_(j, "\n");
	return j->err;
}
