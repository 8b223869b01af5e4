// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The diagnosis, see verdict.h and docs/findings.md: thresholds (one
 * table), the evidence taken from a trace, one small function per rule,
 * and the verdict line.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hist.h"
#include "trace.h"
#include "verdict.h"

#define KIB		1024.0
#define MIB		(1024.0 * 1024)
#define SMALL_READ	(256 * 1024)	/* small_read_share: reads below this */
#define WHOLE_SHARE	0.9		/* a file read to 90% of its size is read whole */
#define ORDER_MIN_FILES	10		/* file_order_random needs this many files */

/* ---- thresholds: the one place they are defined and explained ---- */

enum th {
	TH_MIN_READS,
	TH_STORM_FILES,
	TH_STORM_MEDIAN,
	TH_STORM_RATE,
	TH_STORM_WHOLE,
	TH_STORM_RANDOM,
	TH_SHARD_BYTES,
	TH_PACKED_READ,
	TH_RANDOM_SHARE,
	TH_RANDOM_MIN,
	TH_SMALL_SHARE,
	TH_SMALL_MIN,
	TH_META_SHARE,
	TH_META_HIGH,
	TH_META_MIN,
	TH_IO_WAIT_HIGH,
	TH_IO_WAIT_WARN,
	TH_CPU_BOUND,
	TH_CPU_IO_WAIT,
	TH_RUNQ_HIGH,
	TH_CACHE_MISS,
	TH_MEM_FIT,
	TH_READERS_MANY,
	TH_READERS_FEW,
	TH_READERS_GAIN,
	TH_UTIL_IDLE,
	TH_UTIL_BUSY,
	TH_SLOW_READ_US,
	TH_IOPS_BOUND,
	TH__MAX,
};

struct th_def {
	const char *name;
	double def;
	const char *unit;
	const char *why;
};

static const struct th_def th_defs[TH__MAX] = {
	[TH_MIN_READS] = { "min_reads", 100, "reads",
		"fewer reads than this in the trace: too little file I/O to judge" },
	[TH_STORM_FILES] = { "storm_files", 1000, "files",
		"small_file_storm: at least this many distinct files read (per-file costs "
		"add up only over many files; Darshan keeps 1,024 records, datasets hold 100k+)" },
	[TH_STORM_MEDIAN] = { "storm_median_bytes", 1048576, "bytes",
		"small_file_storm: median size of the files read at most this (Drishti's "
		"small-request limit, 1 MiB; ImageNet JPEGs are ~110 KiB)" },
	[TH_STORM_RATE] = { "storm_files_per_s", 100, "files/s",
		"small_file_storm: at least this many new files read per second (each costs "
		"an open, a stat, a close and at least one request of its own)" },
	[TH_STORM_WHOLE] = { "storm_whole_share", 0.5, "fraction",
		"small_file_storm: at least this share of the files read to 90% of their "
		"size or more (a sample per file, read whole)" },
	[TH_STORM_RANDOM] = { "storm_random", 0.5, "fraction",
		"file_order_random at or above which files are said to be read in random "
		"order (path order 0, a shuffle ~1)" },
	[TH_SHARD_BYTES] = { "shard_bytes", 268435456, "bytes",
		"shard size the advice packs small files into (TFRecord, WebDataset and "
		"LMDB guidance: 100 MB to 1 GB)" },
	[TH_PACKED_READ] = { "packed_read_bytes", 1048576, "bytes",
		"read size assumed for packed shards read sequentially, to estimate reads/s" },
	[TH_RANDOM_SHARE] = { "random_share", 0.2, "fraction",
		"random_access: share of the target's block reads not continuing the previous "
		"request above this (Drishti: 20%)" },
	[TH_RANDOM_MIN] = { "random_min_reqs", 1000, "requests",
		"random_access: and more block reads than this (Drishti: 1000)" },
	[TH_SMALL_SHARE] = { "small_share", 0.1, "fraction",
		"small_requests: share of block reads of at most 128 KiB above this "
		"(Drishti: 10%)" },
	[TH_SMALL_MIN] = { "small_min_reqs", 1000, "requests",
		"small_requests: and more block reads than this (Drishti: 1000)" },
	[TH_META_SHARE] = { "meta_share", 0.3, "fraction",
		"metadata_overhead (WARN): open+stat+close+getdents time at least this share "
		"of the time in file syscalls" },
	[TH_META_HIGH] = { "meta_share_high", 0.6, "fraction",
		"metadata_overhead is HIGH from this share, when threads also wait on I/O" },
	[TH_META_MIN] = { "meta_min_ops", 1000, "ops",
		"metadata_overhead: at least this many opens + stats (Drishti's > 1000 ops)" },
	[TH_IO_WAIT_HIGH] = { "io_wait_high", 0.5, "fraction",
		"I/O threads off CPU waiting on file I/O at least this share of their time: "
		"storage holds the job back (HIGH)" },
	[TH_IO_WAIT_WARN] = { "io_wait_warn", 0.2, "fraction",
		"I/O wait share from which storage slows the job noticeably (WARN)" },
	[TH_CPU_BOUND] = { "cpu_bound", 0.7, "fraction",
		"cpu_bound: I/O threads on CPU (or waiting for one) at least this share of "
		"their time" },
	[TH_CPU_IO_WAIT] = { "cpu_bound_io_wait", 0.1, "fraction",
		"cpu_bound: and waiting on I/O less than this share" },
	[TH_RUNQ_HIGH] = { "runq_high", 0.2, "fraction",
		"cpu_bound is WARN (CPU-starved) when threads wait for a CPU this share of "
		"their time or more" },
	[TH_CACHE_MISS] = { "cache_miss", 0.1, "fraction",
		"reads are served from the page cache when less than this share of the bytes "
		"read was brought in from storage" },
	[TH_MEM_FIT] = { "mem_fit_share", 0.5, "fraction",
		"the working set fits in memory below this share of MemTotal (the rest is "
		"the job's own memory)" },
	[TH_READERS_MANY] = { "readers_many", 4, "reads",
		"parallelism: with storage capped or saturated, this many reads in flight "
		"or more are more than it serves" },
	[TH_READERS_FEW] = { "readers_few", 8, "reads",
		"parallelism: below this many reads in flight, an idle device and threads "
		"waiting on I/O call for more readers (a typical num_workers)" },
	[TH_READERS_GAIN] = { "readers_gain_max", 4, "x",
		"parallelism: the most the advice multiplies readers by (Little's law holds "
		"only while the device has headroom)" },
	[TH_UTIL_IDLE] = { "util_idle", 0.5, "fraction",
		"parallelism: the device is said to have headroom below this busy share "
		"(%util understates headroom on SSD and NVMe)" },
	[TH_UTIL_BUSY] = { "util_busy", 0.9, "fraction",
		"parallelism: a slow device busy this share of the time with many requests "
		"in flight is saturated" },
	[TH_IOPS_BOUND] = { "iops_bound_util", 0.75, "fraction",
		"storage_bottleneck: fast requests, threads storage-bound and the device "
		"busy at least this share of the time: the device is IOPS-bound (on a "
		"device serving requests in parallel %util saturates before the IOPS do)" },
	[TH_SLOW_READ_US] = { "slow_read_us", 1000, "us",
		"without block or thread data, a read p50 above this is called slow "
		"(a page-cache hit takes ~10 us, an SSD read ~100 us)" },
};

