// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Prometheus metrics of a trace: the text exposition format, /metrics over
 * libmicrohttpd and the textfile for node_exporter. See prom.h and
 * docs/metrics.md.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "block.h"
#include "hist.h"
#include "layers.h"
#include "atomic_file.h"
#include "diagnosis.h"
#include "prom.h"
#include "report.h"
#include "verdict.h"

#if MHD_VERSION >= 0x00097002
typedef enum MHD_Result mhd_result;
#else
typedef int mhd_result;
#endif

#define CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"
#define NS_PER_S	1000000000ULL
#define PROM_JUDGE_SHARE	0.1	/* of the main thread's time, at most */

/* ---- the text format ---- */

struct label {
	const char *name;
	const char *value;
};

struct prom {
	FILE *out;
	const char *job;	/* training_job on every sample; NULL: none */
};

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
 * in label values. The format is UTF-8: other bytes become '?'.
 */
static void put_escaped(FILE *out, const char *s, bool label_value)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		int n = utf8_len(p);

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

static void family(struct prom *p, const char *name, const char *type, const char *help)
{
	fprintf(p->out, "# HELP %s ", name);
	put_escaped(p->out, help, false);
	fprintf(p->out, "\n# TYPE %s %s\n", name, type);
}

static void put_label(struct prom *p, const char **sep, const char *name, const char *value)
{
	fprintf(p->out, "%s%s=\"", *sep, name);
	put_escaped(p->out, value, true);
	fputc('"', p->out);
	*sep = ",";
}

