// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Helpers shared by the text and JSON reports, see report.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/path.h"
#include "report/report_int.h"

__u64 trace__lost_total(const struct trace *t)
{
	__u64 n = t->prog_misses;

	for (int i = 0; i < L__MAX; i++)
		n += t->lost[i];
	return n;
}

__u64 report__io_ns(const struct file_rec *f)
{
	return f->read_ns + f->meta_ns;
}

/* Paths ascending, unknown ones last. */
static int path_cmp(const char *a, const char *b)
{
	if (!a || !b)
		return !a - !b;
	return strcmp(a, b);
}

/* Descending order of two counts, as qsort wants it. */
static int desc(__u64 a, __u64 b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

static int file_cmp(const void *pa, const void *pb)
{
	const struct file_rec *a = *(struct file_rec *const *)pa;
	const struct file_rec *b = *(struct file_rec *const *)pb;
	int c;

	c = desc(report__io_ns(a), report__io_ns(b));
	if (!c)
		c = desc(a->read_bytes, b->read_bytes);
	if (!c)
		c = path_cmp(a->path, b->path);
	if (!c)
		c = -desc(a->dev, b->dev);
	if (!c)
		c = -desc(a->ino, b->ino);
	return c;
}

void report__sort_files(struct file_rec **files, size_t n)
{
	qsort(files, n, sizeof(*files), file_cmp);
}

struct dir_item {
	char *dir;
	const struct file_rec *f;
};

static int item_cmp(const void *pa, const void *pb)
{
	const struct dir_item *a = pa, *b = pb;

	return path_cmp(a->dir, b->dir);
}

static int dir_cmp(const void *pa, const void *pb)
{
	const struct dir_rec *a = pa, *b = pb;
	int c;

	c = desc(a->read_ns + a->meta_ns, b->read_ns + b->meta_ns);
	if (!c)
		c = desc(a->read_bytes, b->read_bytes);
	if (!c)
		c = path_cmp(a->path, b->path);
	return c;
}

/* The directory a record counts in: a file's parent, a directory itself. */
static int dir_of(const struct file_rec *f, char **dir)
{
	*dir = NULL;
	if (!f->path)
		return 0;
	*dir = f->flags & FILE_F_DIR ? strdup(f->path) : path__dirname(f->path);
	return *dir ? 0 : -ENOMEM;
}

static void dir_add(struct dir_rec *d, const struct file_rec *f)
{
	if (f->flags & FILE_F_REG) {
		d->files++;
		d->size += f->size;
	}
	d->opens += f->opens;
	d->stats += f->stats;
	d->reads += f->reads;
	d->read_bytes += f->read_bytes;
	d->read_ns += f->read_ns;
	d->reads_seq += f->reads_seq;
	d->meta_ns += f->meta_ns;
}

/*
 * Sort (directory, record) pairs by directory, then sum each run of equal
 * directories into one dir_rec, which takes the run's first string.
 */
int report__dirs(struct file_rec *const *files, size_t n,
		 struct dir_rec **dirs, size_t *nr_dirs)
{
	struct dir_item *items;
	struct dir_rec *d = NULL;
	size_t i, k = 0;
	int err = 0;

	*dirs = NULL;
	*nr_dirs = 0;
	items = calloc(n ? n : 1, sizeof(*items));
	if (!items)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		items[i].f = files[i];
		err = dir_of(files[i], &items[i].dir);
		if (err)
			goto out_free_items;
	}
	qsort(items, n, sizeof(*items), item_cmp);
	d = calloc(n ? n : 1, sizeof(*d));
	if (!d) {
		err = -ENOMEM;
		goto out_free_items;
	}
	for (i = 0; i < n; i++) {
		if (!i || path_cmp(items[i].dir, d[k - 1].path)) {
			d[k++].path = items[i].dir;
			items[i].dir = NULL;	/* now d's */
		}
		dir_add(&d[k - 1], items[i].f);
	}
	qsort(d, k, sizeof(*d), dir_cmp);
	*dirs = d;
	*nr_dirs = k;
out_free_items:
	for (i = 0; i < n; i++)
		free(items[i].dir);
	free(items);
	return err;
}

void report__dirs_free(struct dir_rec *dirs, size_t nr_dirs)
{
	for (size_t i = 0; i < nr_dirs; i++)
		free(dirs[i].path);
	free(dirs);
}

static int thread_cmp(const void *pa, const void *pb)
{
	const struct thread_rec *a = *(const struct thread_rec *const *)pa;
	const struct thread_rec *b = *(const struct thread_rec *const *)pb;
	int c;

	c = desc(a->read_ns + a->meta_ns, b->read_ns + b->meta_ns);
	if (!c)
		c = desc(a->read_bytes, b->read_bytes);
	if (!c)
		c = -desc(a->tid, b->tid);
	return c;
}

int report__threads(const struct store *s, const struct thread_rec ***threads,
		    size_t *n)
{
	const struct thread_rec **v;

	*n = 0;
	v = malloc((s->nr_threads ? s->nr_threads : 1) * sizeof(*v));
	*threads = v;
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < s->nr_threads; i++)
		v[i] = &s->threads[i];
	qsort(v, s->nr_threads, sizeof(*v), thread_cmp);
	*n = s->nr_threads;
	return 0;
}

int report__lists(const struct store *s, struct report_lists *l)
{
	int err;

	memset(l, 0, sizeof(*l));
	l->files = store__files(s, &l->nr_files);
	if (!l->files)
		return -ENOMEM;
	report__sort_files(l->files, l->nr_files);
	err = report__dirs(l->files, l->nr_files, &l->dirs, &l->nr_dirs);
	if (!err)
		err = report__threads(s, &l->threads, &l->nr_threads);
	if (err)
		report__lists_free(l);
	return err;
}