_Static_assert(TH__MAX <= THRESHOLDS_MAX, "raise THRESHOLDS_MAX");

void thresholds__defaults(struct thresholds *t)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < TH__MAX; i++)
		t->v[i] = th_defs[i].def;
}

static int th_find(const char *name, size_t len)
{
	for (int i = 0; i < TH__MAX; i++)
		if (strlen(th_defs[i].name) == len && !strncmp(th_defs[i].name, name, len))
			return i;
	return -1;
}

/* "256M" for bytes, "25%" for fractions, a plain number for any. */
static int th_parse(const struct th_def *d, const char *s, double *out)
{
	static const char suffixes[] = "KMGT";
	bool bytes = !strcmp(d->unit, "bytes"), frac = !strcmp(d->unit, "fraction");
	const char *sfx;
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v < 0)
		return -EINVAL;
	if (bytes && *end && (sfx = strchr(suffixes, *end))) {
		v *= pow(1024, sfx - suffixes + 1);
		end++;
	} else if (frac && *end == '%') {
		v /= 100;
		end++;
	}
	if (*end || (frac && v > 1))
		return -EINVAL;
	*out = v;
	return 0;
}

int thresholds__set(struct thresholds *t, const char *assignment)
{
	const char *eq = strchr(assignment, '=');
	const struct th_def *d;
	int i;

	if (!eq) {
		fprintf(stderr, "iostorm: threshold '%s' needs a value: NAME=VALUE\n",
			assignment);
		return -EINVAL;
	}
	i = th_find(assignment, eq - assignment);
	if (i < 0) {
		fprintf(stderr, "iostorm: unknown threshold '%.*s': see docs/findings.md\n",
			(int)(eq - assignment), assignment);
		return -EINVAL;
	}
	d = &th_defs[i];
	if (th_parse(d, eq + 1, &t->v[i])) {
		fprintf(stderr, "iostorm: bad value '%s' for threshold '%s': want %s\n",
			eq + 1, d->name,
			!strcmp(d->unit, "fraction") ? "a fraction from 0 to 1, or 0% to 100%" :
			!strcmp(d->unit, "bytes") ? "bytes, with an optional K, M, G or T suffix" :
			"a number, 0 or more");
		return -EINVAL;
	}
	return 0;
}

void thresholds__print(FILE *out)
{
	char nv[64];

	for (int i = 0; i < TH__MAX; i++) {
		snprintf(nv, sizeof(nv), "%s=%.10g", th_defs[i].name, th_defs[i].def);
		fprintf(out, "  %-28s %s (%s)\n", nv, th_defs[i].why, th_defs[i].unit);
	}
}

const char *thresholds__name(int i)
{
	return i >= 0 && i < TH__MAX ? th_defs[i].name : NULL;
}

const char *thresholds__unit(int i)
{
	return i >= 0 && i < TH__MAX ? th_defs[i].unit : NULL;
}

double thresholds__get(const struct thresholds *t, const char *name)
{
	int i = th_find(name, strlen(name));

	return i < 0 ? -1 : t->v[i];
}

/* ---- evidence from a trace ---- */

static double ratio(double a, double b)
{
	return b > 0 ? a / b : -1;
}

static double rate(double n, double secs)
{
	return secs > 0 ? n / secs : 0;
}

