// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The VFS section of both reports: totals of opens, reads, metadata,
 * writes and mappings, the access pattern, and the latency and size
 * distributions.
 */
#include <stdbool.h>
#include <stdio.h>
#include "lib/json.h"
#include "lib/units.h"
#include "report/report_int.h"

#define MIB		(1024.0 * 1024.0)

/* ---- text ---- */

static void print_open_errors(FILE *out, const struct trace *t)
{
	int slots[3], n = trace__top_errnos(t, slots, 3);
	char name[32];

	fprintf(out, ", %llu errors", t->counters[C_OPEN_ERRORS]);
	for (int i = 0; i < n; i++)
		fprintf(out, "%s%s %llu", i ? ", " : " (",
			trace__errno_name(slots[i], name, sizeof(name)),
			t->open_errnos[slots[i]]);
	if (n)
		fputc(')', out);
}

/* Faults that read mapped data from storage: reads that are no read() call. */
static void print_mapped(FILE *out, const struct trace *t, const struct file_totals *tot)
{
	__u64 judged = tot->fault_seq + tot->fault_rand;

	fprintf(out, "mapped    %llu %s read by %llu faults from storage, %llu pages "
		"(%.1f MiB), %.1f s waiting in faults",
		tot->files_mapped, tot->files_mapped == 1 ? "file" : "files",
		tot->fault_reads, tot->fault_pages,
		tot->fault_pages * (double)t->page_size / MIB, tot->fault_ns / 1e9);
	if (judged)
		fprintf(out, "; random %.1f%% of %llu", emit__pct(tot->fault_rand, judged), judged);
	fputc('\n', out);
}

/* a - b, or 0: counters read at slightly different times. */
static __u64 minus(__u64 a, __u64 b)
{
	return a > b ? a - b : 0;
}

/*
 * The reads by interface, when any went another way than read() or
 * io_uring's could not be seen: the reads line counts them all.
 */
static void print_interfaces(FILE *out, const struct trace *t)
{
	const __u64 *c = t->counters;
	bool uring = kernel__measured(&t->kernel, KL_URING);
	__u64 async = c[C_URING_READS] + c[C_AIO_READS];

	if (!async && uring)
		return;
	fprintf(out, "          by interface: read() %llu", minus(c[C_READS], async));
	if (uring)
		fprintf(out, ", io_uring %llu", c[C_URING_READS]);
	else
		fprintf(out, ", io_uring not measured");
	fprintf(out, ", AIO %llu\n", c[C_AIO_READS]);
}

/*
 * io_uring and AIO reads: their queue depth (on their ring, and on their
 * file), latency, and those not seen whole.
 */
static void print_async(FILE *out, const struct trace *t, const struct file_totals *tot)
{
	const __u64 *c = t->counters;
	const struct hist *h = t->hists;
	char p50[16], p99[16];

	if (!c[C_ASYNC_SUBMITS] && !t->async_in_flight && !t->lost[L_ASYNC_UNTRACKED])
		return;
	fprintf(out, "async     %llu reads submitted and completed, queue depth mean %.1f "
		"(p99 %llu)", c[C_ASYNC_SUBMITS],
		c[C_ASYNC_SUBMITS] ? (double)c[C_ASYNC_DEPTH_SUM] / c[C_ASYNC_SUBMITS] : 0.0,
		hist__quantile(&h[H_ASYNC_DEPTH], 0.99));
	if (tot->async_reads)
		fprintf(out, ", on their file %.1f (max %llu%s)",
			(double)tot->async_depth / tot->async_reads, tot->async_depth_max,
			trace__async_depth_upper_bound(t) ?
			", at most: the kernel skipped runs" : "");
	if (c[C_URING_READS])
		fprintf(out, "; io_uring %s p50, %s p99",
			units__ns(p50, sizeof(p50), hist__quantile(&h[H_URING_LAT], 0.5)),
			units__ns(p99, sizeof(p99), hist__quantile(&h[H_URING_LAT], 0.99)));
	if (c[C_AIO_READS])
		fprintf(out, "; AIO %s p50, %s p99 (submit to reap)",
			units__ns(p50, sizeof(p50), hist__quantile(&h[H_AIO_LAT], 0.5)),
			units__ns(p99, sizeof(p99), hist__quantile(&h[H_AIO_LAT], 0.99)));
	if (t->async_in_flight)
		fprintf(out, "; %llu still in flight at the end", t->async_in_flight);
	if (t->lost[L_ASYNC_UNTRACKED])
		fprintf(out, "; %llu completed whose submit was not seen (before the attach)",
			t->lost[L_ASYNC_UNTRACKED]);
	if (c[C_ASYNC_FILE_LATE])
		fprintf(out, "; %llu whose file was known only at completion (no depth on it)",
			c[C_ASYNC_FILE_LATE]);
	fputc('\n', out);
}

