// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The evidence from a trace, see evidence.h: the VFS counters and
 * histograms, the files read (sizes, order, working set), the threads'
 * time and MemTotal; the block and FUSE parts, evidence__add_block() and
 * evidence__add_fuse(), which findings__judge() (findings.c) adds.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "findings/evidence.h"
#include "model/block.h"
#include "model/facts.h"
#include "model/hist.h"
#include "model/kind.h"
#include "model/path.h"
#include "model/trace.h"

#define SMALL_READ	(256 * 1024)	/* small_read_share: reads below this */
#define ORDER_MIN_FILES	10		/* file_order_random needs this many files */

static double rate(double n, double secs)
{
	return secs > 0 ? n / secs : 0;
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
	return evidence__ratio(small, all);
}

/* a - b, never below 0: counters and per-file sums of one trace. */
static __u64 minus(__u64 a, __u64 b)
{
	return a > b ? a - b : 0;
}

/* The totals less the job's code and libraries: the dataset's figures. */
static void vfs_fill(struct evidence *e, const struct trace *t, const struct file_totals *tot)
{
	const __u64 *c = t->counters;
	double d = t->duration_s;
	__u64 read_ns = minus(c[C_READ_NS], tot->code_read_ns);
	__u64 meta_ns = minus(c[C_META_NS], tot->code_meta_ns);

	e->opens = minus(c[C_OPENS], tot->code_opens);
	e->reads = minus(c[C_READS], tot->code_reads);
	e->read_bytes = minus(c[C_READ_BYTES], tot->code_read_bytes);
	e->stats = minus(c[C_STATS], tot->code_stats);
	e->getdents = c[C_GETDENTS];
	e->opens_per_s = rate(e->opens, d);
	e->reads_per_s = rate(e->reads, d);
	e->read_bytes_per_s = rate(e->read_bytes, d);
	e->read_s = read_ns / 1e9;
	e->meta_s = meta_ns / 1e9;
	e->meta_share = evidence__ratio(meta_ns, (double)meta_ns + read_ns);
	e->small_read_share = small_share(&t->hists[H_READ_SIZE]);
	e->read_p50_us = hist__quantile(&t->hists[H_READ_LAT], 0.5) / 1e3;
	e->read_p99_us = hist__quantile(&t->hists[H_READ_LAT], 0.99) / 1e3;
	e->read_mean_us = e->reads ? read_ns / 1e3 / e->reads : 0;
	e->open_p50_us = hist__quantile(&t->hists[H_OPEN_LAT], 0.5) / 1e3;
	e->stat_p50_us = hist__quantile(&t->hists[H_STAT_LAT], 0.5) / 1e3;
	e->read_concurrency = d > 0 ? e->read_s / d : -1;
	e->cache_bytes = c[C_CACHE_PAGES] * (__u64)t->page_size;
	e->miss_share = evidence__ratio(e->cache_bytes, e->read_bytes);
}

/* Faults that read mapped data from storage, and the code left out. */
static void mapped_fill(struct evidence *e, const struct trace *t, const struct file_totals *tot)
{
	e->files_mapped = tot->files_mapped;
	e->fault_reads = tot->fault_reads;
	e->fault_bytes = tot->fault_pages * (__u64)t->page_size;
	e->fault_reads_per_s = rate(tot->fault_reads, t->duration_s);
	e->fault_random_share = evidence__ratio(tot->fault_rand, tot->fault_seq + tot->fault_rand);
	e->fault_wait_s = tot->fault_ns / 1e9;
	e->code_files = tot->code_files;
	e->code_opens = tot->code_opens;
	e->code_reads = tot->code_reads;
}

static int u64_cmp(const void *pa, const void *pb)
{
	__u64 a = *(const __u64 *)pa, b = *(const __u64 *)pb;

	return a < b ? -1 : a > b;
}

/* When a file was first read; its first touch for a read the kernel did not time. */
static __u64 read_ts(const struct file_rec *f)
{
	return f->read_ts ? f->read_ts : f->first_ts;
}

