// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The metric families of a trace, in the order a scrape gets them: what is
 * traced, the VFS counters and histograms, thread time, the block layer
 * (block.c), the cgroups (cgroups.c), FUSE (fuse.c), NFS (nfs.c), the layer
 * verdict, the findings and iostorm's own health.
 * Every name, label and unit is in docs/metrics.md.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include "prom/prom_int.h"

/* ---- the trace ---- */

static void render_meta(struct prom *p, const struct trace *t)
{
	struct label l = { "target", t->target };

	prom__family(p, "iostorm_target_info", "gauge",
		     "What iostorm traces, in words; always 1.");
	prom__sample(p, "iostorm_target_info", "", &l, 1, NULL, "1");
	if (t->kernel.probed) {
		prom__family(p, "iostorm_layer_measured", "gauge",
			     "1 when this kernel gave the layer (syscalls, page_cache, faults, "
			     "block, fuse, sched, io_uring, nfs), 0 when it was not measured: its "
			     "series are absent or zero for that reason, not for want of I/O.");
		for (int i = 0; i < KL__MAX; i++) {
			struct label ll = { "layer", kernel__layer_name(i) };

			prom__sample(p, "iostorm_layer_measured", "", &ll, 1, NULL,
				     t->kernel.layers[i].measured ? "1" : "0");
		}
	}
	prom__family(p, "iostorm_trace_duration_seconds", "gauge",
		     "Time traced so far, seconds.");
	prom__sample_secs(p, "iostorm_trace_duration_seconds", NULL, 0,
			  t->duration_s > 0 ? (__u64)llround(t->duration_s * 1e9) : 0);
}

struct counter_family {
	const char *name;
	int counter;		/* enum counter */
	const char *help;
};

static const struct counter_family vfs_counters[] = {
	{ "iostorm_vfs_opens_total", C_OPENS,
	  "Successful open, openat and openat2 calls, of any file type." },
	{ "iostorm_vfs_open_errors_total", C_OPEN_ERRORS, "Failed opens." },
	{ "iostorm_vfs_reads_total", C_READS,
	  "Reads of regular files, end-of-file reads included: read-family calls (read, "
	  "readv, pread64, preadv, preadv2) and io_uring and Linux AIO read requests." },
	{ "iostorm_vfs_read_bytes_total", C_READ_BYTES, "Bytes those reads returned." },
	{ "iostorm_vfs_aio_reads_total", C_AIO_READS,
	  "Of those, Linux AIO reads (io_submit of IOCB_CMD_PREAD/PREADV), reaped." },
	{ "iostorm_vfs_aio_read_bytes_total", C_AIO_READ_BYTES, "Bytes those AIO reads returned." },
	{ "iostorm_vfs_aio_writes_total", C_AIO_WRITES,
	  "Of iostorm_vfs_writes_total, Linux AIO writes (io_submit of IOCB_CMD_PWRITE/PWRITEV), "
	  "reaped." },
	{ "iostorm_vfs_read_errors_total", C_READ_ERRORS, "Failed reads of regular files." },
	{ "iostorm_vfs_stats_total", C_STATS,
	  "Successful stat-family calls (stat, lstat, fstat, newfstatat, statx)." },
	{ "iostorm_vfs_stat_errors_total", C_STAT_ERRORS, "Failed stat-family calls." },
	{ "iostorm_vfs_closes_total", C_CLOSES, "Closes of regular files and directories." },
	{ "iostorm_vfs_getdents_total", C_GETDENTS, "getdents64 calls (directory listings)." },
	{ "iostorm_vfs_mmaps_total", C_MMAPS, "mmap calls on regular files." },
	{ "iostorm_vfs_writes_total", C_WRITES,
	  "Writes of regular files (not in memory: tmpfs): write-family calls (write, writev, "
	  "pwrite64, pwritev, pwritev2) and io_uring and Linux AIO write requests." },
	{ "iostorm_vfs_write_bytes_total", C_WRITE_BYTES, "Bytes those writes wrote." },
	{ "iostorm_vfs_write_errors_total", C_WRITE_ERRORS,
	  "Failed writes and syncs of regular files." },
	{ "iostorm_vfs_fsyncs_total", C_FSYNCS,
	  "fsync, fdatasync, sync_file_range and msync calls (and io_uring and AIO syncs) of "
	  "regular files." },
	{ "iostorm_vfs_commits_total", C_COMMITS,
	  "Closes that commit a save: the close of the file its thread wrote or synced last." },
	{ "iostorm_vfs_renames_total", C_RENAMES, "rename, renameat and renameat2 calls." },
	{ "iostorm_target_forks_total", C_FORKS, "Processes that joined the target by fork." },
	{ "iostorm_target_exits_total", C_EXITS, "Processes of the target that exited." },
};

