// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Facts of a trace that every output reads, see trace.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "model/counters.h"
#include "model/hist.h"
#include "model/kind.h"
#include "model/trace.h"

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

void trace__machine(struct trace *t)
{
	long page = sysconf(_SC_PAGESIZE), cpus = sysconf(_SC_NPROCESSORS_ONLN);

	t->mem_bytes = mem_total();
	t->nr_cpus = cpus > 0 ? cpus : 0;
	t->page_size = page > 0 ? page : 4096;
}

bool trace__files_lower_bound(const struct trace *t)
{
	return t->lost[L_FILES_FULL] > 0 || t->store.files_evicted > 0;
}

bool trace__async_depth_upper_bound(const struct trace *t)
{
	const struct layer_state *l = t->kernel.layers;

	return l[KL_SYSCALLS].skipped + l[KL_URING].skipped > 0;
}

__u64 trace__lost_total(const struct trace *t)
{
	__u64 n = t->prog_misses;

	for (int i = 0; i < L__MAX; i++)
		n += t->lost[i];
	return n;
}

static void code_add(struct file_totals *tot, const struct file_rec *f)
{
	tot->code_files++;
	tot->code_opens += f->c.opens;
	tot->code_reads += f->c.reads;
	tot->code_read_bytes += f->c.read_bytes;
	tot->code_stats += f->c.stats;
	tot->code_read_ns += f->c.read_ns;
	tot->code_meta_ns += f->c.meta_ns;
	tot->code_ns += f->c.read_ns + f->c.meta_ns;
	tot->code_fault_pages += f->c.fault_pages;
	if (f->code < KIND__MAX) {
		tot->code_why_files[f->code]++;
		tot->code_why_reads[f->code] += f->c.reads;
	}
}

static void mapped_add(struct file_totals *tot, const struct file_rec *f)
{
	tot->files_mapped += f->c.fault_reads > 0;
	tot->fault_reads += f->c.fault_reads;
	tot->fault_pages += f->c.fault_pages;
	tot->fault_seq += f->c.fault_seq;
	tot->fault_rand += f->c.fault_rand;
	tot->fault_ns += f->c.fault_ns;
}

static void async_add(struct file_totals *tot, const struct async_file *a)
{
	tot->async_files++;
	tot->async_reads += a->reads;
	tot->async_depth += a->depth;
	tot->async_late += a->late;
	if (a->depth_max > tot->async_depth_max)
		tot->async_depth_max = a->depth_max;
}

void trace__file_totals(const struct store *s, struct file_totals *tot)
{
	memset(tot, 0, sizeof(*tot));
	for (size_t i = 0; i < s->files_cap; i++) {
		const struct file_rec *f = s->files[i];

		if (!f || file_rec__is_device(f))	/* file system metadata */
			continue;
		if (f->async)
			async_add(tot, f->async);
		if (f->flags & FILE_F_DIR)
			tot->dirs++;
		if (!(f->flags & FILE_F_REG)) {
			/* Faulted on only (mapped before the attach): data all the same. */
			if (!(f->flags & FILE_F_DIR) && f->c.fault_reads && !file_rec__is_code(f))
				mapped_add(tot, f);
			continue;
		}
		tot->files++;
		tot->files_read += f->c.reads > 0;
		tot->files_written += f->c.writes + f->c.fsyncs > 0;
		tot->reads += f->c.reads;
		tot->reads_consec += f->c.reads_consec;
		tot->reads_seq += f->c.reads_seq;
		tot->reads_random += f->c.reads > f->c.reads_seq ? f->c.reads - f->c.reads_seq : 0;
		if (file_rec__is_code(f))
			code_add(tot, f);
		else
			mapped_add(tot, f);
	}
}

void trace__file_sizes(const struct store *s, struct hist *h)
{
	memset(h, 0, sizeof(*h));
	for (size_t i = 0; i < s->files_cap; i++) {
		const struct file_rec *f = s->files[i];

		if (f && f->flags & FILE_F_REG)
			hist__add(h, f->size, 1);
	}
}

bool trace__layer_missing(const struct trace *t, enum kernel_layer l)
{
	const struct kernel_reach *k = &t->kernel;

	if (kernel__measured(k, l))
		return false;
	if (!k->layers[l].absent)
		return true;
	for (size_t i = 0; i < t->mounts.nr; i++)
		if (l == KL_NFS && mount__is_nfs(&t->mounts.recs[i]))
			return true;
	return false;
}

