// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Reports from a small trace whose every number is known: the JSON parsed
 * back with jansson, key by key; the text searched for its lines; and
 * failures (full disk, file size limit) that must leave no partial report.
 */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>
#include "lib/json.h"
#include "lib/units.h"
#include "report/report_int.h"
#include "report/report_test.h"
#include "fixture.h"
#include "unit.h"

#define MIB	(1024 * 1024)
#define DEV_8_1	(8 << 20 | 1)

static void add_file(struct trace *t, __u32 dev, __u64 ino, const char *path,
		     struct file_stats fs)
{
	struct file_key k = { .dev = dev, .ino = ino };

	if (path) {
		snprintf(fs.path, sizeof(fs.path), "%s", path);
		fs.path_len = strlen(path);
		fs.flags |= FILE_F_PATH;
	}
	CHECK(!store__merge_file(&t->store, &k, &fs));
}

static void add_thread(struct trace *t, __u32 tid, const char *comm,
		       struct thread_stats ts)
{
	ts.tgid = 42;
	snprintf(ts.comm, sizeof(ts.comm), "%s", comm);
	CHECK(!threads__merge(&t->store.threads, tid, &ts));
}

/*
 * Two regular files read in /data/train, the directory itself listed, and
 * one file stat-ed whose path is unknown; two threads.
 */
static struct trace *trace_sample(void)
{
	struct trace *t = calloc(1, sizeof(*t));
	__u64 *c;

	if (!t || store__init(&t->store)) {
		free(t);
		return NULL;
	}
	c = t->counters;
	snprintf(t->target, sizeof(t->target), "pid 42 (python)");
	t->duration_s = 2.0;
	t->exit_status = -1;
	t->stopped_by = STOP_SIGNAL;
	add_file(t, DEV_8_1, 100, "/data/train/a.bin", (struct file_stats){
		.flags = FILE_F_REG | FILE_F_READ, .size = 4 * MIB, .opens = 1,
		.closes = 1, .reads = 4, .read_bytes = 4 * MIB, .read_ns = 4000000,
		.read_ns_max = 1100000, .reads_consec = 3, .reads_seq = 3,
		.first_off = 0, .first_end = MIB, .last_end = 4 * MIB,
		.max_end = 4 * MIB, .meta_ns = 1000, .first_ts = 10, .last_ts = 20,
		.read_ts = 15 });
	add_file(t, DEV_8_1, 101, "/data/train/b.bin", (struct file_stats){
		.flags = FILE_F_REG | FILE_F_READ, .size = MIB, .opens = 1,
		.closes = 1, .reads = 2, .read_bytes = 8192, .read_ns = 1000000,
		.first_off = 100, .first_end = 4196, .last_end = 4096, .max_end = 4196,
		.writes = 3, .write_bytes = MIB, .write_ns = 300000, .fsyncs = 1,
		.fsync_ns = 700000, .commits = 1, .commit_ns = 5000 });
	add_file(t, DEV_8_1, 2, "/data/train", (struct file_stats){
		.flags = FILE_F_DIR, .opens = 1, .getdents = 3, .meta_ns = 500000 });
	add_file(t, 9 << 20 | 2, 77, NULL, (struct file_stats){
		.flags = FILE_F_REG, .size = 10, .stats = 1, .meta_ns = 100 });
	add_thread(t, 100, "python", (struct thread_stats){
		.opens = 2, .reads = 4, .read_bytes = 4 * MIB, .read_ns = 4000000,
		.meta_ns = 1000 });
	add_thread(t, 101, "worker", (struct thread_stats){
		.opens = 1, .reads = 2, .read_bytes = 8192, .read_ns = 1000000,
		.stats = 1, .meta_ns = 500100 });
	/* The worker wrote b.bin, synced it and closed it, then renamed another. */
	threads__find(&t->store.threads, 101)->w = (struct write_counters){
		.writes = 3, .write_bytes = MIB, .write_ns = 300000, .fsyncs = 1,
		.fsync_ns = 700000, .commits = 1, .renames = 1, .commit_ns = 9000 };
	c[C_WRITES] = 3;
	c[C_WRITE_BYTES] = MIB;
	c[C_WRITE_NS] = 300000;
	c[C_WRITE_ERRORS] = 1;
	c[C_FSYNCS] = 1;
	c[C_FSYNC_NS] = 700000;
	c[C_COMMITS] = 1;
	c[C_RENAMES] = 1;
	c[C_COMMIT_NS] = 9000;
	c[C_URING_WRITES] = 1;
	c[C_URING_WRITE_BYTES] = 4096;
	hist__add(&t->hists[H_WRITE_LAT], 100000, 3);
	hist__add(&t->hists[H_FSYNC_LAT], 700000, 1);
	c[C_OPENS] = 3;
	c[C_OPEN_ERRORS] = 5;
	t->open_errnos[ENOENT] = 3;
	t->open_errnos[EACCES] = 2;
	c[C_READS] = 6;
	c[C_READ_BYTES] = 4 * MIB + 8192;
	c[C_READ_NS] = 5000000;
	c[C_URING_READS] = 2;		/* b.bin's two reads went through io_uring */
	c[C_URING_READ_BYTES] = 8192;
	c[C_ASYNC_SUBMITS] = 2;
	c[C_ASYNC_DEPTH_SUM] = 3;
	hist__add(&t->hists[H_URING_LAT], 500000, 2);
	t->async_in_flight = 1;
	/* On b.bin: depths 1 and 2 at submit, one more still in flight. */
	CHECK(!store__add_async(&t->store, store__find(&t->store, DEV_8_1, 101, 0),
				&(struct async_file){ .reads = 2, .depth = 3, .depth_max = 2,
						      .inflight = 1 }));
	c[C_STATS] = 1;
	c[C_CLOSES] = 2;
	c[C_GETDENTS] = 3;
	c[C_META_NS] = 501100;
	c[C_CACHE_PAGES] = 1026;
	hist__add(&t->hists[H_READ_LAT], 1000000, 4);
	hist__add(&t->hists[H_READ_LAT], 500000, 2);
	hist__add(&t->hists[H_READ_SIZE], MIB, 4);
	hist__add(&t->hists[H_READ_SIZE], 4096, 2);
	hist__add(&t->hists[H_OPEN_LAT], 20000, 3);
	hist__add(&t->hists[H_STAT_LAT], 100, 1);
	return t;
}

static void trace_free(struct trace *t)
{
	if (!t)
		return;
	store__free(&t->store);
	timeline__free(&t->timeline);
	free(t);
}