void report__lists_free(struct report_lists *l)
{
	free(l->threads);
	report__dirs_free(l->dirs, l->nr_dirs);
	free(l->files);
	memset(l, 0, sizeof(*l));
}

void report__file_totals(const struct store *s, struct file_totals *tot)
{
	memset(tot, 0, sizeof(*tot));
	for (size_t i = 0; i < s->files_cap; i++) {
		const struct file_rec *f = s->files[i];

		if (!f)
			continue;
		if (f->flags & FILE_F_DIR)
			tot->dirs++;
		if (!(f->flags & FILE_F_REG))
			continue;
		tot->files++;
		tot->files_read += f->reads > 0;
		tot->reads += f->reads;
		tot->reads_consec += f->reads_consec;
		tot->reads_seq += f->reads_seq;
		tot->reads_random += f->reads > f->reads_seq ? f->reads - f->reads_seq : 0;
	}
}

void report__file_sizes(const struct store *s, struct hist *h)
{
	memset(h, 0, sizeof(*h));
	for (size_t i = 0; i < s->files_cap; i++) {
		const struct file_rec *f = s->files[i];

		if (f && f->flags & FILE_F_REG)
			hist__add(h, f->size, 1);
	}
}

void report__log2_rows(const struct hist *h, __u64 unit, __u64 rows[64])
{
	memset(rows, 0, 64 * sizeof(rows[0]));
	for (int i = 0; i < HIST_SLOTS; i++) {
		__u64 v = hist__lower(i) / (unit ? unit : 1);

		if (h->slots[i])
			rows[v < 2 ? 0 : 63 - __builtin_clzll(v)] += h->slots[i];
	}
}

bool report__empty(const struct trace *t)
{
	static const int seen[] = {
		C_OPENS, C_OPEN_ERRORS, C_READS, C_READ_ERRORS, C_STATS,
		C_STAT_ERRORS, C_CLOSES, C_GETDENTS, C_MMAPS, C_FAULTS,
		C_CACHE_PAGES,
	};

	for (size_t i = 0; i < sizeof(seen) / sizeof(seen[0]); i++)
		if (t->counters[seen[i]])
			return false;
	return t->store.nr_files == 0;
}

/* x with 3 significant digits, then unit: "1.23ms", "12.3ms", "123ms". */
static void sig3(char *buf, size_t len, double x, const char *unit)
{
	int dec = x < 9.995 ? 2 : x < 99.95 ? 1 : 0;

	snprintf(buf, len, "%.*f%s", dec, x, unit);
}

/* "850ns", "12.3µs", "1.23ms", "4.56s". */
const char *report__fmt_ns(char *buf, size_t len, double ns)
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

/* "512", "4.00K", "1.23G" (short) or "512 B", "4.00 KiB" (long). */
const char *report__fmt_bytes(char *buf, size_t len, double b, bool long_units)
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

int report__cols(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

double report__rate(double n, double secs)
{
	return secs > 0 ? n / secs : 0;
}

const char *report__errno_name(int slot, char *buf, size_t len)
{
	const char *name = strerrorname_np(slot);

	if (slot == ERRNO_SLOTS - 1)
		snprintf(buf, len, "E%d+", slot);
	else if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "E%d", slot);
	return buf;
}

int report__top_errnos(const struct trace *t, int *slots, int max)
{
	int all[ERRNO_SLOTS], n = 0;

	for (int e = 0; e < ERRNO_SLOTS; e++)
		if (t->open_errnos[e])
			all[n++] = e;
	/* Insertion sort by count, descending; ties keep errno order. */
	for (int i = 1; i < n; i++) {
		int e = all[i], k = i;

		for (; k > 0 && t->open_errnos[all[k - 1]] < t->open_errnos[e]; k--)
			all[k] = all[k - 1];
		all[k] = e;
	}
	if (n > max)
		n = max > 0 ? max : 0;
	memcpy(slots, all, n * sizeof(*slots));
	return n;
}

const char *report__stop_name(int stopped_by)
{
	switch (stopped_by) {
	case STOP_DURATION:
		return "duration";
	case STOP_SIGNAL:
		return "signal";
	case STOP_TARGET_EXIT:
		return "target_exit";
	}
	return "unknown";
}

static const char *const lost_keys[L__MAX] = {
	[L_FILES_FULL] = "files_map_full",
	[L_THREADS_FULL] = "threads_map_full",
	[L_TARGETS_FULL] = "targets_map_full",
	[L_INFLIGHT] = "inflight",
	[L_FD_UNRESOLVED] = "fd_unresolved",
	[L_STATBUF] = "statbuf",
	[L_BLK_REQS_FULL] = "block_reqs_full",
};

static const char *const lost_words[L__MAX] = {
	[L_FILES_FULL] = "files map full",
	[L_THREADS_FULL] = "threads map full",
	[L_TARGETS_FULL] = "targets map full",
	[L_INFLIGHT] = "no per-task slot",
	[L_FD_UNRESOLVED] = "fd unresolved",
	[L_STATBUF] = "stat buffer unreadable",
	[L_BLK_REQS_FULL] = "block requests map full",
};

const char *report__lost_key(int reason)
{
	return reason >= 0 && reason < L__MAX && lost_keys[reason] ?
	       lost_keys[reason] : "unknown";
}

const char *report__lost_words(int reason)
{
	return reason >= 0 && reason < L__MAX && lost_words[reason] ?
	       lost_words[reason] : "unknown";
}
