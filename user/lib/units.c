// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Numbers for people, see units.h. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "lib/units.h"

/* "512 B", "78 KiB", "1.6 GiB": three significant digits at most. */
const char *units__bytes(char *buf, size_t len, double b)
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
const char *units__num(char *buf, size_t len, double x)
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

/* A count: exact below 100,000 ("20000 files"), else as units__num ("1.3M"). */
const char *units__count(char *buf, size_t len, __u64 n)
{
	if (n < 100000)
		snprintf(buf, len, "%llu", (unsigned long long)n);
	else
		units__num(buf, len, n);
	return buf;
}

/* A share as a percentage: "82%", "0.5%"; shares above 1 show as 100%. */
const char *units__pct(char *buf, size_t len, double share)
{
	double p = fmin(share, 1) * 100;

	snprintf(buf, len, p > 0 && p < 9.95 && p != floor(p) ? "%.1f%%" : "%.0f%%", p);
	return buf;
}

/* Microseconds as "8.5µs", "95µs", "4.1ms", "38ms", "1.2s". */
const char *units__us(char *buf, size_t len, double us)
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

/* x with 3 significant digits, then unit: "1.23ms", "12.3ms", "123ms". */
static void sig3(char *buf, size_t len, double x, const char *unit)
{
	int dec = x < 9.995 ? 2 : x < 99.95 ? 1 : 0;

	snprintf(buf, len, "%.*f%s", dec, x, unit);
}

const char *units__ns(char *buf, size_t len, double ns)
{
	static const char *const units[] = { "µs", "ms", "s" };
	int i = 0;

	if (ns < 999.5) {
		snprintf(buf, len, "%.0fns", ns);
		return buf;
	}
	for (ns /= 1000; ns >= 999.5 && i < 2; i++)
		ns /= 1000;
	sig3(buf, len, ns, units[i]);
	return buf;
}

const char *units__size(char *buf, size_t len, double b, bool long_units)
{
	static const char *const shorts[] = { "K", "M", "G", "T", "P", "E" };
	static const char *const longs[] = { " KiB", " MiB", " GiB", " TiB", " PiB", " EiB" };
	int i = 0;

	if (b < 999.5) {
		snprintf(buf, len, "%.0f%s", b, long_units ? " B" : "");
		return buf;
	}
	for (b /= 1024; b >= 999.5 && i < 5; i++)
		b /= 1024;
	sig3(buf, len, b, long_units ? longs[i] : shorts[i]);
	return buf;
}

int units__cols(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

double units__rate(double n, double secs)
{
	return secs > 0 ? n / secs : 0;
}

const char *units__pow2(char *buf, size_t len, __u64 v)
{
	static const char *const units[] = { "", "K", "M", "G", "T", "P", "E" };
	int i = 0;

	while (v >= 1024 && !(v % 1024)) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, "%llu%s", (unsigned long long)v, units[i]);
	return buf;
}

const char *units__dev(char *buf, size_t len, __u32 dev)
{
	snprintf(buf, len, "%u:%u", dev >> 20, dev & 0xfffff);
	return buf;
}

/* ---- on the page (html/) ---- */

const char *units__page_ns(char *buf, size_t len, double ns)
{
	if (ns >= 1e9)
		snprintf(buf, len, "%.3g s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(buf, len, "%.3g µs", ns / 1e3);
	else
		snprintf(buf, len, "%.0f ns", ns);
	return buf;
}

const char *units__page_bytes(char *buf, size_t len, double bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (bytes >= 1024 && u < 4) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.3g %s" : "%.0f %s", bytes, units[u]);
	return buf;
}

const char *units__page_share(char *buf, size_t len, double share)
{
	if (share < 0 || isnan(share))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.1f%%", share * 100);
	return buf;
}

const char *units__page_num(char *buf, size_t len, double x)
{
	if (x && fabs(x) < 0.001)	/* 3 digits, no exponent: 0.0000842 */
		snprintf(buf, len, "%.*f", 2 - (int)floor(log10(fabs(x))), x);
	else if (x == floor(x) || fabs(x) >= 100)
		snprintf(buf, len, "%.0f", x);
	else
		snprintf(buf, len, "%.3g", x);
	return buf;
}

const char *units__page_figure(char *buf, size_t len, double x, const char *unit)
{
	static const struct { const char *unit; double ns; } times[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char num[32];

	if (!unit)
		return units__page_num(buf, len, x);
	if (!strcmp(unit, "fraction"))
		return units__page_share(buf, len, x);
	if (!strcmp(unit, "bytes"))
		return units__page_bytes(buf, len, x);
	if (!strcmp(unit, "bytes/s")) {
		snprintf(buf, len, "%s/s", units__page_bytes(num, sizeof(num), x));
		return buf;
	}
	if (!strcmp(unit, "flag")) {
		snprintf(buf, len, "%s", x ? "yes" : "no");
		return buf;
	}
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
		if (!strcmp(unit, times[i].unit))
			return units__page_ns(buf, len, x * times[i].ns);
	snprintf(buf, len, "%s %s", units__page_num(num, sizeof(num), x), unit);
	return buf;
}
