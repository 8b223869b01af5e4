/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A file's entry, and each operation on it counted there, in total and for
 * its thread: open, stat, close and read, the one way every interface that
 * does them (the syscalls, io_uring, Linux AIO) counts them; writes build
 * on it (write.bpf.h). Included by each build that counts them (vfs.bpf.c,
 * vfs_compat.bpf.c, uring.bpf.c); KREAD is that build's (path.bpf.h).
 */
#ifndef FILE_OPS_BPF_H
#define FILE_OPS_BPF_H

#include "maps.bpf.h"
#include "target.bpf.h"
#include "entry.bpf.h"
#include "path.bpf.h"
#include "hist.bpf.h"

/*
 * Resolve the path of a new entry: from its open file (an address), or
 * when there is none from the name a *stat() was given, relative to dirfd.
 * The one place paths are resolved, a global function (weak: each build
 * that includes this carries it, the link keeps one): the verifier checks
 * the walk and the directory cache once, not at each call site, and a call
 * costs only a file's first event of an interval.
 */
__weak __noinline int entry_path(struct file_stats *fs, __u64 file, int dirfd, __u64 name,
			  __u64 now)
{
	int slot;

	if (!fs || (!file && !name))
		return 0;
	slot = path_claim();
	if (slot < 0) {
		count_lost(L_SCRATCH_BUSY);
		return 0;
	}
	if (file)
		path_of_file(fs, BTF_CAST(struct file, file), now, slot);
	else
		path_of_name(fs, dirfd, (const char *)name, now, slot);
	path_release(slot);
	return 0;
}

/*
 * The entry of the file at addr, created when missing; its path resolved
 * once when path is set (a constant: without it, no call to entry_path()
 * is compiled in, for a caller whose stack has no room for the walk).
 */
static __always_inline struct file_stats *entry_of_file(__u64 addr, __u64 now, bool path)
{
	struct file_key key;
	struct file_stats *fs;
	bool need_path;

	file_key_of(BTF_CAST(struct file, addr), &key);
	fs = file_entry(&key, now, path, &need_path);
	if (fs && need_path)
		entry_path(fs, addr, 0, 0, now);
	return fs;
}

static __always_inline bool reg_or_dir(__u32 mode)
{
	return mode == S_IFREG || mode == S_IFDIR;
}

/* Set a flag once: an atomic OR on every read would bounce the cache line. */
static __always_inline void set_flag(struct file_stats *fs, __u32 flag)
{
	if (!(fs->flags & flag))
		__sync_fetch_and_or(&fs->flags, flag);
}

/*
 * Classify a read as Darshan does (see struct file_stats). Concurrent reads
 * of one file race on last_end; the order they are seen in is the order.
 */
static __always_inline void classify_read(struct file_stats *fs, __u64 off, __u64 end,
					  __u64 now)
{
	__u64 last = fs->last_end;

	if (!(fs->flags & FILE_F_READ)) {
		fs->first_off = off;
		fs->first_end = end;
		fs->read_ts = now;
		__sync_fetch_and_or(&fs->flags, FILE_F_READ);
	} else if (off >= last) {
		__sync_fetch_and_add(&fs->reads_seq, 1);
		if (off == last)
			__sync_fetch_and_add(&fs->reads_consec, 1);
	}
	fs->last_end = end;
	if (end > fs->max_end)
		fs->max_end = end;
}

/*
 * Time in a metadata call (open, stat, close, getdents), in total and for
 * the thread. Each caller adds its own latency histogram: open and stat
 * count every call, close and getdents only those on a regular file or
 * directory, but histogram them all.
 */
static __always_inline void meta_done(struct thread_stats *ts, __u64 lat, bool timed)
{
	count(C_META_NS, lat);
	if (timed)
		ts->meta_ns += lat;
}

/* The same time for the file's entry. */
static __always_inline void note_meta(struct file_stats *fs, __u64 lat, __u64 now)
{
	__sync_fetch_and_add(&fs->meta_ns, lat);
	fs->last_ts = now;
}

static __always_inline void open_done(struct thread_stats *ts, long ret, bool has_fd,
				      __u64 lat, __u64 now, bool timed)
{
	struct file_stats *fs;
	struct file *file;
	__u64 *errs, addr;
	__u32 mode, e;

	hist_add(H_OPEN_LAT, lat);
	meta_done(ts, lat, timed);
	if (ret < 0) {
		count(C_OPEN_ERRORS, 1);
		e = -ret < ERRNO_SLOTS ? -ret : ERRNO_SLOTS - 1;
		errs = bpf_map_lookup_elem(&open_errnos, &e);
		if (errs)
			*errs += 1;
		return;
	}
	count(C_OPENS, 1);
	ts->opens += 1;
	if (!has_fd)
		return;		/* into a fixed-file slot, or in another process */
	addr = fd_file_addr(ret);
	if (!addr) {
		count_lost(L_FD_UNRESOLVED);
		return;
	}
	file = BTF_CAST(struct file, addr);
	mode = file_mode(file);
	if (!reg_or_dir(mode)) {
		count(C_OPENS_OTHER, 1);
		return;
	}
	fs = entry_of_file(addr, now, true);
	if (!fs)
		return;
	set_flag(fs, mode == S_IFDIR ? FILE_F_DIR : FILE_F_REG);
	__sync_fetch_and_add(&fs->opens, 1);
	fs->size = KREAD(file, f_inode, i_size);
	note_meta(fs, lat, now);
}

