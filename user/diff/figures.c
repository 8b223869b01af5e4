// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * iostorm diff: the figures a report says, tolerant of absent keys, and
 * whether two reports trace the same workload.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "diff/diff_int.h"

#define SMALL_READ	(256 * 1024)	/* small_read_share: as the verdict's evidence */
#define COMM_LEN	15		/* bytes of a thread name (TASK_COMM_LEN - 1) */
#define OTHER_FILES	0.5		/* files differ by more than this share of BASE's */

/* The number at a dotted path ("vfs.opens"); false when absent. */
static bool get_num(const json_t *o, const char *path, double *out)
{
	char key[32];
	const char *dot;

	while ((dot = strchr(path, '.'))) {
		size_t n = dot - path;

		if (n >= sizeof(key))
			return false;
		memcpy(key, path, n);
		key[n] = 0;
		o = json_object_get(o, key);
		path = dot + 1;
	}
	o = json_object_get(o, path);
	if (!json_is_number(o))
		return false;
	*out = json_number_value(o);
	return true;
}

static void set(struct diff_figures *f, int m, double v)
{
	f->v[m] = v;
	f->have[m] = true;
}

static void ratio(struct diff_figures *f, int m, int num, int den)
{
	if (f->have[num] && f->have[den] && f->v[den] > 0)
		set(f, m, f->v[num] / f->v[den]);
}

/* Faults that read mapped data from storage (vfs.mapped): per file, and their order. */
static void mapped_figures(const json_t *r, struct diff_figures *f)
{
	double faults, rnd, seq;

	if (!get_num(r, "vfs.mapped.fault_reads", &faults))
		return;
	if (f->have[DM_FILES] && f->v[DM_FILES] > 0)
		set(f, DM_FAULT_READS_PER_FILE, faults / f->v[DM_FILES]);
	if (get_num(r, "vfs.mapped.fault_reads_random", &rnd) &&
	    get_num(r, "vfs.mapped.fault_reads_sequential", &seq) && rnd + seq > 0)
		set(f, DM_FAULT_RANDOM_SHARE, rnd / (rnd + seq));
}

/*
 * The dataset's counts: the totals less what code files took (vfs.code:
 * the job's imports and libraries, which a loader change does not touch
 * and whose number moves with the environment). Reports without vfs.code
 * give their totals.
 */
static void vfs_figures(const json_t *r, struct diff_figures *f)
{
	static const struct { int m; const char *path, *code; } keys[] = {
		{ DM_FILES, "vfs.files", "vfs.code.files" },
		{ DM_OPENS, "vfs.opens", "vfs.code.opens" },
		{ DM_READS, "vfs.reads", "vfs.code.reads" },
		{ DM_READ_BYTES, "vfs.read_bytes", "vfs.code.read_bytes" },
		{ DM_STATS, "vfs.stats", "vfs.code.stats" },
		{ DM_WRITES, "vfs.writes", NULL },
		{ DM_WRITE_BYTES, "vfs.write_bytes", NULL },
		{ DM_DURATION, "duration_s", NULL },
	};
	double rnd, seq, meta, rd, code;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		f->have[keys[i].m] = get_num(r, keys[i].path, &f->v[keys[i].m]);
		if (f->have[keys[i].m] && keys[i].code && get_num(r, keys[i].code, &code) &&
		    code <= f->v[keys[i].m])
			f->v[keys[i].m] -= code;
	}
	f->v[DM_DURATION] *= 1e9;
	ratio(f, DM_OPENS_PER_FILE, DM_OPENS, DM_FILES);
	ratio(f, DM_READS_PER_FILE, DM_READS, DM_FILES);
	ratio(f, DM_STATS_PER_FILE, DM_STATS, DM_FILES);
	ratio(f, DM_BYTES_PER_READ, DM_READ_BYTES, DM_READS);
	/* The read classes cover the per-file records: their sum is the base. */
	if (get_num(r, "vfs.reads_random", &rnd)) {
		if (!get_num(r, "vfs.reads_sequential", &seq))
			seq = f->have[DM_READS] ? f->v[DM_READS] - rnd : 0;
		if (rnd + seq > 0)
			set(f, DM_RANDOM_SHARE, rnd / (rnd + seq));
	}
	mapped_figures(r, f);
	if (get_num(r, "vfs.meta_ns", &meta) && get_num(r, "vfs.read_ns", &rd)) {
		if (get_num(r, "vfs.code.meta_ns", &code) && code <= meta)
			meta -= code;
		if (get_num(r, "vfs.code.read_ns", &code) && code <= rd)
			rd -= code;
		if (meta + rd > 0)
			set(f, DM_META_SHARE, meta / (meta + rd));
	}
}

