// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What the sections read a loaded report with: values by dotted path, and a record's kind. */
#include <limits.h>
#include <string.h>
#include "html/html_int.h"

const json_t *jget(const json_t *obj, const char *path)
{
	char key[64];

	while (obj && *path) {
		size_t n = strcspn(path, ".");

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		obj = json_object_get(obj, key);
		path += n + (path[n] == '.');
	}
	return obj;
}

double jnum(const json_t *obj, const char *path)
{
	const json_t *v = jget(obj, path);

	return json_is_number(v) ? json_number_value(v) : 0;
}

unsigned long long jcount(const json_t *obj, const char *path)
{
	const json_t *v = jget(obj, path);
	double d = json_is_real(v) ? json_real_value(v) : 0;

	if (json_is_integer(v))
		return json_integer_value(v) > 0 ? (unsigned long long)json_integer_value(v) : 0;
	if (!(d > 0))
		return 0;
	/* A count written as 1e308: the largest count, not undefined behaviour. */
	return d < 0x1p64 ? (unsigned long long)d : ULLONG_MAX;
}

const char *jstr(const json_t *obj, const char *path)
{
	return json_string_value(jget(obj, path));
}

bool html__is_code(const json_t *r)
{
	const char *kind = jstr(r, "kind");

	return kind && !strcmp(kind, "code");
}