/* One sample: name+suffix{training_job, labels..., le} value. */
static void sample(struct prom *p, const char *name, const char *suffix,
		   const struct label *l, int n, const char *le, const char *value)
{
	const char *sep = "{";

	fprintf(p->out, "%s%s", name, suffix);
	if (p->job)
		put_label(p, &sep, "training_job", p->job);
	for (int i = 0; i < n; i++)
		put_label(p, &sep, l[i].name, l[i].value);
	if (le)
		put_label(p, &sep, "le", le);
	fprintf(p->out, "%s %s\n", *sep == ',' ? "}" : "", value);
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

static void sample_u64(struct prom *p, const char *name, const struct label *l, int n,
		       __u64 v)
{
	char buf[24];

	sample(p, name, "", l, n, NULL, fmt_u64(buf, sizeof(buf), v));
}

static void sample_secs(struct prom *p, const char *name, const struct label *l, int n,
			__u64 ns)
{
	char buf[32];

	sample(p, name, "", l, n, NULL, fmt_secs(buf, sizeof(buf), ns));
}

/* A family with one unlabelled sample. */
static void metric_u64(struct prom *p, const char *name, const char *type,
		       const char *help, __u64 v)
{
	family(p, name, type, help);
	sample_u64(p, name, NULL, 0, v);
}

/* ---- histograms ---- */

enum hist_unit {
	UNIT_NS,	/* exposed in seconds */
	UNIT_BYTES,
};

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

	if (unit == UNIT_BYTES)
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
static void hist_samples(struct prom *p, const char *name, const struct label *l, int n,
			 const struct hist *h, enum hist_unit unit, const __u64 *sum)
{
	__u64 b[BOUNDS_MAX], cum[BOUNDS_MAX], total;
	char le[32], v[32];
	int nb = hist_bounds(unit, b);

	total = hist_fold(h, b, nb, cum);
	for (int j = 0; j < nb; j++)
		sample(p, name, "_bucket", l, n, fmt_value(le, sizeof(le), unit, b[j]),
		       fmt_u64(v, sizeof(v), cum[j]));
	sample(p, name, "_bucket", l, n, "+Inf", fmt_u64(v, sizeof(v), total));
	sample(p, name, "_sum", l, n, NULL,
	       fmt_value(v, sizeof(v), unit, sum ? *sum : hist_sum_estimate(h)));
	sample(p, name, "_count", l, n, NULL, fmt_u64(v, sizeof(v), total));
}

/* ---- the trace ---- */

static void render_meta(struct prom *p, const struct trace *t)
{
	struct label l = { "target", t->target };

	family(p, "iostorm_target_info", "gauge", "What iostorm traces, in words; always 1.");
	sample(p, "iostorm_target_info", "", &l, 1, NULL, "1");
	family(p, "iostorm_trace_duration_seconds", "gauge",
	       "Time traced so far, seconds.");
	sample_secs(p, "iostorm_trace_duration_seconds", NULL, 0,
		    t->duration_s > 0 ? (__u64)llround(t->duration_s * 1e9) : 0);
}

static const struct {
	const char *name;
	int counter;		/* enum counter */
	const char *help;
} vfs_counters[] = {
	{ "iostorm_vfs_opens_total", C_OPENS,
	  "Successful open, openat and openat2 calls, of any file type." },
	{ "iostorm_vfs_open_errors_total", C_OPEN_ERRORS, "Failed opens." },
	{ "iostorm_vfs_reads_total", C_READS,
	  "Read-family calls (read, readv, pread64, preadv, preadv2) on regular files, "
	  "end-of-file reads included." },
	{ "iostorm_vfs_read_bytes_total", C_READ_BYTES, "Bytes those reads returned." },
	{ "iostorm_vfs_read_errors_total", C_READ_ERRORS, "Failed reads of regular files." },
	{ "iostorm_vfs_stats_total", C_STATS,
	  "Successful stat-family calls (stat, lstat, fstat, newfstatat, statx)." },
	{ "iostorm_vfs_stat_errors_total", C_STAT_ERRORS, "Failed stat-family calls." },
	{ "iostorm_vfs_closes_total", C_CLOSES, "Closes of regular files and directories." },
	{ "iostorm_vfs_getdents_total", C_GETDENTS, "getdents64 calls (directory listings)." },
	{ "iostorm_vfs_mmaps_total", C_MMAPS, "mmap calls on regular files." },
	{ "iostorm_vfs_mmap_faults_total", C_FAULTS, "Page faults on file mappings." },
	{ "iostorm_target_forks_total", C_FORKS, "Processes that joined the target by fork." },
	{ "iostorm_target_exits_total", C_EXITS, "Processes of the target that exited." },
};

static const struct {
	const char *name;
	int hist;		/* enum hist_id */
	enum hist_unit unit;
	const char *help;
} vfs_hists[] = {
	{ "iostorm_vfs_read_latency_seconds", H_READ_LAT, UNIT_NS,
	  "Latency of read-family calls on regular files, seconds." },
	{ "iostorm_vfs_read_size_bytes", H_READ_SIZE, UNIT_BYTES,
	  "Bytes returned per read-family call on regular files (0: end of file)." },
	{ "iostorm_vfs_open_latency_seconds", H_OPEN_LAT, UNIT_NS,
	  "Latency of open calls, failed ones included, seconds; _sum estimated." },
	{ "iostorm_vfs_stat_latency_seconds", H_STAT_LAT, UNIT_NS,
	  "Latency of stat-family calls, failed ones included, seconds; _sum estimated." },
	{ "iostorm_vfs_close_latency_seconds", H_CLOSE_LAT, UNIT_NS,
	  "Latency of closes of files, seconds; _sum estimated." },
	{ "iostorm_vfs_getdents_latency_seconds", H_GETDENTS_LAT, UNIT_NS,
	  "Latency of getdents64 calls, seconds; _sum estimated." },
};

static void render_vfs(struct prom *p, const struct trace *t)
{
	struct file_totals tot;
	long page = sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < sizeof(vfs_counters) / sizeof(vfs_counters[0]); i++)
		metric_u64(p, vfs_counters[i].name, "counter", vfs_counters[i].help,
			   t->counters[vfs_counters[i].counter]);
	family(p, "iostorm_vfs_metadata_seconds_total", "counter",
	       "Time in open, stat, close and getdents calls, summed over calls, seconds.");
	sample_secs(p, "iostorm_vfs_metadata_seconds_total", NULL, 0, t->counters[C_META_NS]);
	metric_u64(p, "iostorm_page_cache_added_bytes_total", "counter",
		   "Bytes of pages the target added to the page cache: misses and their readahead.",
		   t->counters[C_CACHE_PAGES] * (page > 0 ? page : 4096));
	report__file_totals(&t->store, &tot);
	metric_u64(p, "iostorm_vfs_files", "gauge",
		   "Distinct regular files seen by open, read or stat.", tot.files);
	metric_u64(p, "iostorm_vfs_dirs", "gauge", "Distinct directories seen.", tot.dirs);
}