/* Key, type and size of a file from the struct statx a statx() filled. */
static __always_inline int statx_key(const struct statx *sx, struct file_key *key,
				     __u32 *mode, __u64 *size)
{
	__u32 maj = 0, min = 0;
	__u16 m = 0;

	if (bpf_probe_read_user(&key->ino, 8, &sx->stx_ino) ||
	    bpf_probe_read_user(&m, 2, &sx->stx_mode) ||
	    bpf_probe_read_user(size, 8, &sx->stx_size) ||
	    bpf_probe_read_user(&maj, 4, &sx->stx_dev_major) ||
	    bpf_probe_read_user(&min, 4, &sx->stx_dev_minor))
		return -1;
	*mode = m & S_IFMT;
	key->dev = maj << 20 | min;
	key->gen = 0;		/* not in a stat's result: see struct file_key */
	return 0;
}

/*
 * A stat's end, for its thread (NULL: an async request's owner is gone):
 * every call histogrammed, its time metadata time (timed: the thread's
 * too). False when nothing more is counted: it failed, or no thread.
 */
static __always_inline bool stat_done(struct thread_stats *ts, long ret, __u64 lat, bool timed)
{
	hist_add(H_STAT_LAT, lat);
	if (!ts)
		return false;
	meta_done(ts, lat, timed);
	if (ret < 0) {
		count(C_STAT_ERRORS, 1);
		return false;
	}
	count(C_STATS, 1);
	ts->stats += 1;
	return true;
}

/*
 * The file a stat described (key, mode and size from its result) counted
 * in its entry, created when missing. NULL for what is neither a regular
 * file nor a directory, or a full table; need_path: the entry is new and
 * the caller names it as its interface allows.
 */
static __always_inline struct file_stats *stat_file(struct file_key *key, __u32 mode,
						    __u64 size, __u64 lat, __u64 now,
						    bool *need_path)
{
	struct file_stats *fs;

	if (!reg_or_dir(mode))
		return NULL;
	fs = file_entry(key, now, true, need_path);
	if (!fs)
		return NULL;
	set_flag(fs, mode == S_IFDIR ? FILE_F_DIR : FILE_F_REG);
	__sync_fetch_and_add(&fs->stats, 1);
	fs->size = size;
	note_meta(fs, lat, now);
	return fs;
}

/*
 * A close of a regular file or directory (its entry fs, NULL when the
 * table is full) by the thread ts. commits: it ends a save, whose time is
 * write time (write.bpf.h), not metadata time.
 */
static __always_inline void close_done(struct thread_stats *ts, struct file_stats *fs,
				       __u64 lat, __u64 now, bool timed, bool commits)
{
	count(C_CLOSES, 1);
	if (fs)
		__sync_fetch_and_add(&fs->closes, 1);
	if (commits)
		return;
	meta_done(ts, lat, timed);
	if (fs)
		note_meta(fs, lat, now);
}

/*
 * A read of ret bytes at off of the regular file at address file, lat ns
 * from its start to its end (a syscall's, or an async request's submit to
 * completion), for the thread ts (the one that asked for it). path: resolve
 * the path of a new entry (see entry_of_file()). timed: add lat to the
 * thread's read time too; not for an async request, whose latencies overlap
 * (8 in flight are 8 latencies at once): the thread's time is its wait in
 * io_uring_enter, io_submit and io_getevents (vfs.bpf.c). The file's and
 * the totals' read time sum every latency either way (Little's law).
 */
static __always_inline void read_done(struct thread_stats *ts, __u64 file, __u64 off,
				      long ret, __u64 lat, __u64 now, bool path, bool timed)
{
	struct file_stats *fs;

	count(C_READS, 1);
	count(C_READ_BYTES, ret);
	count(C_READ_NS, lat);
	hist_add(H_READ_LAT, lat);
	hist_add(H_READ_SIZE, ret);
	if (ts) {
		ts->reads += 1;
		ts->read_bytes += ret;
		if (timed)
			ts->read_ns += lat;
	}
	fs = entry_of_file(file, now, path);
	if (!fs)
		return;
	set_flag(fs, FILE_F_REG);
	__sync_fetch_and_add(&fs->reads, 1);
	__sync_fetch_and_add(&fs->read_bytes, ret);
	__sync_fetch_and_add(&fs->read_ns, lat);
	if (lat > fs->read_ns_max)
		fs->read_ns_max = lat;
	fs->size = KREAD(BTF_CAST(struct file, file), f_inode, i_size);
	fs->last_ts = now;
	classify_read(fs, off, off + ret, now);
}

#endif /* FILE_OPS_BPF_H */