/* By first read: stats and opens before it (an index built at start-up) do not count. */
static int ts_cmp(const void *pa, const void *pb)
{
	const struct file_rec *a = *(struct file_rec *const *)pa;
	const struct file_rec *b = *(struct file_rec *const *)pb;

	if (read_ts(a) != read_ts(b))
		return read_ts(a) < read_ts(b) ? -1 : 1;
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

		if ((f->flags & FILE_F_DIR) || file_rec__is_code(f))
			continue;
		if (f->c.fault_reads)
			e->mapped_bytes += f->size;
		if (!(f->flags & FILE_F_REG))
			continue;
		if (!f->c.reads)
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
	e->whole_file_share = evidence__ratio(whole, sized);
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
 * queue, sleep. A loader thread does at least 1% of the file operations
 * (opens, reads, faults that read mapped data):
 * a main thread that loaded libraries and then waits in join() is not one.
 */
static void threads_fill(struct evidence *e, const struct store *s)
{
	double cpu = 0, io = 0, runq = 0, sleep = 0, sum;
	__u64 ops = 0;

	for (size_t i = 0; i < s->threads.n; i++) {
		const struct io_counters *io = &s->threads.v[i].io;

		ops += io->opens + io->reads + io->fault_reads;
	}
	for (size_t i = 0; i < s->threads.n; i++) {
		const struct thread_rec *th = &s->threads.v[i];
		__u64 own = th->io.opens + th->io.reads + th->io.fault_reads;

		if (!own || own * 100 < ops)
			continue;
		e->io_threads++;
		cpu += th->cpu_ns;
		io += th->io_wait_ns;
		runq += th->runq_ns;
		sleep += th->sleep_ns;
	}
	sum = cpu + io + runq + sleep;
	e->cpu_share = evidence__ratio(cpu, sum);
	e->io_wait_share = evidence__ratio(io, sum);
	e->runq_share = evidence__ratio(runq, sum);
	e->sleep_share = evidence__ratio(sleep, sum);
}

/* The loop's loader working threads, as shares of their summed time. */
static void loader_fill(struct evidence *e, const struct stall *s)
{
	double sum = (double)s->loader_cpu_ns + s->loader_runq_ns + s->loader_io_ns +
		     s->loader_sleep_ns;

	e->ld_workers = s->loader_workers;
	e->ld_procs = s->loader_procs;
	e->ld_cpu_share = evidence__ratio(s->loader_cpu_ns, sum);
	e->ld_runq_share = evidence__ratio(s->loader_runq_ns, sum);
	e->ld_io_share = evidence__ratio(s->loader_io_ns, sum);
	e->ld_sleep_share = evidence__ratio(s->loader_sleep_ns, sum);
	e->ld_runnable = e->duration_s > 0 ?
		((double)s->loader_cpu_ns + s->loader_runq_ns) / (e->duration_s * 1e9) : 0;
	e->ld_busiest_share = evidence__ratio(s->busiest_ns, s->busiest_wall_ns);
	snprintf(e->ld_busiest_comm, sizeof(e->ld_busiest_comm), "%.*s",
		 (int)sizeof(s->busiest_comm), s->busiest_comm);
}

void evidence__set_loop(struct evidence *e, const struct stall *s)
{
	double w = s->wall_ns;

	e->have_stall = s->how != CONSUMER_NONE && w > 0;
	if (!e->have_stall)
		return;
	e->stall_share = stall__share(s);
	e->stall_own_io_share = s->own_io_ns / w;
	e->stall_loader_share = s->loader_wait_ns / w;
	e->stall_cpu_share = s->on_cpu_ns / w;
	e->stall_wall_s = w / 1e9;
	snprintf(e->stall_comm, sizeof(e->stall_comm), "%.*s", (int)sizeof(s->comm), s->comm);
	e->stall_pid = s->tgid;
	e->stall_rank_share = s->rank_wait_ns / w;
	e->stall_receive_share = s->receive_ns / w;
	e->stall_shake_share = s->handshake_ns / w;
	e->stall_runq_share = s->runnable_ns / w;
	loader_fill(e, s);
}

/* The training loop's split, as shares of its wall time. */
static void stall_fill(struct evidence *e, const struct trace *t)
{
	evidence__set_loop(e, &t->stall);
	if (!e->have_stall)
		return;
	e->stall_loops = t->nr_loops;
	e->stall_least_share = t->nr_loops ? stall__share(&t->loops[t->nr_loops - 1]) :
			       e->stall_share;
}

/* The loop that waits most on writes, as shares of its wall time; and the writes. */
static void write_fill(struct evidence *e, const struct trace *t)
{
	const struct stall *s = stall__most_writing(t);
	double w = s ? s->wall_ns : 0;

	e->writes = t->counters[C_WRITES];
	e->write_bytes = t->counters[C_WRITE_BYTES];
	e->have_write_wait = s && w > 0;
	if (!e->have_write_wait)
		return;
	e->write_share = stall__write_share(s);
	e->write_own_share = s->own_write_ns / w;
	e->write_writer_share = s->writer_wait_ns / w;
	e->write_data_share = stall__share(s);
	e->write_wall_s = w / 1e9;
	snprintf(e->write_comm, sizeof(e->write_comm), "%.*s", (int)sizeof(s->comm), s->comm);
	e->write_pid = s->tgid;
}

int evidence__from_trace(struct evidence *e, const struct trace *t, const struct facts *fa)
{
	int err;

	memset(e, 0, sizeof(*e));
	e->duration_s = t->duration_s;
	e->nr_cpus = t->nr_cpus;
	e->ld_cpu_share = e->ld_runq_share = e->ld_io_share = e->ld_sleep_share = -1;
	e->ld_busiest_share = -1;
	vfs_fill(e, t, &fa->tot);
	mapped_fill(e, t, &fa->tot);
	err = files_fill(e, &t->store);
	if (err)
		return err;
	e->files_per_s = rate(e->files_read, t->duration_s);
	e->files_lower_bound = trace__files_lower_bound(t);
	e->reread_bytes = e->read_bytes > e->working_set_bytes ?
			  e->read_bytes - e->working_set_bytes : 0;
	e->mem_total_bytes = t->mem_bytes;
	threads_fill(e, &t->store);
	stall_fill(e, t);
	write_fill(e, t);
	/* The block part is the caller's: not measured until it says so. */
	e->have_block = false;
	e->blk_random_share = e->blk_small_share = e->blk_queue_share = -1;
	e->blk_util = -1;
	e->layer = LAYER_NONE;
	return 0;
}

#define SAVE_DIRS	16	/* directories told apart for save_dir */

struct save_dir {
	char *dir;
	__u64 bytes;
};

/* Count f's bytes to its directory in dirs[*n] (SAVE_DIRS at most). */
static int save_dir_add(struct save_dir *dirs, int *n, const struct file_rec *f)
{
	const char *path = f->path ? f->path : f->job_path;
	char *dir = path ? path__dirname(path) : NULL;
	int i;

	if (!path)
		return 0;
	if (!dir)
		return -ENOMEM;
	for (i = 0; i < *n && strcmp(dirs[i].dir, dir); i++)
		;
	if (i < *n || *n < SAVE_DIRS) {
		if (i == *n)
			dirs[(*n)++].dir = dir;
		else
			free(dir);
		dirs[i].bytes += f->c.write_bytes;
		return 0;
	}
	free(dir);
	return 0;
}

void evidence__add_saves(struct evidence *e, const struct trace *t, const struct thresholds *th)
{
	const struct store *s = &t->store;
	struct save_dir dirs[SAVE_DIRS] = { 0 };
	int n = 0, best = -1;
	__u64 ns = 0;

	for (size_t i = 0; i < s->files_cap; i++) {
		const struct file_rec *f = s->files[i];
		__u64 k;

		if (!f || !(f->flags & FILE_F_REG) || file_rec__is_code(f) ||
		    f->c.write_bytes < th->v[TH_SAVE_BYTES])
			continue;
		k = f->c.commits > f->c.fsyncs ? f->c.commits : f->c.fsyncs;
		e->save_files++;
		e->saves += k ? k : 1;
		e->save_bytes += f->c.write_bytes;
		ns += f->c.write_ns + f->c.fsync_ns + f->c.commit_ns;
		save_dir_add(dirs, &n, f);
	}
	e->save_s = ns / 1e9;
	for (int i = 0; i < n; i++)
		if (best < 0 || dirs[i].bytes > dirs[best].bytes)
			best = i;
	if (best >= 0)
		snprintf(e->save_dir, sizeof(e->save_dir), "%s", dirs[best].dir);
	for (int i = 0; i < n; i++)
		free(dirs[i].dir);
}

void evidence__add_block(struct evidence *e, const struct trace *t, const struct facts *fa)
{
	const struct block *b = &t->block;
	double secs = t->duration_s > 0 ? t->duration_s : 1;
	struct blk_stats st;
	__u64 busy = 0;

	block__sum(b, BLK_READ, WHO_BIT(WHO_TARGET), &st);
	if (!st.reqs)
		return;
	e->have_block = true;
	e->blk_reads = st.reqs;
	e->blk_mean_bytes = (double)st.bytes / st.reqs;
	e->blk_reads_per_s = st.reqs / secs;
	e->blk_random_share = 1.0 - (double)st.seq / st.reqs;
	e->blk_small_share = (double)st.small / st.reqs;
	e->blk_await_ms = st.total_ns / 1e6 / st.reqs;
	e->blk_queue_share = st.total_ns ? (double)st.queue_ns / st.total_ns : 0;
	e->blk_device_p50_us = fa->layers.device.p50 / 1e3;
	e->blk_inflight_mean = st.total_ns / 1e9 / secs;
	/*
	 * The device the target read the most bytes from (the dataset's, not
	 * one it took a page of a program from): its whole busy time, every
	 * submitter's, as the timeline's points have it.
	 */
	for (size_t i = 0, most = 0; i < b->nr_devs; i++) {
		struct blk_stats s;

		blk_dev__sum(&b->devs[i], BLK_READ, WHO_BIT(WHO_TARGET), &s);
		if (s.bytes > most) {
			most = s.bytes;
			busy = b->devs[i].busy_ns[BLK_SCOPE_DEVICE];
		}
	}
	e->blk_util = busy / 1e9 / secs;
	if (e->blk_util > 1)
		e->blk_util = 1;
}

void evidence__add_fuse(struct evidence *e, const struct trace *t, const struct facts *fa)
{
	struct fuse_layers best = {};

	for (size_t i = 0; i < t->fuse.nr_conns; i++) {
		const struct fuse_layers *fl = &fa->fuse[i];

		e->fuse_read_bytes += fl->read_bytes_fuse;
		if (fl->reqs > best.reqs)
			best = *fl;
	}
	if (!best.reqs)
		return;
	e->have_fuse = true;
	fuse_layers__fs(&best, e->fuse_fs, sizeof(e->fuse_fs));
	snprintf(e->fuse_mount, sizeof(e->fuse_mount), "%s",
		 best.mount ? best.mount->point : "");
	e->fuse_reqs = best.reqs;
	e->fuse_reqs_per_s = t->duration_s > 0 ? best.reqs / t->duration_s : 0;
	e->fuse_round_trips = best.round_trips;
	e->fuse_rtt_us = best.rtt_mean_ns / 1e3;
	e->fuse_lookup_p50_us = best.lookup.p50 / 1e3;
	e->fuse_getattr_p50_us = best.getattr.p50 / 1e3;
	e->fuse_open_p50_us = best.open.p50 / 1e3;
	e->fuse_read_p50_us = best.read.p50 / 1e3;
	e->fuse_read_inflight = best.read_inflight;
}

static void nfs_per_file(const struct nfs_layers *nl, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < nl->nr_per_file && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s %.1f", i ? ", " : "", nl->per_file[i].name,
			      nl->per_file[i].calls);
}

