// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ranked lists of both reports: the busiest files, directories and
 * threads (the top rows in the text, every row in the JSON), and the
 * threads rolled up by name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/json.h"
#include "lib/units.h"
#include "model/kind.h"
#include "report/report_int.h"

#define PATH_COLS	60
/* The brief table's path: 100 columns less the 48 of its cells. */
#define BRIEF_PATH_COLS	(REPORT_BRIEF_COLS - 48)
#define MIB		(1024.0 * 1024.0)

/* ---- text ---- */

/* The columns files and directories share, after the path. */
static void print_io_cells(FILE *out, __u64 size, __u64 opens, __u64 reads,
			   __u64 read_bytes, __u64 read_ns, __u64 meta_ns,
			   __u64 reads_seq)
{
	char buf[32];

	emit__cell(out, units__size(buf, sizeof(buf), size, true), 9);
	emit__cell_u64(out, opens, 6);
	emit__cell_u64(out, reads, 8);
	emit__cell(out, units__size(buf, sizeof(buf), read_bytes, true), 9);
	snprintf(buf, sizeof(buf), "%.1f", read_ns / 1e6);
	emit__cell(out, buf, 9);
	snprintf(buf, sizeof(buf), "%.1f", meta_ns / 1e6);
	emit__cell(out, buf, 9);
	emit__cell(out, reads ? units__ns(buf, sizeof(buf), (double)read_ns / reads) : "-", 7);
	if (reads)
		snprintf(buf, sizeof(buf), "%.0f%%", emit__pct(reads_seq, reads));
	emit__cell(out, reads ? buf : "-", 4);
	fputc('\n', out);
}

static void print_io_header(FILE *out)
{
	fprintf(out, " %9s %6s %8s %9s %9s %9s %7s %4s\n",
		"size", "opens", "reads", "read", "read ms", "meta ms", "mean", "seq");
}

static void print_more(FILE *out, size_t n, size_t shown, const char *what)
{
	if (n > shown)
		fprintf(out, "%s %zu more %s\n", ELLIPSIS, n - shown, what);
}

/*
 * The records not shown, and what all of them are, in the header's terms:
 * regular files, directories, and files and device caches seen only by
 * the page cache (mapped before the attach).
 */
static void print_more_files(FILE *out, struct file_rec **files, size_t n, size_t shown)
{
	size_t reg = 0, dirs = 0;

	if (n <= shown)
		return;
	for (size_t i = 0; i < n; i++) {
		reg += !!(files[i]->flags & FILE_F_REG);
		dirs += !!(files[i]->flags & FILE_F_DIR);
	}
	fprintf(out, "%s %zu more of %zu: %zu %s, %zu %s", ELLIPSIS, n - shown, n,
		reg, reg == 1 ? "file" : "files", dirs, dirs == 1 ? "directory" : "directories");
	if (n > reg + dirs)
		fprintf(out, ", %zu seen only by the page cache", n - reg - dirs);
	fputc('\n', out);
}

/*
 * Under a file's row, its io_uring and AIO reads: how many were in flight
 * on the file at each one's submit (itself included), and those not seen
 * whole: still in flight at the end, or whose file was known only at
 * their completion (no depth).
 */
static void print_file_async(FILE *out, const struct async_file *a)
{
	if (!a || !(a->reads + a->late + a->inflight))
		return;
	fprintf(out, "  async %llu reads, depth on the file at submit mean %.1f, max %u",
		a->reads + a->late, a->reads ? (double)a->depth / a->reads : 0.0,
		a->depth_max);
	if (a->inflight)
		fprintf(out, "; %u still in flight at the end", a->inflight);
	if (a->late)
		fprintf(out, "; %llu whose file was known only at completion", a->late);
	fputc('\n', out);
}