/* Absent when the kernel gave no fault tracepoints: not measured, never a 0. */
static const struct counter_family fault_counters[] = {
	{ "iostorm_vfs_mmap_faults_total", C_FAULTS, "Page faults on file mappings." },
	{ "iostorm_vfs_mmap_fault_reads_total", C_FAULT_READS,
	  "Faults on file mappings that read pages from storage (mapped datasets)." },
	{ "iostorm_vfs_mmap_fault_pages_total", C_FAULT_PAGES,
	  "Pages those faults, and their read-around, added to the page cache." },
};

/* Absent when the kernel's io_uring tracepoints could not be used: not measured. */
static const struct counter_family uring_counters[] = {
	{ "iostorm_vfs_io_uring_reads_total", C_URING_READS,
	  "Of iostorm_vfs_reads_total, io_uring read requests (READ, READV, READ_FIXED, "
	  "READV_FIXED), completed." },
	{ "iostorm_vfs_io_uring_read_bytes_total", C_URING_READ_BYTES,
	  "Bytes those io_uring reads returned." },
	{ "iostorm_vfs_io_uring_opens_total", C_URING_OPENS,
	  "IORING_OP_OPENAT and OPENAT2 requests completed (in the opens too)." },
	{ "iostorm_vfs_io_uring_writes_total", C_URING_WRITES,
	  "Of iostorm_vfs_writes_total, io_uring write requests (WRITE, WRITEV, WRITE_FIXED, "
	  "WRITEV_FIXED), completed." },
};

static void render_counters(struct prom *p, const struct trace *t,
			    const struct counter_family *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		prom__metric_u64(p, f[i].name, "counter", f[i].help, t->counters[f[i].counter]);
}

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
	{ "iostorm_vfs_aio_latency_seconds", H_AIO_LAT, UNIT_NS,
	  "Linux AIO reads, io_submit to reaped by io_getevents, seconds; _sum estimated." },
	{ "iostorm_vfs_async_queue_depth", H_ASYNC_DEPTH, UNIT_COUNT,
	  "io_uring and AIO reads in flight on their ring at each read's submit, itself "
	  "included: the queue depth the loader keeps; _sum estimated." },
	{ "iostorm_vfs_io_uring_latency_seconds", H_URING_LAT, UNIT_NS,
	  "io_uring reads, submit to completion, seconds; _sum estimated." },
	{ "iostorm_vfs_write_latency_seconds", H_WRITE_LAT, UNIT_NS,
	  "Latency of writes of regular files (calls, and async requests submit to "
	  "completion), dirty-page throttling included, seconds." },
	{ "iostorm_vfs_fsync_latency_seconds", H_FSYNC_LAT, UNIT_NS,
	  "Latency of fsync, fdatasync, sync_file_range and msync of regular files, seconds." },
};

static void render_vfs(struct prom *p, const struct trace *t)
{
	struct file_totals tot;

	bool faults = kernel__measured(&t->kernel, KL_FAULTS);

	render_counters(p, t, vfs_counters, sizeof(vfs_counters) / sizeof(vfs_counters[0]));
	if (faults)
		render_counters(p, t, fault_counters,
				sizeof(fault_counters) / sizeof(fault_counters[0]));
	if (kernel__measured(&t->kernel, KL_URING))
		render_counters(p, t, uring_counters,
				sizeof(uring_counters) / sizeof(uring_counters[0]));
	prom__family(p, "iostorm_vfs_metadata_seconds_total", "counter",
		     "Time in open, stat, close and getdents calls, summed over calls, seconds.");
	prom__sample_secs(p, "iostorm_vfs_metadata_seconds_total", NULL, 0,
			  t->counters[C_META_NS]);
	prom__family(p, "iostorm_vfs_commit_seconds_total", "counter",
		     "Time in the closes that commit a save and in renames, summed over calls, "
		     "seconds.");
	prom__sample_secs(p, "iostorm_vfs_commit_seconds_total", NULL, 0,
			  t->counters[C_COMMIT_NS]);
	prom__metric_u64(p, "iostorm_page_cache_added_bytes_total", "counter",
			 "Bytes of pages the target added to the page cache: "
			 "misses and their readahead.",
			 t->counters[C_CACHE_PAGES] * (__u64)t->page_size);
	prom__metric_u64(p, "iostorm_page_cache_device_added_bytes_total", "counter",
			 "Of those, bytes added to block devices' own caches: file system "
			 "metadata (inode tables, directories) or a device read raw.",
			 t->counters[C_DEVICE_PAGES] * (__u64)t->page_size);
	if (faults) {
		prom__family(p, "iostorm_vfs_mmap_fault_wait_seconds_total", "counter",
			     "Time threads waited for a page after a fault on a file mapping, "
			     "seconds.");
		prom__sample_secs(p, "iostorm_vfs_mmap_fault_wait_seconds_total", NULL, 0,
				  t->counters[C_FAULT_NS]);
	}
	trace__file_totals(&t->store, &tot);
	prom__metric_u64(p, "iostorm_vfs_code_files", "gauge",
			 "Files that are code (modules, libraries, system files), kept out "
			 "of the dataset's figures.", tot.code_files);
	prom__metric_u64(p, "iostorm_vfs_files", "gauge",
			 "Distinct regular files seen by open, read, write or stat.", tot.files);
	prom__metric_u64(p, "iostorm_vfs_dirs", "gauge", "Distinct directories seen.", tot.dirs);
	prom__metric_u64(p, "iostorm_vfs_files_lower_bound", "gauge",
			 "1 when the kernel's files map was full: iostorm_vfs_files and "
			 "iostorm_vfs_dirs count at least that many.",
			 trace__files_lower_bound(t));
}

