/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The maps shared by the BPF files, and the one way to get or create an
 * entry. Maps are defined __weak here, so each object that includes this
 * header carries the same definition and `bpftool gen object` links them
 * into one map. Maps used by one file only are defined in that file.
 */
#ifndef MAPS_BPF_H
#define MAPS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include <asm-generic/errno-base.h>
#include "iostorm.h"

/*
 * A bit for every process of the target (TARGET_PIDS), see iostorm.h.
 * Mapped by user space, which seeds and counts it with loads and stores.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, TARGET_WORDS);
	__type(key, __u32);
	__type(value, __u64);
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

/* A zeroed histogram to insert (block and FUSE): too large for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hist);
} hist_zero SEC(".maps") __weak;

/*
 * Per-file counters live in the files table (bpf/table.h): entries taken
 * in order (files), found through an open-addressing index of their keys
 * (file_index), each in two halves of SLOT_HALF(targ_file_slots), one per
 * drain generation, file_gen & 1 the half the programs fill, and a count of
 * the entries taken per half (file_used). User space flips file_gen, waits
 * for the running programs (an update of threads_gen's slot 0, below:
 * map-in-map updates wait for synchronize_rcu()), reads the entries taken
 * of the other half through its mapping and zeroes them, its index and its
 * count. The threads maps are swapped the same way, one wait serving both
 * when both are drained, and hold only the counters of threads that exited
 * (thread.bpf.h): a live thread's are in task storage.
 *
 * The table is preallocated and owned by the programs: a new file claims a
 * slot by compare-and-swap and takes the next entry, with no allocation,
 * no bucket lock and no delete at the drain (allocating on use cost a
 * fifth of the exit program's time in a storm; a preallocated hash map's
 * insert and delete still ~300 ns a file). User space sizes it
 * (--map-files) and drains early when a half is half full
 * (C_FILE_ENTRIES).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 2 * 32768);
	__type(key, __u32);
	__type(value, struct file_stats);
} files SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 2 * 32768);
	__type(key, __u32);
	__type(value, __u64);
} file_index SEC(".maps") __weak;

/* Mapped: page-aligned, so each half's count has a cache line of its own. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct file_used);
} file_used SEC(".maps") __weak;

/* Each CPU's chunk of entries (struct file_chunk, bpf/table.h). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct file_chunk);
} file_chunks SEC(".maps") __weak;

/* Home slots of a half of the files table: --map-files - (SLOT_PROBES - 1). */
extern const volatile __u32 targ_file_slots;
/* The half of the files table the programs fill: file_gen & 1 (task.bpf.c). */
extern __u32 file_gen;

struct threads_inner {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, struct thread_key);
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
 * A traced syscall in flight: written at sys_enter, read at sys_exit
 * (vfs.bpf.c), by the scheduler hook (sched.bpf.c), which counts time off
 * CPU inside a file syscall as I/O wait, and by the page-cache hook
 * (cache.bpf.c), which looks at the file being read.
 */
/* The number of the syscall a sys_exit's regs belong to (a direct load: a tp_btf argument). */
#if defined(__TARGET_ARCH_arm64)
#define SYSCALL_NR(regs)	((__u32)(regs)->syscallno)
#else
#define SYSCALL_NR(regs)	((__u32)(regs)->orig_ax)
#endif

struct inflight {
	__u64 ts;
	__u64 off;		/* read offset, resolved at entry */
	__u64 path;		/* user pointer: path of *stat*() */
	__u64 buf;		/* user pointer: stat buffer */
	__u64 file;		/* fd's struct file at entry (read, close...) */
	__s32 fd;		/* dirfd for path lookups, else the fd */
	__u32 kind;		/* enum sys_kind; 0 when nothing is in flight */
	__u32 flags;		/* *at() flags */
	__u32 nr;		/* the syscall's number: its exit is checked against it */
};

