/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Maps, knobs and small helpers shared by every BPF file. Maps are defined
 * __weak here, so each object that includes this header carries the same
 * definition and `bpftool gen object` links them into one map.
 */
#ifndef COMMON_BPF_H
#define COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "iostorm.h"

#define S_IFMT		00170000
#define S_IFREG		0100000
#define S_IFDIR		0040000
#define AT_FDCWD	-100
#define AT_EMPTY_PATH	0x1000
#define MAX_ERRNO	4095
#define MAP_ANONYMOUS	0x20

/*
 * An untrusted BTF pointer from a plain kernel address: its fields then load
 * directly (about 1 ns each, a fault reads 0) instead of one
 * bpf_probe_read_kernel() call each (about 30 ns). Field offsets are still
 * relocated by CO-RE. bpf_rdonly_cast() is a kfunc since kernel 6.2.
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;
#define BTF_CAST(type, addr) \
	((type *)bpf_rdonly_cast((void *)(addr), bpf_core_type_id_kernel(type)))

/* Knobs, set by user space before load (defined in task.bpf.c). */
extern const volatile __u32 targ_mode;
extern const volatile __u32 targ_self_tgid;
extern const volatile __u64 targ_cgid;

/* tgid -> 1 for every process of the target (TARGET_PIDS). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps") __weak;

/* enum counter -> count; per CPU, summed by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, C__MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps") __weak;

/* enum lost_reason -> count of events not recorded. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, L__MAX);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps") __weak;

/* errno of a failed open -> count. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ERRNO_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} open_errnos SEC(".maps") __weak;

/* enum hist_id -> log-linear histogram. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, H__MAX);
	__type(key, __u32);
	__type(value, struct hist);
} hists SEC(".maps") __weak;

/*
 * Per-file and per-thread counters live in one of two inner maps; the outer
 * array's slot 0 points at the one being filled (set by user space after
 * load: a static initializer does not survive `bpftool gen object`). User space swaps the slot
 * (the kernel waits for running programs: synchronize_rcu() on map-in-map
 * update) and then drains the other inner map with no writer left.
 *
 * The files maps are preallocated: a storm creates an entry per file, and
 * allocating on use (memory-cache refills, behind the bucket lock) cost
 * about a fifth of the exit program's time. User space sizes them (--map-files)
 * and drains early when one is half full (C_FILE_ENTRIES).
 */
struct files_inner {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, struct file_key);
	__type(value, struct file_stats);
};

struct files_inner files_a SEC(".maps") __weak;
struct files_inner files_b SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct files_inner);
} files_gen SEC(".maps") __weak;

struct threads_inner {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct thread_stats);
};

struct threads_inner threads_a SEC(".maps") __weak;
struct threads_inner threads_b SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct threads_inner);
} threads_gen SEC(".maps") __weak;

/*
 * A traced syscall in flight, per task: written at sys_enter, read at
 * sys_exit (vfs.bpf.c) and by the scheduler hook (sched.bpf.c), which
 * counts time off CPU inside a file syscall as I/O wait.
 */
struct inflight {
	__u64 ts;
	__u64 off;		/* read offset, resolved at entry */
	__u64 path;		/* user pointer: path of *stat*() */
	__u64 buf;		/* user pointer: stat buffer */
	__u64 file;		/* fd's struct file at entry (read, close...) */
	__s32 fd;		/* dirfd for path lookups, else the fd */
	__u32 kind;		/* enum sys_kind; 0 when nothing is in flight */
	__u32 flags;		/* *at() flags */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct inflight);
} inflight SEC(".maps") __weak;

static __always_inline void count(__u32 c, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&counters, &c);

	if (v)
		*v += n;
}

static __always_inline void count_lost(__u32 reason)
{
	__u64 *v = bpf_map_lookup_elem(&lost, &reason);

	if (v)
		*v += 1;
}

/* Is the current task part of the traced target? */
static __always_inline bool is_target(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	switch (targ_mode) {
	case TARGET_ALL:
		return tgid != targ_self_tgid;
	case TARGET_CGROUP:
		return bpf_get_current_cgroup_id() == targ_cgid;
	default:
		return bpf_map_lookup_elem(&targets, &tgid) != NULL;
	}
}

/*
 * Is task part of the target? For hooks where task is not current and is a
 * BTF pointer (sched_switch runs this twice per context switch: direct
 * loads, no helper calls).
 */
static __always_inline bool task_is_target(struct task_struct *task)
{
	__u32 tgid = task->tgid;

	switch (targ_mode) {
	case TARGET_ALL:
		return tgid != targ_self_tgid && task->pid != 0;
	case TARGET_CGROUP:
		return task->cgroups->dfl_cgrp->kn->id == targ_cgid;
	default:
		return bpf_map_lookup_elem(&targets, &tgid) != NULL;
	}
}

static __always_inline void *current_files_map(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&files_gen, &zero);
}

static __always_inline void *current_threads_map(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&threads_gen, &zero);
}

#endif /* COMMON_BPF_H */