/*
 * Pages added to block devices' own caches: file system metadata read
 * through them (ext4's inode tables, directory and extent blocks), or a
 * device read raw. Names the first few devices that have a record (one
 * evicted from the store, or lost to a full map, is not named).
 */
static void print_device_cache(FILE *out, const struct trace *t)
{
	const __u64 pages = t->counters[C_DEVICE_PAGES];
	const struct store *s = &t->store;
	const char *name;
	char buf[24];
	int named = 0;

	fprintf(out, "; of them %llu (%.1f MiB) file system metadata, in the device cache",
		pages, pages * (double)t->page_size / MIB);
	for (size_t i = 0; i < s->files_cap; i++) {
		const struct file_rec *f = s->files[i];

		if (!f || !file_rec__is_device(f) || !f->c.cache_pages)
			continue;
		if (named++ == 4) {
			fprintf(out, " %s", ELLIPSIS);
			break;
		}
		name = block__name(&t->block, f->ino);
		fprintf(out, "%s %s", named > 1 ? "," : " of",
			name ? name : units__dev(buf, sizeof(buf), f->ino));
	}
}

/* The job's code and libraries: counted apart from the dataset. */
/* Why files were set aside as code: "by name 812 files (900 reads), ..." */
static void print_code_why(FILE *out, const struct file_totals *tot)
{
	static const char *const words[KIND__MAX] = {
		[KIND_EXEC] = "mapped executable", [KIND_NAME] = "by name (.py, .so...)",
		[KIND_PYTHON] = "in a Python module tree",
		[KIND_TREE] = "under a system tree (/usr/lib, /etc, /run...)",
		[KIND_SCRIPT] = "the launched script",
		[KIND_RUNTIME] = "a runtime's own (MPI's session files, shared memory)",
	};
	const char *sep = "";

	fprintf(out, "          set aside as code: ");
	for (int w = KIND_EXEC; w < KIND__MAX; w++) {
		if (!tot->code_why_files[w])
			continue;
		fprintf(out, "%s%s %llu files (%llu reads)", sep, words[w],
			tot->code_why_files[w], tot->code_why_reads[w]);
		sep = "; ";
	}
	fputc('\n', out);
}

static void print_code(FILE *out, const struct file_totals *tot, bool faults)
{
	fprintf(out, "code      %llu files (modules, libraries, system files), %llu opens, "
		"%llu reads, %.1f MiB, %.1f ms, ", tot->code_files, tot->code_opens,
		tot->code_reads, tot->code_read_bytes / MIB, tot->code_ns / 1e6);
	if (faults)
		fprintf(out, "%llu pages faulted in", tot->code_fault_pages);
	else
		fprintf(out, "faults not measured");
	fprintf(out, ": not the dataset\n");
	print_code_why(out, tot);
}

/*
 * Writes of regular files, the syncs that wait for them and the calls that
 * commit a save, when the target made any: a checkpoint's cost.
 */
