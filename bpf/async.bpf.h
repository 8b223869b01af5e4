/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Requests submitted now and completed later: io_uring's (uring.bpf.c) and
 * Linux AIO's (aio.bpf.h). A request is recorded at its submit, in the
 * submitter's context, with its owner: the thread that asked for it. Its
 * completion may run elsewhere (an io-wq worker, the SQPOLL thread, the
 * reaping thread): there the record says whose read it was, how long it
 * took and how deep the queue was, and it is counted as a read() is
 * (file_ops.bpf.h), to the owner; a write or a sync as write() and fsync()
 * are (write.bpf.h).
 */
#ifndef ASYNC_BPF_H
#define ASYNC_BPF_H

#include "file_ops.bpf.h"
#include "write.bpf.h"
#include "thread.bpf.h"

/*
 * Requests in flight. 16,384 at once: 64 loader threads with 128 each
 * queued fit twice; a submit that finds it full is counted (L_ASYNC_FULL).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct async_key);
	__type(value, struct async_rec);
} async_reqs SEC(".maps") __weak;

/*
 * Reads in flight per ring (io_uring's context, AIO's id): the queue depth
 * the loader keeps. LRU: a ring that went away leaves its slot to others.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u32);
} async_depth SEC(".maps") __weak;

/*
 * Each owner's async reads and their depth, for its life: read by user
 * space at every drain of the threads, and deleted at the drain after its
 * exit (collect/drain.c). 16,384 live threads; one more is counted lost
 * (L_ASYNC_THREADS_FULL), its reads still in every other figure.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct async_thread);
} async_threads SEC(".maps") __weak;

/*
 * Each file's async reads in flight, by the drain generation of their
 * submits (struct async_fkey: the file, file_gen & 1): the file's queue is
 * the sum of its two entries. A generation's entry is raised only while
 * the programs write that generation, and taken down only by a read it
 * counts; so once user space flipped file_gen and waited, an entry of the
 * other generation at 0 stays 0, and it deletes it (collect/drain_async.c):
 * the map holds the files with reads in flight, and those submitted to
 * within two files intervals. --map-files entries (32,768), made on use;
 * a submit that finds it full is counted lost (L_ASYNC_FILES_FULL), its
 * read in no file's async figures.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 32768);
	__type(key, struct async_fkey);
	__type(value, __u32);
} async_files SEC(".maps") __weak;

/*
 * Each file's async reads completed in a drain generation (struct
 * async_file, keyed by the file and file_gen & 1 at the completion): user
 * space adds the other generation's onto the files' records and deletes
 * them at every drain of the files, after the files table's half, which
 * holds the same reads' files. So it holds the files read asynchronously
 * within two files intervals; the files table drained early when full,
 * this one fills after it. --map-files entries (32,768), made on use; a
 * completion that finds it full is counted lost (L_ASYNC_FILE_SUMS_FULL),
 * its read still in every other figure.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 32768);
	__type(key, struct async_fkey);
	__type(value, struct async_file);
} async_file_sums SEC(".maps") __weak;

/*
 * A record being built, off the stack: an io_submit() loop's frame has no
 * room for one beside the path walk it may call. One per run that can
 * hold one at once on a CPU (the syscall exit and its second chances,
 * second_ and third_sys_exit: on 7.x one may preempt another), claimed as
 * the path buffers are (slot_claim(), maps.bpf.h).
 */
#define ASYNC_SLOTS	3

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ASYNC_SLOTS);
	__type(key, __u32);
	__type(value, struct async_rec);
} async_scratch SEC(".maps") __weak;

struct async_busy {
	__u32 held[ASYNC_SLOTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct async_busy);
} async_busy SEC(".maps") __weak;

/* The depth of ring once a read joins it (itself included). */
static __always_inline __u32 depth_up(__u64 ring)
{
	__u32 one = 1, *d;

	d = bpf_map_lookup_elem(&async_depth, &ring);
	if (!d) {
		bpf_map_update_elem(&async_depth, &ring, &one, BPF_NOEXIST);
		d = bpf_map_lookup_elem(&async_depth, &ring);
		return d ? *d : 1;
	}
	return __sync_fetch_and_add(d, 1) + 1;
}