/* Does obj hold exactly these keys? */
static void check_keys(json_t *obj, const char *const *keys, size_t n, const char *what)
{
	CHECK(json_is_object(obj));
	for (size_t i = 0; i < n; i++)
		if (!json_object_get(obj, keys[i]))
			unit__fail(__FILE__, __LINE__, "%s: no key '%s'", what, keys[i]);
	if (json_object_size(obj) != n)
		unit__fail(__FILE__, __LINE__, "%s: %zu keys, want %zu", what,
			   json_object_size(obj), n);
}

#define CHECK_KEYS(obj, what, ...)					\
	do {								\
		static const char *const k_[] = { __VA_ARGS__ };	\
		check_keys(obj, k_, sizeof(k_) / sizeof(k_[0]), what);	\
	} while (0)

#define HIST_KEYS "unit", "count", "p50", "p90", "p99", "p999", "max", "rel_error", "buckets"

static __u64 u64_at(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_integer(v)) {
		unit__fail(__FILE__, __LINE__, "'%s' is not an integer", key);
		return ~0ULL;
	}
	return (__u64)json_integer_value(v);
}

static const char *str_at(json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

static json_t *load(const char *path)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, 0, &jerr);

	if (!root)
		fprintf(stderr, "jansson: %s: %s at line %d\n", path, jerr.text, jerr.line);
	return root;
}

static void check_hist(json_t *h, const struct hist *want, const char *unit)
{
	json_t *b;
	size_t n = 0;

	CHECK_KEYS(h, "hist", HIST_KEYS);
	CHECK_STR(str_at(h, "unit"), unit);
	CHECK_EQ_U64(u64_at(h, "count"), hist__count(want));
	CHECK_EQ_U64(u64_at(h, "p50"), hist__quantile(want, 0.5));
	CHECK_EQ_U64(u64_at(h, "p99"), hist__quantile(want, 0.99));
	CHECK_EQ_U64(u64_at(h, "p999"), hist__quantile(want, 0.999));
	CHECK_EQ_U64(u64_at(h, "max"), hist__max(want));
	CHECK(json_real_value(json_object_get(h, "rel_error")) == 0.0625);
	b = json_object_get(h, "buckets");
	for (int i = 0; i < HIST_SLOTS; i++)
		n += want->slots[i] != 0;
	REQUIRE(json_is_array(b));
	CHECK_EQ_U64(json_array_size(b), n);
	for (size_t i = 0; i < json_array_size(b); i++) {
		json_t *row = json_array_get(b, i);
		__u64 lo = json_integer_value(json_array_get(row, 0));
		__u32 s = hist__slot(lo);

		CHECK_EQ_U64(json_array_size(row), 3);
		CHECK_EQ_U64(json_integer_value(json_array_get(row, 1)), hist__upper(s));
		CHECK_EQ_U64(json_integer_value(json_array_get(row, 2)), want->slots[s]);
	}
}