/* Only read latency and size have exact sums: the kernel's read counters. */
static void render_vfs_hists(struct prom *p, const struct trace *t)
{
	for (size_t i = 0; i < sizeof(vfs_hists) / sizeof(vfs_hists[0]); i++) {
		int id = vfs_hists[i].hist;
		const __u64 *sum = id == H_READ_LAT ? &t->counters[C_READ_NS] :
				   id == H_READ_SIZE ? &t->counters[C_READ_BYTES] : NULL;

		family(p, vfs_hists[i].name, "histogram", vfs_hists[i].help);
		hist_samples(p, vfs_hists[i].name, NULL, 0, &t->hists[id], vfs_hists[i].unit,
			     sum);
	}
}

static void render_threads(struct prom *p, const struct trace *t)
{
	static const char *const states[] = { "cpu", "io_wait", "runq", "sleep" };
	const struct store *s = &t->store;
	__u64 ns[4] = {};

	for (size_t i = 0; i < s->nr_threads; i++) {
		ns[0] += s->threads[i].cpu_ns;
		ns[1] += s->threads[i].io_wait_ns;
		ns[2] += s->threads[i].runq_ns;
		ns[3] += s->threads[i].sleep_ns;
	}
	family(p, "iostorm_thread_seconds_total", "counter",
	       "Time of the target's threads by state, summed over threads, seconds: "
	       "cpu (on a CPU), io_wait (off CPU in a file syscall or in D state), "
	       "runq (runnable, waiting for a CPU), sleep (off CPU otherwise).");
	for (int i = 0; i < 4; i++) {
		struct label l = { "state", states[i] };

		sample_secs(p, "iostorm_thread_seconds_total", &l, 1, ns[i]);
	}
	metric_u64(p, "iostorm_threads", "gauge",
		   "Threads of the target seen so far.", s->nr_threads);
}

/* ---- the block layer ---- */

static const char *const who_names[WHO__MAX] = {
	[WHO_TARGET] = "target",
	[WHO_KTHREAD] = "kthread",
	[WHO_OTHER] = "other",
};

static const char *dev_label(char *buf, size_t len, const struct blk_dev *d)
{
	if (d->name[0])
		snprintf(buf, len, "%.*s", (int)sizeof(d->name), d->name);
	else
		snprintf(buf, len, "%u:%u", d->dev >> 20, d->dev & 0xfffff);
	return buf;
}

/* Read and write always, so their series exist; other operations once seen. */
static bool op_shown(const struct blk_dev *d, int op)
{
	struct blk_stats all;

	if (op == BLK_READ || op == BLK_WRITE)
		return true;
	blk_dev__sum(d, op, WHO_ALL, &all);
	return all.reqs || all.merged;
}

/* Requests (or their bytes) per (device, op, who). */
static void block_counts(struct prom *p, const struct block *b, const char *name,
			 const char *help, bool bytes)
{
	char dev[40];

	family(p, name, "counter", help);
	for (size_t i = 0; i < b->nr_devs; i++) {
		const struct blk_dev *d = &b->devs[i];

		if (!blk_dev__active(d))
			continue;
		for (int op = 0; op < BLK__MAX; op++) {
			if (!op_shown(d, op))
				continue;
			for (int w = 0; w < WHO__MAX; w++) {
				struct label l[] = {
					{ "device", dev_label(dev, sizeof(dev), d) },
					{ "op", block__op_name(op) },
					{ "who", who_names[w] },
				};
				const struct blk_stats *st = &d->st[op][w];

				sample_u64(p, name, l, 3, bytes ? st->bytes : st->reqs);
			}
		}
	}
}

