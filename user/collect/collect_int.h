/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Private to collect/: loading the programs (load.c), the targets map
 * (target.c), and moving what the kernel counted into the trace (drain.c,
 * drain_block.c, drain_fuse.c, drain_nfs.c; every map walked by map_each.c). The
 * per-interval file and thread maps are swapped and
 * drained into the store; the global counters, histograms, lost counts and
 * block maps are read (they are cumulative).
 */
#ifndef COLLECT_COLLECT_INT_H
#define COLLECT_COLLECT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "collect/collect.h"
#include "lib/pace.h"
#include "model/block.h"
#include "model/kernel.h"
#include "model/trace.h"

struct iostorm_bpf;
struct bpf_link;

/* ---- what the kernel gives (features.c) ---- */

/* IOSTORM_FALLBACKS into bits of enum kernel_fallback; -EINVAL said on stderr. */
int features__forced(__u32 *bits);
/* Has this process capability cap (CAP_SYS_ADMIN, CAP_BPF...) in effect? */
bool features__has_cap(int cap);

/*
 * The capabilities the drains still need once attached (privs.c): 0, or
 * CAPS_BIT(CAP_BPF) where reading through held fds needs it (before 5.19).
 */
__u64 privs__after_attach(struct iostorm_bpf *skel, struct bpf_link *iter);
/*
 * Learn from the kernel's BTF what it gives, into k, with the fallbacks in
 * forced taken too. -EOPNOTSUPP, said, for a kernel below iostorm's floor.
 */
int features__probe(struct kernel_reach *k, __u32 forced);
/* Choose the programs k says this kernel takes; before the load. */
void features__apply(struct iostorm_bpf *skel, const struct kernel_reach *k);
/* The layers of programs that follow the target itself, not one layer. */
#define FEATURES_CORE	(-1)
struct bpf_program;
/* The layer (enum kernel_layer) program prog measures, or FEATURES_CORE. */
int features__layer_of(const struct bpf_program *prog);
/* Is prog a syscall program's second chance (second_sys_*, vfs.bpf.c)? */
bool features__second(const struct bpf_program *prog);
bool features__has_second(const struct bpf_program *prog);
bool features__last_chance(const struct bpf_program *prog);
/* Does the trace need this layer (the syscalls, the scheduler, the core)? */
bool features__essential(int layer);
/* Layer l cannot be measured here, and why: its programs are left out. */
void features__lose(struct kernel_reach *k, int layer, const char *why);

/* ---- walking a map (map_each.c) ---- */

/* One entry of a map: 0 goes on, anything else stops the walk and is returned. */
typedef int (*map_each_fn)(const void *key, void *value, void *ctx);
/*
 * Call fn for every entry of the map fd, its key read into key (key_size
 * bytes) and its value into value (room for the whole value: every CPU's
 * of a per-CPU map), looked up with lookup_flags (0, BPF_F_LOCK). An
 * entry deleted between its key and its lookup is skipped. 0 at the end,
 * fn's non-zero return, or the -errno of a failed walk.
 */
int map_each(int fd, void *key, size_t key_size, void *value, __u64 lookup_flags,
	     map_each_fn fn, void *ctx);
/*
 * map_each() over a per-CPU map of value_size values: fn gets every CPU's,
 * ncpus of them, the one of CPU c at percpu_value(values, value_size, c).
 */
int map_each_percpu(int fd, void *key, size_t key_size, size_t value_size, int ncpus,
		    map_each_fn fn, void *ctx);

/* The kernel lays per-CPU values out 8-byte aligned. */
static inline size_t percpu_stride(size_t value_size)
{
	return (value_size + 7) & ~(size_t)7;
}

static inline void *percpu_value(void *values, size_t value_size, int cpu)
{
	return (char *)values + cpu * percpu_stride(value_size);
}

/* ---- the programs (load.c) ---- */

/* Probe the kernel into k, then open and load the programs it takes. */
int load__programs(struct iostorm_bpf **skel, const struct probe_config *c,
		struct kernel_reach *k);
/*
 * Attach every program loaded. One of a layer the trace can do without
 * that will not attach takes its layer down, said in k; 0 or -errno.
 */
int load__attach(struct iostorm_bpf *skel, struct kernel_reach *k);
void load__detach(struct iostorm_bpf *skel);
/*
 * Program runs the kernel skipped (recursion_misses), all programs summed,
 * per layer into k; for the syscall programs with second chances, the last
 * chance's (a bound on the calls lost), and rescued, the calls a second
 * chance counted for a skipped run.
 */
