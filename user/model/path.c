// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Lexical path helpers, see path.h. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "model/path.h"

#define ELLIPSIS	"\xe2\x80\xa6"	/* U+2026, marks a truncated path */

/* Is the last component written in [base, end) a "..", kept unresolved? */
static bool last_is_dotdot(const char *base, const char *end)
{
	const char *c = end;

	while (c > base && c[-1] != '/')
		c--;
	return end - c == 2 && c[0] == '.' && c[1] == '.';
}

/* Move end back over the last component in [base, end) and its separator. */
static char *drop_last(char *base, char *end)
{
	while (end > base && end[-1] != '/')
		end--;
	if (end > base)
		end--;
	return end;
}

void path__normalize(char *path)
{
	bool absolute = path[0] == '/';
	char *r = path, *w = path, *base;

	/* The output never outgrows the input read so far: w <= r always. */
	if (absolute)
		*w++ = '/';
	base = w;
	while (*r) {
		char *c;
		size_t len;

		while (*r == '/')
			r++;
		if (!*r)
			break;
		c = r;
		while (*r && *r != '/')
			r++;
		len = r - c;
		if (len == 1 && c[0] == '.')
			continue;
		if (len == 2 && c[0] == '.' && c[1] == '.') {
			if (w > base && !last_is_dotdot(base, w)) {
				w = drop_last(base, w);
				continue;
			}
			if (absolute)
				continue;	/* "/.." is "/" */
		}
		if (w > base)
			*w++ = '/';
		memmove(w, c, len);
		w += len;
	}
	if (w == path)
		*w++ = '.';
	*w = '\0';
}

char *path__dirname(const char *path)
{
	size_t len = strlen(path), n;
	size_t ell = strlen(ELLIPSIS);
	char *dir;

	while (len > 1 && path[len - 1] == '/')
		len--;			/* "/a/b/" is "/a/b" */
	n = len;
	while (n > 0 && path[n - 1] != '/')
		n--;
	if (n == 0) {
		/* No "/": relative, or a truncated tail of one component. */
		if (!strncmp(path, ELLIPSIS, ell))
			return strdup(ELLIPSIS);
		return strdup(".");
	}
	while (n > 1 && path[n - 1] == '/')
		n--;			/* drop the separator(s) before the name */
	dir = malloc(n + 1);
	if (!dir)
		return NULL;
	memcpy(dir, path, n);
	dir[n] = '\0';
	return dir;
}
