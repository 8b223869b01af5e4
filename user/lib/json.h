/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A small streaming JSON writer over a FILE *. It tracks nesting and comma
 * state, escapes strings (control characters, and invalid UTF-8 as
 * U+FFFD), writes non-finite doubles as null, and keeps the first error:
 * every call returns it (0 or -errno; -EINVAL for misuse such as a key
 * outside an object), so callers may check once, at json__end().
 */
#ifndef JSON_H
#define JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#define JSON_DEPTH_MAX	32

struct json {
	FILE *out;
	int err;			/* first error: 0 or -errno */
	int depth;			/* open containers */
	int pretty_depth;		/* containers this deep or less: a line per member */
	bool after_key;			/* a key was written, its value is due */
	bool has_members[JSON_DEPTH_MAX + 1];
	bool is_object[JSON_DEPTH_MAX + 1];
};

/* pretty_depth 0 writes everything on one line. */
void json__init(struct json *j, FILE *out, int pretty_depth);
int json__begin_object(struct json *j);
int json__end_object(struct json *j);
int json__begin_array(struct json *j);
int json__end_array(struct json *j);
int json__key(struct json *j, const char *key);
/* A NUL-terminated string; NULL writes null. */
int json__string(struct json *j, const char *s);
int json__stringn(struct json *j, const char *s, size_t len);
int json__u64(struct json *j, __u64 v);
int json__i64(struct json *j, __s64 v);
/* Up to 10 significant digits; NaN and infinities are written as null. */
int json__double(struct json *j, double v);
int json__bool(struct json *j, bool v);
int json__null(struct json *j);

/* Key and value in one call, inside an object. */
int json__kv_string(struct json *j, const char *key, const char *s);
int json__kv_u64(struct json *j, const char *key, __u64 v);
/* v, or null when it was not measured (a layer the kernel did not give). */
int json__kv_u64_known(struct json *j, const char *key, __u64 v, bool known);
int json__kv_i64(struct json *j, const char *key, __s64 v);
int json__kv_double(struct json *j, const char *key, double v);

/* Close the document with a newline: -EINVAL if containers are still open. */
int json__end(struct json *j);

#endif /* JSON_H */