__u64 load__misses(struct iostorm_bpf *skel, struct kernel_reach *k, __u64 rescued);
/* Kernel memory of the BPF maps (their fdinfo "memlock"), in bytes; 0 if unknown. */
__u64 load__maps_bytes(struct iostorm_bpf *skel);


/* ---- the targets bitmap (target.c) ---- */

/* The targets map in iostorm's memory, or NULL (errno set); unmap when done. */
__u64 *target__map(int map_fd);
void target__unmap(__u64 *bits);
/* Add every pid and all its current descendants to the target. 0 or -errno. */
int target__seed(__u64 *bits, const pid_t *pids, int n);
/* Each target process's parent, as /proc says now, into p. 0 or -ENOMEM. */
int target__parents(const __u64 *bits, struct procs *p);
/*
 * Is any process still in the target? *hint, the word where one was found
 * last (0 at first), is looked at first: a tick pays one load.
 */
bool target__any(const __u64 *bits, __u32 *hint);

/* ---- draining (drain.c, drain_block.c) ---- */

/* A double-buffered pair of maps: the programs fill one, user space drains the other. */
struct map_pair {
	int outer_fd;		/* ARRAY_OF_MAPS, slot 0 = the map being filled */
	int inner_fd[2];
	int active;		/* index into inner_fd */
	size_t key_size;
	size_t value_size;
	void *keys;		/* batch buffers */
	void *values;
};

/*
 * The files table (bpf/maps.bpf.h, bpf/table.h) in iostorm's memory, all
 * mapped: two halves of entries, of index slots and of counts of entries
 * taken, the programs filling *gen & 1.
 */
struct file_table {
	struct file_stats *entries;	/* 2 * SLOT_HALF(n) */
	__u64 *index;			/* 2 * SLOT_HALF(n) */
	struct file_used *used;		/* 2 */
	size_t entries_size;		/* bytes mapped, each */
	size_t index_size;
	size_t used_size;
	__u32 n;			/* home slots a half */
	__u32 *gen;			/* file_gen, in the mapped .bss */
};

/* A growing list of thread ids (tids__push()). */
struct tids {
	__u32 *v;
	size_t n;
	size_t cap;
};

/* Append tid to l. 0 or -ENOMEM. */
int tids__push(struct tids *l, __u32 tid);

struct drain {
	struct file_table files;
	struct map_pair threads;
	int ncpus;
	void *percpu;		/* buffer for one per-CPU value */
	int counters_fd;
	int lost_fd;
	int anchors_fd;		/* anchors: dentry -> anchor_path (bpf/path.bpf.h) */
	int forks_fd;		/* forks: child tgid -> parent tgid (bpf/task.bpf.c) */
	struct pace pace;	/* when the files maps are due to be drained */
	int wakes_fd;		/* wakes: (sleeper, waker, set) -> sums (bpf/sched.bpf.c) */
	struct wake_key *wake_keys;	/* BATCH of them, read from wakes */
	struct wake_stats *wake_vals;
	int recv_fd;		/* recv_threads, write_threads, async_threads: by tid */
	int writes_fd;
	int async_threads_fd;
	int async_files_fd;	/* async_files, async_file_sums: by (file, set) */
	int async_file_sums_fd;
	struct async_fkey *afile_keys;	/* BATCH of them, read from either */
	void *afile_vals;	/* BATCH struct async_file (or their __u32 counts) */
	__u64 table_max[KT__MAX];	/* the tables' max_entries (enum kernel_table) */
	struct tids exited;	/* tids that left their counters in the threads map */
	struct tids late;	/* tids whose entry came after their exit, in one walk */
	__u32 *thread_gen;	/* the programs' set of thread counters (bpf/thread.bpf.h) */
	struct bpf_link *threads_iter;	/* drain_threads: live threads' counters */
	void *iter_buf;		/* ITER_BUF bytes the iterator is read into */
};

/* The kernel's block maps, by fd (see bpf/block.bpf.c). */
struct block_maps {
	int stats_fd;		/* blk_stats: PERCPU_HASH blk_key -> blk_stats */
	int devs_fd;		/* blk_devs: HASH dev -> blk_dev_info */
	int hists_fd;		/* blk_hists: HASH blk_hist_key -> hist; -1 skips */
	int reqs_fd;		/* blk_reqs: HASH request -> blk_req; -1 skips */
	int missed_fd;		/* blk_missed: HASH blk_key (.who: blk_miss) -> count */
};