void evidence__add_nfs(struct evidence *e, const struct trace *t, const struct facts *fa)
{
	struct nfs_layers best = {};

	for (size_t i = 0; i < t->nfs.nr_rpcs; i++) {
		const struct nfs_layers *nl = &fa->nfs[i];

		e->nfs_read_bytes += nl->read_call_bytes;
		if (nl->calls > best.calls && nl->mount)
			best = *nl;
	}
	if (!best.calls)
		return;
	e->have_nfs = true;
	nfs_layers__fs(&best, e->nfs_fs, sizeof(e->nfs_fs));
	snprintf(e->nfs_mount, sizeof(e->nfs_mount), "%s", best.mount->point);
	snprintf(e->nfs_version, sizeof(e->nfs_version), "%s", best.version);
	nfs_per_file(&best, e->nfs_per_file, sizeof(e->nfs_per_file));
	e->nfs_calls = best.calls;
	e->nfs_calls_per_s = t->duration_s > 0 ? best.calls / t->duration_s : 0;
	e->nfs_round_trips = best.round_trips;
	e->nfs_rtt_us = best.rtt_mean_ns / 1e3;
	e->nfs_total_us = best.total_mean_ns / 1e3;
	e->nfs_lookup_p50_us = best.lookup.p50 / 1e3;
	e->nfs_getattr_p50_us = best.getattr.p50 / 1e3;
	e->nfs_access_p50_us = best.access.p50 / 1e3;
	e->nfs_open_p50_us = best.open.p50 / 1e3;
	e->nfs_read_p50_us = best.read.p50 / 1e3;
	e->nfs_read_inflight = best.read_inflight;
	e->nfs_retrans = best.retrans;
	e->nfs_nconnect = best.nconnect;
	e->nfs_rsize = best.rsize;
	e->nfs_nocto = best.nocto;
	e->nfs_actimeo = best.actimeo;
}