static void print_files(FILE *out, struct file_rec **files, size_t n, size_t top)
{
	size_t k = n < top ? n : top;

	fprintf(out, "\ntop files by I/O time (read + metadata)\n");
	emit__left(out, "path", PATH_COLS);
	print_io_header(out);
	for (size_t i = 0; i < k; i++) {
		const struct file_rec *f = files[i];

		emit__path(out, f, PATH_COLS);
		print_io_cells(out, f->size, f->c.opens, f->c.reads, f->c.read_bytes,
			       f->c.read_ns, f->c.meta_ns, f->c.reads_seq);
		print_file_async(out, f->async);
	}
	print_more_files(out, files, n, k);
}

/* A file's or a thread's time writing: its writes, syncs and commits. */
static __u64 write_time(__u64 write_ns, __u64 fsync_ns, __u64 commit_ns)
{
	return write_ns + fsync_ns + commit_ns;
}

static __u64 file_write_ns(const struct file_rec *f)
{
	return write_time(f->c.write_ns, f->c.fsync_ns, f->c.commit_ns);
}

static int written_cmp(const void *pa, const void *pb)
{
	const struct file_rec *a = *(struct file_rec *const *)pa;
	const struct file_rec *b = *(struct file_rec *const *)pb;
	__u64 x = file_write_ns(a), y = file_write_ns(b);

	if (x != y)
		return x < y ? 1 : -1;
	return (a->c.write_bytes < b->c.write_bytes) - (a->c.write_bytes > b->c.write_bytes);
}

/* The cells of a write row: writes, bytes, then each call's time in ms. */
static void print_write_cells(FILE *out, __u64 writes, __u64 bytes, __u64 write_ns,
			      __u64 fsyncs, __u64 fsync_ns, __u64 commits, __u64 commit_ns)
{
	char buf[32];

	emit__cell_u64(out, writes, 7);
	emit__cell(out, units__size(buf, sizeof(buf), bytes, true), 9);
	snprintf(buf, sizeof(buf), "%.1f", write_ns / 1e6);
	emit__cell(out, buf, 9);
	emit__cell_u64(out, fsyncs, 6);
	snprintf(buf, sizeof(buf), "%.1f", fsync_ns / 1e6);
	emit__cell(out, buf, 9);
	emit__cell_u64(out, commits, 7);
	snprintf(buf, sizeof(buf), "%.1f", commit_ns / 1e6);
	emit__cell(out, buf, 9);
	fputc('\n', out);
}

static void print_write_header(FILE *out)
{
	fprintf(out, " %7s %9s %9s %6s %9s %7s %9s\n", "writes", "bytes", "write ms",
		"fsyncs", "fsync ms", "commits", "commit ms");
}

/* The files written, by write time (a checkpoint's files), when any were. */
static int print_written(FILE *out, struct file_rec **files, size_t n, size_t top)
{
	struct file_rec **w = malloc((n ? n : 1) * sizeof(*w));
	size_t k = 0, shown;

	if (!w)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (files[i]->c.writes + files[i]->c.fsyncs + files[i]->c.commits)
			w[k++] = files[i];
	if (k) {
		qsort(w, k, sizeof(*w), written_cmp);
		shown = k < top ? k : top;
		fprintf(out, "\nfiles written, by write time (write + fsync + commit)\n");
		emit__left(out, "path", PATH_COLS);
		print_write_header(out);
		for (size_t i = 0; i < shown; i++) {
			emit__path(out, w[i], PATH_COLS);
			print_write_cells(out, w[i]->c.writes, w[i]->c.write_bytes,
					  w[i]->c.write_ns, w[i]->c.fsyncs, w[i]->c.fsync_ns,
					  w[i]->c.commits, w[i]->c.commit_ns);
		}
		print_more(out, k, shown, "files written");
	}
	free(w);
	return 0;
}