static void block_busy(struct prom *p, const struct block *b)
{
	static const char *const scopes[BLK_SCOPES] = {
		[SCOPE_DEVICE] = "all",
		[SCOPE_TARGET] = "target",
	};
	const char *name = "iostorm_block_busy_seconds_total";
	char dev[40];

	family(p, name, "counter",
	       "Time with at least one request in flight on the device, seconds (iostat's "
	       "%util is its rate): scope all (every request) or target (the target's).");
	for (size_t i = 0; i < b->nr_devs; i++) {
		const struct blk_dev *d = &b->devs[i];

		if (!blk_dev__active(d))
			continue;
		for (int sc = 0; sc < BLK_SCOPES; sc++) {
			struct label l[] = {
				{ "device", dev_label(dev, sizeof(dev), d) },
				{ "scope", scopes[sc] },
			};

			sample_secs(p, name, l, 2, d->busy_ns[sc]);
		}
	}
}

static const struct hist empty_hist;

static const struct hist *target_hist(const struct blk_dev *d, int op, int id)
{
	const struct hist *h = blk_dev__hist(d, op, id, SCOPE_TARGET);

	return h ? h : &empty_hist;
}

/*
 * Histograms of the target's reads and writes, once it did one: 119 series
 * per device and operation, too many for flushes, discards and the rest.
 */
static bool target_did(const struct blk_dev *d, int op)
{
	if (op != BLK_READ && op != BLK_WRITE)
		return false;
	for (int id = H_BLK_QUEUE_LAT; id <= H_BLK_SIZE; id++)
		if (blk_dev__hist(d, op, id, SCOPE_TARGET))
			return true;
	return d->st[op][WHO_TARGET].reqs > 0;
}

static void block_latency(struct prom *p, const struct block *b)
{
	static const struct {
		const char *layer;
		int hist;
	} layers[] = {
		{ "queue", H_BLK_QUEUE_LAT },
		{ "device", H_BLK_DEV_LAT },
		{ "total", H_BLK_TOTAL_LAT },
	};
	const char *name = "iostorm_block_latency_seconds";
	char dev[40];

	family(p, name, "histogram",
	       "Latency of the target's block requests by layer, seconds: queue (start to "
	       "issue), device (issue to done), total (start to done).");
	for (size_t i = 0; i < b->nr_devs; i++) {
		const struct blk_dev *d = &b->devs[i];

		for (int op = 0; op < BLK__MAX; op++) {
			if (!target_did(d, op))
				continue;
			for (size_t k = 0; k < sizeof(layers) / sizeof(layers[0]); k++) {
				struct label l[] = {
					{ "device", dev_label(dev, sizeof(dev), d) },
					{ "op", block__op_name(op) },
					{ "layer", layers[k].layer },
				};
				const struct blk_stats *st = &d->st[op][WHO_TARGET];
				int id = layers[k].hist;
				__u64 sum = id == H_BLK_QUEUE_LAT ? st->queue_ns :
					    id == H_BLK_DEV_LAT ? st->device_ns : st->total_ns;

				hist_samples(p, name, l, 3, target_hist(d, op, id), UNIT_NS, &sum);
			}
		}
	}
}

static void block_sizes(struct prom *p, const struct block *b)
{
	const char *name = "iostorm_block_request_size_bytes";
	char dev[40];

	family(p, name, "histogram", "Bytes per block request of the target.");
	for (size_t i = 0; i < b->nr_devs; i++) {
		const struct blk_dev *d = &b->devs[i];

		for (int op = 0; op < BLK__MAX; op++) {
			struct label l[] = {
				{ "device", dev_label(dev, sizeof(dev), d) },
				{ "op", block__op_name(op) },
			};

			if (!target_did(d, op))
				continue;
			hist_samples(p, name, l, 2, target_hist(d, op, H_BLK_SIZE),
				     UNIT_BYTES, &d->st[op][WHO_TARGET].bytes);
		}
	}
}