/* MemTotal in bytes, 0 when /proc/meminfo cannot tell. */
static __u64 mem_total(void)
{
	unsigned long long kb = 0;
	char line[256];
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

/* Reads returning 1 byte .. SMALL_READ-1 over reads returning >= 1 byte. */
static double small_share(const struct hist *h)
{
	__u64 small = 0, all = 0;

	for (__u32 i = 1; i < HIST_SLOTS; i++) {
		all += h->slots[i];
		if (hist__upper(i) < SMALL_READ)
			small += h->slots[i];
	}
	return ratio(small, all);
}

static void vfs_fill(struct evidence *e, const struct trace *t)
{
	const __u64 *c = t->counters;
	double d = t->duration_s;
	long page = sysconf(_SC_PAGESIZE);

	e->opens = c[C_OPENS];
	e->reads = c[C_READS];
	e->read_bytes = c[C_READ_BYTES];
	e->stats = c[C_STATS];
	e->getdents = c[C_GETDENTS];
	e->opens_per_s = rate(e->opens, d);
	e->reads_per_s = rate(e->reads, d);
	e->read_bytes_per_s = rate(e->read_bytes, d);
	e->read_s = c[C_READ_NS] / 1e9;
	e->meta_s = c[C_META_NS] / 1e9;
	e->meta_share = ratio(c[C_META_NS], (double)c[C_META_NS] + c[C_READ_NS]);
	e->small_read_share = small_share(&t->hists[H_READ_SIZE]);
	e->read_p50_us = hist__quantile(&t->hists[H_READ_LAT], 0.5) / 1e3;
	e->read_p99_us = hist__quantile(&t->hists[H_READ_LAT], 0.99) / 1e3;
	e->read_mean_us = e->reads ? c[C_READ_NS] / 1e3 / e->reads : 0;
	e->open_p50_us = hist__quantile(&t->hists[H_OPEN_LAT], 0.5) / 1e3;
	e->stat_p50_us = hist__quantile(&t->hists[H_STAT_LAT], 0.5) / 1e3;
	e->read_concurrency = d > 0 ? e->read_s / d : -1;
	e->cache_bytes = c[C_CACHE_PAGES] * (__u64)(page > 0 ? page : 4096);
	e->miss_share = ratio(e->cache_bytes, e->read_bytes);
}

static int u64_cmp(const void *pa, const void *pb)
{
	__u64 a = *(const __u64 *)pa, b = *(const __u64 *)pb;

	return a < b ? -1 : a > b;
}

static int ts_cmp(const void *pa, const void *pb)
{
	const struct file_rec *a = *(struct file_rec *const *)pa;
	const struct file_rec *b = *(struct file_rec *const *)pb;

	if (a->first_ts != b->first_ts)
		return a->first_ts < b->first_ts ? -1 : 1;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return a->ino < b->ino ? -1 : a->ino > b->ino;
}

struct ranked {
	const char *path;
	size_t ts_rank;
};

static int path_cmp(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;
	int c = strcmp(a->path, b->path);

	return c ? c : a->ts_rank < b->ts_rank ? -1 : a->ts_rank > b->ts_rank;
}

/*
 * How far the order files were first read in is from path order:
 * 1 - |Spearman's rank correlation| between the two orders, so path order
 * (or its reverse) gives 0 and a shuffle ~1. A rank correlation rather
 * than adjacent pairs: 8 DataLoader workers reading consecutive batches in
 * path order interleave, so half of adjacent pairs step backwards while
 * the order is still path order at the scale that matters. Files without
 * a path are skipped; -1 with fewer than ORDER_MIN_FILES.
 */
static int file_order(struct file_rec **files, size_t n, double *order)
{
	struct ranked *r;
	double d2 = 0, nn, rho;
	size_t m = 0;

	*order = -1;
	qsort(files, n, sizeof(*files), ts_cmp);
	r = calloc(n ? n : 1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (!files[i]->path)
			continue;
		r[m].path = files[i]->path;
		r[m].ts_rank = m;
		m++;
	}
	if (m >= ORDER_MIN_FILES) {
		qsort(r, m, sizeof(*r), path_cmp);
		for (size_t i = 0; i < m; i++) {
			double d = (double)r[i].ts_rank - (double)i;

			d2 += d * d;
		}
		nn = m;
		rho = 1 - 6 * d2 / (nn * (nn * nn - 1));
		*order = fmin(1, fmax(0, 1 - fabs(rho)));
	}
	free(r);
	return 0;
}

/* Files read: count, median size, whole share, order, working set. */
static int files_fill(struct evidence *e, const struct store *s)
{
	struct file_rec **all, **rd;
	__u64 *sizes, whole = 0, sized = 0;
	size_t n, m = 0;
	int err = -ENOMEM;

	all = store__files(s, &n);
	if (!all && n)
		return -ENOMEM;
	sizes = calloc(n ? n : 1, sizeof(*sizes));
	if (!sizes)
		goto out_free_files;
	rd = all;
	for (size_t i = 0; i < n; i++) {
		struct file_rec *f = all[i];
		__u64 size = f->size ? f->size : f->max_end;

		if (!(f->flags & FILE_F_REG) || !f->reads)
			continue;
		rd[m] = f;
		sizes[m++] = size;
		e->working_set_bytes += f->size && f->size < f->max_end ? f->size : f->max_end;
		if (f->size) {
			sized++;
			whole += f->max_end >= f->size * WHOLE_SHARE;
		}
	}
	e->files_read = m;
	e->whole_file_share = ratio(whole, sized);
	e->median_file_bytes = -1;
	if (m) {
		qsort(sizes, m, sizeof(*sizes), u64_cmp);
		e->median_file_bytes = m % 2 ? sizes[m / 2] :
			((double)sizes[m / 2 - 1] + sizes[m / 2]) / 2;
	}
	err = file_order(rd, m, &e->file_order_random);
	free(sizes);
out_free_files:
	free(all);
	return err;
}

/*
 * Where the loader threads' time went: shares of on-CPU, I/O wait, run
 * queue, sleep. A loader thread does at least 1% of the file operations:
 * a main thread that loaded libraries and then waits in join() is not one.
 */
static void threads_fill(struct evidence *e, const struct store *s)
{
	double cpu = 0, io = 0, runq = 0, sleep = 0, sum;
	__u64 ops = 0;

	for (size_t i = 0; i < s->nr_threads; i++)
		ops += s->threads[i].opens + s->threads[i].reads;
	for (size_t i = 0; i < s->nr_threads; i++) {
		const struct thread_rec *th = &s->threads[i];
		__u64 own = th->opens + th->reads;

		if (!own || own * 100 < ops)
			continue;
		e->io_threads++;
		cpu += th->cpu_ns;
		io += th->io_wait_ns;
		runq += th->runq_ns;
		sleep += th->sleep_ns;
	}
	sum = cpu + io + runq + sleep;
	e->cpu_share = ratio(cpu, sum);
	e->io_wait_share = ratio(io, sum);
	e->runq_share = ratio(runq, sum);
	e->sleep_share = ratio(sleep, sum);
}

int evidence__from_trace(struct evidence *e, const struct trace *t)
{
	int err;

	memset(e, 0, sizeof(*e));
	e->duration_s = t->duration_s;
	vfs_fill(e, t);
	err = files_fill(e, &t->store);
	if (err)
		return err;
	e->files_per_s = rate(e->files_read, t->duration_s);
	e->reread_bytes = e->read_bytes > e->working_set_bytes ?
			  e->read_bytes - e->working_set_bytes : 0;
	e->mem_total_bytes = mem_total();
	threads_fill(e, &t->store);
	/* The block part is the caller's: not measured until it says so. */
	e->have_block = false;
	e->blk_random_share = e->blk_small_share = e->blk_queue_share = -1;
	e->blk_util = -1;
	e->layer = LAYER_NONE;
	return 0;
}

/* ---- words and numbers ---- */

/* "512 B", "78 KiB", "1.6 GiB": three significant digits at most. */
static const char *fmt_bytes(char *buf, size_t len, double b)
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
static const char *fmt_num(char *buf, size_t len, double x)
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

/* A count: exact below 100,000 ("20000 files"), else as fmt_num ("1.3M"). */
static const char *fmt_count(char *buf, size_t len, __u64 n)
{
	if (n < 100000)
		snprintf(buf, len, "%llu", (unsigned long long)n);
	else
		fmt_num(buf, len, n);
	return buf;
}

/* A share as a percentage: "82%", "0.5%"; shares above 1 show as 100%. */
static const char *fmt_pct(char *buf, size_t len, double share)
{
	double p = fmin(share, 1) * 100;

	snprintf(buf, len, p > 0 && p < 9.95 && p != floor(p) ? "%.1f%%" : "%.0f%%", p);
	return buf;
}

/* Microseconds as "8.5µs", "95µs", "4.1ms", "38ms", "1.2s". */
static const char *fmt_us(char *buf, size_t len, double us)
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

/* Scratch buffers for one message, one per number: B(0) .. B(9). */
#define NBUF	10
#define B(i)	buf[i], sizeof(buf[i])

static void say(char *dst, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *dst, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, len, fmt, ap);
	va_end(ap);
}

static void finding_init(struct finding *f, const char *id, enum severity sev,
			 const char *label, const char *fix)
{
	memset(f, 0, sizeof(*f));
	f->id = id;
	f->severity = sev;
	snprintf(f->label, sizeof(f->label), "%s", label);
	snprintf(f->fix, sizeof(f->fix), "%s", fix);
}

static void fig(struct finding *f, const char *name, double value, const char *unit)
{
	if (f->nr_figures >= FINDING_FIGURES)
		return;
	f->figures[f->nr_figures++] = (struct figure){ name, value, unit };
}

const struct figure *finding__figure(const struct finding *f, const char *name)
{
	for (int i = 0; i < f->nr_figures; i++)
		if (!strcmp(f->figures[i].name, name))
			return &f->figures[i];
	return NULL;
}

/* ---- what the rules share ---- */

/* The I/O threads wait on I/O for most of their time. */
static bool storage_bound(const struct evidence *e, const double *th)
{
	return e->io_wait_share >= th[TH_IO_WAIT_HIGH];
}

/* Reads come from memory: by the block layer's verdict, else by misses. */
static bool from_cache(const struct evidence *e, const double *th)
{
	if (e->have_block && e->layer != LAYER_NONE)
		return e->layer == LAYER_CACHE;
	return e->miss_share >= 0 && e->miss_share < th[TH_CACHE_MISS];
}

/*
 * How much a costly access pattern hurts now: HIGH when the threads wait
 * on I/O most of the time, WARN when noticeably or when unmeasured, INFO
 * when they hardly wait or the page cache serves the reads.
 */