static void print_writes(FILE *out, const struct trace *t, const struct file_totals *tot)
{
	const __u64 *c = t->counters;
	double d = t->duration_s;
	char buf[32];

	if (!c[C_WRITES] && !c[C_FSYNCS] && !c[C_COMMITS] && !c[C_RENAMES] &&
	    !c[C_WRITE_ERRORS])
		return;
	fprintf(out, "writes    %llu (%.1f/s) to %llu %s, %.1f MiB (%.1f MiB/s)", c[C_WRITES],
		units__rate(c[C_WRITES], d), tot->files_written,
		tot->files_written == 1 ? "file" : "files", c[C_WRITE_BYTES] / MIB,
		units__rate(c[C_WRITE_BYTES] / MIB, d));
	if (c[C_WRITES])
		fprintf(out, ", mean %s", units__size(buf, sizeof(buf),
			(double)c[C_WRITE_BYTES] / c[C_WRITES], true));
	fprintf(out, ", %s in writes; ", units__ns(buf, sizeof(buf), c[C_WRITE_NS]));
	fprintf(out, "fsyncs %llu, %s; ", c[C_FSYNCS], units__ns(buf, sizeof(buf), c[C_FSYNC_NS]));
	fprintf(out, "commits %llu, renames %llu, %s", c[C_COMMITS], c[C_RENAMES],
		units__ns(buf, sizeof(buf), c[C_COMMIT_NS]));
	if (c[C_WRITE_ERRORS])
		fprintf(out, ", %llu errors", c[C_WRITE_ERRORS]);
	fputc('\n', out);
	if (c[C_URING_WRITES] + c[C_AIO_WRITES])
		fprintf(out, "          by interface: write() %llu, io_uring %llu, AIO %llu\n",
			minus(c[C_WRITES], c[C_URING_WRITES] + c[C_AIO_WRITES]),
			c[C_URING_WRITES], c[C_AIO_WRITES]);
}

/*
 * "files": distinct files, and of them the dataset's (what 'iostorm diff'
 * calls files: vfs.files less vfs.code.files) and the code's.
 */
static void print_files(FILE *out, const struct trace *t, const struct file_totals *tot)
{
	bool lower = trace__files_lower_bound(t);
	const char *least = lower ? "at least " : "";

	fprintf(out, "files     %s%llu distinct files", least, tot->files);
	if (tot->code_files)
		fprintf(out, " (%llu of the dataset, %llu code)",
			tot->files > tot->code_files ? tot->files - tot->code_files : 0,
			tot->code_files);
	fprintf(out, ", %llu %s, %.1f files read/s%s\n",
		tot->dirs, tot->dirs == 1 ? "directory" : "directories",
		units__rate(tot->files_read, t->duration_s),
		lower ? " (lower bounds: the kernel's files map was full, see lost)" : "");
}

static void print_reads(FILE *out, const struct trace *t)
{
	const __u64 *c = t->counters;
	double d = t->duration_s;
	char buf[32];

	fprintf(out, "reads     %llu (%.1f/s), %.1f MiB (%.1f MiB/s)", c[C_READS],
		units__rate(c[C_READS], d), c[C_READ_BYTES] / MIB,
		units__rate(c[C_READ_BYTES] / MIB, d));
	if (c[C_READS])
		fprintf(out, ", mean %s", units__size(buf, sizeof(buf),
			(double)c[C_READ_BYTES] / c[C_READS], true));
	if (c[C_READ_ERRORS])
		fprintf(out, ", %llu errors", c[C_READ_ERRORS]);
	fputc('\n', out);
}

static void print_metadata(FILE *out, const struct trace *t)
{
	const __u64 *c = t->counters;

	fprintf(out, "metadata  stats %llu", c[C_STATS]);
	if (c[C_STAT_ERRORS])
		fprintf(out, " (%llu errors)", c[C_STAT_ERRORS]);
	fprintf(out, ", closes %llu, getdents %llu; %.1f%% of read + metadata time\n",
		c[C_CLOSES], c[C_GETDENTS],
		emit__pct(c[C_META_NS], c[C_META_NS] + c[C_READ_NS]));
}