static void render_block(struct prom *p, const struct trace *t)
{
	const struct block *b = &t->block;

	block_counts(p, b, "iostorm_block_requests_total",
		     "Completed block requests, as /proc/diskstats counts them, by submitter: "
		     "target, kthread (writeback, kworkers, loop) or other processes.",
		     false);
	block_counts(p, b, "iostorm_block_bytes_total",
		     "Bytes of completed block requests, by submitter.",
		     true);
	block_busy(p, b);
	block_latency(p, b);
	block_sizes(p, b);
}

/* ---- the diagnosis ---- */

/* One series per verdict, 1 for the current one (a state set). */
static void render_layer(struct prom *p, const struct trace *t)
{
	struct layers l;

	layers__compute(t, &l);
	family(p, "iostorm_layer_verdict", "gauge",
	       "Where the target's read time goes (1 for the verdict, 0 for the others): "
	       "above_block, page_cache, queue, device, ok, none.");
	for (int v = 0; v < LAYER__MAX; v++) {
		struct label lb = { "verdict", layers__key(v) };

		sample(p, "iostorm_layer_verdict", "", &lb, 1, NULL,
		       v == (int)l.verdict ? "1" : "0");
	}
}

/* The findings of a trace, and what judging it cost. */
struct findings {
	struct finding f[VERDICT_MAX_FINDINGS];
	int n;
	double at;		/* CLOCK_MONOTONIC seconds of the judgement */
	double cost;		/* seconds it took */
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int findings__judge(struct findings *fs, const struct trace *t)
{
	struct thresholds th;
	struct evidence e;
	int err;

	fs->at = mono_s();
	if (t->diag.done) {	/* the trace is over: its own findings */
		fs->n = t->diag.nr_findings;
		memcpy(fs->f, t->diag.findings, fs->n * sizeof(fs->f[0]));
		fs->cost = 0;
		return 0;
	}
	err = evidence__from_trace(&e, t);
	if (err)
		return err;
	evidence__add_block(&e, t);
	if (t->thresholds)
		th = *t->thresholds;
	else
		thresholds__defaults(&th);
	fs->n = verdict__judge(&e, &th, fs->f, VERDICT_MAX_FINDINGS);
	fs->cost = mono_s() - fs->at;
	return 0;
}

/*
 * Judging sorts every file (~1.9 s for 1.28M files): a live publish judges
 * again only when that keeps it under PROM_JUDGE_SHARE of the time.
 */
static bool findings__stale(const struct findings *fs)
{
	return fs->at == 0 || mono_s() - fs->at >= fs->cost / PROM_JUDGE_SHARE;
}

static void render_findings(struct prom *p, const struct findings *fs)
{
	int worst = SEV_OK;

	family(p, "iostorm_finding_severity", "gauge",
	       "Severity of each finding of docs/findings.md: 0 OK, 1 INFO, 2 WARN, 3 HIGH; "
	       "a finding not judged has no series.");
	for (int i = 0; i < fs->n; i++) {
		struct label l = { "finding", fs->f[i].id };

		sample_u64(p, "iostorm_finding_severity", &l, 1, fs->f[i].severity);
		if ((int)fs->f[i].severity > worst)
			worst = fs->f[i].severity;
	}
	metric_u64(p, "iostorm_verdict_severity", "gauge",
		   "The highest finding severity: 0 OK, 1 INFO, 2 WARN, 3 HIGH.", worst);
}

static void render_health(struct prom *p, const struct trace *t)
{
	const char *name = "iostorm_lost_events_total";

	family(p, name, "counter",
	       "Events iostorm could not record, by reason (prog_misses: BPF program runs "
	       "the kernel skipped); their sum is the JSON report's lost.total.");
	for (int r = 0; r < L__MAX; r++) {
		struct label l = { "reason", report__lost_key(r) };

		sample_u64(p, name, &l, 1, t->lost[r]);
	}
	sample_u64(p, name, &(struct label){ "reason", "prog_misses" }, 1, t->prog_misses);
	metric_u64(p, "iostorm_store_files", "gauge",
		   "Records in iostorm's user-space store: regular files and directories.",
		   t->store.nr_files);
	metric_u64(p, "iostorm_store_bytes", "gauge",
		   "Memory iostorm's store holds, bytes (malloc's overhead excluded).",
		   store__bytes(&t->store));
}

static int render(FILE *out, const struct trace *t, const char *job,
		  const struct findings *fs)
{
	struct prom p = { .out = out, .job = job && *job ? job : NULL };

	render_meta(&p, t);
	render_vfs(&p, t);
	render_vfs_hists(&p, t);
	render_threads(&p, t);
	render_block(&p, t);
	render_layer(&p, t);
	render_findings(&p, fs);
	render_health(&p, t);
	return ferror(out) ? -EIO : 0;
}

int prom__render(FILE *out, const struct trace *t, const char *job)
{
	struct findings *fs = calloc(1, sizeof(*fs));
	int err = fs ? findings__judge(fs, t) : -ENOMEM;

	if (!err)
		err = render(out, t, job, fs);
	free(fs);
	return err;
}

/* ---- the textfile ---- */

struct render_args {
	const struct trace *t;
	const char *job;
};

static int fill_render(FILE *f, const void *arg)
{
	const struct render_args *a = arg;

	return prom__render(f, a->t, a->job);
}

int prom__write_file(const char *path, const struct trace *t, const char *job)
{
	struct render_args a = { t, job };

	return atomic_file__write(path, false, fill_render, &a);
}

/* ---- the HTTP server ---- */

struct prom_server {
	struct MHD_Daemon *mhd;	/* NULL: no HTTP, snapshots for prom__save() only */
	pthread_mutex_t lock;	/* guards text and len against the server thread */
	char *text;		/* what a scrape gets; NULL before the first publish */
	size_t len;
	char *job;
	struct findings findings;	/* judged again when stale */
};

int prom__parse_addr(const char *s, struct sockaddr_storage *sa, socklen_t *len)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)sa;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)sa;
	const char *colon = strrchr(s, ':'), *host = s;
	char buf[INET6_ADDRSTRLEN], *end;
	size_t hlen;
	long port;

	if (!colon)
		return -EINVAL;
	hlen = colon - s;
	if (s[0] == '[') {
		if (hlen < 2 || colon[-1] != ']')
			return -EINVAL;
		host++;
		hlen -= 2;
	}
	if (hlen == 0 || hlen >= sizeof(buf) || colon[1] < '0' || colon[1] > '9')
		return -EINVAL;
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (errno || *end || port < 1 || port > 65535)
		return -EINVAL;
	memcpy(buf, host, hlen);
	buf[hlen] = '\0';
	memset(sa, 0, sizeof(*sa));
	if (s[0] == '[') {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		*len = sizeof(*in6);
		return inet_pton(AF_INET6, buf, &in6->sin6_addr) == 1 ? 0 : -EINVAL;
	}
	in4->sin_family = AF_INET;
	in4->sin_port = htons(port);
	*len = sizeof(*in4);
	return inet_pton(AF_INET, buf, &in4->sin_addr) == 1 ? 0 : -EINVAL;
}