static enum severity impact(const struct evidence *e, const double *th)
{
	if (from_cache(e, th))
		return SEV_INFO;
	if (storage_bound(e, th))
		return SEV_HIGH;
	if (e->io_wait_share < 0 || e->io_wait_share >= th[TH_IO_WAIT_WARN])
		return SEV_WARN;
	return SEV_INFO;
}

/* ---- the rules: each fills f and returns 1, or returns 0 ---- */

static int rule_little_io(const struct evidence *e, const double *th, struct finding *f)
{
	char buf[NBUF][32];

	if (e->reads >= th[TH_MIN_READS])
		return 0;
	finding_init(f, "little_io", SEV_INFO, "too little file I/O to judge", "");
	say(f->summary, sizeof(f->summary),
	    "too little file I/O to judge: %s reads and %s opens in %.1f s",
	    fmt_count(B(0), e->reads), fmt_count(B(1), e->opens), e->duration_s);
	say(f->advice, sizeof(f->advice),
	    "trace longer, or while the job reads its data (not during start-up or "
	    "evaluation); check that the right process is traced (-p, --cgroup)");
	fig(f, "reads", e->reads, "reads");
	fig(f, "opens", e->opens, "opens");
	fig(f, "duration_s", e->duration_s, "s");
	return 1;
}

static void storm_advice(const struct evidence *e, const double *th, struct finding *f)
{
	double data = e->working_set_bytes ? e->working_set_bytes : e->read_bytes;
	double shard = th[TH_SHARD_BYTES], packed = th[TH_PACKED_READ];
	double shards = fmax(1, ceil(data / shard));
	double packed_rps = e->read_bytes_per_s / packed;
	double shard_ops = e->read_bytes_per_s / shard;
	char buf[NBUF][32];

	say(f->advice, sizeof(f->advice),
	    "pack the %s files (%s) into %.0f shard%s of %s (TFRecord, WebDataset tar or "
	    "LMDB; 100 MB to 1 GB each) read sequentially in %s reads: at the same %s/s "
	    "that is ~%s reads/s instead of %s, and %s shard opens/s instead of %s opens/s; "
	    "shuffle the shard order and the samples in a shuffle buffer",
	    fmt_count(B(0), e->files_read), fmt_bytes(B(1), data), shards,
	    shards == 1 ? "" : "s", fmt_bytes(B(2), shard), fmt_bytes(B(3), packed),
	    fmt_bytes(B(4), e->read_bytes_per_s), fmt_num(B(5), packed_rps),
	    fmt_num(B(6), e->reads_per_s), fmt_num(B(7), shard_ops),
	    fmt_num(B(8), e->opens_per_s));
	fig(f, "shard_bytes", shard, "bytes");
	fig(f, "shards", shards, "shards");
	fig(f, "packed_reads_per_s", packed_rps, "reads/s");
	fig(f, "shard_opens_per_s", shard_ops, "opens/s");
}

static int rule_storm(const struct evidence *e, const double *th, struct finding *f)
{
	bool random = e->file_order_random >= th[TH_STORM_RANDOM];
	bool ordered = e->file_order_random >= 0 && !random;
	char buf[NBUF][32], whole[48];

	if (e->files_read < th[TH_STORM_FILES] || e->median_file_bytes < 0 ||
	    e->median_file_bytes > th[TH_STORM_MEDIAN] ||
	    e->files_per_s < th[TH_STORM_RATE] ||
	    e->whole_file_share < th[TH_STORM_WHOLE])
		return 0;
	finding_init(f, "small_file_storm", impact(e, th),
		     random ? "small-file random-read storm" : "small-file read storm",
		     "pack files into shards");
	if (e->whole_file_share >= WHOLE_SHARE)
		snprintf(whole, sizeof(whole), "read whole");
	else
		snprintf(whole, sizeof(whole), "%s read whole",
			 fmt_pct(B(0), e->whole_file_share));
	say(f->summary, sizeof(f->summary),
	    "small-file storm: %s files of median %s %s%s at %s files/s%s",
	    fmt_count(B(1), e->files_read), fmt_bytes(B(2), e->median_file_bytes), whole,
	    random ? " in random order" : ordered ? " in path order" : "",
	    fmt_num(B(3), e->files_per_s),
	    from_cache(e, th) ? ", served from the page cache for now" : "");
	fig(f, "files_read", e->files_read, "files");
	fig(f, "files_per_s", e->files_per_s, "files/s");
	fig(f, "opens_per_s", e->opens_per_s, "opens/s");
	fig(f, "median_file_bytes", e->median_file_bytes, "bytes");
	fig(f, "whole_file_share", e->whole_file_share, "fraction");
	fig(f, "file_order_random", e->file_order_random, "fraction");
	fig(f, "reads_per_s", e->reads_per_s, "reads/s");
	fig(f, "read_bytes_per_s", e->read_bytes_per_s, "bytes/s");
	storm_advice(e, th, f);
	return 1;
}

/* "; I/O threads wait on I/O 82% of their time", or nothing when unmeasured. */
static const char *io_wait_words(const struct evidence *e, char *buf, size_t len)
{
	char pct[16];

	if (e->io_wait_share < 0)
		return "";
	snprintf(buf, len, "; I/O threads wait on I/O %s of their time",
		 fmt_pct(pct, sizeof(pct), e->io_wait_share));
	return buf;
}

/*
 * The device serves all it can: requests wait in the block queue, or (SATA
 * NCQ, NVMe queues) inside the device, which is then busy all the time
 * with many requests in flight.
 */
static bool saturated(const struct evidence *e, const double *th)
{
	return e->layer == LAYER_QUEUE ||
	       (e->layer == LAYER_DEVICE && e->blk_util >= th[TH_UTIL_BUSY] &&
		e->blk_inflight_mean >= th[TH_READERS_MANY]);
}

/* Storage capped or saturated: more readers only queue longer. */
static bool capped(const struct evidence *e, const double *th)
{
	return e->layer == LAYER_ABOVE || saturated(e, th);
}