static void print_dirs(FILE *out, const struct dir_rec *dirs, size_t n, size_t top)
{
	size_t k = n < top ? n : top;

	fprintf(out, "\ntop directories by I/O time (files directly in them, and their own)\n");
	emit__left(out, "directory", PATH_COLS - 7);
	emit__cell(out, "files", 6);
	print_io_header(out);
	for (size_t i = 0; i < k; i++) {
		const struct dir_rec *d = &dirs[i];

		emit__left(out, d->path ? d->path : "(unknown)", PATH_COLS - 7);
		emit__cell_u64(out, d->files, 6);
		print_io_cells(out, d->size, d->c.opens, d->c.reads, d->c.read_bytes,
			       d->c.read_ns, d->c.meta_ns, d->c.reads_seq);
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
		emit__left(out, th->comm, 16);
		emit__cell_u64(out, th->io.opens, 6);
		emit__cell_u64(out, th->io.reads, 8);
		snprintf(buf, sizeof(buf), "%.1f", th->io.read_bytes / MIB);
		emit__cell(out, buf, 9);
		snprintf(buf, sizeof(buf), "%.1f", (th->io.read_ns + th->io.meta_ns) / 1e6);
		emit__cell(out, buf, 9);
		fputc('\n', out);
	}
	print_more(out, n, k, "threads");
}

static __u64 thread_write_ns(const struct thread_rec *th)
{
	return write_time(th->w.write_ns, th->w.fsync_ns, th->w.commit_ns);
}

static int writer_cmp(const void *pa, const void *pb)
{
	__u64 x = thread_write_ns(*(const struct thread_rec *const *)pa);
	__u64 y = thread_write_ns(*(const struct thread_rec *const *)pb);

	return (x < y) - (x > y);
}

/* The threads that wrote files, the longest writing first, top of them. */
static int print_writers(FILE *out, const struct thread_rec **threads, size_t n,
			 size_t top)
{
	const struct thread_rec **w = malloc((n ? n : 1) * sizeof(*w));
	size_t k = 0, shown;

	if (!w)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (threads[i]->w.writes + threads[i]->w.fsyncs + threads[i]->w.commits +
		    threads[i]->w.renames)
			w[k++] = threads[i];
	if (k) {
		qsort(w, k, sizeof(*w), writer_cmp);
		shown = k < top ? k : top;
		fprintf(out, "\nthreads that wrote files, by write time\n");
		fprintf(out, "%7s %7s %-16s", "tid", "pid", "comm");
		print_write_header(out);
		for (size_t i = 0; i < shown; i++) {
			fprintf(out, "%7u %7u ", w[i]->tid, w[i]->tgid);
			emit__left(out, w[i]->comm, 16);
			print_write_cells(out, w[i]->w.writes, w[i]->w.write_bytes,
					  w[i]->w.write_ns, w[i]->w.fsyncs, w[i]->w.fsync_ns,
					  w[i]->w.commits + w[i]->w.renames, w[i]->w.commit_ns);
		}
		print_more(out, k, shown, "threads that wrote");
	}
	free(w);
	return 0;
}

/*
 * The jobs' views, named once: paths below are the host's, and a path the
 * host does not have is shown as its job saw it, after "[job N]".
 */
static void print_views(FILE *out, const struct views *vw)
{
	bool first = true;

	for (size_t i = 0; i < views__count(vw); i++) {
		const struct view_rec *v = views__get(vw, i + 1);

		if (v->host)
			continue;
		if (first)
			fprintf(out, "\npaths are the host's; jobs in their own views (JSON job_path):\n");
		first = false;
		fprintf(out, "  [job %zu] mount namespace %u, root ", i + 1, v->mnt_ns);
		emit__safe(out, v->root_host ? v->root_host : "(not on the host)");
		fprintf(out, " on the host (pid %u)\n", v->tgid);
	}
}

