// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The bottom of both reports: table cells, paths, log2 histogram rows and
 * quantile lines for the text; the HIST object for the JSON.
 */
#include <stdio.h>
#include <string.h>
#include "lib/json.h"
#include "lib/units.h"
#include "report/report_int.h"

#define STARS		40

/* Power-of-two byte counts exactly: "0", "512", "4K", "1G". */
static void pad(FILE *out, int n)
{
	for (; n > 0; n--)
		fputc(' ', out);
}

/* s right-aligned in width columns. */
void emit__cell(FILE *out, const char *s, int width)
{
	fputc(' ', out);
	pad(out, width - units__cols(s));
	fputs(s, out);
}

void emit__cell_u64(FILE *out, __u64 v, int width)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", v);
	emit__cell(out, buf, width);
}

/* A duration right-aligned in width terminal columns ("µ" is 2 bytes). */
void emit__cell_ns(FILE *out, double ns, int width)
{
	char buf[16];

	units__ns(buf, sizeof(buf), ns);
	fprintf(out, " %*s%s", width - units__cols(buf), "", buf);
}

/* Text of a path or comm, control characters shown as '?'. */
void emit__safe(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, out);
}

/* s left-aligned in width columns, its head cut to "…" when too long. */
void emit__left(FILE *out, const char *s, int width)
{
	int w = units__cols(s);

	if (w > width) {
		fputs(ELLIPSIS, out);
		for (; w > width - 1; w--) {
			s++;
			while (((unsigned char)*s & 0xc0) == 0x80)
				s++;
		}
		w++;		/* the ellipsis */
	}
	emit__safe(out, s);
	pad(out, width - w);
}

/*
 * A record's path as the host sees it; directories end in "/". A path not
 * found on the host shows as its job saw it, after the job's view
 * ("[job 2] /data/x"); an unknown path shows dev and inode.
 */
void emit__path(FILE *out, const struct file_rec *f, int width)
{
	char buf[PATH_LEN + 32], dev[24];

	if (!f->path && f->job_path)
		snprintf(buf, sizeof(buf), "[job %u] %s%s", f->view, f->job_path,
			 f->flags & FILE_F_DIR && strcmp(f->job_path, "/") ? "/" : "");
	else if (!f->path)
		snprintf(buf, sizeof(buf), "(dev %s inode %llu)",
			 units__dev(dev, sizeof(dev), f->dev), f->ino);
	else if (f->flags & FILE_F_DIR && strcmp(f->path, "/"))
		snprintf(buf, sizeof(buf), "%s/", f->path);
	else
		snprintf(buf, sizeof(buf), "%s", f->path);
	emit__left(out, buf, width);
}

static void stars(FILE *out, __u64 n, __u64 max)
{
	int k = max ? (int)((double)n * STARS / max) : 0;

	fputc('|', out);
	for (int i = 0; i < STARS; i++)
		fputc(i < k ? '*' : ' ', out);
	fputs("|\n", out);
}

/*
 * The non-empty range of log2 rows, laid out as biolatency does. Time rows
 * are inclusive integer ranges ("8 -> 15"); byte rows are half-open
 * ranges of powers of two ("[4K, 8K)").
 */
void emit__log2_rows(FILE *out, const __u64 rows[64], const char *unit, bool bytes)
{
	int first = -1, last = -1, cw = 8;
	__u64 max = 0;
	char lo[24], hi[24], num[32];

	for (int r = 0; r < 64; r++) {
		if (!rows[r])
			continue;
		if (first < 0)
			first = r;
		last = r;
		if (rows[r] > max)
			max = rows[r];
	}
	if (first < 0)
		return;
	cw = snprintf(num, sizeof(num), "%llu", max);
	if (cw < 8)
		cw = 8;
	fprintf(out, "%5s%-19s : %-*s distribution\n", "", unit, cw, "count");
	for (int r = first; r <= last; r++) {
		__u64 low = r ? 1ULL << r : 0, high = r < 63 ? (2ULL << r) - 1 : ~0ULL;

		if (bytes) {
			snprintf(num, sizeof(num), "[%s,", units__pow2(lo, sizeof(lo), low));
			if (r < 63)
				units__pow2(hi, sizeof(hi), high + 1);
			else
				snprintf(hi, sizeof(hi), "16E");
			fprintf(out, "%11s %-12s", num, strcat(hi, ")"));
		} else {
			fprintf(out, "%10llu -> %-10llu", low, high);
		}
		fprintf(out, " : %-*llu ", cw, rows[r]);
		stars(out, rows[r], max);
	}
}

static const struct {
	const char *name;
	double q;
} quantiles[] = {
	{ "p50", 0.5 }, { "p90", 0.9 }, { "p99", 0.99 }, { "p99.9", 0.999 },
};

/* "p50 12.3µs  p90 ...  max 4.56ms" for a latency histogram in ns. */
void emit__lat_quantiles(FILE *out, const struct hist *h)
{
	char buf[32];

	for (size_t i = 0; i < sizeof(quantiles) / sizeof(quantiles[0]); i++)
		fprintf(out, "  %s %s", quantiles[i].name,
			units__ns(buf, sizeof(buf), hist__quantile(h, quantiles[i].q)));
	fprintf(out, "  max %s\n", units__ns(buf, sizeof(buf), hist__max(h)));
}

/*
 * Sizes cluster on powers of two, which start a bucket: their lower bound
 * reads "1.00 MiB" where the upper would read "1.06 MiB".
 */
void emit__size_quantiles(FILE *out, const struct hist *h)
{
	char b1[32], b2[32], b3[32];

	fprintf(out, "  p50 %s  p90 %s  max %s  (lower bucket bounds, within 6.25%%)\n",
		units__size(b1, sizeof(b1), hist__lower(hist__slot(hist__quantile(h, 0.5))), true),
		units__size(b2, sizeof(b2), hist__lower(hist__slot(hist__quantile(h, 0.9))), true),
		units__size(b3, sizeof(b3), hist__lower(hist__slot(hist__max(h))), true));
}

double emit__pct(__u64 part, __u64 whole)
{
	return whole ? 100.0 * part / whole : 0;
}

void emit__json_hist(struct json *j, const char *key, const struct hist *h,
		       const char *unit)
{
	json__key(j, key);
	json__begin_object(j);
	json__kv_string(j, "unit", unit);
	json__kv_u64(j, "count", hist__count(h));
	json__kv_u64(j, "p50", hist__quantile(h, 0.5));
	json__kv_u64(j, "p90", hist__quantile(h, 0.9));
	json__kv_u64(j, "p99", hist__quantile(h, 0.99));
	json__kv_u64(j, "p999", hist__quantile(h, 0.999));
	json__kv_u64(j, "max", hist__max(h));
	json__kv_double(j, "rel_error", HIST_REL_ERROR);
	json__key(j, "buckets");
	json__begin_array(j);
	for (int i = 0; i < HIST_SLOTS; i++) {
		if (!h->slots[i])
			continue;
		json__begin_array(j);
		json__u64(j, hist__lower(i));
		json__u64(j, hist__upper(i));
		json__u64(j, h->slots[i]);
		json__end_array(j);
	}
	json__end_array(j);
	json__end_object(j);
}