static __always_inline void depth_down(__u64 ring)
{
	__u32 *d = bpf_map_lookup_elem(&async_depth, &ring);

	if (d && *d)
		__sync_fetch_and_sub(d, 1);
}

/* The key of file f in generation set. */
static __always_inline void fkey_of(struct async_fkey *k, const struct file_key *f, __u32 set)
{
	k->ino = f->ino | (set ? ASYNC_FKEY_SET : 0);
	k->dev = f->dev;
	k->gen = f->gen;
}

/* *max becomes v if v is more; by compare-and-swap: two CPUs at once each see the other's. */
static __always_inline void max_u32(__u32 *max, __u32 v)
{
	for (int i = 0; i < 4; i++) {
		__u32 m = *max;

		if (v <= m || __sync_val_compare_and_swap(max, m, v) == m)
			break;
	}
}

/*
 * The read rec joins the queue of the file at address file (0: not known
 * at this submit, taken at the completion): rec takes the file's key, its
 * entry's set, and its depth there, itself included (its entry of this
 * generation and the other's). A call of its own, as owner_async().
 */
static __noinline void async_file_submit(struct async_rec *rec, __u64 file)
{
	struct async_fkey k;
	__u32 zero = 0, *n, *other, d;

	rec->fstate = AFILE_NONE;
	rec->fdepth = 0;
	if (!file)
		return;
	file_key_of(BTF_CAST(struct file, file), &rec->key);
	rec->fset = file_gen & 1;
	fkey_of(&k, &rec->key, rec->fset);
	n = map_lookup_or_init(&async_files, &k, &zero);
	if (!n) {
		rec->fstate = AFILE_FULL;
		count_lost(L_ASYNC_FILES_FULL);
		return;
	}
	d = __sync_fetch_and_add(n, 1) + 1;
	k.ino ^= ASYNC_FKEY_SET;
	other = bpf_map_lookup_elem(&async_files, &k);
	if (other)
		d += *other;
	rec->fdepth = d;
	rec->fstate = AFILE_KEYED;
}

/* The read rec leaves its file's queue: completed, or taken back. */
static __always_inline void async_file_out(struct async_rec *rec)
{
	struct async_fkey k;
	__u32 *n;

	if (rec->fstate != AFILE_KEYED)
		return;
	fkey_of(&k, &rec->key, rec->fset);
	n = bpf_map_lookup_elem(&async_files, &k);
	if (n && *n)
		__sync_fetch_and_sub(n, 1);
}

/*
 * The read rec completed on the file at address file: one more async read
 * of its file, with its depth at submit; or, its file not known then, of
 * the file it completed on, counted late (C_ASYNC_FILE_LATE), no depth.
 * Into this generation's entry, which user space takes at the next drain.
 */
static __noinline void async_file_read(struct async_rec *rec, __u64 file)
{
	struct async_file zero = {}, *af;
	struct async_fkey k;

	if (rec->fstate == AFILE_KEYED) {
		fkey_of(&k, &rec->key, file_gen & 1);
	} else if (rec->fstate == AFILE_NONE) {
		count(C_ASYNC_FILE_LATE, 1);
		/* Written in place: this frame stays as small as before the key had a set. */
		file_key_of(BTF_CAST(struct file, file), (struct file_key *)&k);
		if (file_gen & 1)
			k.ino |= ASYNC_FKEY_SET;
	} else {
		return;		/* async_files was full at the submit: counted then */
	}
	af = map_lookup_or_init(&async_file_sums, &k, &zero);
	if (!af) {
		count_lost(L_ASYNC_FILE_SUMS_FULL);
		return;
	}
	if (rec->fstate != AFILE_KEYED) {
		__sync_fetch_and_add(&af->late, 1);
		return;
	}
	__sync_fetch_and_add(&af->reads, 1);
	__sync_fetch_and_add(&af->depth, rec->fdepth);
	max_u32(&af->depth_max, rec->fdepth);
}