int report_lists__text(FILE *out, const struct report *r, size_t top)
{
	const struct report_lists *l = &r->lists;

	if (l->nr_files) {
		print_views(out, &r->t->views);
		print_files(out, l->files, l->nr_files, top);
		if (print_written(out, l->files, l->nr_files, top))
			return -ENOMEM;
		print_dirs(out, l->dirs, l->nr_dirs, top);
	}
	print_threads(out, l->threads, l->nr_threads, top);
	if (print_writers(out, l->threads, l->nr_threads, top))
		return -ENOMEM;
	report_threads__text(out, r, top);
	return 0;
}

/* The dataset's regular files, busiest first: not code, not a directory. */
static bool is_dataset(const struct file_rec *f)
{
	return (f->flags & FILE_F_REG) && !file_rec__is_code(f);
}

/*
 * The one screen's table: the top dataset files (code and libraries are
 * one line of the key figures), in IEC units, within BRIEF_ROW columns.
 */
void report_lists__brief_text(FILE *out, const struct report *r, size_t top)
{
	const struct report_lists *l = &r->lists;
	size_t n = 0, shown = 0;
	char buf[32];

	for (size_t i = 0; i < l->nr_files; i++)
		n += is_dataset(l->files[i]);
	if (!n)
		return;
	print_views(out, &r->t->views);
	fprintf(out, "\ntop dataset files by I/O time (read + metadata)\n");
	emit__left(out, "path", BRIEF_PATH_COLS);
	fprintf(out, " %6s %8s %9s %8s %7s %4s\n", "opens", "reads", "read", "I/O", "mean", "seq");
	for (size_t i = 0; i < l->nr_files && shown < top; i++) {
		const struct file_rec *f = l->files[i];

		if (!is_dataset(f))
			continue;
		shown++;
		emit__path(out, f, BRIEF_PATH_COLS);
		emit__cell_u64(out, f->c.opens, 6);
		emit__cell_u64(out, f->c.reads, 8);
		emit__cell(out, units__size(buf, sizeof(buf), f->c.read_bytes, true), 9);
		emit__cell(out, units__ns(buf, sizeof(buf), report__io_ns(f)), 8);
		emit__cell(out, f->c.reads ? units__ns(buf, sizeof(buf),
			   (double)f->c.read_ns / f->c.reads) : "-", 7);
		if (f->c.reads)
			snprintf(buf, sizeof(buf), "%.0f%%", emit__pct(f->c.reads_seq, f->c.reads));
		emit__cell(out, f->c.reads ? buf : "-", 4);
		fputc('\n', out);
	}
	if (n > shown)
		fprintf(out, "%s %zu more dataset %s\n", ELLIPSIS, n - shown,
			n - shown == 1 ? "file" : "files");
}

/* ---- JSON ---- */

/*
 * A file's io_uring and AIO reads (see print_file_async()); null where
 * io_uring is not measured: its reads would be missing.
 */
static void write_file_async(struct json *j, const struct async_file *a, bool uring)
{
	const struct async_file none = { 0 };

	if (!a)
		a = &none;
	json__kv_u64_known(j, "async_reads", a->reads + a->late, uring);
	json__key(j, "async_depth_mean");
	if (uring)
		json__double(j, a->reads ? (double)a->depth / a->reads : 0.0);
	else
		json__null(j);
	json__kv_u64_known(j, "async_depth_max", a->depth_max, uring);
	json__kv_u64_known(j, "async_inflight_end", a->inflight, uring);
	json__kv_u64_known(j, "async_unresolved", a->late, uring);
}

