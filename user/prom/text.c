// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The Prometheus text exposition format (0.0.4), whatever the metric: HELP
 * and TYPE lines, samples with escaped labels, numbers in exact decimal,
 * and histograms folded into cumulative `le` buckets. See prom_int.h.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include "model/hist.h"
#include "prom/prom.h"
#include "prom/prom_int.h"

#define NS_PER_S	1000000000ULL

/* Length of the valid UTF-8 sequence at p, 0 when it is not one. */
static int utf8_len(const unsigned char *p)
{
	int n;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (int i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong forms, UTF-16 surrogates and code points past U+10FFFF. */
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f) ||
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] > 0x8f))
		return 0;
	return n;
}

/*
 * The format's escapes: backslash and newline everywhere, the double quote
 * in label values. The format is UTF-8: other bytes become '?'. A label
 * value stops at PROM_LABEL_VALUE_MAX bytes of its own (a whole character
 * last): a path a tenant names must not fail a scrape that sets
 * labelValueLengthLimit.
 */
static void put_escaped(FILE *out, const char *s, bool label_value)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		int n = utf8_len(p);

		if (label_value && (const char *)p - s + (n ? n : 1) > PROM_LABEL_VALUE_MAX)
			break;

		if (n != 1) {
			if (n)
				fwrite(p, 1, n, out);
			else
				fputc('?', out);
			p += n ? n : 1;
			continue;
		}
		if (*p == '\\')
			fputs("\\\\", out);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '"' && label_value)
			fputs("\\\"", out);
		else
			fputc(*p, out);
		p++;
	}
}

/*
 * Keep the cause of the first failed write: ferror() alone says only that
 * one failed, and "No space left on device" must reach the user. Called
 * after each line; no call in between clears errno.
 */
static void check_stream(struct prom *p)
{
	if (!p->err && ferror(p->out))
		p->err = errno ? -errno : -EIO;
}

/* The HELP and TYPE lines of a family. */
void prom__family(struct prom *p, const char *name, const char *type, const char *help)
{
	fprintf(p->out, "# HELP %s ", name);
	put_escaped(p->out, help, false);
	fprintf(p->out, "\n# TYPE %s %s\n", name, type);
	check_stream(p);
}

static void put_label(struct prom *p, const char **sep, const char *name, const char *value)
{
	fprintf(p->out, "%s%s=\"", *sep, name);
	put_escaped(p->out, value, true);
	fputc('"', p->out);
	*sep = ",";
}

/*
 * May n more labelled series go on the page? Unlabelled ones always do
 * (the code bounds them); those past max_series are counted, not written.
 */
static bool admit(struct prom *p, int labels, size_t n)
{
	if (p->whole || !labels)
		return true;
	if (p->max_series && p->series + n > p->max_series) {
		p->dropped += n;
		return false;
	}
	p->series += n;
	return true;
}

/* One sample: name+suffix{training_job, labels..., le} value. */
void prom__sample(struct prom *p, const char *name, const char *suffix,
		  const struct label *l, int n, const char *le, const char *value)
{
	const char *sep = "{";

	if (!admit(p, n, 1))
		return;

	fprintf(p->out, "%s%s", name, suffix);
	if (p->job)
		put_label(p, &sep, "training_job", p->job);
	for (int i = 0; i < n; i++)
		put_label(p, &sep, l[i].name, l[i].value);
	if (le)
		put_label(p, &sep, "le", le);
	fprintf(p->out, "%s %s\n", *sep == ',' ? "}" : "", value);
	check_stream(p);
}