static void bottleneck_block(const struct evidence *e, const double *th, struct finding *f)
{
	enum severity sev = e->io_wait_share < 0 ? SEV_WARN :
		storage_bound(e, th) ? SEV_HIGH :
		e->io_wait_share >= th[TH_IO_WAIT_WARN] ? SEV_WARN : SEV_INFO;
	char buf[NBUF][32], wait[80];

	io_wait_words(e, wait, sizeof(wait));
	switch (saturated(e, th) ? LAYER_QUEUE : e->layer) {
	case LAYER_ABOVE:
		finding_init(f, "storage_bottleneck", sev, "throttled above the device",
			     "find and raise the I/O cap");
		say(f->summary, sizeof(f->summary),
		    "storage throttled above the device: read() mean %s but block await "
		    "%s, device %s busy%s", fmt_us(B(0), e->read_mean_us),
		    fmt_us(B(1), e->blk_await_ms * 1e3), fmt_pct(B(2), e->blk_util), wait);
		say(f->advice, sizeof(f->advice),
		    "read() waits beyond its block requests: a limit between the job and "
		    "the disk holds reads back (a cgroup io.max or blkio throttle, a cloud "
		    "volume's IOPS or throughput cap, a network or FUSE file system). Check "
		    "the job's cgroup io.max and the volume's provisioned IOPS; fewer, larger "
		    "reads (files packed into shards) get more bytes per capped operation; "
		    "more readers will not help");
		break;
	case LAYER_QUEUE:
		finding_init(f, "storage_bottleneck", sev, "device saturated",
			     "ask for fewer, larger reads");
		say(f->summary, sizeof(f->summary),
		    "device saturated: %s block reads in flight, await %s (%s of it queued "
		    "before the device), device %s busy%s",
		    fmt_num(B(0), e->blk_inflight_mean), fmt_us(B(1), e->blk_await_ms * 1e3),
		    fmt_pct(B(2), e->blk_queue_share), fmt_pct(B(3), e->blk_util), wait);
		say(f->advice, sizeof(f->advice),
		    "the device serves all it can: ask it for fewer, larger requests (small "
		    "files packed into shards read sequentially), move the data to faster "
		    "storage (local NVMe) or keep it in memory (page cache, dataset.cache()); "
		    "more readers only lengthen the queue");
		break;
	case LAYER_DEVICE:
		finding_init(f, "storage_bottleneck", sev, "slow device",
			     "stage the data to local NVMe");
		say(f->summary, sizeof(f->summary),
		    "slow device: block await %s (device p50 %s) at %s reads/s, device %s "
		    "busy%s", fmt_us(B(0), e->blk_await_ms * 1e3),
		    fmt_us(B(1), e->blk_device_p50_us), fmt_num(B(2), e->blk_reads_per_s),
		    fmt_pct(B(3), e->blk_util), wait);
		say(f->advice, sizeof(f->advice),
		    "each request takes long in the device itself (HDD seeks, a network "
		    "block device, a busy cloud disk): stage the dataset to local NVMe or "
		    "RAM, or pack files into shards read sequentially so that each request "
		    "carries more data");
		break;
	default:	/* LAYER_OK */
		if (e->blk_util >= th[TH_IOPS_BOUND] && storage_bound(e, th)) {
			/* Fast requests, but the device is never idle: IOPS-bound. */
			finding_init(f, "storage_bottleneck", sev, "device IOPS-bound",
				     "ask for fewer, larger reads");
			say(f->summary, sizeof(f->summary),
			    "device IOPS-bound: busy %s of the time at %s reads/s, each fast "
			    "(await %s)%s", fmt_pct(B(0), e->blk_util),
			    fmt_num(B(1), e->blk_reads_per_s),
			    fmt_us(B(2), e->blk_await_ms * 1e3), wait);
			say(f->advice, sizeof(f->advice),
			    "the device is kept busy by many small requests: fewer, larger "
			    "reads (small files packed into shards read sequentially) carry "
			    "the same bytes in far fewer operations; more readers will not "
			    "help much");
			break;
		}
		finding_init(f, "storage_bottleneck",
			     storage_bound(e, th) ? SEV_INFO : SEV_OK,
			     "storage keeps up", "");
		say(f->summary, sizeof(f->summary),
		    "storage keeps up: block await %s, device %s busy%s",
		    fmt_us(B(0), e->blk_await_ms * 1e3), fmt_pct(B(1), e->blk_util), wait);
		say(f->advice, sizeof(f->advice), "%s", storage_bound(e, th) ?
		    "each request is served quickly, yet the threads wait on I/O: reads are "
		    "issued too few at a time (see parallelism) or wait on file system "
		    "locks and metadata" : "nothing to do at the storage level");
		break;
	}
}

static void bottleneck_vfs(const struct evidence *e, const double *th, struct finding *f)
{
	char buf[NBUF][32], wait[80];
	bool slow = e->io_wait_share < 0 ? e->read_p50_us >= th[TH_SLOW_READ_US] :
		    e->io_wait_share >= th[TH_IO_WAIT_WARN];

	if (!slow) {
		finding_init(f, "storage_bottleneck", SEV_OK, "storage keeps up", "");
		say(f->summary, sizeof(f->summary),
		    "storage keeps up: I/O threads wait on I/O %s of their time, read p50 %s",
		    e->io_wait_share < 0 ? "(unmeasured)" : fmt_pct(B(0), e->io_wait_share),
		    fmt_us(B(1), e->read_p50_us));
		say(f->advice, sizeof(f->advice), "nothing to do at the storage level");
		return;
	}
	/* Slow reads alone (no thread data) do not prove the job waits on them. */
	finding_init(f, "storage_bottleneck",
		     e->io_wait_share >= 0 && storage_bound(e, th) ? SEV_HIGH : SEV_WARN,
		     "storage-bound", "");
	say(f->summary, sizeof(f->summary),
	    "storage-bound: read p50 %s, p99 %s; %s of the bytes read came from storage%s "
	    "(block layer not measured)", fmt_us(B(0), e->read_p50_us),
	    fmt_us(B(1), e->read_p99_us), fmt_pct(B(2), e->miss_share),
	    io_wait_words(e, wait, sizeof(wait)));
	say(f->advice, sizeof(f->advice),
	    "reads are slow enough to stall the loader: the other findings say why "
	    "(access pattern, metadata, parallelism); without the block layer a slow "
	    "device cannot be told from a cap above it");
}

static int rule_bottleneck(const struct evidence *e, const double *th, struct finding *f)
{
	char buf[NBUF][32];

	if (e->reads < th[TH_MIN_READS])
		return 0;
	if (from_cache(e, th)) {
		finding_init(f, "storage_bottleneck", SEV_OK,
			     "reads served from the page cache", "");
		say(f->summary, sizeof(f->summary),
		    "storage is not the bottleneck: reads served from the page cache "
		    "(%s of the bytes read came from storage, read p50 %s)",
		    fmt_pct(B(0), e->miss_share), fmt_us(B(1), e->read_p50_us));
		say(f->advice, sizeof(f->advice),
		    "nothing to do while the data stays in memory; a cold start or a "
		    "dataset larger than memory will read from storage (see page_cache)");
	} else if (e->have_block && e->layer != LAYER_NONE) {
		bottleneck_block(e, th, f);
	} else {
		bottleneck_vfs(e, th, f);
	}
	fig(f, "io_wait_share", e->io_wait_share, "fraction");
	fig(f, "read_p50_us", e->read_p50_us, "us");
	fig(f, "read_p99_us", e->read_p99_us, "us");
	fig(f, "read_mean_us", e->read_mean_us, "us");
	fig(f, "miss_share", e->miss_share, "fraction");
	if (e->have_block) {
		fig(f, "blk_reads_per_s", e->blk_reads_per_s, "requests/s");
		fig(f, "blk_await_ms", e->blk_await_ms, "ms");
		fig(f, "blk_device_p50_us", e->blk_device_p50_us, "us");
		fig(f, "blk_queue_share", e->blk_queue_share, "fraction");
		fig(f, "blk_inflight_mean", e->blk_inflight_mean, "requests");
		fig(f, "blk_util", e->blk_util, "fraction");
	}
	return 1;
}