/* Figures of a layer the kernel k did not give (faults, io_uring, the page cache) are null. */
static void write_file(struct json *j, const struct file_rec *f, const struct mounts *m,
		       const struct kernel_reach *k)
{
	bool faults = kernel__measured(k, KL_FAULTS), uring = kernel__measured(k, KL_URING);
	const struct mount_rec *mr = mounts__find(m, f->dev);
	bool device = file_rec__is_device(f);
	char dev[24];

	units__dev(dev, sizeof(dev), device ? f->ino : f->dev);
	json__begin_object(j);
	json__kv_string(j, "path", f->path);
	if (f->view) {			/* seen in a job's view: see "views" */
		json__kv_string(j, "job_path", f->job_path ? f->job_path : f->path);
		json__kv_u64(j, "view", f->view);
	}
	json__kv_string(j, "dev", dev);
	json__kv_string(j, "mount", mr ? mr->point : NULL);
	json__kv_u64(j, "ino", device ? 0 : f->ino);
	json__kv_u64(j, "gen", device ? 0 : f->gen);
	json__kv_string(j, "type", device ? "device" : f->flags & FILE_F_DIR ? "dir" : "file");
	json__kv_string(j, "kind", file_rec__is_code(f) ? "code" : "data");
	json__kv_u64(j, "size", f->size);
	json__kv_u64(j, "opens", f->c.opens);
	json__kv_u64(j, "closes", f->c.closes);
	json__kv_u64(j, "stats", f->c.stats);
	json__kv_u64(j, "reads", f->c.reads);
	json__kv_u64(j, "read_bytes", f->c.read_bytes);
	json__kv_u64(j, "read_ns", f->c.read_ns);
	json__kv_u64(j, "read_ns_max", f->read_ns_max);
	json__kv_u64(j, "reads_consecutive", f->c.reads_consec);
	json__kv_u64(j, "reads_sequential", f->c.reads_seq);
	json__kv_u64(j, "reads_random", f->c.reads > f->c.reads_seq ? f->c.reads - f->c.reads_seq : 0);
	json__key(j, "max_byte_read");
	if (f->max_end)
		json__u64(j, f->max_end - 1);
	else
		json__null(j);
	json__kv_u64(j, "meta_ns", f->c.meta_ns);
	json__kv_u64(j, "getdents", f->c.getdents);
	json__kv_u64(j, "mmaps", f->c.mmaps);
	json__kv_u64_known(j, "faults", f->c.faults, faults);
	json__kv_u64_known(j, "cache_pages", f->c.cache_pages, kernel__measured(k, KL_PAGE_CACHE));
	json__kv_u64_known(j, "fault_reads", f->c.fault_reads, faults);
	json__kv_u64_known(j, "fault_pages", f->c.fault_pages, faults);
	json__kv_u64_known(j, "fault_reads_sequential", f->c.fault_seq, faults);
	json__kv_u64_known(j, "fault_reads_random", f->c.fault_rand, faults);
	json__kv_u64_known(j, "fault_ns", f->c.fault_ns, faults);
	write_file_async(j, f->async, uring);
	json__kv_u64(j, "writes", f->c.writes);
	json__kv_u64(j, "write_bytes", f->c.write_bytes);
	json__kv_u64(j, "write_ns", f->c.write_ns);
	json__kv_u64(j, "fsyncs", f->c.fsyncs);
	json__kv_u64(j, "fsync_ns", f->c.fsync_ns);
	json__kv_u64(j, "commits", f->c.commits);
	json__kv_u64(j, "commit_ns", f->c.commit_ns);
	json__kv_u64(j, "first_ts_ns", f->first_ts);
	json__kv_u64(j, "last_ts_ns", f->last_ts);
	json__kv_u64(j, "first_read_ts_ns", f->read_ts);
	json__end_object(j);
}

static void write_dir(struct json *j, const struct dir_rec *d)
{
	json__begin_object(j);
	json__kv_string(j, "path", d->path);
	json__kv_u64(j, "files", d->files);
	json__kv_u64(j, "opens", d->c.opens);
	json__kv_u64(j, "reads", d->c.reads);
	json__kv_u64(j, "read_bytes", d->c.read_bytes);
	json__kv_u64(j, "read_ns", d->c.read_ns);
	json__kv_u64(j, "meta_ns", d->c.meta_ns);
	json__kv_u64(j, "stats", d->c.stats);
	json__kv_u64(j, "writes", d->c.writes);
	json__kv_u64(j, "write_bytes", d->c.write_bytes);
	json__kv_u64(j, "write_ns", d->c.write_ns);
	json__end_object(j);
}