/* From the size histogram's buckets [lower, upper, count]: bounds are exact at 256 KiB. */
static void small_reads(const json_t *r, struct diff_figures *f)
{
	const json_t *b = json_object_get(json_object_get(json_object_get(r, "sizes"), "read"),
					  "buckets");
	double small = 0, data = 0;
	json_t *row;
	size_t i;

	if (!json_is_array(b))
		return;
	json_array_foreach(b, i, row) {
		double lo = json_number_value(json_array_get(row, 0));
		double n = json_number_value(json_array_get(row, 2));

		if (lo < 1)
			continue;	/* end-of-file reads */
		data += n;
		if (lo < SMALL_READ)
			small += n;
	}
	if (data > 0)
		set(f, DM_SMALL_READ_SHARE, small / data);
}

/* p50 and p99 of a {count, p50, p99} object; m50 < 0 skips the median. */
static bool percentiles(const json_t *h, struct diff_figures *f, int m50, int m99)
{
	double n, p;

	if (!get_num(h, "count", &n) || n <= 0)
		return false;
	if (m50 >= 0 && get_num(h, "p50", &p)) {
		set(f, m50, p);
		f->samples[m50] = n;
	}
	if (get_num(h, "p99", &p)) {
		set(f, m99, p);
		f->samples[m99] = n;
	}
	return true;
}

static const json_t *path_get(const json_t *o, const char *const *keys)
{
	for (; *keys && o; keys++)
		o = json_object_get(o, *keys);
	return o;
}

static void block_figures(const json_t *r, struct diff_figures *f)
{
	static const char *const read_target[] = { "ops", "read", "target", NULL };
	static const char *const total[] = { "latency", "total", NULL };
	const json_t *devs = json_object_get(json_object_get(r, "block"), "devices");
	double reads = 0, seq = 0, n, s;
	json_t *d;
	size_t i;

	if (!json_is_array(devs))
		return;
	json_array_foreach(devs, i, d) {
		const json_t *t = path_get(d, read_target);

		/* Without ops (older reports) "sequential" counts writes too. */
		if (get_num(t, "reqs", &n) || get_num(d, "reads", &n)) {
			reads += n;
			if (get_num(t, "sequential", &s) || get_num(d, "sequential", &s))
				seq += s < n ? s : n;
		}
	}
	set(f, DM_BLK_READS, reads);
	if (reads > 0)
		set(f, DM_BLK_RANDOM_SHARE, (reads - seq) / reads);
	/* Percentiles of several devices do not merge: then layers only. */
	if (!percentiles(json_object_get(json_object_get(r, "layers"), "block_total"), f,
			 DM_BLK_P50, DM_BLK_P99) && json_array_size(devs) == 1)
		percentiles(path_get(path_get(json_array_get(devs, 0), read_target), total),
			    f, DM_BLK_P50, DM_BLK_P99);
}

/*
 * The I/O wait share of all threads' time, from "thread_groups" (every
 * thread, summed by name): the loader never parses the per-thread list.
 */
static void thread_figures(const json_t *r, struct diff_figures *f)
{
	static const char *const others[] = { "cpu_ns", "runq_ns", "sleep_ns" };
	const json_t *threads = json_object_get(r, "thread_groups");
	double io = 0, all = 0, v;
	bool any = false;
	json_t *t;
	size_t i;

	json_array_foreach(threads, i, t) {
		if (!get_num(t, "io_wait_ns", &v))
			continue;
		any = true;
		io += v;
		all += v;
		for (int k = 0; k < 3; k++)
			if (get_num(t, others[k], &v))
				all += v;
	}
	if (any && all > 0)
		set(f, DM_IO_WAIT_SHARE, io / all);
}

/* The FUSE layer over every connection: requests per file opened, mean round trip. */
static void fuse_figures(const json_t *r, struct diff_figures *f)
{
	const json_t *conns = json_object_get(json_object_get(r, "fuse"), "connections");
	double reqs = 0, files = 0, ns = 0, n, v;
	json_t *c;
	size_t i;

	if (!json_is_array(conns))
		return;
	json_array_foreach(conns, i, c) {
		const json_t *l = json_object_get(c, "layers");

		if (!get_num(l, "requests", &n) || n <= 0)
			continue;
		reqs += n;
		if (get_num(l, "files_opened", &v))
			files += v;
		if (get_num(l, "rtt_mean_ns", &v))
			ns += v * n;
	}
	if (files > 0)
		set(f, DM_FUSE_REQS_PER_FILE, reqs / files);
	if (reqs > 0)
		set(f, DM_FUSE_RTT, ns / reqs);
}

/* The NFS layer over every mount: calls per file opened, mean round trip. */
static void nfs_figures(const json_t *r, struct diff_figures *f)
{
	const json_t *mounts = json_object_get(json_object_get(r, "nfs"), "mounts");
	double calls = 0, files = 0, ns = 0, n, v;
	json_t *m;
	size_t i;

	if (!json_is_array(mounts))
		return;
	json_array_foreach(mounts, i, m) {
		const json_t *l = json_object_get(m, "layers");

		if (!get_num(l, "calls", &n) || n <= 0)
			continue;
		calls += n;
		if (get_num(l, "files_opened", &v))
			files += v;
		if (get_num(l, "rtt_mean_ns", &v))
			ns += v * n;
	}
	if (files > 0)
		set(f, DM_NFS_CALLS_PER_FILE, calls / files);
	if (calls > 0)
		set(f, DM_NFS_RTT, ns / calls);
}