static void check_sample_json(json_t *root, const struct trace *t)
{
	json_t *vfs, *rates, *files, *f, *dirs, *d, *threads, *lost, *errs;
	struct hist sizes = {};

	CHECK_KEYS(root, "top", "schema", "target", "duration_s", "stopped_by",
		   "exit_status", "kernel", "verdict", "findings", "phases", "phases_unsplit", "stall",
		   "vfs", "latency",
		   "sizes", "mounts", "block", "layers", "fuse", "nfs", "files", "views", "dirs",
		   "threads", "thread_groups", "cgroups", "cgroups_folded", "lost", "store",
		   "timeline");
	/* Not probed (a trace made here): every layer counts as measured. */
	CHECK_KEYS(json_object_get(root, "kernel"), "kernel", "release", "probed", "layers",
		   "fallbacks", "forced", "syscall_second_chance");
	CHECK(json_is_false(json_object_get(json_object_get(root, "kernel"), "probed")));
	CHECK_KEYS(json_object_get(json_object_get(root, "kernel"), "layers"), "kernel.layers",
		   "syscalls", "page_cache", "faults", "block", "fuse", "sched", "io_uring", "nfs");
	CHECK(json_is_true(json_object_get(json_object_get(json_object_get(json_object_get(
		root, "kernel"), "layers"), "fuse"), "measured")));
	CHECK_STR(str_at(root, "schema"), "iostorm.report/1");
	CHECK_STR(str_at(root, "target"), "pid 42 (python)");
	CHECK(json_number_value(json_object_get(root, "duration_s")) == 2.0);
	CHECK_STR(str_at(root, "stopped_by"), "signal");
	CHECK(json_is_null(json_object_get(root, "exit_status")));

	vfs = json_object_get(root, "vfs");
	CHECK_KEYS(vfs, "vfs", "files", "dirs", "files_lower_bound", "opens", "open_errors",
		   "open_errnos",
		   "reads", "read_bytes", "read_errors", "stats", "stat_errors",
		   "closes", "getdents", "mmaps", "faults", "cache_pages",
		   "device_cache_pages", "read_ns", "meta_ns", "files_written", "writes",
		   "write_bytes", "write_ns", "write_errors", "fsyncs", "fsync_ns", "commits",
		   "renames", "commit_ns", "reads_consecutive",
		   "reads_sequential", "reads_random", "mapped", "code", "interfaces", "async",
		   "rates");
	CHECK_EQ_U64(u64_at(vfs, "files_written"), 1);
	CHECK_EQ_U64(u64_at(vfs, "writes"), 3);
	CHECK_EQ_U64(u64_at(vfs, "write_bytes"), MIB);
	CHECK_EQ_U64(u64_at(vfs, "write_ns"), 300000);
	CHECK_EQ_U64(u64_at(vfs, "write_errors"), 1);
	CHECK_EQ_U64(u64_at(vfs, "fsyncs"), 1);
	CHECK_EQ_U64(u64_at(vfs, "fsync_ns"), 700000);
	CHECK_EQ_U64(u64_at(vfs, "commits"), 1);
	CHECK_EQ_U64(u64_at(vfs, "renames"), 1);
	CHECK_EQ_U64(u64_at(vfs, "commit_ns"), 9000);
	CHECK_EQ_U64(u64_at(vfs, "files"), 3);
	CHECK_EQ_U64(u64_at(vfs, "dirs"), 1);
	CHECK(json_is_boolean(json_object_get(vfs, "files_lower_bound")));
	CHECK(json_is_true(json_object_get(vfs, "files_lower_bound")) ==
	      (t->lost[L_FILES_FULL] > 0));
	CHECK_EQ_U64(u64_at(vfs, "opens"), 3);
	CHECK_EQ_U64(u64_at(vfs, "open_errors"), 5);
	errs = json_object_get(vfs, "open_errnos");
	CHECK_KEYS(errs, "open_errnos", "ENOENT", "EACCES");
	CHECK_EQ_U64(u64_at(errs, "ENOENT"), 3);
	CHECK_EQ_U64(u64_at(errs, "EACCES"), 2);
	CHECK_EQ_U64(u64_at(vfs, "reads"), 6);
	CHECK_EQ_U64(u64_at(vfs, "read_bytes"), 4 * MIB + 8192);
	CHECK_EQ_U64(u64_at(vfs, "cache_pages"), 1026);
	CHECK_EQ_U64(u64_at(vfs, "device_cache_pages"), 0);
	CHECK_EQ_U64(u64_at(vfs, "read_ns"), 5000000);
	CHECK_EQ_U64(u64_at(vfs, "meta_ns"), 501100);
	/* a.bin: 4 consecutive (its first at 0); b.bin: 2 random */
	CHECK_EQ_U64(u64_at(vfs, "reads_consecutive"), 4);
	CHECK_EQ_U64(u64_at(vfs, "reads_sequential"), 4);
	CHECK_EQ_U64(u64_at(vfs, "reads_random"), 2);
	/* By interface: io_uring's part of the reads, the rest read() */
	CHECK_KEYS(json_object_get(vfs, "interfaces"), "interfaces", "syscall", "io_uring",
		   "aio", "mapped_faults");
	CHECK_EQ_U64(u64_at(json_object_get(json_object_get(vfs, "interfaces"), "syscall"),
			    "reads"), 4);
	CHECK_EQ_U64(u64_at(json_object_get(json_object_get(vfs, "interfaces"), "syscall"),
			    "read_bytes"), 4 * MIB);
	CHECK_EQ_U64(u64_at(json_object_get(json_object_get(vfs, "interfaces"), "io_uring"),
			    "reads"), 2);
	CHECK_EQ_U64(u64_at(json_object_get(json_object_get(vfs, "interfaces"), "aio"),
			    "reads"), 0);
	/* Writes likewise: io_uring's one, the rest write() */
	CHECK_EQ_U64(u64_at(json_object_get(json_object_get(vfs, "interfaces"), "syscall"),
			    "writes"), 2);
	CHECK_EQ_U64(u64_at(json_object_get(json_object_get(vfs, "interfaces"), "syscall"),
			    "write_bytes"), MIB - 4096);
	CHECK_EQ_U64(u64_at(json_object_get(json_object_get(vfs, "interfaces"), "io_uring"),
			    "writes"), 1);
	CHECK_EQ_U64(u64_at(json_object_get(json_object_get(vfs, "interfaces"), "aio"),
			    "writes"), 0);
	CHECK_KEYS(json_object_get(vfs, "async"), "async", "reads", "depth_mean",
		   "in_flight_at_end", "untracked", "file_depth_mean", "file_depth_max",
		   "file_depth_max_upper_bound", "file_unresolved");
	CHECK(json_number_value(json_object_get(json_object_get(vfs, "async"),
						"file_depth_mean")) == 1.5);
	CHECK_EQ_U64(u64_at(json_object_get(vfs, "async"), "file_depth_max"), 2);
	CHECK_EQ_U64(u64_at(json_object_get(vfs, "async"), "file_unresolved"), 0);
	CHECK(json_number_value(json_object_get(json_object_get(vfs, "async"),
						"depth_mean")) == 1.5);
	CHECK_EQ_U64(u64_at(json_object_get(vfs, "async"), "in_flight_at_end"), 1);
	rates = json_object_get(vfs, "rates");
	CHECK_KEYS(rates, "rates", "files_per_s", "opens_per_s", "reads_per_s",
		   "read_bytes_per_s", "writes_per_s", "write_bytes_per_s");
	CHECK(json_number_value(json_object_get(rates, "writes_per_s")) == 1.5);
	CHECK(json_number_value(json_object_get(rates, "write_bytes_per_s")) == MIB / 2);
	CHECK(json_number_value(json_object_get(rates, "files_per_s")) == 1.0);
	CHECK(json_number_value(json_object_get(rates, "opens_per_s")) == 1.5);
	CHECK(json_number_value(json_object_get(rates, "reads_per_s")) == 3.0);
	CHECK(json_number_value(json_object_get(rates, "read_bytes_per_s")) ==
	      (4.0 * MIB + 8192) / 2);

	CHECK_KEYS(json_object_get(root, "latency"), "latency",
		   "read", "open", "stat", "close", "getdents", "io_uring", "aio", "write",
		   "fsync");
	check_hist(json_object_get(json_object_get(root, "latency"), "write"),
		   &t->hists[H_WRITE_LAT], "ns");
	check_hist(json_object_get(json_object_get(root, "latency"), "fsync"),
		   &t->hists[H_FSYNC_LAT], "ns");
	check_hist(json_object_get(json_object_get(root, "latency"), "read"),
		   &t->hists[H_READ_LAT], "ns");
	check_hist(json_object_get(json_object_get(root, "latency"), "close"),
		   &t->hists[H_CLOSE_LAT], "ns");
	check_hist(json_object_get(json_object_get(root, "latency"), "io_uring"),
		   &t->hists[H_URING_LAT], "ns");
	CHECK_KEYS(json_object_get(root, "sizes"), "sizes", "read", "file", "async_depth");
	check_hist(json_object_get(json_object_get(root, "sizes"), "read"),
		   &t->hists[H_READ_SIZE], "bytes");
	hist__add(&sizes, 4 * MIB, 1);
	hist__add(&sizes, MIB, 1);
	hist__add(&sizes, 10, 1);
	check_hist(json_object_get(json_object_get(root, "sizes"), "file"), &sizes, "bytes");

	files = json_object_get(root, "files");
	REQUIRE(json_is_array(files));
	CHECK_EQ_U64(json_array_size(files), 4);
	f = json_array_get(files, 0);
	CHECK_KEYS(f, "file", "path", "dev", "mount", "ino", "gen", "type", "size", "opens", "closes",
		   "stats", "reads", "read_bytes", "read_ns", "read_ns_max",
		   "reads_consecutive", "reads_sequential", "reads_random",
		   "max_byte_read", "meta_ns", "getdents", "mmaps", "faults",
		   "cache_pages", "fault_reads", "fault_pages", "fault_reads_sequential",
		   "fault_reads_random", "fault_ns", "async_reads", "async_depth_mean",
		   "async_depth_max", "async_inflight_end", "async_unresolved", "kind",
		   "writes", "write_bytes", "write_ns", "fsyncs", "fsync_ns", "commits",
		   "commit_ns", "first_ts_ns", "last_ts_ns", "first_read_ts_ns");
	CHECK_EQ_U64(u64_at(f, "writes"), 0);
	CHECK_EQ_U64(u64_at(f, "async_reads"), 0);
	CHECK_STR(str_at(f, "path"), "/data/train/a.bin");
	CHECK_STR(str_at(f, "dev"), "8:1");
	CHECK_EQ_U64(u64_at(f, "ino"), 100);
	CHECK_STR(str_at(f, "type"), "file");
	CHECK_EQ_U64(u64_at(f, "reads_consecutive"), 4);
	CHECK_EQ_U64(u64_at(f, "reads_random"), 0);
	CHECK_EQ_U64(u64_at(f, "max_byte_read"), 4 * MIB - 1);
	CHECK_EQ_U64(u64_at(f, "read_ns_max"), 1100000);
	CHECK_EQ_U64(u64_at(f, "first_ts_ns"), 10);
	CHECK_EQ_U64(u64_at(f, "last_ts_ns"), 20);
	CHECK_EQ_U64(u64_at(f, "first_read_ts_ns"), 15);
	f = json_array_get(files, 1);
	CHECK_STR(str_at(f, "path"), "/data/train/b.bin");
	CHECK_EQ_U64(u64_at(f, "reads_random"), 2);
	CHECK_EQ_U64(u64_at(f, "async_reads"), 2);
	CHECK(json_number_value(json_object_get(f, "async_depth_mean")) == 1.5);
	CHECK_EQ_U64(u64_at(f, "async_depth_max"), 2);
	CHECK_EQ_U64(u64_at(f, "async_inflight_end"), 1);
	CHECK_EQ_U64(u64_at(f, "async_unresolved"), 0);
	CHECK_EQ_U64(u64_at(f, "writes"), 3);
	CHECK_EQ_U64(u64_at(f, "write_bytes"), MIB);
	CHECK_EQ_U64(u64_at(f, "write_ns"), 300000);
	CHECK_EQ_U64(u64_at(f, "fsyncs"), 1);
	CHECK_EQ_U64(u64_at(f, "fsync_ns"), 700000);
	CHECK_EQ_U64(u64_at(f, "commits"), 1);
	CHECK_EQ_U64(u64_at(f, "commit_ns"), 5000);
	f = json_array_get(files, 2);
	CHECK_STR(str_at(f, "type"), "dir");
	CHECK_EQ_U64(u64_at(f, "getdents"), 3);
	f = json_array_get(files, 3);
	CHECK(json_is_null(json_object_get(f, "path")));
	CHECK(json_is_null(json_object_get(f, "max_byte_read")));
	CHECK_STR(str_at(f, "dev"), "9:2");

	dirs = json_object_get(root, "dirs");
	REQUIRE(json_is_array(dirs));
	CHECK_EQ_U64(json_array_size(dirs), 2);
	d = json_array_get(dirs, 0);
	CHECK_KEYS(d, "dir", "path", "files", "opens", "reads", "read_bytes",
		   "read_ns", "meta_ns", "stats", "writes", "write_bytes", "write_ns");
	CHECK_EQ_U64(u64_at(d, "writes"), 3);
	CHECK_EQ_U64(u64_at(d, "write_bytes"), MIB);
	CHECK_STR(str_at(d, "path"), "/data/train");
	CHECK_EQ_U64(u64_at(d, "files"), 2);
	CHECK_EQ_U64(u64_at(d, "opens"), 3);
	CHECK_EQ_U64(u64_at(d, "reads"), 6);
	CHECK_EQ_U64(u64_at(d, "meta_ns"), 501000);
	d = json_array_get(dirs, 1);
	CHECK(json_is_null(json_object_get(d, "path")));
	CHECK_EQ_U64(u64_at(d, "files"), 1);
	CHECK_EQ_U64(u64_at(d, "stats"), 1);

	threads = json_object_get(root, "threads");
	REQUIRE(json_is_array(threads));
	CHECK_EQ_U64(json_array_size(threads), 2);
	CHECK_KEYS(json_array_get(threads, 0), "thread", "tid", "pid", "comm", "opens",
		   "reads", "read_bytes", "read_ns", "stats", "meta_ns", "cache_pages", "fault_reads",
		   "async_reads", "async_depth_mean", "cpu_ns", "io_wait_ns", "runq_ns", "sleep_ns",
		   "writes", "write_bytes", "write_ns", "fsyncs", "fsync_ns", "commits", "renames",
		   "commit_ns");
	CHECK_EQ_U64(u64_at(json_array_get(threads, 1), "writes"), 3);
	CHECK_EQ_U64(u64_at(json_array_get(threads, 1), "write_bytes"), MIB);
	CHECK_EQ_U64(u64_at(json_array_get(threads, 1), "fsyncs"), 1);
	CHECK_EQ_U64(u64_at(json_array_get(threads, 1), "commits"), 1);
	CHECK_EQ_U64(u64_at(json_array_get(threads, 1), "renames"), 1);
	CHECK_EQ_U64(u64_at(json_array_get(threads, 1), "commit_ns"), 9000);
	CHECK_EQ_U64(u64_at(json_array_get(threads, 0), "tid"), 100);
	CHECK_EQ_U64(u64_at(json_array_get(threads, 0), "pid"), 42);
	CHECK_STR(str_at(json_array_get(threads, 0), "comm"), "python");
	CHECK_EQ_U64(u64_at(json_array_get(threads, 1), "meta_ns"), 500100);

	lost = json_object_get(root, "lost");
	CHECK_KEYS(lost, "lost", "total", "files_map_full", "threads_map_full",
		   "inflight", "fd_unresolved", "statbuf",
		   "block_reqs_full", "block_stats_full", "block_hists_full",
		   "block_devs_full", "block_missed_full", "wakes_full", "fuse_reqs_full",
		   "fuse_stats_full", "fuse_hists_full", "fuse_conns_full", "fuse_ends_missed",
		   "async_reqs_full", "async_untracked", "aio_batch", "async_threads_full",
		   "async_files_full", "forks_full", "recv_threads_full", "nfs_stats_full",
		   "nfs_hists_full", "nfs_clients_full", "write_threads_full",
		   "async_file_sums_full", "scratch_buffers_busy", "prog_misses");
	CHECK_EQ_U64(u64_at(lost, "total"), trace__lost_total(t));
	CHECK_EQ_U64(u64_at(lost, "files_map_full"), t->lost[L_FILES_FULL]);
	CHECK_EQ_U64(u64_at(lost, "prog_misses"), t->prog_misses);

	CHECK_KEYS(json_object_get(root, "store"), "store", "files", "bytes",
		   "files_max", "files_evicted", "threads_max", "threads_evicted",
		   "kernel_maps_bytes", "file_slots", "drains", "wake_pairs", "wake_pairs_high",
		   "kernel_tables");
	CHECK_EQ_U64(u64_at(json_object_get(root, "store"), "files"), 4);
	CHECK_EQ_U64(u64_at(json_object_get(root, "store"), "file_slots"),
		     t->counters[C_FILE_ENTRIES]);
	CHECK_EQ_U64(u64_at(json_object_get(root, "store"), "bytes"),
		     store__bytes(&t->store));
	CHECK_EQ_U64(u64_at(json_object_get(root, "store"), "kernel_maps_bytes"),
		     t->maps_bytes);
}

