// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Numbers in words for sentences, see fmt.h. */
#include <math.h>
#include <stdio.h>
#include "lib/units.h"

/* "512 B", "78 KiB", "1.6 GiB": three significant digits at most. */
const char *fmt__bytes(char *buf, size_t len, double b)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	int u = 0;

	while (b >= 1024 && u < 5) {
		b /= 1024;
		u++;
	}
	if (!u || b >= 9.95 || b == floor(b))
		snprintf(buf, len, "%.0f %s", b, units[u]);
	else
		snprintf(buf, len, "%.1f %s", b, units[u]);
	return buf;
}

/* A rate or count: "7", "0.4", "850", "2.2k", "16.5k", "120k", "1.3M". */
const char *fmt__num(char *buf, size_t len, double x)
{
	if (x < 10 && x != floor(x))
		snprintf(buf, len, "%.1f", x);
	else if (x < 1000)
		snprintf(buf, len, "%.0f", x);
	else if (x < 99950)
		snprintf(buf, len, "%.1fk", x / 1e3);
	else if (x < 999500)
		snprintf(buf, len, "%.0fk", x / 1e3);
	else if (x < 99950000)
		snprintf(buf, len, "%.1fM", x / 1e6);
	else
		snprintf(buf, len, "%.0fM", x / 1e6);
	return buf;
}

/* A count: exact below 100,000 ("20000 files"), else as fmt__num ("1.3M"). */
const char *fmt__count(char *buf, size_t len, __u64 n)
{
	if (n < 100000)
		snprintf(buf, len, "%llu", (unsigned long long)n);
	else
		fmt__num(buf, len, n);
	return buf;
}

/* A share as a percentage: "82%", "0.5%"; shares above 1 show as 100%. */
const char *fmt__pct(char *buf, size_t len, double share)
{
	double p = fmin(share, 1) * 100;

	snprintf(buf, len, p > 0 && p < 9.95 && p != floor(p) ? "%.1f%%" : "%.0f%%", p);
	return buf;
}

/* Microseconds as "8.5µs", "95µs", "4.1ms", "38ms", "1.2s". */
const char *fmt__us(char *buf, size_t len, double us)
{
	if (us < 9.95)
		snprintf(buf, len, "%.1fµs", us);
	else if (us < 999.5)
		snprintf(buf, len, "%.0fµs", us);
	else if (us < 9950)
		snprintf(buf, len, "%.1fms", us / 1e3);
	else if (us < 999500)
		snprintf(buf, len, "%.0fms", us / 1e3);
	else
		snprintf(buf, len, "%.1fs", us / 1e6);
	return buf;
}