/*
 * stall.share and its loop's time: absent or null when no consumer was
 * found; the wait on writes, of the loop that waits most on them
 * (stall.loops[]), absent in reports from before writes were measured.
 */
static void stall_figures(const json_t *r, struct diff_figures *f)
{
	const json_t *st = json_object_get(r, "stall"), *l;
	double v, most = -1;
	size_t i;

	if (get_num(st, "share", &v))
		set(f, DM_STALL_SHARE, v);
	if (get_num(st, "share", &v) && get_num(st, "wall_ns", &v))
		set(f, DM_LOOP_TIME, v);
	if (get_num(st, "write_share", &v))
		most = v;
	json_array_foreach(json_object_get(st, "loops"), i, l)
		if (get_num(l, "write_share", &v) && v > most)
			most = v;
	if (most >= 0)
		set(f, DM_WRITE_SHARE, most);
}

static void finding_figures(const json_t *r, struct diff_figures *f)
{
	json_t *x;
	size_t i;

	json_array_foreach(json_object_get(r, "findings"), i, x) {
		const char *id = json_string_value(json_object_get(x, "id"));
		int sev = diff__sev_parse(json_string_value(json_object_get(x, "severity")));
		int k;

		if (!id || sev == DIFF_SEV_NONE)
			continue;
		for (k = 0; k < f->nr_findings; k++)
			if (!strcmp(f->findings[k].id, id))
				break;
		if (k == f->nr_findings) {
			if (k == DIFF_MAX_FINDINGS)
				continue;
			snprintf(f->findings[k].id, sizeof(f->findings[k].id), "%s", id);
			f->findings[k].sev = DIFF_SEV_NONE;
			f->nr_findings++;
		}
		if (sev > f->findings[k].sev)
			f->findings[k].sev = sev;
	}
}

void diff__figures(const json_t *r, struct diff_figures *f)
{
	const json_t *lat = json_object_get(r, "latency");

	memset(f, 0, sizeof(*f));
	snprintf(f->target, sizeof(f->target), "%s",
		 json_string_value(json_object_get(r, "target")) ?: "");
	vfs_figures(r, f);
	small_reads(r, f);
	if (!percentiles(json_object_get(lat, "read"), f, DM_READ_P50, DM_READ_P99))
		percentiles(json_object_get(json_object_get(r, "layers"), "read"), f,
			    DM_READ_P50, DM_READ_P99);
	percentiles(json_object_get(lat, "open"), f, -1, DM_OPEN_P99);
	block_figures(r, f);
	thread_figures(r, f);
	stall_figures(r, f);
	fuse_figures(r, f);
	nfs_figures(r, f);
	finding_figures(r, f);
}

int diff__finding_sev(const struct diff_figures *f, const char *id)
{
	for (int i = 0; i < f->nr_findings; i++)
		if (!strcmp(f->findings[i].id, id))
			return f->findings[i].sev;
	return DIFF_SEV_NONE;
}

/*
 * The program a target names, as a thread name would say it:
 * "command /usr/bin/python3 train.py" and "pid 42 (python3)" both give
 * "python3"; "cgroup /job" gives "/job".
 */
static void target_program(const char *target, char *out, size_t len)
{
	const char *p = target, *end, *slash;

	if (!strncmp(p, "command ", 8)) {
		p += 8;
		end = p + strcspn(p, " ");
		for (slash = p; (slash = memchr(slash, '/', end - slash)); p = ++slash)
			;
	} else if (!strncmp(p, "pid", 3) && (p = strchr(p, '('))) {
		end = strchr(++p, ')');
		if (!end)
			end = p + strlen(p);
	} else {
		p = !strncmp(target, "cgroup ", 7) ? target + 7 : target;
		end = p + strlen(p);
	}
	if (end - p > COMM_LEN)
		end = p + COMM_LEN;
	snprintf(out, len, "%.*s", (int)(end - p), p);
}

bool diff__other_workload(const struct diff_figures *b, const struct diff_figures *n,
			  char *why, size_t len)
{
	char pb[64], pn[64];

	why[0] = 0;
	if (!b->have[DM_FILES] || !n->have[DM_FILES] || !b->target[0] || !n->target[0])
		return false;
	if (fabs(n->v[DM_FILES] - b->v[DM_FILES]) <= OTHER_FILES * b->v[DM_FILES])
		return false;
	target_program(b->target, pb, sizeof(pb));
	target_program(n->target, pn, sizeof(pn));
	if (!strcmp(pb, pn))
		return false;
	snprintf(why, len, "%.0f files by '%s' vs %.0f files by '%s'",
		 b->v[DM_FILES], pb, n->v[DM_FILES], pn);
	return true;
}