static void too_many(const struct evidence *e, const double *th, struct finding *f)
{
	double needed = fmax(1, ceil(e->blk_reads_per_s * e->blk_device_p50_us / 1e6));
	char buf[NBUF][32], fewer[160] = "";

	finding_init(f, "parallelism",
		     e->io_wait_share >= th[TH_IO_WAIT_WARN] ? SEV_WARN : SEV_INFO,
		     "more readers than the storage serves", "do not add readers");
	say(f->summary, sizeof(f->summary),
	    "more readers than the storage serves: %s reads in flight get %s reads/s "
	    "at %s each (Little's law: in flight = reads/s x latency)",
	    fmt_num(B(0), e->read_concurrency), fmt_num(B(1), e->reads_per_s),
	    fmt_us(B(2), e->read_mean_us));
	if (needed < e->read_concurrency / 2)
		say(fewer, sizeof(fewer), " About %.0f in flight would sustain the same "
		    "rate at the device's own latency (%s), with less memory and CPU.",
		    needed, fmt_us(B(3), e->blk_device_p50_us));
	say(f->advice, sizeof(f->advice),
	    "throughput is capped at ~%s requests/s by the %s; more readers only make "
	    "each read wait longer, so raising num_parallel_calls / num_workers / "
	    "prefetch will not help.%s To go faster, ask for fewer, larger reads "
	    "(shards) or lift the limit",
	    fmt_num(B(4), e->blk_reads_per_s),
	    e->layer == LAYER_ABOVE ? "cap above the device" : "saturated device", fewer);
	fig(f, "read_concurrency", e->read_concurrency, "reads");
	fig(f, "reads_per_s", e->reads_per_s, "reads/s");
	fig(f, "read_mean_us", e->read_mean_us, "us");
	fig(f, "blk_reads_per_s", e->blk_reads_per_s, "requests/s");
	fig(f, "blk_device_p50_us", e->blk_device_p50_us, "us");
	fig(f, "blk_inflight_mean", e->blk_inflight_mean, "requests");
	fig(f, "readers_needed", needed, "reads");
}

static void too_few(const struct evidence *e, const double *th, struct finding *f)
{
	double gain = th[TH_READERS_GAIN] >= 1 ? th[TH_READERS_GAIN] : 1;
	double factor = fmin(gain, 1 / fmax(e->blk_util, 1 / gain));
	double target = fmax(ceil(e->read_concurrency * factor), ceil(e->read_concurrency));
	double est = e->reads_per_s * target / e->read_concurrency;
	char buf[NBUF][32], wait[80];

	finding_init(f, "parallelism", storage_bound(e, th) ? SEV_WARN : SEV_INFO,
		     "too few readers for the latency",
		     "raise num_parallel_calls / num_workers");
	say(f->summary, sizeof(f->summary),
	    "too few readers: %s reads in flight at %s each while the device is %s "
	    "busy%s", fmt_num(B(5), e->read_concurrency), fmt_us(B(0), e->read_mean_us),
	    fmt_pct(B(1), e->blk_util), io_wait_words(e, wait, sizeof(wait)));
	say(f->advice, sizeof(f->advice),
	    "by Little's law reads/s = reads in flight / latency: with the device this "
	    "idle, ~%.0f reads in flight (num_parallel_calls, num_workers, prefetch) "
	    "would give ~%s reads/s instead of %s at the same latency, until the device "
	    "saturates (%%util understates the headroom of SSD and NVMe, which serve "
	    "many requests at once)", target, fmt_num(B(3), est), fmt_num(B(4), e->reads_per_s));
	fig(f, "read_concurrency", e->read_concurrency, "reads");
	fig(f, "reads_per_s", e->reads_per_s, "reads/s");
	fig(f, "read_mean_us", e->read_mean_us, "us");
	fig(f, "blk_util", e->blk_util, "fraction");
	fig(f, "io_wait_share", e->io_wait_share, "fraction");
	fig(f, "readers_suggested", target, "reads");
	fig(f, "reads_per_s_estimate", est, "reads/s");
}

static int rule_parallelism(const struct evidence *e, const double *th, struct finding *f)
{
	if (!e->have_block || e->reads < th[TH_MIN_READS] || e->read_concurrency <= 0 ||
	    e->layer == LAYER_NONE || e->layer == LAYER_CACHE)
		return 0;
	if (capped(e, th) && e->read_concurrency >= th[TH_READERS_MANY]) {
		too_many(e, th, f);
		return 1;
	}
	if (!capped(e, th) && e->io_wait_share >= th[TH_IO_WAIT_WARN] &&
	    e->blk_util >= 0 && e->blk_util < th[TH_UTIL_IDLE] &&
	    e->read_concurrency < th[TH_READERS_FEW]) {
		too_few(e, th, f);
		return 1;
	}
	return 0;
}

static int rule_metadata(const struct evidence *e, const double *th, struct finding *f)
{
	double per_open = e->opens ? (double)e->stats / e->opens : 0;
	enum severity sev = impact(e, th);
	char buf[NBUF][32];

	if (e->opens + e->stats < th[TH_META_MIN] || e->meta_share < th[TH_META_SHARE])
		return 0;
	if (sev == SEV_HIGH && e->meta_share < th[TH_META_HIGH])
		sev = SEV_WARN;
	finding_init(f, "metadata_overhead", sev, "metadata overhead",
		     "pack files into shards");
	say(f->summary, sizeof(f->summary),
	    "metadata: %s of file I/O time in open/stat/close/getdents (%.1f s; open p50 "
	    "%s, stat p50 %s, %.1f stats per open)", fmt_pct(B(0), e->meta_share),
	    e->meta_s, fmt_us(B(1), e->open_p50_us), fmt_us(B(2), e->stat_p50_us), per_open);
	say(f->advice, sizeof(f->advice),
	    "each file costs an open, usually a stat and a close before its first byte: "
	    "packing files into shards removes them. On network file systems (NFS, "
	    "Lustre, FUSE) cache attributes (actimeo), list directories once and keep "
	    "the file list instead of walking the tree every epoch (getdents), and avoid "
	    "a stat per file (TensorFlow stats each file for its size)");
	fig(f, "meta_share", e->meta_share, "fraction");
	fig(f, "meta_s", e->meta_s, "s");
	fig(f, "opens_per_s", e->opens_per_s, "opens/s");
	fig(f, "stats", e->stats, "stats");
	fig(f, "getdents", e->getdents, "calls");
	fig(f, "open_p50_us", e->open_p50_us, "us");
	fig(f, "stat_p50_us", e->stat_p50_us, "us");
	return 1;
}

