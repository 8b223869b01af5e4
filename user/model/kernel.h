/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the traced kernel gave: each layer iostorm measures, measured or
 * not and why, and the fallbacks it took for features older kernels lack.
 * Filled by collect/ before the programs load; every output says which
 * layers were not measured, so a figure of such a layer is never read as
 * a zero.
 */
#ifndef MODEL_KERNEL_H
#define MODEL_KERNEL_H

#include <stdbool.h>
#include <linux/types.h>

enum kernel_layer {
	KL_SYSCALLS = 0,	/* opens, reads, stats per file: sys_enter/sys_exit */
	KL_PAGE_CACHE,		/* pages added to the cache */
	KL_FAULTS,		/* faults on file mappings */
	KL_BLOCK,		/* block requests */
	KL_FUSE,		/* FUSE requests */
	KL_SCHED,		/* on/off CPU, wakeups: the stall */
	KL_URING,		/* io_uring requests (Linux AIO is in KL_SYSCALLS) */
	KL_NFS,			/* NFS calls (sunrpc and nfs modules) */
	KL__MAX,
};

/*
 * What iostorm does differently on a kernel that lacks a feature.
 * IOSTORM_FALLBACKS names them to force each on a newer kernel, so that
 * the paths older kernels take are tested everywhere.
 */
enum kernel_fallback {
	KF_CORE_READ = 0,	/* no bpf_rdonly_cast (< 6.2): fields by probe reads */
	KF_BLOCK_RQ,		/* no block_io_start/done (< 6.5): request tracepoints */
	KF_PREV_STATE,		/* sched_switch without prev_state (< 5.18) */
	KF_PAGE_ARG,		/* mm_filemap_add_to_page_cache passes a page (< 5.17) */
	KF_NO_FAULTS,		/* no mm_filemap_fault/map_pages (< 6.12): faults not measured */
	KF_NO_FUSE,		/* no FUSE tracepoints or BTF: FUSE not measured */
	KF_NO_URING,		/* no io_uring tracepoints with the request: not measured */
	KF_NO_NFS,		/* no NFS client (sunrpc, nfs) loaded or no tracepoints: not measured */
	/*
	 * The scheduler programs left out, so no training loop is found: no
	 * kernel needs it; forced, it measures what loop finding costs a node
	 * (scripts/bench-node.sh). Not in "all": the fallbacks' runs check
	 * the loop's wait too.
	 */
	KF_NO_SCHED,
	KF__MAX,
};

struct layer_state {
	bool measured;
	/*
	 * Not measured because the node had none of it when iostorm started
	 * (no NFS client loaded): said as missing only where the trace saw
	 * one (an NFS mount in its mount table, mounted since).
	 */
	bool absent;
	char how[128];		/* measured: by what */
	char why[256];		/* not measured: why, in words */
	__u64 skipped;		/* its programs' runs the kernel skipped (recursion_misses), lost */
	__u64 rescued;		/* ... and those a second chance ran instead (second_sys_*), not lost */
};

struct kernel_reach {
	bool probed;		/* false: nothing known (an old report) */
	char release[65];	/* uname -r, for the reader only */
	struct layer_state layers[KL__MAX];
	__u32 fallbacks;	/* bits of enum kernel_fallback taken */
	__u32 forced;		/* of those, forced by IOSTORM_FALLBACKS */
	int rqf_io_stat;	/* bit numbers of RQF_IO_STAT and RQF_FLUSH_SEQ, */
	int rqf_flush_seq;	/* -1 where the kernel's BTF has no enum of them */
	bool uring_submit_sqe;	/* the submit is io_uring_submit_sqe (before 6.0) */
	bool uring_cqe_fields;	/* the completion passes the CQE's fields (before 6.15) */
	bool fuse_chan;		/* a FUSE request reaches its connection by a channel (7.x) */
	__u32 fuse_chan_conn;	/* ... at this offset of struct fuse_chan */
	bool statx_delayed;	/* io_uring's statx name is a struct delayed_filename (7.x) */
	/*
	 * The tracepoints run their programs preemptibly (7.x: under SRCU-fast,
	 * whose init_srcu_struct_fast the BTF has), so the kernel skips runs
	 * of a program preempted on a CPU: the syscall programs' second chance
	 * (second_sys_*, vfs.bpf.c) is loaded and attached.
	 */
	bool tp_preemptible;
	bool no_second;		/* the syscall programs' second chance did not load or attach */
	bool second;		/* ... and is attached (tp_preemptible) */
};

/* "syscalls", "page_cache", ...: JSON keys and words. */
const char *kernel__layer_name(enum kernel_layer l);
/* "core_read", "block_rq", ...: IOSTORM_FALLBACKS's words. */
const char *kernel__fallback_name(enum kernel_fallback f);
/*
 * Parse a comma-separated list of fallback names, or "all" (every one but
 * no_sched), into bits of
 * enum kernel_fallback. 0, or -EINVAL with *bad pointing at the unknown
 * name in s (its length in *bad_len).
 */
int kernel__parse_fallbacks(const char *s, __u32 *bits, const char **bad, int *bad_len);
/* Is layer l measured? An unprobed kernel measured everything (old reports). */
bool kernel__measured(const struct kernel_reach *k, enum kernel_layer l);
/* How many layers were not measured. */
int kernel__unmeasured(const struct kernel_reach *k);

#endif /* MODEL_KERNEL_H */
