// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Each thread's roles in a training loop's measure, once per measure (see stall_int.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "model/cgroup.h"
#include "model/stall_int.h"

#define WRITER_BUSY	0.5	/* of a writer's busy time, in its writes, syncs and commits */

/*
 * Did faults read data here? A library's pages faulted in after a cache
 * drop (TensorFlow's kernels, first run mid-epoch in its compute pool) are
 * code and make no thread a reader; a mapped dataset's are data (LMDB).
 * Faults are data when a data file with a path had some, or when some
 * were on no file record at all; a record /proc never named is a short
 * process's library (uname's): a mapped dataset lives in the job's maps.
 */
static bool data_faults(const struct store *s)
{
	__u64 on_files = 0, by_threads = s->threads.gone.io.fault_reads;

	for (size_t i = 0; i < s->files_cap; i++) {
		const struct file_rec *f = s->files[i];

		if (!f || file_rec__is_device(f) || !f->c.fault_reads)
			continue;
		if (f->path && !file_rec__is_code(f))
			return true;
		on_files += f->c.fault_reads;
	}
	for (size_t i = 0; i < s->threads.n; i++)
		by_threads += s->threads.v[i].io.fault_reads;
	return by_threads > on_files;
}

/*
 * Reads of data: its file reads, and its faults where faults read data. A
 * thread that read under 16 KiB in all read no data (a thread's reads are
 * not told code from data): a thread pool reads /sys/devices/system/cpu/
 * online as it starts (TensorFlow's: 4 bytes), a process run for a moment
 * reads its libraries' headers and locale (Python's platform module runs
 * uname: 5.4 KB). A loader reads its samples: megabytes.
 */
__u64 stall_roles__data_reads(const struct stall_ctx *x, const struct thread_rec *th)
{
	__u64 faults = x->data_faults ? th->io.fault_reads : 0;

	if (!faults && th->io.read_bytes < READER_MIN_BYTES)
		return 0;
	return th->io.reads + faults;
}

/* Which threads' processes read files (a process: its threads' tgid). */
static int mark_reading(struct stall_ctx *x)
{
	const struct store *s = x->s;
	__u32 *tgids = malloc((s->threads.n ? s->threads.n : 1) * sizeof(*tgids));
	size_t n = 0;

	if (!tgids)
		return -ENOMEM;
	for (size_t i = 0; i < s->threads.n; i++)
		if (stall_roles__data_reads(x, &s->threads.v[i]))
			tgids[n++] = s->threads.v[i].tgid;
	qsort(tgids, n, sizeof(*tgids), u32_cmp);
	for (size_t i = 0; i < s->threads.n; i++)
		x->reads[i] = bsearch(&s->threads.v[i].tgid, tgids, n, sizeof(*tgids), u32_cmp);
	free(tgids);
	return 0;
}

/*
 * A thread's busy time apart from its writes, syncs and commits: its reads
 * and metadata calls, its I/O wait outside its file syscalls (faulting a
 * mapping in) and its CPU outside them (decoding), as own_time()
 * (stall_split.c) splits a loop's.
 */
static __u64 busy_apart_ns(const struct thread_rec *th)
{
	__u64 in_sys = th->io.read_ns + th->io.meta_ns + write_ns_of(th);
	__u64 in_sys_cpu = in_sys > th->io_wait_ns ? in_sys - th->io_wait_ns : 0;
	__u64 cpu_out = th->cpu_ns > in_sys_cpu ? th->cpu_ns - in_sys_cpu : 0;
	__u64 io_out = th->io_wait_ns > in_sys ? th->io_wait_ns - in_sys : 0;

	return th->io.read_ns + th->io.meta_ns + io_out + cpu_out;
}

/*
 * Writers: threads that spent their busy time writing, syncing and
 * committing regular files (WRITER_BUSY of it at least), and wrote more
 * than they read (bytes, pages faulted in counted as read) or sync and
 * commit files longer than they read any: a checkpoint saver, never a
 * loader that logs or records its progress. A DataLoader worker that
 * decodes and faults its samples in and rewrites a 30-byte progress file
 * after each wrote more bytes than it read (its faults hit the cache) but
 * spent 1% of its time writing: it is no writer, and the sleeps it ends
 * are not write wait.
 */