/* Entries of dir other than "." and "..". */
static int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 4096);

	if (f && buf)
		fread(buf, 1, 4095, f);
	if (f)
		fclose(f);
	return buf;
}

TEST(report_json_sample)
{
	struct trace *t = trace_sample();
	char dir[] = "/tmp/iostorm-unit-XXXXXX", path[64];
	json_t *root;

	REQUIRE(t);
	REQUIRE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/report.json", dir);
	CHECK_EQ_INT(json_written(path, t, NULL), 0);
	CHECK_EQ_INT(dir_entries(dir), 1);		/* no temporary left */
	if (getenv("UNIT_SHOW"))
		CHECK_EQ_INT(json_written("-", t, NULL), 0);
	root = load(path);
	CHECK(root);
	if (root)
		check_sample_json(root, t);
	json_decref(root);

	/* Lost events and an exit status, written over the first report. */
	t->lost[L_FILES_FULL] = 7;
	t->lost[L_STATBUF] = 1;
	t->prog_misses = 2;
	t->maps_bytes = 63308688;
	t->exit_status = 3;
	t->stopped_by = STOP_TARGET_EXIT;
	CHECK_EQ_INT(json_written(path, t, NULL), 0);
	root = load(path);
	REQUIRE(root);
	CHECK_EQ_U64(u64_at(json_object_get(root, "lost"), "total"), 10);
	CHECK_EQ_U64(u64_at(json_object_get(root, "lost"), "statbuf"), 1);
	CHECK_EQ_U64(u64_at(root, "exit_status"), 3);
	CHECK_STR(str_at(root, "stopped_by"), "target_exit");
	json_decref(root);

	/* io_uring not measured (no_uring): a file's async figures are null, never 0. */
	t->kernel.probed = true;
	for (int l = 0; l < KL__MAX; l++)
		t->kernel.layers[l].measured = l != KL_URING;
	CHECK_EQ_INT(json_written(path, t, NULL), 0);
	root = load(path);
	REQUIRE(root);
	for (size_t i = 0; i < 2; i++) {
		json_t *f = json_array_get(json_object_get(root, "files"), i);

		CHECK(json_is_null(json_object_get(f, "async_reads")));
		CHECK(json_is_null(json_object_get(f, "async_depth_mean")));
		CHECK(json_is_null(json_object_get(f, "async_depth_max")));
		CHECK(json_is_null(json_object_get(f, "async_inflight_end")));
		CHECK(json_is_null(json_object_get(f, "async_unresolved")));
	}
	json_decref(root);
	unlink(path);
	rmdir(dir);
	trace_free(t);
}