static int rule_random(const struct evidence *e, const double *th, struct finding *f)
{
	char buf[NBUF][32];

	if (!e->have_block || e->blk_random_share < 0 || e->blk_reads <= th[TH_RANDOM_MIN])
		return 0;
	if (e->blk_random_share > th[TH_RANDOM_SHARE]) {
		finding_init(f, "random_access", impact(e, th), "random block reads",
			     "read sequentially (shards)");
		say(f->summary, sizeof(f->summary),
		    "random block reads: %s of %s read requests do not continue the previous one",
		    fmt_pct(B(0), e->blk_random_share), fmt_count(B(1), e->blk_reads));
		say(f->advice, sizeof(f->advice),
		    "the device is asked for scattered blocks: pack small files into shards "
		    "read sequentially, read large files in order (shuffle the shard order "
		    "and samples in a buffer rather than seeking to each sample), raise "
		    "readahead for sequential streams (blockdev --setra, read_ahead_kb)");
	} else {
		finding_init(f, "random_access", SEV_OK, "sequential block reads", "");
		say(f->summary, sizeof(f->summary),
		    "block reads are sequential: %s of %s read requests continue the previous one",
		    fmt_pct(B(0), 1 - e->blk_random_share), fmt_count(B(1), e->blk_reads));
		say(f->advice, sizeof(f->advice), "nothing to do");
	}
	fig(f, "blk_random_share", e->blk_random_share, "fraction");
	fig(f, "blk_reads", e->blk_reads, "requests");
	fig(f, "blk_reads_per_s", e->blk_reads_per_s, "requests/s");
	return 1;
}

static int rule_small(const struct evidence *e, const double *th, struct finding *f)
{
	double mean = e->blk_reads ? (double)e->blk_read_bytes / e->blk_reads : 0;
	char buf[NBUF][32], size[48] = "";

	if (!e->have_block || e->blk_small_share < 0 || e->blk_reads <= th[TH_SMALL_MIN])
		return 0;
	if (mean > 0)
		snprintf(size, sizeof(size), " (mean %s)", fmt_bytes(B(2), mean));
	if (e->blk_small_share > th[TH_SMALL_SHARE]) {
		finding_init(f, "small_requests", impact(e, th), "small block reads",
			     "read in larger blocks (shards)");
		say(f->summary, sizeof(f->summary),
		    "small block reads: %s of %s read requests are 128 KiB or less%s",
		    fmt_pct(B(0), e->blk_small_share), fmt_count(B(1), e->blk_reads), size);
		say(f->advice, sizeof(f->advice),
		    "each small request costs a whole device operation: pack small files "
		    "into shards and read them in 1 MiB or larger reads (larger reader "
		    "buffers, a larger read_ahead_kb) so that few large requests carry the "
		    "same bytes");
	} else {
		finding_init(f, "small_requests", SEV_OK, "large block reads", "");
		say(f->summary, sizeof(f->summary),
		    "block reads are large: %s of %s read requests are 128 KiB or less%s",
		    fmt_pct(B(0), e->blk_small_share), fmt_count(B(1), e->blk_reads), size);
		say(f->advice, sizeof(f->advice), "nothing to do");
	}
	fig(f, "blk_small_share", e->blk_small_share, "fraction");
	fig(f, "blk_reads", e->blk_reads, "requests");
	fig(f, "blk_mean_bytes", mean, "bytes");
	fig(f, "small_read_share", e->small_read_share, "fraction");
	return 1;
}

static void cache_figures(const struct evidence *e, struct finding *f, double ws_share,
			  double reread_miss)
{
	fig(f, "miss_share", e->miss_share, "fraction");
	fig(f, "cache_bytes", e->cache_bytes, "bytes");
	fig(f, "read_bytes", e->read_bytes, "bytes");
	fig(f, "working_set_bytes", e->working_set_bytes, "bytes");
	fig(f, "reread_bytes", e->reread_bytes, "bytes");
	fig(f, "reread_miss_share", reread_miss, "fraction");
	fig(f, "mem_total_bytes", e->mem_total_bytes, "bytes");
	fig(f, "working_set_mem_share", ws_share, "fraction");
}

/*
 * Re-reads that missed: bytes brought in beyond the working set, over the
 * bytes read again; -1 without re-reads.
 */
static double reread_miss_share(const struct evidence *e)
{
	double extra = (double)e->cache_bytes - e->working_set_bytes;

	return e->reread_bytes ? fmin(1, fmax(0, extra) / e->reread_bytes) : -1;
}

static int rule_page_cache(const struct evidence *e, const double *th, struct finding *f)
{
	double ws_share = ratio(e->working_set_bytes, e->mem_total_bytes);
	double rr_miss = reread_miss_share(e);
	bool fits = ws_share >= 0 && ws_share < th[TH_MEM_FIT];
	char buf[NBUF][32];

	if (e->reads < th[TH_MIN_READS] || e->miss_share < 0)
		return 0;
	if (from_cache(e, th)) {
		finding_init(f, "page_cache", SEV_OK, "reads served from the page cache", "");
		say(f->summary, sizeof(f->summary),
		    "page cache: %s of the bytes read came from storage; working set %s",
		    fmt_pct(B(0), e->miss_share), fmt_bytes(B(1), e->working_set_bytes));
		say(f->advice, sizeof(f->advice),
		    "the data is in memory: keep it there (do not drop caches or restart the "
		    "loader between epochs; leave room under the container's memory limit)");
	} else if ((fits || ws_share < 0) && rr_miss >= 0.5 &&
		   e->reread_bytes >= th[TH_CACHE_MISS] * e->read_bytes) {
		finding_init(f, "page_cache", SEV_WARN, "re-reads miss the page cache",
			     "give the page cache room for the data");
		say(f->summary, sizeof(f->summary),
		    "page cache: re-reads miss: %s read again, %s of it from storage again; "
		    "working set %s, MemTotal %s", fmt_bytes(B(0), e->reread_bytes),
		    fmt_pct(B(1), rr_miss), fmt_bytes(B(2), e->working_set_bytes),
		    fmt_bytes(B(3), e->mem_total_bytes));
		say(f->advice, sizeof(f->advice),
		    "data read before was evicted: memory pressure or the container's memory "
		    "limit (cgroup memory.max) leaves no room for it; raise the limit, use "
		    "less memory elsewhere, or cache it in the job (tf.data dataset.cache())");
	} else if (fits) {
		finding_init(f, "page_cache", SEV_INFO, "working set fits in memory",
			     "cache the dataset in memory");
		say(f->summary, sizeof(f->summary),
		    "page cache: the working set so far, %s, fits in memory (%s of %s "
		    "MemTotal); %s of the bytes read came from storage",
		    fmt_bytes(B(0), e->working_set_bytes), fmt_pct(B(1), ws_share),
		    fmt_bytes(B(2), e->mem_total_bytes), fmt_pct(B(3), e->miss_share));
		say(f->advice, sizeof(f->advice),
		    "after the first epoch reads can come from memory: cache in the job "
		    "(tf.data dataset.cache(), a RAM disk) or keep the page cache warm (do "
		    "not drop caches or restart the loader between epochs; leave room under "
		    "the container's memory limit); the first epoch still reads from storage");
	} else if (ws_share >= 0) {
		finding_init(f, "page_cache", storage_bound(e, th) ? SEV_WARN : SEV_INFO,
			     "working set larger than memory", "stage the data to local NVMe");
		say(f->summary, sizeof(f->summary),
		    "page cache: the working set so far, %s, is %s of %s MemTotal: every "
		    "epoch reads from storage (%s of the bytes read came from it)",
		    fmt_bytes(B(0), e->working_set_bytes), fmt_pct(B(1), ws_share),
		    fmt_bytes(B(2), e->mem_total_bytes), fmt_pct(B(3), e->miss_share));
		say(f->advice, sizeof(f->advice),
		    "memory cannot hold the data: pack it into shards read sequentially so "
		    "that readahead works (raise read_ahead_kb for shard streams), stage it "
		    "to local NVMe, or cache a smaller (compressed, downscaled) copy");
	} else {
		finding_init(f, "page_cache", SEV_INFO, "reads come from storage", "");
		say(f->summary, sizeof(f->summary),
		    "page cache: %s of the bytes read came from storage; working set %s",
		    fmt_pct(B(0), e->miss_share), fmt_bytes(B(1), e->working_set_bytes));
		say(f->advice, sizeof(f->advice), "MemTotal unknown: cannot say whether "
		    "the data would fit in memory");
	}
	cache_figures(e, f, ws_share, rr_miss);
	return 1;
}