static void mark_writers(struct stall_ctx *x)
{
	for (size_t i = 0; i < x->s->threads.n; i++) {
		const struct thread_rec *th = &x->s->threads.v[i];
		__u64 in = th->io.read_bytes + th->io.cache_pages * (__u64)x->page_size;
		__u64 out_ns = write_ns_of(th);

		if (!(th->w.writes + th->w.fsyncs + th->w.commits + th->w.renames))
			continue;
		if (out_ns < WRITER_BUSY * (out_ns + busy_apart_ns(th)))
			continue;
		x->writes[i] = th->w.write_bytes > in ||
			       (!reads_of(th) && th->w.fsync_ns + th->w.commit_ns >
						 th->io.read_ns + th->io.meta_ns);
	}
}

/*
 * Threads of TensorFlow processes: those with a thread of its inter-op
 * pool, which TensorFlow names (tf.data's threads it does not name). The
 * tgids are sorted in x->tot's scratch.
 */
static void mark_tf(struct stall_ctx *x)
{
	const struct store *s = x->s;
	__u32 *tgids = (__u32 *)x->tot;
	size_t n = 0;

	for (size_t i = 0; i < s->threads.n; i++)
		if (!strcmp(s->threads.v[i].comm, TF_POOL))
			tgids[n++] = s->threads.v[i].tgid;
	qsort(tgids, n, sizeof(*tgids), u32_cmp);
	for (size_t i = 0; i < s->threads.n; i++)
		x->tf[i] = bsearch(&s->threads.v[i].tgid, tgids, n, sizeof(*tgids), u32_cmp);
}

/* Threads that resumed another from a stop: tracers (strace, gdb). */
static void mark_tracers(struct stall_ctx *x)
{
	for (size_t k = 0; k < x->nr_wakes; k++) {
		__u32 waker = x->wakes[k].waker;
		long b;

		if (!(waker & WAKER_STOP) || waker == (WAKER_STOP | WAKER_OUTSIDE))
			continue;
		b = thread_idx(x->s, waker & ~WAKER_FLAGS);
		if (b >= 0)
			x->tracer[b] = true;
	}
}

/*
 * Launchers and runtime daemons by name: MPI's and Slurm's, which start
 * the ranks, relay their output and serve their runtime. The second line
 * of defence: relays() (stall_find.c) tells a launcher that relays a loop's
 * output by what it does, but not one over a rank that reads its own data
 * (num_workers=0), which looks to it as a loader would.
 */
static const char *const runtimes[] = {
	"mpirun", "mpiexec", "orterun", "orted", "prterun", "prted", "mpiexec.hydra",
	"hydra_pmi_proxy", "srun", "slurmstepd",
};

static bool runtime_name(const char *comm)
{
	for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++)
		if (!strncmp(comm, runtimes[i], COMM_LEN))
			return true;
	return false;
}

/* Threads of processes whose main thread (or, gone, the thread itself) has such a name. */
static void mark_runtimes(struct stall_ctx *x)
{
	const struct store *s = x->s;

	for (size_t i = 0; i < s->threads.n; i++) {
		long m = thread_idx(s, s->threads.v[i].tgid);

		x->runtime[i] = runtime_name(s->threads.v[m >= 0 ? m : (long)i].comm);
	}
}

/* FNV-1a of a tag and a name: a workload's key. */
static __u64 work_key(const char *tag, const char *name)
{
	__u64 h = 14695981039346656037ULL;

	for (const char *p = tag; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return h;
}

/*
 * Each thread's workload (see stall.h): its pod, else its Slurm job, else
 * its cgroup (a cgroup whose path is not known, or folded into the
 * overflow record, is a workload of its own id). 0 or -ENOMEM.
 */
static int mark_workloads(struct stall_ctx *x, const struct cgroups *c)
{
	const struct store *s = x->s;

	x->work = calloc(s->threads.n ? s->threads.n : 1, sizeof(*x->work));
	if (!x->work)
		return -ENOMEM;
	for (size_t i = 0; i < s->threads.n; i++) {
		const struct cgroup_rec *r = cgroups__find(c, s->threads.v[i].cgid);

		if (r && r->path && r->name.pod_uid[0])
			x->work[i] = work_key("pod:", r->name.pod_uid);
		else if (r && r->path && r->name.slurm_job[0])
			x->work[i] = work_key("slurm:", r->name.slurm_job);
		else
			x->work[i] = s->threads.v[i].cgid;
	}
	return 0;
}

int stall_roles__mark(struct stall_ctx *x, const struct cgroups *workloads)
{
	x->data_faults = data_faults(x->s);
	if (mark_reading(x) || (workloads && mark_workloads(x, workloads)))
		return -ENOMEM;
	mark_tracers(x);
	mark_runtimes(x);
	mark_writers(x);
	mark_tf(x);
	return 0;
}