/* When the task last switched on and off a CPU, and why it left (sched.bpf.c). */
struct switch_state {
	__u64 on_ts;		/* switched in at; 0 until seen */
	__u64 off_ts;		/* switched out at; 0 until seen */
	__u32 off_kind;		/* enum off_kind */
	__u32 waker;		/* tid; WAKER_OUTSIDE; WAKER_UNSEEN */
	/* Waits that timed out, for the wait that ends them (sched.bpf.c). */
	__u64 pend_ns;		/* their time asleep, not yet charged to a waker */
	__u64 pend_wake;	/* when the last of them ended */
	__u32 pend_nr;		/* the syscall they waited in */
	__u32 pend_n;		/* how many; 0: none (5 s each: 680 years to wrap) */
	__u32 by_timer;		/* the waking ran in a timer's expiry */
};

/*
 * The last fault of a task on a file mapping (cache.bpf.c): armed by
 * mm_filemap_fault, disarmed by the first page that fault adds to the page
 * cache, which makes it a fault that read from storage. The scheduler hook
 * (sched.bpf.c) charges the first D-state sleep outside syscalls after it
 * to this file: the fault's wait for its page.
 */
struct fault_state {
	__u64 ino;
	__u32 dev;
	__u32 armed;		/* the fault has added no page yet */
	__u64 index;		/* the faulting page */
	__u32 waiting;		/* no D-state sleep charged since the fault */
	__u32 gen;		/* the file's inode generation (struct file_key) */
};

/*
 * A burst of receiving (recv.bpf.h): from the entry of a read of a pipe or
 * socket to the exit of its last syscall on a pipe, socket or shared
 * memory file; the time off CPU in it, committed when the burst goes on
 * past it.
 */
struct recv_state {
	__u64 start;		/* 0: no burst */
	__u64 last;
	__u64 sleep_ns;		/* asleep inside it */
	__u64 runq_ns;		/* runnable inside it */
	__u64 sleep_pend;	/* off CPU since its last syscall */
	__u64 runq_pend;
	__u64 shake_ns;		/* asleep in its socket reads after the first */
	__u64 pad;		/* to 64 bytes: see struct task_state */
};

/*
 * Everything iostorm keeps per task of the target, in one task-storage
 * slot: one lookup gives each program its part (sys_exit its syscall and
 * the thread's counters, sched_switch the switch state, the counters and
 * the syscall in flight). The thread's counters are kept by drain
 * generation, see thread.bpf.h: no hash lookup per event.
 */
struct task_state {
	struct inflight in;
	struct switch_state sw;
	struct recv_state recv;		/* 64 bytes: the counters keep their cache lines */
	struct fault_state fault;
	struct thread_stats gen[2];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_state);
} tasks SEC(".maps") __weak;