/* Entries read per batch from a hash map. */
#define DRAIN_BATCH	4096

int drain__init(struct drain *d, struct iostorm_bpf *skel);
void drain__free(struct drain *d);
/*
 * Flip to the other half of the files table and merge the previous one
 * into the store. Each flip waits for an RCU grace period (~5-10 ms on
 * this VM), for the programs still writing the previous half.
 */
int drain__files(struct drain *d, struct trace *t);
/*
 * The threads' counters: live threads' from their task storage (flip the
 * set the programs write, wait for running programs with the swap of the
 * threads maps, run the drain_threads iterator), then the threads map that
 * exited threads left theirs in; the processes' forks, the (sleeper, waker)
 * pairs of the interval that ended (into t->wakes, out of the kernel), and
 * the per-thread tables onto the threads' records, with the exited threads'
 * entries taken out. A record per thread, which cannot overflow, so they
 * are drained on schedule only, not by the storm's pace (a second grace
 * period per early drain halved how fast they could come).
 */
int drain__threads(struct drain *d, struct trace *t);
/* Kernel table k held n entries at this drain: its size and high-water mark into t. */
void drain__table_seen(const struct drain *d, struct trace *t, enum kernel_table k, __u64 n);
/*
 * Within every drain of the files, after the wait: the files' async reads
 * of generation set (file_gen & 1 before the flip) onto their records, and
 * out of the kernel with their counts in flight at 0 (drain_async.c).
 */
int drain__async_files(struct drain *d, struct trace *t, __u32 set);
/*
 * Within drain__threads(), after the wait: the forks, the wake pairs of
 * the interval just ended, the per-thread tables (drain_threads.c).
 */
int drain__side_tables(struct drain *d, struct trace *t);
/* drain__threads() then drain__files(), the two flips served by one wait. */
int drain__both(struct drain *d, struct trace *t);
/*
 * Is a drain of the files maps due at now_ns, by their fill rate and size
 * (lib/pace.h)? Then drain now, not at the next period: a storm must not
 * overflow them (false when it cannot tell).
 */
bool drain__files_due(struct drain *d, __u64 now_ns);
/* After detach: merge both inner maps, so nothing stays behind. */
int drain__final(struct drain *d, struct trace *t);
/* Read counters, lost counts, errnos and histograms (cumulative). */
int drain__globals(struct drain *d, struct iostorm_bpf *skel, struct trace *t);
/*
 * At the end, after drain__final(): the io_uring and AIO reads still in
 * flight (t->async_in_flight), each added to its file's record.
 */
int drain__async(struct iostorm_bpf *skel, struct trace *t);
/* What drain__block() reads beyond counts and busy time. */
enum drain_block_flags {
	DRAIN_BLOCK_HISTS = 1,		/* the histograms */
	DRAIN_BLOCK_UNFINISHED = 2,	/* requests left in flight: after the detach */
};

/*
 * Read the block maps into b, replacing what it held (flags:
 * drain_block_flags). Busy time still open at
 * now_ns (CLOCK_MONOTONIC) is counted up to now_ns. Unfinished requests
 * are those whose completion the programs missed (the kernel, rarely, does
 * not run a tracepoint's program, and does not count a miss either) and,
 * with reqs_fd (read it after the detach), those still in flight at the
 * end; untracked ones completed after the attach but their start was
 * missed. Devices are sorted by the target's requests, then all
 * requests, then dev.
 */
int drain__block(struct drain *d, struct iostorm_bpf *skel, struct block *b,
		 unsigned int flags, __u64 now_ns);
/*
 * Read the FUSE maps into l, replacing what it held (flags as for
 * drain__block(): histograms; requests in flight, after the detach).
 */
int drain__fuse(struct drain *d, struct iostorm_bpf *skel, struct fuse_layer *l,
		unsigned int flags);
/* The same for the NFS maps (drain_nfs.c): calls in flight, after the detach. */
int drain__nfs(struct drain *d, struct iostorm_bpf *skel, struct nfs_layer *l,
	       unsigned int flags);

#endif /* COLLECT_COLLECT_INT_H */
