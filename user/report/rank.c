// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Helpers shared by the text and JSON reports, see report.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/counters.h"
#include "model/path.h"
#include "report/report_int.h"

__u64 report__io_ns(const struct file_rec *f)
{
	return f->c.read_ns + f->c.meta_ns;
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
		c = desc(a->c.read_bytes, b->c.read_bytes);
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

	c = desc(a->c.read_ns + a->c.meta_ns, b->c.read_ns + b->c.meta_ns);
	if (!c)
		c = desc(a->c.read_bytes, b->c.read_bytes);
	if (!c)
		c = path_cmp(a->path, b->path);
	return c;
}

/* The directory a record counts in: a file's parent, a directory itself. */
static int dir_of(const struct file_rec *f, char **dir)
{
	char *d;

	*dir = NULL;
	if (!f->path && f->job_path) {	/* apart from the host's: "[job 2] /data" */
		d = f->flags & FILE_F_DIR ? strdup(f->job_path) : path__dirname(f->job_path);
		if (d && asprintf(dir, "[job %u] %s", f->view, d) < 0)
			*dir = NULL;
		free(d);
		return *dir ? 0 : -ENOMEM;
	}
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
	file_counters__add(&d->c, &f->c);
}

/*
 * Sort (directory, record) pairs by directory, then sum each run of equal
 * directories into one dir_rec, which takes the run's first string. A block
 * device's own cache is in no directory.
 */
int report__dirs(struct file_rec *const *files, size_t nr_files,
		 struct dir_rec **dirs, size_t *nr_dirs)
{
	struct dir_item *items;
	struct dir_rec *d = NULL;
	size_t i, k = 0, n = 0;
	int err = 0;

	*dirs = NULL;
	*nr_dirs = 0;
	items = calloc(nr_files ? nr_files : 1, sizeof(*items));
	if (!items)
		return -ENOMEM;
	for (i = 0; i < nr_files; i++) {
		if (file_rec__is_device(files[i]))
			continue;
		items[n].f = files[i];
		err = dir_of(files[i], &items[n++].dir);
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

	c = desc(a->io.read_ns + a->io.meta_ns, b->io.read_ns + b->io.meta_ns);
	if (!c)
		c = desc(a->io.read_bytes, b->io.read_bytes);
	if (!c)
		c = -desc(a->tid, b->tid);
	return c;
}

int report__threads(const struct store *s, const struct thread_rec ***threads,
		    size_t *n)
{
	const struct thread_rec **v;

	*n = 0;
	v = malloc((s->threads.n ? s->threads.n : 1) * sizeof(*v));
	*threads = v;
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < s->threads.n; i++)
		v[i] = &s->threads.v[i];
	qsort(v, s->threads.n, sizeof(*v), thread_cmp);
	*n = s->threads.n;
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

/* "850ns", "12.3µs", "1.23ms", "4.56s". */

/* "512", "4.00K", "1.23G" (short) or "512 B", "4.00 KiB" (long). */
