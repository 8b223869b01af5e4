/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Writes of regular files (not in memory: write_file()), counted as
 * reads are (file_ops.bpf.h): in total, in
 * the file's entry and for the thread that asked, the one way every
 * interface that writes a file counts it (write-family calls, io_uring and
 * Linux AIO writes). Beside them, the calls that make a save durable
 * (fsync, fdatasync, sync_file_range, msync of a file mapping) and those
 * that commit it: a rename, and the close of the file its thread wrote or
 * synced last (a save's own close, where NFS writes back what is dirty and
 * ext4 starts the writeback of a file it replaced; not a shell's close of
 * a descriptor it only passed on). A writer throttled for dirtying pages
 * too fast sleeps inside write() (balance_dirty_pages()): write time.
 *
 * A thread's figures are in write_threads, by tid, for its life
 * (struct write_thread): a hash lookup per write, none per read.
 */
#ifndef WRITE_BPF_H
#define WRITE_BPF_H

#include "file_ops.bpf.h"

#define FMODE_WRITE	0x2
#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC	0x01021994
#endif

/*
 * Each writing thread's writes, syncs and commits, for its life: read by
 * user space at every drain of the threads, and deleted at the drain after
 * its exit (collect/drain.c). 16,384 live threads; one more is counted
 * lost (L_WRITE_THREADS_FULL), its writes still in every other figure.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct write_thread);
} write_threads SEC(".maps") __weak;

/*
 * Is the file at address file one whose writes are counted: a regular
 * file, not in memory (tmpfs: /dev/shm, where a DataLoader's workers pass
 * batches, a tmpfs /tmp; no storage behind it)?
 */
static __always_inline bool write_file(__u64 file)
{
	struct file *f = BTF_CAST(struct file, file);

	return file_mode(f) == S_IFREG && KREAD(f, f_inode, i_sb, s_magic) != TMPFS_MAGIC;
}

/* What a call did, for its thread (write_thread_add()). */
enum write_what {
	WW_WRITE = 0,
	WW_FSYNC,
	WW_COMMIT,
	WW_RENAME,
};

/*
 * One more call of thread tid: what it did, its bytes and its time, and
 * for a write or a sync the file (key) it wrote, whose close commits. A
 * call of its own (its frame off the path walk's stack); atomics, as an
 * async write completes on any CPU.
 */
static __noinline void write_thread_add(__u32 tid, __u32 what, __u64 bytes, __u64 lat,
					const struct file_key *key)
{
	struct write_thread zero = {}, *wt;

	wt = map_lookup_or_init(&write_threads, &tid, &zero);
	if (!wt) {
		count_lost(L_WRITE_THREADS_FULL);
		return;
	}
	if (what == WW_WRITE) {
		__sync_fetch_and_add(&wt->writes, 1);
		__sync_fetch_and_add(&wt->write_bytes, bytes);
		__sync_fetch_and_add(&wt->write_ns, lat);
	} else if (what == WW_FSYNC) {
		__sync_fetch_and_add(&wt->fsyncs, 1);
		__sync_fetch_and_add(&wt->fsync_ns, lat);
	} else {
		/* One atomic each: 6.1's verifier takes none at a chosen offset. */
		if (what == WW_COMMIT)
			__sync_fetch_and_add(&wt->commits, 1);
		else
			__sync_fetch_and_add(&wt->renames, 1);
		__sync_fetch_and_add(&wt->commit_ns, lat);
	}
	wt->last_ino = key ? key->ino : 0;
	wt->last_dev = key ? key->dev : 0;
}

/*
 * Key and address of the file a write or a sync was of, for
 * write_thread_add(). A call of its own, as wrote_last(): the key's
 * frame is not sys_exit's, whose stack and the path walk's under it were
 * 512 bytes on 6.1 already (its verifier rounds each frame up to 32).
 */
static __noinline void write_thread_file(__u32 tid, __u32 what, __u64 bytes, __u64 lat,
					 __u64 file)
{
	struct file_key key;

	file_key_of(BTF_CAST(struct file, file), &key);
	write_thread_add(tid, what, bytes, lat, &key);
}