static const char *fmt_u64(char *buf, size_t len, __u64 v)
{
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

/* Nanoseconds as exact decimal seconds: 1023 -> "0.000001023", 0 -> "0". */
static const char *fmt_secs(char *buf, size_t len, __u64 ns)
{
	int n = snprintf(buf, len, "%llu.%09llu", (unsigned long long)(ns / NS_PER_S),
			 (unsigned long long)(ns % NS_PER_S));

	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
	return buf;
}

void prom__sample_u64(struct prom *p, const char *name, const struct label *l, int n,
		      __u64 v)
{
	char buf[24];

	prom__sample(p, name, "", l, n, NULL, fmt_u64(buf, sizeof(buf), v));
}

void prom__sample_secs(struct prom *p, const char *name, const struct label *l, int n,
		       __u64 ns)
{
	char buf[32];

	prom__sample(p, name, "", l, n, NULL, fmt_secs(buf, sizeof(buf), ns));
}

/* A family with one unlabelled sample. */
void prom__metric_u64(struct prom *p, const char *name, const char *type,
		      const char *help, __u64 v)
{
	prom__family(p, name, type, help);
	prom__sample_u64(p, name, NULL, 0, v);
}

/* ---- histograms ---- */

#define BOUNDS_MAX	40

/*
 * The `le` bounds, in the histogram's unit: 2^k - 1 for k in the unit's
 * range (and 0 first for bytes: end-of-file reads). Each is the upper bound
 * of a slot (the last of [2^(k-1), 2^k)), so a bucket takes whole slots: it
 * counts every value <= le, and no other.
 */
static int hist_bounds(enum hist_unit unit, __u64 *b)
{
	int kmin = unit == UNIT_NS ? PROM_NS_K_MIN : PROM_BYTES_K_MIN;
	int kmax = unit == UNIT_NS ? PROM_NS_K_MAX : PROM_BYTES_K_MAX;
	int n = 0;

	if (unit != UNIT_NS)
		b[n++] = 0;
	for (int k = kmin; k <= kmax; k++)
		b[n++] = (1ULL << k) - 1;
	return n;
}

/* cum[j]: values in slots whose upper bound is <= b[j] (b ascending). */
static __u64 hist_fold(const struct hist *h, const __u64 *b, int n, __u64 *cum)
{
	__u64 c = 0;
	int j = 0;

	for (__u32 s = 0; s < HIST_SLOTS; s++) {
		while (j < n && hist__upper(s) > b[j])
			cum[j++] = c;
		c += h->slots[s];
	}
	while (j < n)
		cum[j++] = c;
	return c;
}

/* Sum of the values from their slots' midpoints: within 1/32 of the true sum. */
static __u64 hist_sum_estimate(const struct hist *h)
{
	double sum = 0;

	for (__u32 s = 0; s < HIST_SLOTS; s++) {
		__u64 lo = hist__lower(s);

		if (h->slots[s])
			sum += h->slots[s] * (lo + (hist__upper(s) - lo) / 2.0);
	}
	return sum < 0x1p64 ? (__u64)llround(sum) : ~0ULL;
}

static const char *fmt_value(char *buf, size_t len, enum hist_unit unit, __u64 v)
{
	return unit == UNIT_NS ? fmt_secs(buf, len, v) : fmt_u64(buf, len, v);
}

/*
 * The samples of one histogram: cumulative buckets, +Inf (== _count, both
 * from the slots), _sum from the exact sum when known (sum != NULL).
 */
void prom__hist_samples(struct prom *p, const char *name, const struct label *l, int n,
			const struct hist *h, enum hist_unit unit, const __u64 *sum)
{
	__u64 b[BOUNDS_MAX], cum[BOUNDS_MAX], total;
	char le[32], v[32];
	int nb = hist_bounds(unit, b);

	/* A histogram goes whole or not at all: a part would read as another. */
	if (!admit(p, n, nb + 3))
		return;
	p->whole = true;
	total = hist_fold(h, b, nb, cum);
	for (int j = 0; j < nb; j++)
		prom__sample(p, name, "_bucket", l, n, fmt_value(le, sizeof(le), unit, b[j]),
			     fmt_u64(v, sizeof(v), cum[j]));
	prom__sample(p, name, "_bucket", l, n, "+Inf", fmt_u64(v, sizeof(v), total));
	prom__sample(p, name, "_sum", l, n, NULL,
		     fmt_value(v, sizeof(v), unit, sum ? *sum : hist_sum_estimate(h)));
	prom__sample(p, name, "_count", l, n, NULL, fmt_u64(v, sizeof(v), total));
	p->whole = false;
}