/* The writes on one line, for the one screen: how many, and the time they took. */
static void print_writes_brief(FILE *out, const struct trace *t, const struct file_totals *tot)
{
	const __u64 *c = t->counters;
	char bytes[32], w[32], f[32];

	if (!c[C_WRITES] && !c[C_FSYNCS] && !c[C_COMMITS] && !c[C_RENAMES] &&
	    !c[C_WRITE_ERRORS])
		return;
	fprintf(out, "writes    %llu to %llu %s, %s; %s in writes, fsyncs %llu (%s), commits %llu",
		c[C_WRITES], tot->files_written, tot->files_written == 1 ? "file" : "files",
		units__size(bytes, sizeof(bytes), c[C_WRITE_BYTES], true),
		units__ns(w, sizeof(w), c[C_WRITE_NS]), c[C_FSYNCS],
		units__ns(f, sizeof(f), c[C_FSYNC_NS]), c[C_COMMITS]);
	if (c[C_WRITE_ERRORS])
		fprintf(out, ", %llu errors", c[C_WRITE_ERRORS]);
	fputc('\n', out);
}

/* The code on one line, for the one screen: what it cost, set apart. */
static void print_code_brief(FILE *out, const struct file_totals *tot)
{
	char bytes[32], ns[32];

	fprintf(out, "code      %llu files (modules, libraries, system files), %llu opens, "
		"%llu reads, %s, %s\n", tot->code_files, tot->code_opens,
		tot->code_reads, units__size(bytes, sizeof(bytes), tot->code_read_bytes, true),
		units__ns(ns, sizeof(ns), tot->code_ns));
}

static void print_totals(FILE *out, const struct trace *t, const struct file_totals *tot)
{
	const __u64 *c = t->counters;
	double d = t->duration_s;

	print_files(out, t, tot);
	fprintf(out, "opens     %llu (%.1f/s)", c[C_OPENS], units__rate(c[C_OPENS], d));
	if (c[C_OPEN_ERRORS])
		print_open_errors(out, t);
	fputc('\n', out);
	print_reads(out, t);
	print_interfaces(out, t);
	print_async(out, t, tot);
	print_metadata(out, t);
	print_writes(out, t, tot);
	fprintf(out, "mappings  mmaps %llu, faults ", c[C_MMAPS]);
	if (kernel__measured(&t->kernel, KL_FAULTS))
		fprintf(out, "%llu", c[C_FAULTS]);
	else
		fprintf(out, "not measured");
	fprintf(out, ", page cache +%llu pages (%.1f MiB)", c[C_CACHE_PAGES],
		c[C_CACHE_PAGES] * (double)t->page_size / MIB);
	if (c[C_DEVICE_PAGES])
		print_device_cache(out, t);
	fputc('\n', out);
	if (tot->fault_reads)
		print_mapped(out, t, tot);
	if (tot->code_files)
		print_code(out, tot, kernel__measured(&t->kernel, KL_FAULTS));
	if (tot->reads)
		fprintf(out, "access    consecutive %.1f%%, sequential %.1f%%, random %.1f%% of %llu reads of regular files\n",
			emit__pct(tot->reads_consec, tot->reads),
			emit__pct(tot->reads_seq, tot->reads),
			emit__pct(tot->reads_random, tot->reads), tot->reads);
}

/*
 * The key figures of the one screen, under the same names as the full
 * report's lines: files, opens, reads, metadata, writes, mapped data, and
 * the code on one line.
 */
void report_vfs__brief_text(FILE *out, const struct report *r)
{
	const struct trace *t = r->t;
	const struct file_totals *tot = &r->fa->tot;
	const __u64 *c = t->counters;

	print_files(out, t, tot);
	fprintf(out, "opens     %llu (%.1f/s)", c[C_OPENS], units__rate(c[C_OPENS], t->duration_s));
	if (c[C_OPEN_ERRORS])
		print_open_errors(out, t);
	fputc('\n', out);
	print_reads(out, t);
	print_metadata(out, t);
	print_writes_brief(out, t, tot);
	if (tot->fault_reads)
		print_mapped(out, t, tot);
	if (tot->code_files)
		print_code_brief(out, tot);
}