/* Read latency and size, write and fsync latency have exact sums: the kernel's counters. */
static void render_vfs_hists(struct prom *p, const struct trace *t)
{
	for (size_t i = 0; i < sizeof(vfs_hists) / sizeof(vfs_hists[0]); i++) {
		int id = vfs_hists[i].hist;

		if (id == H_URING_LAT && !kernel__measured(&t->kernel, KL_URING))
			continue;
		const __u64 *sum = id == H_READ_LAT ? &t->counters[C_READ_NS] :
				   id == H_READ_SIZE ? &t->counters[C_READ_BYTES] :
				   id == H_WRITE_LAT ? &t->counters[C_WRITE_NS] :
				   id == H_FSYNC_LAT ? &t->counters[C_FSYNC_NS] : NULL;

		prom__family(p, vfs_hists[i].name, "histogram", vfs_hists[i].help);
		prom__hist_samples(p, vfs_hists[i].name, NULL, 0, &t->hists[id],
				   vfs_hists[i].unit, sum);
	}
}

static void render_threads(struct prom *p, const struct trace *t)
{
	static const char *const states[] = { "cpu", "io_wait", "runq", "sleep" };
	const struct store *s = &t->store;
	/* From the threads evicted from the store, then those it holds. */
	__u64 ns[4] = { s->threads.gone.cpu_ns, s->threads.gone.io_wait_ns,
			s->threads.gone.runq_ns, s->threads.gone.sleep_ns };

	for (size_t i = 0; i < s->threads.n; i++) {
		ns[0] += s->threads.v[i].cpu_ns;
		ns[1] += s->threads.v[i].io_wait_ns;
		ns[2] += s->threads.v[i].runq_ns;
		ns[3] += s->threads.v[i].sleep_ns;
	}
	prom__family(p, "iostorm_thread_seconds_total", "counter",
		     "Time of the target's threads by state, summed over threads, seconds: "
		     "cpu (on a CPU), io_wait (off CPU in a file syscall or in D state), "
		     "runq (runnable, waiting for a CPU), sleep (off CPU otherwise).");
	for (int i = 0; i < 4; i++) {
		struct label l = { "state", states[i] };

		prom__sample_secs(p, "iostorm_thread_seconds_total", &l, 1, ns[i]);
	}
	prom__metric_u64(p, "iostorm_threads", "gauge",
			 "Threads of the target seen so far.", s->threads.n);
}

/* One loop's time by state: the samples of name, with label l first when given. */
static void consumer_samples(struct prom *p, const char *name, const struct label *l,
			     const struct stall *st)
{
	const struct { const char *state; __u64 ns; } v[] = {
		{ "data_wait", st->data_wait_ns }, { "write_wait", st->write_wait_ns },
		{ "on_cpu", st->on_cpu_ns },
		{ "rank_wait", st->rank_wait_ns }, { "other_wait", st->other_wait_ns },
		{ "runnable", st->runnable_ns },
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct label lb[2] = { l ? *l : (struct label){ "state", v[i].state },
				       { "state", v[i].state } };

		prom__sample_secs(p, name, lb, l ? 2 : 1, v[i].ns);
	}
}

