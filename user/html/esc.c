// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Text on the page: every string from a report escaped (paths and thread
 * names are the traced program's bytes), and numbers formatted.
 */
#include <stdlib.h>
#include <string.h>
#include "html/html_int.h"

#define REPLACEMENT	"\xef\xbf\xbd"	/* U+FFFD */

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n, unsigned int *cp)
{
	size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	static const unsigned int min[5] = { 0, 0, 0x80, 0x800, 0x10000 };

	if (s[0] < 0xc2 || s[0] > 0xf4 || len > n)
		return 0;
	*cp = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and beyond U+10FFFF are not UTF-8. */
	if (*cp < min[len] || (*cp >= 0xd800 && *cp <= 0xdfff) || *cp > 0x10ffff)
		return 0;
	return len;
}

/* Code points an HTML checker rejects in text: controls, noncharacters. */
static bool html_forbidden(unsigned int cp)
{
	if (cp < 0x20)
		return cp != '\t' && cp != '\n';
	if (cp >= 0x7f && cp <= 0x9f)
		return true;
	return (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe;
}

static const char *entity(unsigned char c)
{
	switch (c) {
	case '&':
		return "&amp;";
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '"':
		return "&quot;";
	case '\'':
		return "&#39;";
	}
	return NULL;
}

void html__escape(FILE *out, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n;
	unsigned int cp;

	while (i < len) {
		if (u[i] < 0x80) {
			cp = u[i];
			n = 1;
		} else {
			n = utf8_len(u + i, len - i, &cp);
		}
		if (!n || html_forbidden(cp)) {
			fputs(REPLACEMENT, out);
			i += n ? n : 1;
		} else if (n == 1 && entity(u[i])) {
			fputs(entity(u[i]), out);
			i++;
		} else {
			fwrite(u + i, 1, n, out);
			i += n;
		}
	}
}

void esc__text(FILE *out, const char *s, const char *alt)
{
	if (s)
		html__escape(out, s, strlen(s));
	else
		fputs(alt, out);
}

const char *esc__num(char *buf, size_t len, const json_t *v)
{
	if (json_is_integer(v))
		snprintf(buf, len, "%llu", (unsigned long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, len, "%.10g", json_real_value(v));
	else
		snprintf(buf, len, "n/a");
	return buf;
}