TEST(report_json_empty)
{
	struct trace *t = calloc(1, sizeof(*t));
	char dir[] = "/tmp/iostorm-unit-XXXXXX", path[64];
	json_t *root;

	REQUIRE(t);
	REQUIRE(!store__init(&t->store));
	t->exit_status = 0;
	REQUIRE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/empty.json", dir);
	CHECK_EQ_INT(json_written(path, t, NULL), 0);
	root = load(path);
	CHECK(root);
	if (root) {
		CHECK_EQ_U64(json_array_size(json_object_get(root, "files")), 0);
		CHECK(json_is_object(json_object_get(json_object_get(root, "vfs"), "open_errnos")));
		CHECK_EQ_U64(u64_at(json_object_get(json_object_get(root, "latency"), "read"), "p99"), 0);
		CHECK(json_number_value(json_object_get(json_object_get(
			json_object_get(root, "vfs"), "rates"), "opens_per_s")) == 0);
		CHECK_EQ_U64(u64_at(root, "exit_status"), 0);
	}
	json_decref(root);
	unlink(path);
	rmdir(dir);
	trace_free(t);
}

/* A full disk: -ENOSPC, and nothing left behind next to the target. */
TEST(report_json_full_disk)
{
	struct trace *t = trace_sample();
	glob_t g;

	REQUIRE(t);
	CHECK_EQ_INT(json_written("/dev/full", t, NULL), -ENOSPC);
	CHECK_EQ_INT(glob("/dev/full.tmp.*", 0, NULL, &g), GLOB_NOMATCH);
	globfree(&g);
	trace_free(t);
}

/*
 * A limit hit halfway through a regular file (RLIMIT_FSIZE stands in for a
 * full file system): the old report stays whole and no temporary remains.
 */
TEST(report_json_no_partial_file)
{
	struct trace *t = trace_sample();
	char dir[] = "/tmp/iostorm-unit-XXXXXX", path[64];
	struct rlimit old, lim;
	void (*old_handler)(int);
	char *text;
	FILE *f;

	REQUIRE(t);
	REQUIRE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/report.json", dir);
	f = fopen(path, "w");
	REQUIRE(f);
	fputs("{\"old\": true}\n", f);
	fclose(f);
	REQUIRE(!getrlimit(RLIMIT_FSIZE, &old));
	lim = old;
	lim.rlim_cur = 1000;
	old_handler = signal(SIGXFSZ, SIG_IGN);
	REQUIRE(!setrlimit(RLIMIT_FSIZE, &lim));
	CHECK_EQ_INT(json_written(path, t, NULL), -EFBIG);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, old_handler);
	CHECK_EQ_INT(dir_entries(dir), 1);
	text = read_all(path);
	CHECK_STR(text, "{\"old\": true}\n");
	free(text);
	/* No directory to write in: an error, not a crash. */
	CHECK_EQ_INT(json_written("/nonexistent-dir/r.json", t, NULL), -ENOENT);
	unlink(path);
	rmdir(dir);
	trace_free(t);
}