static mhd_result respond(struct MHD_Connection *c, unsigned int status, char *body,
			  size_t len, const char *type)
{
	struct MHD_Response *r;
	mhd_result ret;

	r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static mhd_result respond_text(struct MHD_Connection *c, unsigned int status,
			       const char *text)
{
	char *body = strdup(text);

	return body ? respond(c, status, body, strlen(body), "text/plain; charset=utf-8") :
		      MHD_NO;
}

/* The snapshot, copied under the lock: publish may free it any time after. */
static mhd_result serve_metrics(struct prom_server *s, struct MHD_Connection *c)
{
	char *body = NULL;
	size_t len = 0;

	pthread_mutex_lock(&s->lock);
	if (s->text) {
		body = malloc(s->len ? s->len : 1);
		if (body) {
			memcpy(body, s->text, s->len);
			len = s->len;
		}
	}
	pthread_mutex_unlock(&s->lock);
	if (!body)
		return respond_text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
				    "iostorm: no metrics yet\n");
	return respond(c, MHD_HTTP_OK, body, len, CONTENT_TYPE);
}

/* GET or HEAD of /metrics; / says where the metrics are; the rest is 404. */
static mhd_result handle(void *cls, struct MHD_Connection *c, const char *url,
			 const char *method, const char *version, const char *upload,
			 size_t *upload_len, void **req)
{
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return respond_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	if (!strcmp(url, "/metrics"))
		return serve_metrics(cls, c);
	if (!strcmp(url, "/"))
		return respond_text(c, MHD_HTTP_OK, "iostorm: metrics are at /metrics\n");
	return respond_text(c, MHD_HTTP_NOT_FOUND, "iostorm: not found; try /metrics\n");
}