/*
 * Each loop's time by state, labelled by the loop's identity and workload
 * (model/ledger.h): its process (pid, comm), its cgroup and what the path
 * says (container_id, pod_uid, slurm_job; "" where it says nothing). A
 * loop keeps its series for its process's life; they end when it exits.
 */
#define LOOP_LABELS	6

/* Loop e's labels into l[LOOP_LABELS]; pid is the room for its pid's digits. */
static void loop_labels(const struct ledger_entry *e, struct label *l, char pid[16])
{
	snprintf(pid, 16, "%u", e->pid);
	l[0] = (struct label){ "pid", pid };
	l[1] = (struct label){ "comm", e->comm };
	l[2] = (struct label){ "cgroup", e->cgroup };
	l[3] = (struct label){ "container_id", e->name.container_id };
	l[4] = (struct label){ "pod_uid", e->name.pod_uid };
	l[5] = (struct label){ "slurm_job", e->name.slurm_job };
}

static void loop_samples(struct prom *p, const struct ledger_entry *e)
{
	char pid[16];
	struct label l[LOOP_LABELS + 1];

	loop_labels(e, l, pid);
	for (int k = 0; k < LOOP_STATES; k++) {
		l[LOOP_LABELS] = (struct label){ "state", loop_state__name(k) };
		prom__sample_secs(p, "iostorm_loop_seconds_total", l, LOOP_LABELS + 1,
				  e->counted[k]);
	}
}

/*
 * Each loop's cause over the last drain window, judged in run/ by the
 * report's rules (findings__loop_cause()): one series per loop, 1, the
 * cause in a label; none until judged (only while exporting).
 */
static void render_loop_causes(struct prom *p, const struct trace *t)
{
	char pid[16];
	struct label l[LOOP_LABELS + 1];

	prom__family(p, "iostorm_loop_cause", "gauge",
		     "Why each training loop waited for data over the last drain window, by "
		     "the report's rules: cause is none (below stall_warn), own_io, few_readers, "
		     "receiving, loader_cpu_starved, loader_cpu_bound, prefetch_short, unclear, "
		     "or the storage finding that explains it (storage_bottleneck, "
		     "small_file_storm, ...); labels as iostorm_loop_seconds_total.");
	for (size_t i = 0; i < t->ledger.nr; i++) {
		const struct ledger_entry *e = &t->ledger.v[i];

		if (!e->cause)
			continue;
		loop_labels(e, l, pid);
		l[LOOP_LABELS] = (struct label){ "cause", e->cause };
		prom__sample_u64(p, "iostorm_loop_cause", l, LOOP_LABELS + 1, 1);
	}
}

/*
 * The training loop's time by state: a counter a fleet can rate() into a
 * stall share per job (data_wait over the states but runnable). No series
 * until a consumer is found, so a pure reader has none. With several loops
 * (data-parallel ranks, or every job of a node with -a), the headline's,
 * and each loop's by its identity (loop_samples()).
 */
static void render_consumer(struct prom *p, const struct trace *t)
{
	prom__family(p, "iostorm_consumer_seconds_total", "counter",
		     "Time of the training loop's thread by state, seconds: data_wait (its own "
		     "file I/O, and sleeps the loader ended), write_wait (its own writes, syncs "
		     "and commits, and sleeps a saver ended), on_cpu, rank_wait (sleeps other "
		     "ranks' loops ended), other_wait, runnable; the loop that waits most when "
		     "there are several; no series when no consumer was found.");
	if (t->stall.how != CONSUMER_NONE)
		consumer_samples(p, "iostorm_consumer_seconds_total", NULL, &t->stall);
	prom__family(p, "iostorm_loop_seconds_total", "counter",
		     "Time of each training loop (one per process that runs one: data-parallel "
		     "ranks, every job of a node) by state, seconds, as "
		     "iostorm_consumer_seconds_total; labelled by its process (pid, comm) and "
		     "workload (cgroup, container_id, pod_uid, slurm_job); its series end when "
		     "its process exits.");
	for (size_t i = 0; i < t->ledger.nr; i++)
		loop_samples(p, &t->ledger.v[i]);
	prom__metric_u64(p, "iostorm_loops", "gauge",
			 "Training loops found: processes that each run one (data-parallel ranks).",
			 t->nr_loops);
	prom__metric_u64(p, "iostorm_loops_over_bound", "gauge",
			 "Training loops found that have no iostorm_loop_seconds_total series: "
			 "more loops than iostorm keeps series for (64).", t->ledger.over);
	render_loop_causes(p, t);
}

/* ---- the diagnosis ---- */