/* The text report, full (every table) unless o says otherwise. */
static char *text_of(const struct trace *t, const struct report_opts *o)
{
	static const struct report_opts full = { .full = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	CHECK_EQ_INT(text_printed(f, t, NULL, o ? o : &full), 0);
	fclose(f);
	if (getenv("UNIT_SHOW"))
		fputs(buf, stdout);
	return buf;
}

TEST(report_text_sample)
{
	struct trace *t = trace_sample();
	struct report_opts o = { .top = 2, .full = true };
	char *s;

	REQUIRE(t);
	s = text_of(t, NULL);
	REQUIRE(s);
	CHECK(!strncmp(s, "iostorm: pid 42 (python), traced 2.0 s (stopped by signal)\n",
		       strlen("iostorm: pid 42 (python), traced 2.0 s (stopped by signal)\n")));
	CHECK_HAS(s, "3 distinct files, 1 directory, 1.0 files read/s");
	CHECK_HAS(s, "opens     3 (1.5/s), 5 errors (ENOENT 3, EACCES 2)");
	CHECK_HAS(s, "reads     6 (3.0/s), 4.0 MiB (2.0 MiB/s)");
	CHECK_HAS(s, "consecutive 66.7%, sequential 66.7%, random 33.3% of 6 reads");
	CHECK_HAS(s, "usecs");
	CHECK_HAS(s, "  p50 1.02ms  p90 1.02ms  p99 1.02ms  p99.9 1.02ms  max 1.02ms\n");
	CHECK_HAS(s, "(percentiles are upper bucket bounds, within 6.25%)");
	CHECK_HAS(s, "open latency (3):");
	CHECK_HAS(s, "stat latency (1):");
	CHECK_HAS(s, "file size, 3 regular files");
	CHECK_HAS(s, "[1M, 2M)");
	CHECK_HAS(s, "/data/train/a.bin ");
	CHECK_HAS(s, "/data/train/ ");
	CHECK_HAS(s, "(dev 9:2 inode 77)");
	CHECK_HAS(s, "python");
	CHECK_HAS(s, "\nlost: 0 events\n");
	CHECK(!strstr(s, "warning"));
	free(s);

	/* top 2: a third file is left out and said to be */
	s = text_of(t, &o);
	REQUIRE(s);
	CHECK_HAS(s, "\xe2\x80\xa6 2 more of 4: 3 files, 1 directory");
	CHECK(!strstr(s, "(dev 9:2 inode 77)"));
	free(s);

	t->lost[L_FILES_FULL] = 3;
	t->lost[L_INFLIGHT] = 1;
	t->prog_misses = 2;
	s = text_of(t, NULL);
	REQUIRE(s);
	CHECK_HAS(s, "\nlost: 6 events (files map full 3, no per-task slot 1, "
		     "program runs skipped by the kernel 2)\n");
	CHECK_HAS(s, "warning: the counts above are incomplete\n");
	free(s);
	trace_free(t);
}

/*
 * Sleeps not charged to their wakers (the kernel's wakes table full): each
 * loop's data wait is a lower bound, and the loop's line and the JSON say
 * so; with none lost, neither does.
 */
TEST(report_data_wait_lower_bound)
{
	char path[] = "/tmp/iostorm-unit-lower.XXXXXX";
	struct trace *t = calloc(1, sizeof(*t));
	json_t *root;
	char *s;
	int fd = mkstemp(path);		/* a path of its own: two runs may be side by side */

	REQUIRE(fd >= 0);
	close(fd);
	REQUIRE(t);
	REQUIRE(!fixture__trace(t));
	s = text_of(t, NULL);
	REQUIRE(s);
	CHECK_HAS(s, "training loop");
	CHECK(!strstr(s, "lower bound: the wakeups table"));
	free(s);
	t->lost[L_WAKES_FULL] = 7;
	s = text_of(t, NULL);
	REQUIRE(s);
	CHECK_HAS(s, " (a lower bound: the wakeups table was full, see lost) of its ");
	free(s);
	CHECK_EQ_INT(json_written(path, t, NULL), 0);
	root = load(path);
	REQUIRE(root);
	CHECK(json_is_true(json_object_get(json_object_get(root, "stall"),
					   "data_wait_lower_bound")));
	json_decref(root);
	unlink(path);
	fixture__free(t);
	free(t);
}

/* t's text holds text, and its JSON's file_depth_max_upper_bound is bound. */
static void check_depth_said(const struct trace *t, const char *path, const char *text,
			     bool bound)
{
	json_t *root, *flag;
	char *s = text_of(t, NULL);

	REQUIRE(s);
	CHECK_HAS(s, text);
	free(s);
	CHECK_EQ_INT(json_written(path, t, NULL), 0);
	root = load(path);
	REQUIRE(root);
	flag = json_object_get(json_object_get(json_object_get(root, "vfs"), "async"),
			       "file_depth_max_upper_bound");
	CHECK(bound ? json_is_true(flag) : json_is_false(flag));
	json_decref(root);
}

/*
 * Runs of the programs that count reads in flight skipped by the kernel
 * (7.x): a skipped completion leaves its read in flight, so the deepest
 * file queue is an upper bound, and the text and the JSON say so, for
 * io_uring's programs and the syscalls' (Linux AIO); with none skipped,
 * neither does.
 */
TEST(report_async_depth_upper_bound)
{
	char path[] = "/tmp/iostorm-unit-depth.XXXXXX";
	struct trace *t = trace_sample();
	int fd = mkstemp(path);

	REQUIRE(fd >= 0);
	close(fd);
	REQUIRE(t);
	check_depth_said(t, path, "on their file 1.5 (max 2)", false);
	t->kernel.layers[KL_URING].skipped = 3;
	check_depth_said(t, path, "on their file 1.5 (max 2, at most: the kernel skipped runs)",
			 true);
	t->kernel.layers[KL_URING].skipped = 0;
	t->kernel.layers[KL_SYSCALLS].skipped = 1;
	check_depth_said(t, path, "on their file 1.5 (max 2, at most: the kernel skipped runs)",
			 true);
	unlink(path);
	trace_free(t);
}

TEST(report_text_long_path)
{
	struct trace *t = trace_sample();
	char path[200], *s, *line;

	REQUIRE(t);
	snprintf(path, sizeof(path), "/very/long/%0150d/tail-of-it.bin", 7);
	add_file(t, DEV_8_1, 500, path, (struct file_stats){
		.flags = FILE_F_REG, .opens = 1, .meta_ns = 100000000 });
	s = text_of(t, NULL);
	REQUIRE(s);
	line = strstr(s, "\xe2\x80\xa6" "0000");
	CHECK(line);
	if (line) {
		char *end = strstr(line, "tail-of-it.bin");

		CHECK(end);
		/* "…" plus 59 columns, ending with the file name */
		if (end)
			CHECK_EQ_U64(end + strlen("tail-of-it.bin") - line, 3 + 59);
	}
	free(s);
	trace_free(t);
}

TEST(report_text_empty)
{
	struct trace *t = calloc(1, sizeof(*t));
	FILE *full;
	char *s;

	REQUIRE(t);
	REQUIRE(!store__init(&t->store));
	snprintf(t->target, sizeof(t->target), "all processes");
	t->duration_s = 5;
	t->stopped_by = STOP_DURATION;
	t->maps_bytes = 63 << 20;
	s = text_of(t, NULL);
	REQUIRE(s);
	CHECK_STR(s, "iostorm: all processes, traced 5.0 s (stopped by duration)\n\n"
		     "no file I/O by the target was seen\n\n"
		     "lost: 0 events\n"
		     "memory: 8.00 KiB for 0 files in iostorm, 63.0 MiB of BPF maps in the kernel\n");
	free(s);
	full = fopen("/dev/full", "w");
	REQUIRE(full);
	CHECK_EQ_INT(text_printed(full, t, NULL, NULL), -ENOSPC);
	fclose(full);
	trace_free(t);
}

TEST(report_helpers)
{
	struct trace *t = trace_sample();
	struct file_rec a = { .c.read_ns = 5, .c.read_bytes = 1, .path = "/b" };
	struct file_rec b = { .c.read_ns = 5, .c.read_bytes = 1, .path = "/a" };
	struct file_rec c = { .c.meta_ns = 6, .path = "/z" };
	struct file_rec d = { .c.read_ns = 5, .c.read_bytes = 2, .path = "/y" };
	struct file_rec e = { .c.read_ns = 5, .c.read_bytes = 1 };
	struct file_rec *v[] = { &a, &b, &c, &d, &e };
	int slots[4];
	char name[16];

	REQUIRE(t);
	report__sort_files(v, 5);
	CHECK(v[0] == &c && v[1] == &d && v[2] == &b && v[3] == &a && v[4] == &e);
	CHECK_EQ_INT(trace__top_errnos(t, slots, 4), 2);
	CHECK_EQ_INT(slots[0], ENOENT);
	CHECK_EQ_INT(slots[1], EACCES);
	CHECK_EQ_INT(trace__top_errnos(t, slots, 1), 1);
	CHECK_EQ_INT(slots[0], ENOENT);
	CHECK_STR(trace__errno_name(ENOENT, name, sizeof(name)), "ENOENT");
	CHECK_STR(trace__errno_name(ERRNO_SLOTS - 1, name, sizeof(name)), "E135+");
	CHECK_STR(trace__stop_name(STOP_TARGET_EXIT), "target_exit");
	CHECK_EQ_U64(trace__lost_total(t), 0);
	t->lost[L_BLK_REQS_FULL] = 4;
	t->prog_misses = 1;
	CHECK_EQ_U64(trace__lost_total(t), 5);
	CHECK(units__rate(10, 0) == 0);
	CHECK(units__rate(10, 4) == 2.5);
	trace_free(t);
}

/* A phase the cap kept whole is said: marked in the text, counted in the JSON. */
TEST(report_phases_unsplit)
{
	struct findings *f = calloc(1, sizeof(*f));
	struct json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	REQUIRE(f);
	f->done = true;
	f->nr_phases = 2;
	for (int i = 0; i < 2; i++) {
		f->phases[i].start_s = 10.0 * i;
		f->phases[i].end_s = 10.0 * (i + 1);
		f->phases[i].stall_share = f->phases[i].miss_share = f->phases[i].util = -1;
		snprintf(f->phases[i].headline, sizeof(f->phases[i].headline), "VERDICT: %d", i);
	}
	f->phases[1].unsplit = true;
	REQUIRE((out = open_memstream(&buf, &len)));
	report_phases__text(out, &(struct report){ .f = f }, 2);
	json__init(&j, out, 0);
	json__begin_object(&j);
	report_phases__json(&j, &(struct report){ .f = f });
	json__end_object(&j);
	REQUIRE(!json__end(&j));
	REQUIRE(!fclose(out));
	CHECK(strstr(buf, "\n  1  0.0-10.0 s: ") != NULL);
	CHECK(strstr(buf, "\n *2  10.0-20.0 s: ") != NULL);
	CHECK(strstr(buf, "8 phases at most: 1 of them changed again within") != NULL);
	CHECK(strstr(buf, "\"unsplit\":false") != NULL);
	CHECK(strstr(buf, "\"unsplit\":true") != NULL);
	CHECK(strstr(buf, "\"phases_unsplit\":1") != NULL);
	free(buf);
	free(f);
}

/* The stall section of r, as text then as JSON, in one string to free(). */
static char *stall_text_and_json(const struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	struct json j;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	report_stall__text(f, r);
	json__init(&j, f, 0);
	json__begin_object(&j);
	report_stall__json(&j, r);
	json__end_object(&j);
	CHECK(!json__end(&j));
	fclose(f);
	return buf;
}

/* The report of t's loops: its workloads derived, as report__build() does. */
static void loops_report(struct report *r, const struct trace *t)
{
	int n;

	free(r->workloads);
	free(r->work_of);
	*r = (struct report){ .t = t };
	n = report__workloads(t, &r->workloads, &r->work_of);
	REQUIRE(n >= 0);
	r->nr_workloads = n;
}

/*
 * A node's loops (-a) in two workloads: pod aaaa's two (in two of its
 * containers) and Slurm job 4242's one. The report groups them under their
 * workloads, the most waiting first, each line naming its loops' worst
 * wait and cause and what the workload's cgroups read (all of the pod's,
 * its loader's container too; none of another pod's); the JSON's
 * workloads give the same, the loops by their index in stall.loops.
 */
TEST(report_node_loops)
{
	static const char *const paths[] = {
		"/kubepods/burstable/podaaaa/0123456789abcdef0001",
		"/system.slice/slurmstepd.scope/job_4242/step_0",
		"/kubepods/burstable/podaaaa/0123456789abcdef0002",
		"/kubepods/burstable/podaaaa/loader",	/* no loop: the pod's loader */
		"/kubepods/burstable/podbbbb/c9",	/* another pod, no loop */
	};
	static const double waits[] = { 690, 300, 30 };
	static const char *const causes[] = { "storage_bottleneck", "few_readers", "none" };
	struct trace *t = calloc(1, sizeof(*t));
	struct report r = {};
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	REQUIRE(t);
	t->duration_s = 10;
	t->loops = calloc(3, sizeof(*t->loops));
	REQUIRE(t->loops);
	t->nr_loops = 3;
	for (int i = 0; i < 3; i++) {
		struct stall *s = &t->loops[i];

		s->how = CONSUMER_FED;
		s->tid = s->tgid = 100 + i;
		s->cgid = 1 + i;
		snprintf(s->comm, sizeof(s->comm), "python3");
		s->wall_ns = 1000;
		s->data_wait_ns = waits[i];
		s->on_cpu_ns = s->wall_ns - s->data_wait_ns;
		s->cause = causes[i];
	}
	for (int i = 0; i < 5; i++) {
		/* Each cgroup 100 opens and 1000 reads of 1 MiB, 2 ms each, 1 s in metadata. */
		struct thread_stats cg = { .cgid = 1 + i, .opens = 100, .reads = 1000,
					   .read_bytes = 1000 << 20, .read_ns = 2000000000ULL,
					   .meta_ns = 1000000000ULL };

		REQUIRE(!cgroups__add(&t->cgroups, &cg));
		REQUIRE(!cgroup__set_path(cgroups__find(&t->cgroups, 1 + i), paths[i]));
	}
	t->stall = t->loops[0];
	loops_report(&r, t);
	buf = stall_text_and_json(&r);
	REQUIRE(buf);
	CHECK_HAS(buf, "training loops: 3 (one per process: data-parallel ranks) in 2 workloads; "
		  "the one that waits most for data 69%, the least 3%\n"
		  "  pod aaaa: 2 loops, the worst waits for data 69% (cause storage_bottleneck); "
		  "its I/O: 300 opens (30/s), 3000 reads (300/s) of 2.9 GiB, 2.00ms a read, "
		  "3.00s in metadata calls\n"
		  "    loop 0, cause storage_bottleneck: python3 (tid 100,");
	CHECK_HAS(buf, "\n    loop 2, cause none: python3 (tid 102,");
	CHECK_HAS(buf, "\n  Slurm job 4242: 1 loop, it waits for data 30% (cause few_readers); "
		  "its I/O: 100 opens (10/s), 1000 reads (100/s) of 1000 MiB, 2.00ms a read, "
		  "1.00s in metadata calls\n    loop 1, cause few_readers: python3 (tid 101,");
	CHECK_HAS(buf, "\"workloads\":[{\"kind\":\"pod\",\"pod_uid\":\"aaaa\",\"slurm_job\":\"\","
		  "\"cgroup\":\"/kubepods/burstable/podaaaa/0123456789abcdef0001\","
		  "\"container_ids\":[\"0123456789abcdef0001\",\"0123456789abcdef0002\"],"
		  "\"loops\":[0,2],\"pids\":[100,102],\"share_max\":0.69,"
		  "\"cause\":\"storage_bottleneck\",\"storage\":{\"cgroups\":3,\"partial\":false,"
		  "\"opens\":300,");
	CHECK_HAS(buf, "{\"kind\":\"slurm_job\",\"pod_uid\":\"\",\"slurm_job\":\"4242\","
		  "\"cgroup\":\"/system.slice/slurmstepd.scope/job_4242/step_0\","
		  "\"container_ids\":[],\"loops\":[1],\"pids\":[101],\"share_max\":0.3,"
		  "\"cause\":\"few_readers\",\"storage\":{\"cgroups\":1,");
	free(buf);
	/* The one screen cut: the workloads' lines, then the line that sums up. */
	buf = NULL;
	f = open_memstream(&buf, &len);
	REQUIRE(f);
	report_stall__brief_text(f, &r, 1);
	fclose(f);
	CHECK(!strstr(buf, "loop 0"));
	CHECK_HAS(buf, "\n  pod aaaa: 2 loops,");
	CHECK_HAS(buf, "\n  Slurm job 4242: 1 loop,");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	REQUIRE(f);
	report_stall__brief_text(f, &r, 2);
	fclose(f);
	CHECK(!strchr(buf, '\n') || !strchr(buf, '\n')[1]);
	free(buf);
	/* One workload: the loops as they come, each naming it. */
	t->loops[1].cgid = 3;
	t->nr_loops = 2;
	loops_report(&r, t);
	buf = NULL;
	f = open_memstream(&buf, &len);
	REQUIRE(f);
	report_stall__text(f, &r);
	fclose(f);
	CHECK_HAS(buf, "training loops: 2 (one per process: data-parallel ranks); the one");
	CHECK_HAS(buf, "  loop 0, pod aaaa, cause storage_bottleneck: python3 (tid 100");
	CHECK_HAS(buf, "  loop 1, pod aaaa, cause few_readers: python3 (tid 101");
	free(buf);
	/* A loop whose cgroup is not known: a workload of its own, its process. */
	t->loops[1].cgid = 0;
	t->nr_loops = 3;
	loops_report(&r, t);
	buf = stall_text_and_json(&r);
	REQUIRE(buf);
	CHECK_HAS(buf, "\n  pid 101: 1 loop, it waits for data 30% (cause few_readers); its cgroup "
		  "is not known\n    loop 1, cause few_readers: python3 (tid 101,");
	CHECK_HAS(buf, "{\"kind\":\"process\",\"pod_uid\":\"\",\"slurm_job\":\"\",\"cgroup\":null,"
		  "\"container_ids\":[],\"loops\":[1],\"pids\":[101],\"share_max\":0.3,"
		  "\"cause\":\"few_readers\",\"storage\":null}");
	free(buf);
	free(r.workloads);
	free(r.work_of);
	cgroups__free(&t->cgroups);
	free(t->loops);
	free(t);
}