static void write_thread(struct json *j, const struct thread_rec *th,
			 const struct kernel_reach *k)
{
	bool faults = kernel__measured(k, KL_FAULTS);

	json__begin_object(j);
	json__kv_u64(j, "tid", th->tid);
	json__kv_u64(j, "pid", th->tgid);
	json__key(j, "comm");
	json__stringn(j, th->comm, strnlen(th->comm, COMM_LEN));
	json__kv_u64(j, "opens", th->io.opens);
	json__kv_u64(j, "reads", th->io.reads);
	json__kv_u64(j, "read_bytes", th->io.read_bytes);
	json__kv_u64(j, "read_ns", th->io.read_ns);
	json__kv_u64(j, "stats", th->io.stats);
	json__kv_u64(j, "meta_ns", th->io.meta_ns);
	json__kv_u64_known(j, "cache_pages", th->io.cache_pages, kernel__measured(k, KL_PAGE_CACHE));
	json__kv_u64_known(j, "fault_reads", th->io.fault_reads, faults);
	json__kv_u64(j, "async_reads", th->async_reads);
	json__kv_double(j, "async_depth_mean", th->async_reads ?
			(double)th->async_depth / th->async_reads : 0.0);
	json__kv_u64(j, "cpu_ns", th->cpu_ns);
	json__kv_u64(j, "io_wait_ns", th->io_wait_ns);
	json__kv_u64(j, "runq_ns", th->runq_ns);
	json__kv_u64(j, "sleep_ns", th->sleep_ns);
	json__kv_u64(j, "writes", th->w.writes);
	json__kv_u64(j, "write_bytes", th->w.write_bytes);
	json__kv_u64(j, "write_ns", th->w.write_ns);
	json__kv_u64(j, "fsyncs", th->w.fsyncs);
	json__kv_u64(j, "fsync_ns", th->w.fsync_ns);
	json__kv_u64(j, "commits", th->w.commits);
	json__kv_u64(j, "renames", th->w.renames);
	json__kv_u64(j, "commit_ns", th->w.commit_ns);
	json__end_object(j);
}

/* The jobs' views that files name ("view"): paths there are the job's own. */
static void write_views(struct json *j, const struct views *vw)
{
	json__key(j, "views");
	json__begin_array(j);
	for (size_t i = 0; i < views__count(vw); i++) {
		const struct view_rec *v = views__get(vw, i + 1);

		if (v->host)
			continue;
		json__begin_object(j);
		json__kv_u64(j, "view", i + 1);
		json__kv_u64(j, "mnt_ns", v->mnt_ns);
		json__kv_string(j, "root", v->root_host);
		json__kv_u64(j, "pid", v->tgid);
		json__end_object(j);
	}
	json__end_array(j);
}

/* The three ranked lists: files, dirs, threads, and threads by name, and the views. */
int report_lists__json(struct json *j, const struct report *r)
{
	const struct report_lists *l = &r->lists;
	const struct trace *t = r->t;
	size_t i;

	json__key(j, "files");
	json__begin_array(j);
	for (i = 0; i < l->nr_files; i++)
		write_file(j, l->files[i], &t->mounts, &t->kernel);
	json__end_array(j);
	write_views(j, &t->views);
	json__key(j, "dirs");
	json__begin_array(j);
	for (i = 0; i < l->nr_dirs; i++)
		write_dir(j, &l->dirs[i]);
	json__end_array(j);
	json__key(j, "threads");
	json__begin_array(j);
	for (i = 0; i < l->nr_threads; i++)
		write_thread(j, l->threads[i], &t->kernel);
	json__end_array(j);
	report_threads__json(j, r);
	return 0;
}