static void print_distributions(FILE *out, const struct trace *t, const struct hist *sizes)
{
	const struct hist *h = t->hists;
	__u64 rows[64], n;

	n = hist__count(&h[H_READ_LAT]);
	if (n) {
		fprintf(out, "\nread latency, %llu reads\n", n);
		hist__log2_rows(&h[H_READ_LAT], 1000, rows);
		emit__log2_rows(out, rows, "usecs", false);
		emit__lat_quantiles(out, &h[H_READ_LAT]);
		fprintf(out, "  (percentiles are upper bucket bounds, within 6.25%%)\n");
	}
	n = hist__count(&h[H_READ_SIZE]);
	if (n) {
		fprintf(out, "\nread size, %llu reads\n", n);
		hist__log2_rows(&h[H_READ_SIZE], 1, rows);
		emit__log2_rows(out, rows, "bytes", true);
		emit__size_quantiles(out, &h[H_READ_SIZE]);
	}
	if (hist__count(&h[H_OPEN_LAT]) || hist__count(&h[H_STAT_LAT]) ||
	    hist__count(&h[H_WRITE_LAT]) || hist__count(&h[H_FSYNC_LAT]))
		fputc('\n', out);
	n = hist__count(&h[H_OPEN_LAT]);
	if (n) {
		fprintf(out, "open latency (%llu):", n);
		emit__lat_quantiles(out, &h[H_OPEN_LAT]);
	}
	n = hist__count(&h[H_STAT_LAT]);
	if (n) {
		fprintf(out, "stat latency (%llu):", n);
		emit__lat_quantiles(out, &h[H_STAT_LAT]);
	}
	n = hist__count(&h[H_WRITE_LAT]);
	if (n) {
		fprintf(out, "write latency (%llu):", n);
		emit__lat_quantiles(out, &h[H_WRITE_LAT]);
	}
	n = hist__count(&h[H_FSYNC_LAT]);
	if (n) {
		fprintf(out, "fsync latency (%llu):", n);
		emit__lat_quantiles(out, &h[H_FSYNC_LAT]);
	}
	n = hist__count(sizes);
	if (n) {
		fprintf(out, "\nfile size, %llu regular files\n", n);
		hist__log2_rows(sizes, 1, rows);
		emit__log2_rows(out, rows, "bytes", true);
		emit__size_quantiles(out, sizes);
	}
}

void report_vfs__text(FILE *out, const struct report *r)
{
	print_totals(out, r->t, &r->fa->tot);
	print_distributions(out, r->t, &r->file_sizes);
}

/* ---- JSON ---- */

/* vfs.interfaces: the reads of each interface; vfs.async: io_uring's and AIO's queue. */
static void write_interfaces(struct json *j, const struct trace *t,
			     const struct file_totals *tot)
{
	bool faults = kernel__measured(&t->kernel, KL_FAULTS);
	bool uring = kernel__measured(&t->kernel, KL_URING);
	const __u64 *c = t->counters;
	__u64 async = c[C_URING_READS] + c[C_AIO_READS];

	json__key(j, "interfaces");
	json__begin_object(j);
	json__key(j, "syscall");
	json__begin_object(j);
	json__kv_u64(j, "reads", minus(c[C_READS], async));
	json__kv_u64(j, "read_bytes", minus(c[C_READ_BYTES],
					    c[C_URING_READ_BYTES] + c[C_AIO_READ_BYTES]));
	json__kv_u64(j, "writes", minus(c[C_WRITES], c[C_URING_WRITES] + c[C_AIO_WRITES]));
	json__kv_u64(j, "write_bytes", minus(c[C_WRITE_BYTES],
					     c[C_URING_WRITE_BYTES] + c[C_AIO_WRITE_BYTES]));
	json__end_object(j);
	json__key(j, "io_uring");
	json__begin_object(j);
	json__kv_u64_known(j, "reads", c[C_URING_READS], uring);
	json__kv_u64_known(j, "read_bytes", c[C_URING_READ_BYTES], uring);
	json__kv_u64_known(j, "opens", c[C_URING_OPENS], uring);
	json__kv_u64_known(j, "stats", c[C_URING_STATS], uring);
	json__kv_u64_known(j, "closes", c[C_URING_CLOSES], uring);
	json__kv_u64_known(j, "writes", c[C_URING_WRITES], uring);
	json__kv_u64_known(j, "write_bytes", c[C_URING_WRITE_BYTES], uring);
	json__end_object(j);
	json__key(j, "aio");
	json__begin_object(j);
	json__kv_u64(j, "reads", c[C_AIO_READS]);
	json__kv_u64(j, "read_bytes", c[C_AIO_READ_BYTES]);
	json__kv_u64(j, "writes", c[C_AIO_WRITES]);
	json__kv_u64(j, "write_bytes", c[C_AIO_WRITE_BYTES]);
	json__end_object(j);
	json__key(j, "mapped_faults");
	json__begin_object(j);
	json__kv_u64_known(j, "reads", tot->fault_reads, faults);
	json__kv_u64_known(j, "pages", tot->fault_pages, faults);
	json__end_object(j);
	json__end_object(j);
	json__key(j, "async");
	json__begin_object(j);
	json__kv_u64(j, "reads", c[C_ASYNC_SUBMITS]);
	json__kv_double(j, "depth_mean", c[C_ASYNC_SUBMITS] ?
			(double)c[C_ASYNC_DEPTH_SUM] / c[C_ASYNC_SUBMITS] : 0.0);
	json__kv_u64(j, "in_flight_at_end", t->async_in_flight);
	json__kv_u64(j, "untracked", t->lost[L_ASYNC_UNTRACKED]);
	json__kv_double(j, "file_depth_mean", tot->async_reads ?
			(double)tot->async_depth / tot->async_reads : 0.0);
	json__kv_u64(j, "file_depth_max", tot->async_depth_max);
	json__key(j, "file_depth_max_upper_bound");
	json__bool(j, trace__async_depth_upper_bound(t));
	json__kv_u64(j, "file_unresolved", c[C_ASYNC_FILE_LATE]);
	json__end_object(j);
}