/* One series per verdict, 1 for the current one (a state set). */
static void render_layer(struct prom *p, const struct findings *f)
{
	prom__family(p, "iostorm_layer_verdict", "gauge",
		     "Where the target's read time goes (1 for the verdict, 0 for the others): "
		     "above_block, page_cache, queue, device, ok, fuse, nfs, no_block, none, "
		     "unmeasured.");
	for (int v = 0; v < LAYER__MAX; v++) {
		struct label lb = { "verdict", layers__key(v) };

		prom__sample(p, "iostorm_layer_verdict", "", &lb, 1, NULL,
			     v == (int)f->e.layer ? "1" : "0");
	}
}

static void render_findings(struct prom *p, const struct findings *fs)
{
	int worst = SEV_OK;

	prom__family(p, "iostorm_finding_severity", "gauge",
		     "Severity of each finding of docs/findings.md: 0 OK, 1 INFO, 2 WARN, 3 HIGH; "
		     "a finding not judged has no series.");
	const struct finding *f = fs->findings;

	for (int i = 0; i < fs->nr_findings; i++) {
		struct label l = { "finding", f[i].id };

		prom__sample_u64(p, "iostorm_finding_severity", &l, 1, f[i].severity);
		if ((int)f[i].severity > worst)
			worst = f[i].severity;
	}
	prom__metric_u64(p, "iostorm_verdict_severity", "gauge",
			 "The highest finding severity: 0 OK, 1 INFO, 2 WARN, 3 HIGH.", worst);
}

static void render_health(struct prom *p, const struct trace *t)
{
	const char *name = "iostorm_lost_events_total";

	prom__family(p, name, "counter",
		     "Events iostorm could not record, by reason (prog_misses: BPF program runs "
		     "the kernel skipped); their sum is the JSON report's lost.total.");
	for (int r = 0; r < L__MAX; r++) {
		struct label l = { "reason", trace__lost_key(r) };

		prom__sample_u64(p, name, &l, 1, t->lost[r]);
	}
	prom__sample_u64(p, name, &(struct label){ "reason", "prog_misses" }, 1, t->prog_misses);
	prom__metric_u64(p, "iostorm_store_files", "gauge",
			 "Records in iostorm's user-space store: regular files and directories.",
			 t->store.nr_files);
	prom__metric_u64(p, "iostorm_store_files_evicted_total", "counter",
			 "Least recently used file records dropped to keep memory flat (--store-files).",
			 t->store.files_evicted);
	prom__metric_u64(p, "iostorm_store_threads_evicted_total", "counter",
			 "Least recently merged thread records dropped to keep memory flat (an "
			 "exporter keeps 16,384); their time stays in iostorm_thread_seconds_total.",
			 t->store.threads.evicted);
	prom__metric_u64(p, "iostorm_store_bytes", "gauge",
			 "Memory iostorm's store holds, bytes (malloc's overhead excluded).",
			 store__bytes(&t->store));
	prom__metric_u64(p, "iostorm_kernel_maps_bytes", "gauge",
			 "Kernel memory of iostorm's BPF maps, bytes (measured at start and end).",
			 t->maps_bytes);
}

/* Every family, in order; the bound's count last, once every family had its turn. */
int prom__render_page(FILE *out, const struct trace *t, const struct findings *f,
		      const char *job, size_t max_series, __u64 *dropped_total)
{
	struct prom p = { .out = out, .job = job && *job ? job : NULL, .max_series = max_series };
	__u64 dropped;

	errno = 0;
	render_meta(&p, t);
	render_vfs(&p, t);
	render_vfs_hists(&p, t);
	render_threads(&p, t);
	render_consumer(&p, t);
	prom__render_cgroups(&p, t);
	prom__render_block(&p, t);
	prom__render_fuse(&p, t);
	prom__render_nfs(&p, t);
	render_layer(&p, f);
	render_findings(&p, f);
	render_health(&p, t);
	dropped = (dropped_total ? *dropped_total : 0) + p.dropped;
	if (dropped_total)
		*dropped_total = dropped;
	prom__metric_u64(&p, "iostorm_series_dropped_total", "counter",
			 "Labelled series left out of the pages rendered so far, past --max-series "
			 "(a histogram counts as its buckets, _sum and _count).", dropped);
	if (!p.err && ferror(out))
		p.err = -EIO;
	return p.err;
}

int prom__render(FILE *out, const struct trace *t, const struct findings *f,
		 const char *job)
{
	return prom__render_page(out, t, f, job, PROM_SERIES_MAX, NULL);
}