/* A listening socket of our own: bind errors come back with their errno. */
static int listen_on(const struct sockaddr_storage *sa, socklen_t len)
{
	int fd, one = 1;

	fd = socket(sa->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (const struct sockaddr *)sa, len) || listen(fd, 64)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/*
 * The server thread inherits the signal mask: with every signal blocked
 * there, SIGINT and SIGTERM reach the main loop's handler.
 */
static struct MHD_Daemon *start_daemon(struct prom_server *s, int fd)
{
	sigset_t all, old;
	struct MHD_Daemon *d;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO, 0, NULL, NULL,
			     handle, s,
			     MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned int)32,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)10,
			     MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return d;
}

int prom__serve(struct prom_server **out, const char *addr_port, const char *job)
{
	struct sockaddr_storage sa;
	struct prom_server *s;
	socklen_t len;
	int fd, err;

	*out = NULL;
	if (addr_port && prom__parse_addr(addr_port, &sa, &len)) {
		fprintf(stderr, "iostorm: cannot listen on '%s': expected IPV4:PORT or "
			"[IPV6]:PORT\n", addr_port);
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s || (job && *job && !(s->job = strdup(job)))) {
		err = -ENOMEM;
		fprintf(stderr, "iostorm: out of memory\n");
		goto out_free_server;
	}
	pthread_mutex_init(&s->lock, NULL);
	if (!addr_port)
		goto out_done;
	fd = listen_on(&sa, len);
	if (fd < 0) {
		err = fd;
		fprintf(stderr, "iostorm: cannot listen on '%s': %s\n", addr_port,
			strerror(-err));
		goto out_destroy_lock;
	}
	errno = 0;
	s->mhd = start_daemon(s, fd);
	if (!s->mhd) {
		err = errno ? -errno : -EIO;
		fprintf(stderr, "iostorm: cannot serve metrics on '%s': %s\n", addr_port,
			strerror(-err));
		goto out_close_fd;
	}
out_done:
	*out = s;
	return 0;

out_close_fd:
	close(fd);
out_destroy_lock:
	pthread_mutex_destroy(&s->lock);
out_free_server:
	if (s)
		free(s->job);
	free(s);
	return err;
}

int prom__publish(struct prom_server *s, const struct trace *t)
{
	char *text = NULL, *old;
	size_t len = 0;
	FILE *f;
	int err = 0;

	if (findings__stale(&s->findings))
		err = findings__judge(&s->findings, t);
	if (err)
		return err;
	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	err = render(f, t, s->job, &s->findings);
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (err) {
		free(text);
		return err;
	}
	pthread_mutex_lock(&s->lock);
	old = s->text;
	s->text = text;
	s->len = len;
	pthread_mutex_unlock(&s->lock);
	free(old);
	return 0;
}

/* Only the caller's thread changes text: reading it needs no lock. */
static int fill_snapshot(FILE *f, const void *arg)
{
	const struct prom_server *s = arg;

	return fwrite(s->text, 1, s->len, f) == s->len ? 0 : -EIO;
}

int prom__save(struct prom_server *s, const char *path)
{
	if (!s->text)
		return -ENODATA;
	return atomic_file__write(path, false, fill_snapshot, s);
}

void prom__stop(struct prom_server *s)
{
	if (!s)
		return;
	if (s->mhd)
		MHD_stop_daemon(s->mhd);	/* closes the listening socket too */
	pthread_mutex_destroy(&s->lock);
	free(s->text);
	free(s->job);
	free(s);
}