static int rule_cpu_bound(const struct evidence *e, const double *th, struct finding *f)
{
	bool starved = e->runq_share >= th[TH_RUNQ_HIGH];
	char buf[NBUF][32];

	if (!e->io_threads || e->cpu_share < 0 ||
	    e->cpu_share + e->runq_share < th[TH_CPU_BOUND] ||
	    e->io_wait_share >= th[TH_CPU_IO_WAIT])
		return 0;
	finding_init(f, "cpu_bound", starved ? SEV_WARN : SEV_INFO,
		     starved ? "CPU-starved" : "CPU-bound",
		     starved ? "free CPUs for the loader" : "make decoding cheaper");
	say(f->summary, sizeof(f->summary),
	    "%s: I/O threads %s on CPU, %s waiting for a CPU, only %s waiting on I/O: "
	    "storage is not the problem", starved ? "CPU-starved" : "CPU-bound",
	    fmt_pct(B(0), e->cpu_share), fmt_pct(B(1), e->runq_share),
	    fmt_pct(B(2), e->io_wait_share));
	say(f->advice, sizeof(f->advice), "%s", starved ?
	    "more threads are runnable than there are CPUs for them: fewer workers or "
	    "more cores, and cheaper decoding and augmentation; faster storage will not "
	    "help" :
	    "the loader spends its time decoding and augmenting, not waiting for storage: "
	    "more workers if cores are free, cheaper decoding (GPU decode with DALI or "
	    "nvJPEG, pre-resized images) or cached decoded samples; faster storage will "
	    "not help");
	fig(f, "cpu_share", e->cpu_share, "fraction");
	fig(f, "io_wait_share", e->io_wait_share, "fraction");
	fig(f, "runq_share", e->runq_share, "fraction");
	fig(f, "sleep_share", e->sleep_share, "fraction");
	fig(f, "io_threads", e->io_threads, "threads");
	return 1;
}

/* ---- the verdict ---- */

typedef int (*rule_fn)(const struct evidence *, const double *, struct finding *);

/* In the order findings of one severity are listed. */
static const rule_fn rules[] = {
	rule_storm,
	rule_bottleneck,
	rule_parallelism,
	rule_metadata,
	rule_random,
	rule_small,
	rule_page_cache,
	rule_cpu_bound,
};

int verdict__judge(const struct evidence *e, const struct thresholds *t,
		   struct finding *out, int max)
{
	struct finding all[VERDICT_MAX_FINDINGS];
	int n = 0, k = 0;

	if (rule_little_io(e, t->v, &all[0])) {
		n = 1;
	} else {
		for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
			n += rules[i](e, t->v, &all[n]);
	}
	/* Stable: HIGH first, rule order within a severity. */
	for (int sev = SEV_HIGH; sev >= SEV_OK; sev--)
		for (int i = 0; i < n && k < max; i++)
			if ((int)all[i].severity == sev)
				out[k++] = all[i];
	return k;
}

static const struct finding *find(const struct finding *f, int n, const char *id)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(f[i].id, id))
			return &f[i];
	return NULL;
}

/* "82% of loader thread time waits on I/O", else "read p50 4.1ms". */
static const char *wait_words(const struct finding *b, char *buf, size_t len)
{
	const struct figure *w = finding__figure(b, "io_wait_share");
	const struct figure *p = finding__figure(b, "read_p50_us");
	char v[16];

	if (w && w->value >= 0)
		snprintf(buf, len, "%s of loader thread time waits on I/O",
			 fmt_pct(v, sizeof(v), w->value));
	else
		snprintf(buf, len, "read p50 %s", fmt_us(v, sizeof(v), p ? p->value : 0));
	return buf;
}

/* "; pack files into shards", or nothing. */
static const char *fix_words(const struct finding *f, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", f->fix[0] ? "; " : "", f->fix);
	return buf;
}

void verdict__headline(const struct finding *f, int n, char *buf, size_t len)
{
	const struct finding *storm = find(f, n, "small_file_storm");
	const struct finding *bott = find(f, n, "storage_bottleneck");
	const struct finding *cpu = find(f, n, "cpu_bound");
	const struct finding *little = find(f, n, "little_io");
	const struct finding *worst = NULL;
	char wait[96], fix[80], pct[16];

	for (int i = 0; i < n; i++)
		if (&f[i] != cpu && (!worst || f[i].severity > worst->severity))
			worst = &f[i];
	if (little) {
		snprintf(buf, len, "VERDICT: %s", little->summary);
	} else if (bott && bott->severity >= SEV_WARN && storm && storm->severity >= SEV_WARN) {
		snprintf(buf, len, "VERDICT: %s, storage-bound (%s): %s%s", storm->label,
			 severity__name(storm->severity > bott->severity ?
					storm->severity : bott->severity),
			 wait_words(bott, wait, sizeof(wait)), fix_words(storm, fix, sizeof(fix)));
	} else if (bott && bott->severity >= SEV_WARN) {
		snprintf(buf, len, "VERDICT: storage-bound%s%s (%s): %s%s",
			 strcmp(bott->label, "storage-bound") ? ", " : "",
			 strcmp(bott->label, "storage-bound") ? bott->label : "",
			 severity__name(bott->severity), wait_words(bott, wait, sizeof(wait)),
			 fix_words(bott, fix, sizeof(fix)));
	} else if (cpu && (!worst || worst->severity < SEV_WARN)) {
		const struct figure *c = finding__figure(cpu, "cpu_share");

		snprintf(buf, len, "VERDICT: %s (storage is not the problem): loader threads "
			 "%s on CPU", cpu->label, fmt_pct(pct, sizeof(pct), c ? c->value : 0));
	} else if (worst && worst->severity >= SEV_WARN) {
		snprintf(buf, len, "VERDICT: %s (%s)%s%s", worst->label,
			 severity__name(worst->severity),
			 worst == storm ? ", storage keeps up for now" : "",
			 fix_words(worst, fix, sizeof(fix)));
	} else if (bott && strcmp(bott->label, "storage keeps up")) {
		snprintf(buf, len, "VERDICT: storage keeps up: %s", bott->label);
	} else {
		snprintf(buf, len, "VERDICT: storage keeps up");
	}
}

const char *severity__name(enum severity s)
{
	static const char *const names[] = { "OK", "INFO", "WARN", "HIGH" };

	return (unsigned int)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

const char *layer__name(enum layer_verdict l)
{
	return layers__key(l);
}