/*
 * A write of ret bytes of the regular file at address file by thread tid,
 * lat ns from its start to its end. timed: add lat to the thread's write
 * time; not for an async request, whose latencies overlap (read_done()).
 * path: resolve the path of a new entry (entry_of_file()).
 */
static __always_inline void write_done(__u32 tid, __u64 file, long ret, __u64 lat,
				       __u64 now, bool path, bool timed)
{
	struct file_stats *fs;

	if (ret < 0) {
		count(C_WRITE_ERRORS, 1);
		return;
	}
	count(C_WRITES, 1);
	count(C_WRITE_BYTES, ret);
	count(C_WRITE_NS, lat);
	hist_add(H_WRITE_LAT, lat);
	write_thread_file(tid, WW_WRITE, ret, timed ? lat : 0, file);
	fs = entry_of_file(file, now, path);
	if (!fs)
		return;
	set_flag(fs, FILE_F_REG);
	__sync_fetch_and_add(&fs->writes, 1);
	__sync_fetch_and_add(&fs->write_bytes, ret);
	__sync_fetch_and_add(&fs->write_ns, lat);
	fs->size = KREAD(BTF_CAST(struct file, file), f_inode, i_size);
	fs->last_ts = now;
}

/* A sync of the regular file at address file by thread tid (write_done()'s arguments). */
static __always_inline void fsync_done(__u32 tid, __u64 file, long ret, __u64 lat,
				       __u64 now, bool path, bool timed)
{
	struct file_stats *fs;

	if (ret < 0) {
		count(C_WRITE_ERRORS, 1);
		return;
	}
	count(C_FSYNCS, 1);
	count(C_FSYNC_NS, lat);
	hist_add(H_FSYNC_LAT, lat);
	write_thread_file(tid, WW_FSYNC, 0, timed ? lat : 0, file);
	fs = entry_of_file(file, now, path);
	if (!fs)
		return;
	set_flag(fs, FILE_F_REG);
	__sync_fetch_and_add(&fs->fsyncs, 1);
	__sync_fetch_and_add(&fs->fsync_ns, lat);
	fs->size = KREAD(BTF_CAST(struct file, file), f_inode, i_size);
	fs->last_ts = now;
}

/* A commit by thread tid: a rename, or (fs: its entry) the close of the file it wrote last. */
static __always_inline void commit_done(__u32 tid, struct file_stats *fs, bool rename,
					__u64 lat, __u64 now)
{
	count(rename ? C_RENAMES : C_COMMITS, 1);
	count(C_COMMIT_NS, lat);
	write_thread_add(tid, rename ? WW_RENAME : WW_COMMIT, 0, lat, NULL);
	if (!fs)
		return;
	__sync_fetch_and_add(&fs->commits, 1);
	__sync_fetch_and_add(&fs->commit_ns, lat);
	fs->last_ts = now;
}

/*
 * Is the regular file at address file, opened for writing, the one thread
 * tid wrote or synced last? A call of its own (see write_thread_file()).
 */
static __noinline bool wrote_last(__u32 tid, __u64 file)
{
	struct file *f = BTF_CAST(struct file, file);
	struct write_thread *wt;
	struct file_key key;

	if (!write_file(file))
		return false;
	wt = bpf_map_lookup_elem(&write_threads, &tid);
	if (!wt || !wt->last_ino)
		return false;
	file_key_of(f, &key);
	return wt->last_ino == key.ino && wt->last_dev == key.dev;
}

/*
 * Does thread tid's close of the file at address file commit a save: a
 * regular file opened for writing, the one it wrote or synced last? A
 * close of a file opened to read pays one test, inline.
 */
static __always_inline bool close_commits(__u32 tid, __u64 file)
{
	return (KREAD(BTF_CAST(struct file, file), f_mode) & FMODE_WRITE) &&
	       wrote_last(tid, file);
}

#endif /* WRITE_BPF_H */