bool trace__empty(const struct trace *t)
{
	static const int seen[] = {
		C_OPENS, C_OPEN_ERRORS, C_READS, C_READ_ERRORS, C_STATS,
		C_STAT_ERRORS, C_CLOSES, C_GETDENTS, C_MMAPS, C_FAULTS,
		C_CACHE_PAGES, C_WRITES, C_WRITE_ERRORS, C_FSYNCS, C_COMMITS, C_RENAMES,
	};

	for (size_t i = 0; i < sizeof(seen) / sizeof(seen[0]); i++)
		if (t->counters[seen[i]])
			return false;
	return t->store.nr_files == 0;
}

const char *trace__errno_name(int slot, char *buf, size_t len)
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

int trace__top_errnos(const struct trace *t, int *slots, int max)
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

const char *trace__stop_name(enum stop_reason stopped_by)
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

static const char *const table_keys[KT__MAX] = {
	[KT_WAKES] = "wakes",
	[KT_FORKS] = "forks",
	[KT_RECV] = "recv_threads",
	[KT_WRITES] = "write_threads",
	[KT_ASYNC_THREADS] = "async_threads",
	[KT_ASYNC_FILES] = "async_files",
	[KT_ASYNC_FILE_SUMS] = "async_file_sums",
};

const char *trace__table_key(enum kernel_table k)
{
	return k < KT__MAX ? table_keys[k] : "unknown";
}

bool trace__data_wait_lower_bound(const struct trace *t)
{
	return t->lost[L_WAKES_FULL] > 0;
}

static const char *const lost_keys[L__MAX] = {
	[L_FILES_FULL] = "files_map_full",
	[L_THREADS_FULL] = "threads_map_full",
	[L_INFLIGHT] = "inflight",
	[L_FD_UNRESOLVED] = "fd_unresolved",
	[L_STATBUF] = "statbuf",
	[L_BLK_REQS_FULL] = "block_reqs_full",
	[L_BLK_STATS_FULL] = "block_stats_full",
	[L_BLK_HISTS_FULL] = "block_hists_full",
	[L_BLK_DEVS_FULL] = "block_devs_full",
	[L_BLK_MISSED_FULL] = "block_missed_full",
	[L_WAKES_FULL] = "wakes_full",
	[L_FUSE_REQS_FULL] = "fuse_reqs_full",
	[L_FUSE_STATS_FULL] = "fuse_stats_full",
	[L_FUSE_HISTS_FULL] = "fuse_hists_full",
	[L_FUSE_CONNS_FULL] = "fuse_conns_full",
	[L_FUSE_ENDS_MISSED] = "fuse_ends_missed",
	[L_NFS_STATS_FULL] = "nfs_stats_full",
	[L_NFS_HISTS_FULL] = "nfs_hists_full",
	[L_NFS_CLNTS_FULL] = "nfs_clients_full",
	[L_ASYNC_FULL] = "async_reqs_full",
	[L_ASYNC_UNTRACKED] = "async_untracked",
	[L_AIO_BATCH] = "aio_batch",
	[L_ASYNC_THREADS_FULL] = "async_threads_full",
	[L_ASYNC_FILES_FULL] = "async_files_full",
	[L_FORKS_FULL] = "forks_full",
	[L_RECV_FULL] = "recv_threads_full",
	[L_WRITE_THREADS_FULL] = "write_threads_full",
	[L_ASYNC_FILE_SUMS_FULL] = "async_file_sums_full",
	[L_SCRATCH_BUSY] = "scratch_buffers_busy",
};

