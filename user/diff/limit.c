// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * iostorm diff: parsing a --fail-on LIMIT ("opens_per_file>+10%",
 * "read_p99>+2ms", "finding:*>=HIGH") and the default limits.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diff/diff_int.h"

static int limit_error(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parse_finding_limit(const char *s, struct diff_limit *l, char *err, size_t len)
{
	const char *id = s + strlen("finding:");
	size_t n = strcspn(id, ">");

	l->metric = -1;
	l->min_sev = DIFF_SEV_INFO;
	if (!n || n >= sizeof(l->finding))
		return limit_error(err, len, "expected finding:ID or finding:ID>=SEVERITY");
	for (size_t i = 0; i < n; i++)
		if (!(islower((unsigned char)id[i]) || isdigit((unsigned char)id[i]) ||
		      id[i] == '_') && !(n == 1 && id[i] == '*'))
			return limit_error(err, len, "'%.*s' is not a finding id "
					   "(lower case, digits, '_'; '*' for any)", (int)n, id);
	memcpy(l->finding, id, n);
	if (!id[n])
		return 0;
	if (strncmp(id + n, ">=", 2))
		return limit_error(err, len, "expected '>=' after the finding id");
	l->min_sev = diff__sev_parse(id + n + 2);
	if (l->min_sev == DIFF_SEV_NONE)
		return limit_error(err, len, "unknown severity '%s': OK, INFO, WARN or HIGH",
				   id + n + 2);
	return 0;
}

/*
 * The multiplier of a value's unit suffix for kind k; 0 if not allowed
 * (a time without a unit included).
 */
static double unit_scale(enum diff_kind k, const char *u, bool delta, bool *relative)
{
	static const struct { const char *u; double x; } times[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "µs", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	}, bytes[] = {
		{ "K", 1024.0 }, { "M", 1048576.0 }, { "G", 1073741824.0 },
		{ "T", 1099511627776.0 },
	};

	*relative = false;
	if (!strcmp(u, "%") && (delta || k == DK_SHARE)) {
		*relative = delta;
		return 0.01;
	}
	if (!strcmp(u, "pp") && k == DK_SHARE)
		return 0.01;
	if (!*u)
		return k == DK_TIME ? 0 : 1;
	for (size_t i = 0; k == DK_TIME && i < sizeof(times) / sizeof(times[0]); i++)
		if (!strcmp(u, times[i].u))
			return times[i].x;
	for (size_t i = 0; k == DK_BYTES && i < sizeof(bytes) / sizeof(bytes[0]); i++)
		if (!strcmp(u, bytes[i].u))
			return bytes[i].x;
	return 0;
}

static const char *const unit_help[] = {
	[DK_COUNT] = "a count, '+N%' or '+N'",
	[DK_BYTES] = "bytes with K, M, G, T (1024s), or '+N%'",
	[DK_RATIO] = "a number, or '+N%'",
	[DK_SHARE] = "a fraction (0.2), a share (20%), points of change (+5pp), or '+N%'",
	[DK_TIME] = "a time with ns, us, ms or s, or '+N%'",
};

int diff__parse_limit(const char *s, struct diff_limit *l, char *err, size_t len)
{
	const char *op, *p;
	char *end;
	double scale;
	int m;

	memset(l, 0, sizeof(*l));
	err[0] = 0;
	if (snprintf(l->text, sizeof(l->text), "%s", s) >= (int)sizeof(l->text))
		return limit_error(err, len, "too long");
	if (!strncmp(s, "finding:", 8))
		return parse_finding_limit(s, l, err, len);
	op = strpbrk(s, "<>");
	if (!op)
		return limit_error(err, len, "no '>' or '<' (quote the limit: the shell "
				   "takes '>' for a redirection)");
	for (m = 0; m < DM__MAX; m++)
		if (strlen(diff_metrics[m].name) == (size_t)(op - s) &&
		    !strncmp(s, diff_metrics[m].name, op - s))
			break;
	if (m == DM__MAX)
		return limit_error(err, len, "unknown metric '%.*s' (see 'iostorm diff --help')",
				   (int)(op - s), s);
	l->metric = m;
	l->op = *op;
	p = op + 1;
	if (*p == '+' || *p == '-') {
		if ((*p == '+') != (l->op == '>'))
			return limit_error(err, len,
					   "'>' takes an increase (+N), '<' a decrease (-N)");
		l->delta = true;
		p++;
	}
	if (!isdigit((unsigned char)*p) && *p != '.')
		return limit_error(err, len, "expected %s after '%c'",
				   unit_help[diff_metrics[m].kind], l->op);
	errno = 0;
	l->value = strtod(p, &end);
	scale = unit_scale(diff_metrics[m].kind, end, l->delta, &l->relative);
	/* A time needs a unit, but for 0. */
	if (errno || end == p || (!scale && (*end || l->value)))
		return limit_error(err, len, "bad value '%s' for %s: expected %s", p,
				   diff_metrics[m].name, unit_help[diff_metrics[m].kind]);
	l->value *= scale;
	if (diff_metrics[m].kind == DK_SHARE && !l->relative && l->value > 1)
		return limit_error(err, len, "a share is at most 1 (100%%)");
	return 0;
}

int diff__default_limits(struct diff_limit *out, int max)
{
	char err[160];
	int n = 0;

	for (int m = 0; m <= DM__MAX && n < max; m++) {
		const char *s = m < DM__MAX ? diff_metrics[m].limit : DIFF_DEFAULT_FINDING_LIMIT;

		if (s && !diff__parse_limit(s, &out[n], err, sizeof(err)))
			out[n++].is_default = true;
	}
	return n;
}
