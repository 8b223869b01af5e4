// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The JSON report, schema "iostorm.report/1" (docs/json.md). Every key is
 * always written, so consumers need no presence checks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/json.h"
#include "report/report_int.h"
#include "report/block.h"
#include "lib/atomic_file.h"
#include "report/json.h"
#include "report/findings.h"
#include "report/threads.h"

#define SCHEMA		"iostorm.report/1"
#define PRETTY_DEPTH	2	/* a line per top-level key and array element */

void report_json__hist(struct json *j, const char *key, const struct hist *h,
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

static void write_vfs(struct json *j, const struct trace *t, const struct file_totals *tot)
{
	const __u64 *c = t->counters;
	double d = t->duration_s;
	char name[32];

	json__key(j, "vfs");
	json__begin_object(j);
	json__kv_u64(j, "files", tot->files);
	json__kv_u64(j, "dirs", tot->dirs);
	json__kv_u64(j, "opens", c[C_OPENS]);
	json__kv_u64(j, "open_errors", c[C_OPEN_ERRORS]);
	json__key(j, "open_errnos");
	json__begin_object(j);
	for (int e = 0; e < ERRNO_SLOTS; e++)
		if (t->open_errnos[e])
			json__kv_u64(j, report__errno_name(e, name, sizeof(name)),
				     t->open_errnos[e]);
	json__end_object(j);
	json__kv_u64(j, "reads", c[C_READS]);
	json__kv_u64(j, "read_bytes", c[C_READ_BYTES]);
	json__kv_u64(j, "read_errors", c[C_READ_ERRORS]);
	json__kv_u64(j, "stats", c[C_STATS]);
	json__kv_u64(j, "stat_errors", c[C_STAT_ERRORS]);
	json__kv_u64(j, "closes", c[C_CLOSES]);
	json__kv_u64(j, "getdents", c[C_GETDENTS]);
	json__kv_u64(j, "mmaps", c[C_MMAPS]);
	json__kv_u64(j, "faults", c[C_FAULTS]);
	json__kv_u64(j, "cache_pages", c[C_CACHE_PAGES]);
	json__kv_u64(j, "read_ns", c[C_READ_NS]);
	json__kv_u64(j, "meta_ns", c[C_META_NS]);
	json__kv_u64(j, "reads_consecutive", tot->reads_consec);
	json__kv_u64(j, "reads_sequential", tot->reads_seq);
	json__kv_u64(j, "reads_random", tot->reads_random);
	json__key(j, "rates");
	json__begin_object(j);
	json__kv_double(j, "files_per_s", report__rate(tot->files_read, d));
	json__kv_double(j, "opens_per_s", report__rate(c[C_OPENS], d));
	json__kv_double(j, "reads_per_s", report__rate(c[C_READS], d));
	json__kv_double(j, "read_bytes_per_s", report__rate(c[C_READ_BYTES], d));
	json__end_object(j);
	json__end_object(j);
}

static void write_hists(struct json *j, const struct trace *t)
{
	const struct hist *h = t->hists;
	struct hist sizes;

	json__key(j, "latency");
	json__begin_object(j);
	report_json__hist(j, "read", &h[H_READ_LAT], "ns");
	report_json__hist(j, "open", &h[H_OPEN_LAT], "ns");
	report_json__hist(j, "stat", &h[H_STAT_LAT], "ns");
	report_json__hist(j, "close", &h[H_CLOSE_LAT], "ns");
	report_json__hist(j, "getdents", &h[H_GETDENTS_LAT], "ns");
	json__end_object(j);
	report__file_sizes(&t->store, &sizes);
	json__key(j, "sizes");
	json__begin_object(j);
	report_json__hist(j, "read", &h[H_READ_SIZE], "bytes");
	report_json__hist(j, "file", &sizes, "bytes");
	json__end_object(j);
}

static void write_file(struct json *j, const struct file_rec *f)
{
	char dev[24];

	snprintf(dev, sizeof(dev), "%u:%u", f->dev >> 20, f->dev & 0xfffff);
	json__begin_object(j);
	json__kv_string(j, "path", f->path);
	json__kv_string(j, "dev", dev);
	json__kv_u64(j, "ino", f->ino);
	json__kv_string(j, "type", f->flags & FILE_F_DIR ? "dir" : "file");
	json__kv_u64(j, "size", f->size);
	json__kv_u64(j, "opens", f->opens);
	json__kv_u64(j, "closes", f->closes);
	json__kv_u64(j, "stats", f->stats);
	json__kv_u64(j, "reads", f->reads);
	json__kv_u64(j, "read_bytes", f->read_bytes);
	json__kv_u64(j, "read_ns", f->read_ns);
	json__kv_u64(j, "read_ns_max", f->read_ns_max);
	json__kv_u64(j, "reads_consecutive", f->reads_consec);
	json__kv_u64(j, "reads_sequential", f->reads_seq);
	json__kv_u64(j, "reads_random", f->reads > f->reads_seq ? f->reads - f->reads_seq : 0);
	json__key(j, "max_byte_read");
	if (f->max_end)
		json__u64(j, f->max_end - 1);
	else
		json__null(j);
	json__kv_u64(j, "meta_ns", f->meta_ns);
	json__kv_u64(j, "getdents", f->getdents);
	json__kv_u64(j, "mmaps", f->mmaps);
	json__kv_u64(j, "faults", f->faults);
	json__kv_u64(j, "cache_pages", f->cache_pages);
	json__kv_u64(j, "first_ts_ns", f->first_ts);
	json__kv_u64(j, "last_ts_ns", f->last_ts);
	json__end_object(j);
}

static void write_dir(struct json *j, const struct dir_rec *d)
{
	json__begin_object(j);
	json__kv_string(j, "path", d->path);
	json__kv_u64(j, "files", d->files);
	json__kv_u64(j, "opens", d->opens);
	json__kv_u64(j, "reads", d->reads);
	json__kv_u64(j, "read_bytes", d->read_bytes);
	json__kv_u64(j, "read_ns", d->read_ns);
	json__kv_u64(j, "meta_ns", d->meta_ns);
	json__kv_u64(j, "stats", d->stats);
	json__end_object(j);
}

static void write_thread(struct json *j, const struct thread_rec *th)
{
	json__begin_object(j);
	json__kv_u64(j, "tid", th->tid);
	json__kv_u64(j, "pid", th->tgid);
	json__key(j, "comm");
	json__stringn(j, th->comm, strnlen(th->comm, COMM_LEN));
	json__kv_u64(j, "opens", th->opens);
	json__kv_u64(j, "reads", th->reads);
	json__kv_u64(j, "read_bytes", th->read_bytes);
	json__kv_u64(j, "read_ns", th->read_ns);
	json__kv_u64(j, "stats", th->stats);
	json__kv_u64(j, "meta_ns", th->meta_ns);
	json__kv_u64(j, "cache_pages", th->cache_pages);
	json__kv_u64(j, "cpu_ns", th->cpu_ns);
	json__kv_u64(j, "io_wait_ns", th->io_wait_ns);
	json__kv_u64(j, "runq_ns", th->runq_ns);
	json__kv_u64(j, "sleep_ns", th->sleep_ns);
	json__end_object(j);
}

/* The three ranked lists: files, dirs, threads, and threads by name. */
static int write_lists(struct json *j, const struct trace *t)
{
	struct report_lists l;
	size_t i;
	int err = report__lists(&t->store, &l);

	if (err)
		return err;
	json__key(j, "files");
	json__begin_array(j);
	for (i = 0; i < l.nr_files; i++)
		write_file(j, l.files[i]);
	json__end_array(j);
	json__key(j, "dirs");
	json__begin_array(j);
	for (i = 0; i < l.nr_dirs; i++)
		write_dir(j, &l.dirs[i]);
	json__end_array(j);
	json__key(j, "threads");
	json__begin_array(j);
	for (i = 0; i < l.nr_threads; i++)
		write_thread(j, l.threads[i]);
	json__end_array(j);
	err = thread_groups__json(j, &t->store);
	report__lists_free(&l);
	return err;
}

static void write_lost(struct json *j, const struct trace *t)
{
	json__key(j, "lost");
	json__begin_object(j);
	json__kv_u64(j, "total", trace__lost_total(t));
	for (int r = 0; r < L__MAX; r++)
		json__kv_u64(j, report__lost_key(r), t->lost[r]);
	json__kv_u64(j, "prog_misses", t->prog_misses);
	json__end_object(j);
}

/* The whole document to out; 0 or the first -errno. */
static int write_report(FILE *out, const struct trace *t)
{
	struct file_totals tot;
	struct json j;
	int err;

	report__file_totals(&t->store, &tot);
	json__init(&j, out, PRETTY_DEPTH);
	json__begin_object(&j);
	json__kv_string(&j, "schema", SCHEMA);
	json__kv_string(&j, "target", t->target);
	json__kv_double(&j, "duration_s", t->duration_s);
	json__kv_string(&j, "stopped_by", report__stop_name(t->stopped_by));
	json__key(&j, "exit_status");
	if (t->exit_status >= 0)
		json__i64(&j, t->exit_status);
	else
		json__null(&j);
	report_verdict__json(&j, t);
	write_vfs(&j, t, &tot);
	write_hists(&j, t);
	report_block__json(&j, t);
	err = write_lists(&j, t);
	if (err)
		return err;
	write_lost(&j, t);
	json__key(&j, "store");
	json__begin_object(&j);
	json__kv_u64(&j, "files", t->store.nr_files);
	json__kv_u64(&j, "bytes", store__bytes(&t->store));
	json__kv_u64(&j, "kernel_maps_bytes", t->maps_bytes);
	json__end_object(&j);
	json__end_object(&j);
	return json__end(&j);
}

static int fill_report(FILE *f, const void *t)
{
	return write_report(f, t);
}

/* Write and flush to an open stream that is not ours to close. */
static int write_stream(FILE *f, const struct trace *t)
{
	int err = write_report(f, t);

	if (!err && fflush(f))
		err = -errno;
	if (!err && ferror(f))
		err = -EIO;
	return err;
}

/* A device or FIFO: cannot be replaced by rename, so write it in place. */
static int write_in_place(const char *path, const struct trace *t)
{
	FILE *f;
	int fd, err;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	err = write_stream(f, t);
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

int report_json__write(const char *path, const struct trace *t)
{
	struct stat st;

	if (!strcmp(path, "-"))
		return write_stream(stdout, t);
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		return write_in_place(path, t);
	return atomic_file__write(path, true, fill_report, t);
}