static void write_vfs(struct json *j, const struct trace *t, const struct file_totals *tot)
{
	bool faults = kernel__measured(&t->kernel, KL_FAULTS);	/* else null, never 0 */
	bool cache = kernel__measured(&t->kernel, KL_PAGE_CACHE);
	const __u64 *c = t->counters;
	double d = t->duration_s;
	char name[32];

	json__key(j, "vfs");
	json__begin_object(j);
	json__kv_u64(j, "files", tot->files);
	json__kv_u64(j, "dirs", tot->dirs);
	json__key(j, "files_lower_bound");
	json__bool(j, trace__files_lower_bound(t));
	json__kv_u64(j, "opens", c[C_OPENS]);
	json__kv_u64(j, "open_errors", c[C_OPEN_ERRORS]);
	json__key(j, "open_errnos");
	json__begin_object(j);
	for (int e = 0; e < ERRNO_SLOTS; e++)
		if (t->open_errnos[e])
			json__kv_u64(j, trace__errno_name(e, name, sizeof(name)),
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
	json__kv_u64_known(j, "faults", c[C_FAULTS], faults);
	json__kv_u64_known(j, "cache_pages", c[C_CACHE_PAGES], cache);
	json__kv_u64_known(j, "device_cache_pages", c[C_DEVICE_PAGES], cache);
	json__kv_u64(j, "read_ns", c[C_READ_NS]);
	json__kv_u64(j, "meta_ns", c[C_META_NS]);
	json__kv_u64(j, "files_written", tot->files_written);
	json__kv_u64(j, "writes", c[C_WRITES]);
	json__kv_u64(j, "write_bytes", c[C_WRITE_BYTES]);
	json__kv_u64(j, "write_ns", c[C_WRITE_NS]);
	json__kv_u64(j, "write_errors", c[C_WRITE_ERRORS]);
	json__kv_u64(j, "fsyncs", c[C_FSYNCS]);
	json__kv_u64(j, "fsync_ns", c[C_FSYNC_NS]);
	json__kv_u64(j, "commits", c[C_COMMITS]);
	json__kv_u64(j, "renames", c[C_RENAMES]);
	json__kv_u64(j, "commit_ns", c[C_COMMIT_NS]);
	json__kv_u64(j, "reads_consecutive", tot->reads_consec);
	json__kv_u64(j, "reads_sequential", tot->reads_seq);
	json__kv_u64(j, "reads_random", tot->reads_random);
	json__key(j, "mapped");
	json__begin_object(j);
	json__kv_u64_known(j, "files", tot->files_mapped, faults);
	json__kv_u64_known(j, "fault_reads", tot->fault_reads, faults);
	json__kv_u64_known(j, "fault_pages", tot->fault_pages, faults);
	json__kv_u64_known(j, "fault_bytes", tot->fault_pages * (__u64)t->page_size, faults);
	json__kv_u64_known(j, "fault_reads_sequential", tot->fault_seq, faults);
	json__kv_u64_known(j, "fault_reads_random", tot->fault_rand, faults);
	json__kv_u64_known(j, "fault_ns", tot->fault_ns, faults);
	json__end_object(j);
	json__key(j, "code");
	json__begin_object(j);
	json__kv_u64(j, "files", tot->code_files);
	json__kv_u64(j, "opens", tot->code_opens);
	json__kv_u64(j, "reads", tot->code_reads);
	json__kv_u64(j, "read_bytes", tot->code_read_bytes);
	json__kv_u64(j, "stats", tot->code_stats);
	json__kv_u64(j, "read_ns", tot->code_read_ns);
	json__kv_u64(j, "meta_ns", tot->code_meta_ns);
	json__kv_u64(j, "ns", tot->code_ns);
	json__kv_u64_known(j, "fault_pages", tot->code_fault_pages, faults);
	json__key(j, "why");
	json__begin_object(j);
	for (int w = KIND_EXEC; w < KIND__MAX; w++) {
		json__key(j, kind__why_key(w));
		json__begin_object(j);
		json__kv_u64(j, "files", tot->code_why_files[w]);
		json__kv_u64(j, "reads", tot->code_why_reads[w]);
		json__end_object(j);
	}
	json__end_object(j);
	json__end_object(j);
	write_interfaces(j, t, tot);
	json__key(j, "rates");
	json__begin_object(j);
	json__kv_double(j, "files_per_s", units__rate(tot->files_read, d));
	json__kv_double(j, "opens_per_s", units__rate(c[C_OPENS], d));
	json__kv_double(j, "reads_per_s", units__rate(c[C_READS], d));
	json__kv_double(j, "read_bytes_per_s", units__rate(c[C_READ_BYTES], d));
	json__kv_double(j, "writes_per_s", units__rate(c[C_WRITES], d));
	json__kv_double(j, "write_bytes_per_s", units__rate(c[C_WRITE_BYTES], d));
	json__end_object(j);
	json__end_object(j);
}

static void write_hists(struct json *j, const struct trace *t, const struct hist *sizes)
{
	const struct hist *h = t->hists;

	json__key(j, "latency");
	json__begin_object(j);
	emit__json_hist(j, "read", &h[H_READ_LAT], "ns");
	emit__json_hist(j, "open", &h[H_OPEN_LAT], "ns");
	emit__json_hist(j, "stat", &h[H_STAT_LAT], "ns");
	emit__json_hist(j, "close", &h[H_CLOSE_LAT], "ns");
	emit__json_hist(j, "getdents", &h[H_GETDENTS_LAT], "ns");
	emit__json_hist(j, "io_uring", &h[H_URING_LAT], "ns");
	emit__json_hist(j, "aio", &h[H_AIO_LAT], "ns");
	emit__json_hist(j, "write", &h[H_WRITE_LAT], "ns");
	emit__json_hist(j, "fsync", &h[H_FSYNC_LAT], "ns");
	json__end_object(j);
	json__key(j, "sizes");
	json__begin_object(j);
	emit__json_hist(j, "read", &h[H_READ_SIZE], "bytes");
	emit__json_hist(j, "file", sizes, "bytes");
	emit__json_hist(j, "async_depth", &h[H_ASYNC_DEPTH], "requests");
	json__end_object(j);
}

void report_vfs__json(struct json *j, const struct report *r)
{
	write_vfs(j, r->t, &r->fa->tot);
	write_hists(j, r->t, &r->file_sizes);
}