/* task's state, or NULL; created when create is set. */
static __always_inline struct task_state *task_state_of(struct task_struct *task, bool create)
{
	return bpf_task_storage_get(&tasks, task, 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* An inode's type, i_mode & S_IFMT (vmlinux.h has no macros). */
#define S_IFMT		00170000
#define S_IFREG		0100000
#define S_IFDIR		0040000
#define S_IFBLK		0060000
#define S_IFIFO		0010000
#define S_IFSOCK	0140000

/*
 * The path walk's per-CPU buffers (laid out in path.bpf.h): PATH_SCRATCH
 * bytes where a path is built backwards, then a spare tail that stages a
 * struct dir_path on its way into dir_paths.
 *
 * A run holds one buffer of its CPU from its claim to its release
 * (path_claim(), file_ops.bpf.h's entry_path()), and no other run takes
 * it meanwhile. Before 7.0 a tracepoint's programs ran with preemption
 * off, so one buffer a CPU served all; on 7.x they run preemptibly, and a
 * syscall exit preempted in its walk could find its buffer rewritten by an
 * io_uring completion, or by the syscall programs' second chance
 * (second_sys_exit, vfs.bpf.c), walking a path on that CPU meanwhile: a
 * wrong path, with nothing said. PATH_SLOTS runs can hold one at once on
 * a CPU (the main syscall exit, its two second chances, io_uring's submit
 * and completion, one spare); a run that finds none free resolves no
 * path, counted (L_SCRATCH_BUSY).
 */
#define PATH_SCRATCH	4096
#define NAME_LEN	256		/* a dentry name, at most */
#define PATH_SLOTS	6

struct path_scratch {
	char buf[PATH_SCRATCH + NAME_LEN + 64];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PATH_SLOTS);
	__type(key, __u32);
	__type(value, struct path_scratch);
} path_scratch SEC(".maps") __weak;

/* Which of a CPU's path buffers a run holds: 1 while held. */
struct path_busy {
	__u32 held[PATH_SLOTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct path_busy);
} path_busy SEC(".maps") __weak;

/*
 * Claim one of the n buffers of this CPU whose holds are held[]: its slot,
 * or -1 when every one is held. A compare-and-swap, so a run preempted
 * between the test and the set cannot hand one buffer to two (programs
 * stay on their CPU: migration is off while they run). Released by a
 * plain store: the same CPU sees its own stores in order.
 */
static __always_inline int slot_claim(__u32 *held, const int n)
{
#pragma unroll
	for (int i = 0; i < n; i++)
		if (__sync_val_compare_and_swap(&held[i], 0, 1) == 0)
			return i;
	return -1;
}

static __always_inline int path_claim(void)
{
	struct path_busy *b;
	__u32 zero = 0;

	b = bpf_map_lookup_elem(&path_busy, &zero);
	return b ? slot_claim(b->held, PATH_SLOTS) : -1;
}

static __always_inline void path_release(int slot)
{
	struct path_busy *b;
	__u32 zero = 0;

	b = bpf_map_lookup_elem(&path_busy, &zero);
	if (b && slot >= 0 && slot < PATH_SLOTS)
		*(volatile __u32 *)&b->held[slot] = 0;
}

/*
 * The directory-path cache of path.bpf.h: (dev, ino, dentry, mount, root)
 * -> path. The mount is part of the key: one directory bind-mounted twice
 * has one dentry and two paths; so is the task's root: a chrooted reader
 * and the host see one directory through one mount at two paths. A cache:
 * 8,192 directories (ImageNet has 1,000 classes); a directory evicted is
 * walked again, nothing is lost.
 */
struct dir_key {
	__u64 ino;
	__u64 dentry;
	__u64 mnt;		/* struct vfsmount */
	__u64 root;		/* the task's root dentry */
	__u32 dev;
	__u32 pad;
};

struct dir_path {
	__u64 at;		/* bpf_ktime_get_ns() when walked */
	__u64 anchor;		/* see struct file_stats */
	__u32 alen;		/* bytes of path below anchor */
	__u32 len;
	char path[PATH_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, struct dir_key);
	__type(value, struct dir_path);
} dir_paths SEC(".maps") __weak;

/*
 * Anchors (path.bpf.h): the mount roots and task roots that paths were
 * walked from, each with its path in its own file system. User space reads
 * it at every drain; a few entries per mount and per container root, so
 * 2,048 hold those of a node's containers between two drains.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 2048);
	__type(key, __u64);
	__type(value, struct anchor_path);
} anchors SEC(".maps") __weak;

/*
 * The value of key in map, inserted as a copy of *init when missing. When
 * two CPUs insert the same key at once, BPF_NOEXIST lets one win and the
 * other (-EEXIST) takes the winner's entry. NULL when the map is full (or
 * the entry vanished at once): the caller counts that as its own loss.
 *
 * The update's error is not tested: success and -EEXIST both leave an
 * entry for the second lookup to find, any other error leaves none. A
 * test costs a verifier branch at every inlined use (handle_block_io_done
 * verified 41,152 instructions with it, 35,800 without).
 *
 * A caller whose initial value costs something to build (a thread's comm,
 * a disk's name) looks the key up first and builds it only on a miss.
 */
static __always_inline void *map_lookup_or_init(void *map, const void *key,
						const void *init)
{
	void *val;

	val = bpf_map_lookup_elem(map, key);
	if (val)
		return val;
	bpf_map_update_elem(map, key, init, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, key);
}

static __always_inline void *current_threads_map(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&threads_gen, &zero);
}

#endif /* MAPS_BPF_H */