void evidence__add_kernel(struct evidence *e, const struct trace *t)
{
	size_t len = 0;

	e->blk_unmeasured = !kernel__measured(&t->kernel, KL_BLOCK);
	for (int l = 0; l < KL__MAX; l++) {
		if (!trace__layer_missing(t, l))
			continue;
		len += snprintf(e->unmeasured + len, len < sizeof(e->unmeasured) ?
				sizeof(e->unmeasured) - len : 0, "%s%s",
				e->nr_unmeasured ? ", " : "", kernel__layer_name(l));
		e->nr_unmeasured++;
	}
}

/*
 * Where a read's time goes, judged on the dataset's figures (code and
 * libraries left out, as every other figure) with the FUSE daemons' bytes:
 * the layer verdict and miss_share come from the same sums, so the
 * latency-by-layer line and the findings tell one story.
 */
void evidence__add_layer(struct evidence *e, const struct trace *t, const struct facts *fa,
			 const struct thresholds *th)
{
	struct layer_sums sums = fa->layers.sums;

	sums.reads = e->reads;
	sums.read_bytes = e->read_bytes;
	sums.read_ns = e->read_s * 1e9;
	sums.faults = e->fault_reads;
	sums.fault_bytes = e->fault_bytes;
	sums.fault_ns = e->fault_wait_s * 1e9;
	sums.cache_bytes = e->cache_bytes;
	sums.fuse_bytes = e->fuse_read_bytes;
	sums.nfs_bytes = e->nfs_read_bytes;
	e->layer = layers__judge(&sums, th->v);
	e->miss_share = layers__storage_share(&sums);
	/* A layer the kernel did not give is never judged from its zeros. */
	if (!kernel__measured(&t->kernel, KL_PAGE_CACHE)) {
		e->layer = e->layer == LAYER_NONE ? LAYER_NONE : LAYER_UNMEASURED;
		e->miss_share = -1;
	} else if (!kernel__measured(&t->kernel, KL_BLOCK) && e->layer != LAYER_FUSE &&
		   e->layer != LAYER_NFS && e->layer != LAYER_NONE) {
		e->layer = LAYER_UNMEASURED;
	}
}