/* Name rec's owner: the thread whose set of counters ts is (thread_of()). */
static __always_inline void rec_owner(struct async_rec *rec, __u32 tid,
				      const struct thread_stats *ts)
{
	rec->owner = tid;
	rec->tgid = ts->tgid;
	rec->cgid = ts->cgid;
	__builtin_memcpy(rec->comm, ts->comm, COMM_LEN);
}

/*
 * The counters of rec's owner: its own set when it completes the request
 * itself, else its entry in the threads map (as an exited thread's), which
 * user space adds to the live thread's.
 */
static __noinline struct thread_stats *owner_stats(struct async_rec *rec)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct task_state *st;

	if (task->pid == rec->owner) {
		st = task_state_of(task, true);
		if (st)
			return thread_of(st, task);
	}
	return thread_entry(rec->owner, thread_gen & 1, rec->tgid, rec->cgid, rec->comm);
}

/*
 * One more async read of thread tid, depth deep. A call of its own: its
 * frame is not on the stack of the path walk that the caller may make
 * (6.1's verifier rounds each frame up to 32 bytes).
 */
static __noinline void owner_async(__u32 tid, __u32 depth)
{
	struct async_thread zero = {}, *at;

	at = map_lookup_or_init(&async_threads, &tid, &zero);
	if (!at) {
		count_lost(L_ASYNC_THREADS_FULL);
		return;
	}
	__sync_fetch_and_add(&at->reads, 1);
	__sync_fetch_and_add(&at->depth, depth);
}

/*
 * The async read rec completed with ret (bytes, or -errno) on the file at
 * address file, at now. off is where it read from, ASYNC_POS_FILE resolved.
 * path: resolve the path of a new entry (read_done()).
 */
static __always_inline void async_read_done(struct async_rec *rec, __u64 file, __u64 off,
					    long ret, __u64 now, bool path)
{
	struct thread_stats *ts;
	__u64 lat = now - rec->start_ns;

	if (!file) {
		count_lost(L_FD_UNRESOLVED);
		return;
	}
	if (file_mode(BTF_CAST(struct file, file)) != S_IFREG) {
		count(C_READS_OTHER, 1);
		return;
	}
	if (ret < 0) {
		count(C_READ_ERRORS, 1);
		return;
	}
	ts = owner_stats(rec);
	read_done(ts, file, off, ret, lat, now, path, false);
	if (rec->iface == ASYNC_AIO) {
		count(C_AIO_READS, 1);
		count(C_AIO_READ_BYTES, ret);
		hist_add(H_AIO_LAT, lat);
	} else {
		count(C_URING_READS, 1);
		count(C_URING_READ_BYTES, ret);
		hist_add(H_URING_LAT, lat);
	}
	count(C_ASYNC_SUBMITS, 1);
	count(C_ASYNC_DEPTH_SUM, rec->depth);
	hist_add(H_ASYNC_DEPTH, rec->depth);
	owner_async(rec->owner, rec->depth);
	async_file_read(rec, file);
}

/*
 * The async write or sync rec completed with ret (bytes, or -errno) on the
 * file at address file, at now: counted as a write() or an fsync() is
 * (write.bpf.h), to its owner, its time the request's (no thread's: the
 * owner's wait is in io_uring_enter and io_getevents).
 */
static __always_inline void async_write_done(struct async_rec *rec, __u64 file, long ret,
					     __u64 now, bool path)
{
	__u64 lat = now - rec->start_ns;

	if (!file) {
		count_lost(L_FD_UNRESOLVED);
		return;
	}
	if (!write_file(file))
		return;
	if (rec->op == AOP_FSYNC) {
		fsync_done(rec->owner, file, ret, lat, now, path, false);
		return;
	}
	write_done(rec->owner, file, ret, lat, now, path, false);
	if (ret < 0)
		return;
	if (rec->iface == ASYNC_AIO) {
		count(C_AIO_WRITES, 1);
		count(C_AIO_WRITE_BYTES, ret);
	} else {
		count(C_URING_WRITES, 1);
		count(C_URING_WRITE_BYTES, ret);
	}
}

#endif /* ASYNC_BPF_H */