static const char *const lost_words[L__MAX] = {
	[L_FILES_FULL] = "files map full",
	[L_THREADS_FULL] = "threads map full",
	[L_INFLIGHT] = "no per-task slot",
	[L_FD_UNRESOLVED] = "fd unresolved",
	[L_STATBUF] = "stat buffer unreadable",
	[L_BLK_REQS_FULL] = "block requests map full",
	[L_BLK_STATS_FULL] = "block counts map full",
	[L_BLK_HISTS_FULL] = "block histograms map full",
	[L_BLK_DEVS_FULL] = "block devices map full",
	[L_BLK_MISSED_FULL] = "block missed-requests map full",
	[L_WAKES_FULL] = "wakeups map full",
	[L_FUSE_REQS_FULL] = "FUSE requests map full",
	[L_FUSE_STATS_FULL] = "FUSE counts map full",
	[L_FUSE_HISTS_FULL] = "FUSE histograms map full",
	[L_FUSE_CONNS_FULL] = "FUSE connections map full",
	[L_FUSE_ENDS_MISSED] = "FUSE requests that never ended (killed while queued)",
	[L_NFS_STATS_FULL] = "NFS counts map full",
	[L_NFS_HISTS_FULL] = "NFS histograms map full",
	[L_NFS_CLNTS_FULL] = "NFS RPC clients map full",
	[L_ASYNC_FULL] = "io_uring/AIO requests map full",
	[L_ASYNC_UNTRACKED] = "io_uring/AIO reads whose submit was not seen (submitted before the attach)",
	[L_AIO_BATCH] = "AIO iocbs past the 64 read per io_submit or io_getevents",
	[L_ASYNC_THREADS_FULL] = "io_uring/AIO threads map full",
	[L_ASYNC_FILES_FULL] = "io_uring/AIO files in flight map full",
	[L_FORKS_FULL] = "forks map full",
	[L_RECV_FULL] = "receive bursts map full",
	[L_WRITE_THREADS_FULL] = "writing threads map full",
	[L_ASYNC_FILE_SUMS_FULL] = "io_uring/AIO file reads map full",
	[L_SCRATCH_BUSY] = "scratch buffers of a CPU all held by preempted runs (a path not resolved, an AIO read not tracked)",
};

const char *trace__lost_key(int reason)
{
	return reason >= 0 && reason < L__MAX && lost_keys[reason] ?
	       lost_keys[reason] : "unknown";
}

const char *trace__lost_words(int reason)
{
	return reason >= 0 && reason < L__MAX && lost_words[reason] ?
	       lost_words[reason] : "unknown";
}

int trace__snap(struct trace_snap *s, const struct trace *t, __u64 now_ns)
{
	s->ns = now_ns;
	memcpy(s->counters, t->counters, sizeof(s->counters));
	s->reg_opens = t->store.reg_opens;
	s->read_lat = t->hists[H_READ_LAT];
	s->consumer_tid = t->stall.how != CONSUMER_NONE ? t->stall.tid : 0;
	s->consumer_data_ns = t->stall.data_wait_ns;
	s->consumer_wall_ns = t->stall.wall_ns;
	return block__copy_counts(&s->block, &t->block);
}

void trace__snap_free(struct trace_snap *s)
{
	block__free(&s->block);
}

static struct mount_sums *sums_of(struct mount_sums **all, size_t *n, __u32 dev)
{
	struct mount_sums *v;

	for (size_t i = 0; i < *n; i++)
		if ((*all)[i].dev == dev)
			return &(*all)[i];
	v = realloc(*all, (*n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	*all = v;
	memset(&v[*n], 0, sizeof(*v));
	v[*n].dev = dev;
	return &v[(*n)++];
}

static int sums_cmp(const void *pa, const void *pb)
{
	const struct mount_sums *a = pa, *b = pb;
	__u64 ia = a->c.read_ns + a->c.meta_ns, ib = b->c.read_ns + b->c.meta_ns;

	if (ia != ib)
		return ia > ib ? -1 : 1;
	return a->dev < b->dev ? -1 : a->dev > b->dev;
}

int trace__mount_sums(const struct trace *t, struct mount_sums **out)
{
	const struct store *s = &t->store;
	struct mount_sums *all = NULL, *ms;
	size_t n = 0;

	*out = NULL;
	for (size_t i = 0; i < s->files_cap; i++) {
		const struct file_rec *f = s->files[i];

		if (!f || file_rec__is_device(f))
			continue;
		ms = sums_of(&all, &n, f->dev);
		if (!ms) {
			free(all);
			return -ENOMEM;
		}
		ms->files += !!(f->flags & FILE_F_REG);
		file_counters__add(&ms->c, &f->c);
	}
	for (size_t i = 0; i < n; i++)
		all[i].mount = mounts__find(&t->mounts, all[i].dev);
	if (n > 1)
		qsort(all, n, sizeof(*all), sums_cmp);
	*out = all;
	return (int)n;
}
