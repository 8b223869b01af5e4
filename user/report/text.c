// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The text report, iostat/biolatency-like and one screen long: totals,
 * distributions, the busiest files, directories and threads, and always
 * the count of what was lost.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "report/block.h"
#include "report/report.h"
#include "report/findings.h"
#include "report/threads.h"

#define STARS		40
#define PATH_COLS	60
#define MIB		(1024.0 * 1024.0)
#define ELLIPSIS	"\xe2\x80\xa6"

/* Power-of-two byte counts exactly: "0", "512", "4K", "1G". */
static const char *fmt_pow2(char *buf, size_t len, __u64 v)
{
	static const char *const units[] = { "", "K", "M", "G", "T", "P", "E" };
	int i = 0;

	while (v >= 1024 && !(v % 1024)) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, "%llu%s", v, units[i]);
	return buf;
}

static void pad(FILE *out, int n)
{
	for (; n > 0; n--)
		fputc(' ', out);
}

/* s right-aligned in width columns. */
static void cell(FILE *out, const char *s, int width)
{
	fputc(' ', out);
	pad(out, width - report__cols(s));
	fputs(s, out);
}

static void cell_u64(FILE *out, __u64 v, int width)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", v);
	cell(out, buf, width);
}

/* Text of a path or comm, control characters shown as '?'. */
static void put_safe(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, out);
}

/* s left-aligned in width columns, its head cut to "…" when too long. */
static void put_left(FILE *out, const char *s, int width)
{
	int w = report__cols(s);

	if (w > width) {
		fputs(ELLIPSIS, out);
		for (; w > width - 1; w--) {
			s++;
			while (((unsigned char)*s & 0xc0) == 0x80)
				s++;
		}
	}
	put_safe(out, s);
	pad(out, width - w);
}

/* A record's path; directories end in "/", unknown paths show dev and inode. */
static void put_path(FILE *out, const struct file_rec *f, int width)
{
	char buf[PATH_LEN + 16];

	if (!f->path)
		snprintf(buf, sizeof(buf), "(dev %u:%u inode %llu)",
			 f->dev >> 20, f->dev & 0xfffff, f->ino);
	else if (f->flags & FILE_F_DIR && strcmp(f->path, "/"))
		snprintf(buf, sizeof(buf), "%s/", f->path);
	else
		snprintf(buf, sizeof(buf), "%s", f->path);
	put_left(out, buf, width);
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
static void print_rows(FILE *out, const __u64 rows[64], const char *unit, bool bytes)
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
			snprintf(num, sizeof(num), "[%s,", fmt_pow2(lo, sizeof(lo), low));
			if (r < 63)
				fmt_pow2(hi, sizeof(hi), high + 1);
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
static void print_latency_quantiles(FILE *out, const struct hist *h)
{
	char buf[32];

	for (size_t i = 0; i < sizeof(quantiles) / sizeof(quantiles[0]); i++)
		fprintf(out, "  %s %s", quantiles[i].name,
			report__fmt_ns(buf, sizeof(buf), hist__quantile(h, quantiles[i].q)));
	fprintf(out, "  max %s\n", report__fmt_ns(buf, sizeof(buf), hist__max(h)));
}

/*
 * Sizes cluster on powers of two, which start a bucket: their lower bound
 * reads "1.00 MiB" where the upper would read "1.06 MiB".
 */
static void print_size_quantiles(FILE *out, const struct hist *h)
{
	char b1[32], b2[32], b3[32];

	fprintf(out, "  p50 %s  p90 %s  max %s  (lower bucket bounds, within 6.25%%)\n",
		report__fmt_bytes(b1, sizeof(b1), hist__lower(hist__slot(hist__quantile(h, 0.5))), true),
		report__fmt_bytes(b2, sizeof(b2), hist__lower(hist__slot(hist__quantile(h, 0.9))), true),
		report__fmt_bytes(b3, sizeof(b3), hist__lower(hist__slot(hist__max(h))), true));
}

static double share(__u64 part, __u64 whole)
{
	return whole ? 100.0 * part / whole : 0;
}

static void print_header(FILE *out, const struct trace *t)
{
	static const char *const words[] = {
		[STOP_DURATION] = "duration",
		[STOP_SIGNAL] = "signal",
		[STOP_TARGET_EXIT] = "target exit",
	};
	const char *why = "unknown";

	if (t->stopped_by >= 0 && t->stopped_by <= STOP_TARGET_EXIT)
		why = words[t->stopped_by];
	fprintf(out, "iostorm: ");
	put_safe(out, t->target);
	fprintf(out, ", traced %.1f s (stopped by %s)\n", t->duration_s, why);
}

static void print_open_errors(FILE *out, const struct trace *t)
{
	int slots[3], n = report__top_errnos(t, slots, 3);
	char name[32];

	fprintf(out, ", %llu errors", t->counters[C_OPEN_ERRORS]);
	for (int i = 0; i < n; i++)
		fprintf(out, "%s%s %llu", i ? ", " : " (",
			report__errno_name(slots[i], name, sizeof(name)),
			t->open_errnos[slots[i]]);
	if (n)
		fputc(')', out);
}

static void print_totals(FILE *out, const struct trace *t, const struct file_totals *tot)
{
	const __u64 *c = t->counters;
	double d = t->duration_s;
	long page = sysconf(_SC_PAGESIZE);
	char buf[32];

	fprintf(out, "files     %llu distinct files, %llu %s, %.1f files read/s\n",
		tot->files, tot->dirs, tot->dirs == 1 ? "directory" : "directories",
		report__rate(tot->files_read, d));
	fprintf(out, "opens     %llu (%.1f/s)", c[C_OPENS], report__rate(c[C_OPENS], d));
	if (c[C_OPEN_ERRORS])
		print_open_errors(out, t);
	fprintf(out, "\nreads     %llu (%.1f/s), %.1f MiB (%.1f MiB/s)", c[C_READS],
		report__rate(c[C_READS], d), c[C_READ_BYTES] / MIB,
		report__rate(c[C_READ_BYTES] / MIB, d));
	if (c[C_READS])
		fprintf(out, ", mean %s", report__fmt_bytes(buf, sizeof(buf),
			(double)c[C_READ_BYTES] / c[C_READS], true));
	if (c[C_READ_ERRORS])
		fprintf(out, ", %llu errors", c[C_READ_ERRORS]);
	fprintf(out, "\nmetadata  stats %llu", c[C_STATS]);
	if (c[C_STAT_ERRORS])
		fprintf(out, " (%llu errors)", c[C_STAT_ERRORS]);
	fprintf(out, ", closes %llu, getdents %llu; %.1f%% of read + metadata time\n",
		c[C_CLOSES], c[C_GETDENTS],
		share(c[C_META_NS], c[C_META_NS] + c[C_READ_NS]));
	fprintf(out, "mappings  mmaps %llu, faults %llu, page cache +%llu pages (%.1f MiB)\n",
		c[C_MMAPS], c[C_FAULTS], c[C_CACHE_PAGES],
		c[C_CACHE_PAGES] * (double)(page > 0 ? page : 4096) / MIB);
	if (tot->reads)
		fprintf(out, "access    consecutive %.1f%%, sequential %.1f%%, random %.1f%% of %llu reads of regular files\n",
			share(tot->reads_consec, tot->reads),
			share(tot->reads_seq, tot->reads),
			share(tot->reads_random, tot->reads), tot->reads);
}

static void print_distributions(FILE *out, const struct trace *t)
{
	const struct hist *h = t->hists;
	struct hist sizes;
	__u64 rows[64], n;

	n = hist__count(&h[H_READ_LAT]);
	if (n) {
		fprintf(out, "\nread latency, %llu reads\n", n);
		report__log2_rows(&h[H_READ_LAT], 1000, rows);
		print_rows(out, rows, "usecs", false);
		print_latency_quantiles(out, &h[H_READ_LAT]);
		fprintf(out, "  (percentiles are upper bucket bounds, within 6.25%%)\n");
	}
	n = hist__count(&h[H_READ_SIZE]);
	if (n) {
		fprintf(out, "\nread size, %llu reads\n", n);
		report__log2_rows(&h[H_READ_SIZE], 1, rows);
		print_rows(out, rows, "bytes", true);
		print_size_quantiles(out, &h[H_READ_SIZE]);
	}
	if (hist__count(&h[H_OPEN_LAT]) || hist__count(&h[H_STAT_LAT]))
		fputc('\n', out);
	n = hist__count(&h[H_OPEN_LAT]);
	if (n) {
		fprintf(out, "open latency (%llu):", n);
		print_latency_quantiles(out, &h[H_OPEN_LAT]);
	}
	n = hist__count(&h[H_STAT_LAT]);
	if (n) {
		fprintf(out, "stat latency (%llu):", n);
		print_latency_quantiles(out, &h[H_STAT_LAT]);
	}
	report__file_sizes(&t->store, &sizes);
	n = hist__count(&sizes);
	if (n) {
		fprintf(out, "\nfile size, %llu regular files\n", n);
		report__log2_rows(&sizes, 1, rows);
		print_rows(out, rows, "bytes", true);
		print_size_quantiles(out, &sizes);
	}
}

/* The columns files and directories share, after the path. */
static void print_io_cells(FILE *out, __u64 size, __u64 opens, __u64 reads,
			   __u64 read_bytes, __u64 read_ns, __u64 meta_ns,
			   __u64 reads_seq)
{
	char buf[32];

	cell(out, report__fmt_bytes(buf, sizeof(buf), size, false), 6);
	cell_u64(out, opens, 6);
	cell_u64(out, reads, 8);
	cell(out, report__fmt_bytes(buf, sizeof(buf), read_bytes, false), 6);
	snprintf(buf, sizeof(buf), "%.1f", read_ns / 1e6);
	cell(out, buf, 9);
	snprintf(buf, sizeof(buf), "%.1f", meta_ns / 1e6);
	cell(out, buf, 9);
	cell(out, reads ? report__fmt_ns(buf, sizeof(buf), (double)read_ns / reads) : "-", 7);
	if (reads)
		snprintf(buf, sizeof(buf), "%.0f%%", share(reads_seq, reads));
	cell(out, reads ? buf : "-", 4);
	fputc('\n', out);
}

static void print_io_header(FILE *out)
{
	fprintf(out, " %6s %6s %8s %6s %9s %9s %7s %4s\n",
		"size", "opens", "reads", "read", "read ms", "meta ms", "mean", "seq");
}

static void print_more(FILE *out, size_t n, size_t shown, const char *what)
{
	if (n > shown)
		fprintf(out, "%s %zu more %s\n", ELLIPSIS, n - shown, what);
}

static void print_files(FILE *out, struct file_rec **files, size_t n, size_t top)
{
	size_t k = n < top ? n : top;

	fprintf(out, "\ntop files by I/O time (read + metadata)\n");
	put_left(out, "path", PATH_COLS);
	print_io_header(out);
	for (size_t i = 0; i < k; i++) {
		const struct file_rec *f = files[i];

		put_path(out, f, PATH_COLS);
		print_io_cells(out, f->size, f->opens, f->reads, f->read_bytes,
			       f->read_ns, f->meta_ns, f->reads_seq);
	}
	print_more(out, n, k, "files");
}

static void print_dirs(FILE *out, const struct dir_rec *dirs, size_t n, size_t top)
{
	size_t k = n < top ? n : top;

	fprintf(out, "\ntop directories by I/O time (files directly in them, and their own)\n");
	put_left(out, "directory", PATH_COLS - 7);
	cell(out, "files", 6);
	print_io_header(out);
	for (size_t i = 0; i < k; i++) {
		const struct dir_rec *d = &dirs[i];

		put_left(out, d->path ? d->path : "(unknown)", PATH_COLS - 7);
		cell_u64(out, d->files, 6);
		print_io_cells(out, d->size, d->opens, d->reads, d->read_bytes,
			       d->read_ns, d->meta_ns, d->reads_seq);
	}
	print_more(out, n, k, "directories");
}

static void print_threads(FILE *out, const struct thread_rec **threads, size_t n,
			  size_t top)
{
	size_t k = n < top ? n : top;
	char buf[32];

	if (!n)
		return;
	fprintf(out, "\nbusiest threads by I/O time (read + metadata)\n");
	fprintf(out, "%7s %7s %-16s %6s %8s %9s %9s\n",
		"tid", "pid", "comm", "opens", "reads", "MiB", "I/O ms");
	for (size_t i = 0; i < k; i++) {
		const struct thread_rec *th = threads[i];

		fprintf(out, "%7u %7u ", th->tid, th->tgid);
		put_left(out, th->comm, 16);
		cell_u64(out, th->opens, 6);
		cell_u64(out, th->reads, 8);
		snprintf(buf, sizeof(buf), "%.1f", th->read_bytes / MIB);
		cell(out, buf, 9);
		snprintf(buf, sizeof(buf), "%.1f", (th->read_ns + th->meta_ns) / 1e6);
		cell(out, buf, 9);
		fputc('\n', out);
	}
	print_more(out, n, k, "threads");
}

/* Always printed: a report that hides its losses cannot be trusted. */
static void print_lost(FILE *out, const struct trace *t)
{
	__u64 total = trace__lost_total(t);
	const char *sep = " (";

	if (!total) {
		fprintf(out, "lost: 0 events\n");
		return;
	}
	fprintf(out, "lost: %llu events", total);
	for (int r = 0; r < L__MAX; r++) {
		if (!t->lost[r])
			continue;
		fprintf(out, "%s%s %llu", sep, report__lost_words(r), t->lost[r]);
		sep = ", ";
	}
	if (t->prog_misses)
		fprintf(out, "%sprogram runs skipped by the kernel %llu", sep, t->prog_misses);
	fprintf(out, ")\nwarning: the counts above are incomplete\n");
}

/* What iostorm itself held: it may run for days. */
static void print_memory(FILE *out, const struct trace *t)
{
	char store[16], maps[16];

	fprintf(out, "memory: %s for %zu files in iostorm, %s of BPF maps in the kernel\n",
		report__fmt_bytes(store, sizeof(store), store__bytes(&t->store), true),
		t->store.nr_files,
		report__fmt_bytes(maps, sizeof(maps), t->maps_bytes, true));
}

static int print_tables(FILE *out, const struct trace *t, size_t top)
{
	struct report_lists l;
	int err = report__lists(&t->store, &l);

	if (err)
		return err;
	if (l.nr_files) {
		print_files(out, l.files, l.nr_files, top);
		print_dirs(out, l.dirs, l.nr_dirs, top);
	}
	print_threads(out, l.threads, l.nr_threads, top);
	err = thread_groups__text(out, &t->store, top);
	report__lists_free(&l);
	return err;
}

int report_text__print(FILE *out, const struct trace *t, const struct report_opts *o)
{
	size_t top = o && o->top > 0 ? o->top : REPORT_TOP_DEFAULT;
	struct file_totals tot;
	int err = 0;

	print_header(out, t);
	report_verdict__text(out, t);
	if (report__empty(t)) {
		fprintf(out, "\nno file I/O by the target was seen\n");
		report_block__text(out, t);
		fputc('\n', out);
	} else {
		report__file_totals(&t->store, &tot);
		fputc('\n', out);
		print_totals(out, t, &tot);
		print_distributions(out, t);
		report_block__text(out, t);
		err = print_tables(out, t, top);
		fputc('\n', out);
	}
	print_lost(out, t);
	print_memory(out, t);
	errno = 0;
	if (fflush(out) || ferror(out))
		return errno ? -errno : -EIO;
	return err;
}
