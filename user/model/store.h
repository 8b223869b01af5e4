/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The user-space store: every file and thread the trace has seen, merged
 * from the kernel's per-interval maps. Files are kept in an open-addressing
 * hash table keyed by (dev, ino, gen) that grows without a cap; a record is
 * sizeof(struct file_rec) plus its path, see store__bytes(). A record is
 * one file's life: an inode number freed and used again by another file
 * has another generation (struct file_key), so another record.
 */
#ifndef STORE_H
#define STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "iostorm.h"
#include "model/kind.h"
#include "model/threads.h"

struct file_rec {
	__u64 ino;
	__u32 dev;		/* kernel encoding: major << 20 | minor */
	__u32 flags;		/* enum file_flags, ORed over intervals, but:
				 * FILE_F_READ: the file was ever read;
				 * FILE_F_PATH, _TRUNC, _RELPATH: describe path */
	struct file_counters c;	/* summed over intervals (bpf/iostorm.h);
				 * reads_consec and reads_seq are Darshan's
				 * CONSEC_READS and SEQ_READS */
	__u64 size;
	__u64 read_ns_max;
	__u64 last_end;		/* end of the last read, for the next interval */
	__u64 max_end;		/* Darshan MAX_BYTE_READ + 1 */
	__u64 first_ts;		/* ns, CLOCK_MONOTONIC */
	__u64 last_ts;
	__u64 read_ts;		/* its first read; 0: never read */
	char *path;		/* absolute, normalized, as the host sees it;
				 * NULL if never resolved or not found there */
	char *job_path;		/* as the job saw it, when that differs */
	__u32 view;		/* the job's view (model/view.h), 0: the host's */
	__u32 gen;		/* the inode's generation (struct file_key); 0: none */
	__u8 code;		/* enum kind_why (model/kind.h), kept current: the
				 * totals ask at every refresh, 300k files deep */
	struct async_file *async;	/* its io_uring and AIO reads and their
					 * depth on it (bpf/iostorm.h), summed
					 * at each drain; NULL: none */
};

/* A file_rec flag of user space's own: path is NULL, job_path holds the job's. */
#define FILE_F_JOBONLY	(1u << 30)

/* A block device's own page cache, not a file: ino is the device (file_key). */
static inline bool file_rec__is_device(const struct file_rec *f)
{
	return f->dev == FILE_KEY_DEVICE;
}

/* Code or a library (model/kind.h), as the store keeps it current. */
static inline bool file_rec__is_code(const struct file_rec *f)
{
	return f->code != KIND_DATA;
}

/* A file in a target's /proc/PID/maps, for naming faulted files (mapfiles.h). */
struct mapped_file {
	__u64 ino;
	__u32 dev;
	bool exec;		/* mapped executable: code */
	char *path;
};

struct views;
struct mounts;

#define STORE_CODE_PATHS	2	/* a launched command's program and script */

struct store {
	struct views *views;		/* NULL: paths as the kernel walked them */
	const struct mounts *mounts;	/* the files' mounts, for their kind; NULL: unknown */
	struct file_rec **files;	/* hash slots, NULL when empty */
	size_t files_cap;		/* power of two */
	size_t nr_files;
	size_t path_bytes;		/* bytes held by paths */
	size_t nr_async;		/* file records with an async figure */
	__u64 reg_opens;		/* opens of regular files, summed as merged */
	bool unnamed_faults;		/* a merge saw faults on a file with no path */
	struct mapped_file *mapped;	/* remembered by mapfiles__scan() */
	size_t nr_mapped;
	size_t mapped_cap;
	char *code_paths[STORE_CODE_PATHS];	/* store__add_code_path() */
	size_t nr_code_paths;
	size_t files_max;		/* 0: keep every file; else see store__bound() */
	__u64 files_evicted;		/* records store__bound() dropped */
	struct threads threads;		/* every thread, model/threads.h */
};

int store__init(struct store *s);
void store__free(struct store *s);
/*
 * Merge one interval's kernel entry for key into the store: into the
 * record of (dev, ino, gen). An entry with gen 0 on a file system that
 * keeps generations came from a stat by name, which names no inode: it
 * joins the inode number's latest life (greatest first_ts), so merge an
 * interval's entries with a generation first. A record with gen 0 (stats
 * only, so far) becomes the first life with a generation that comes.
 */
int store__merge_file(struct store *s, const struct file_key *key,
		      const struct file_stats *fs);
/* The record of (dev, ino, gen), or NULL. */
struct file_rec *store__find(const struct store *s, __u32 dev, __u64 ino, __u32 gen);
/*
 * The latest life of inode number ino on dev (the greatest first_ts), for
 * what names no generation (a process's /proc/PID/maps), or NULL.
 */
struct file_rec *store__find_latest(const struct store *s, __u32 dev, __u64 ino);
/*
 * The file at host path path is code, whatever its name or place: the
 * script a launched command runs, which its interpreter reads like data.
 * Before the first merge. 0, -ENOSPC past STORE_CODE_PATHS, or -ENOMEM.
 */
int store__add_code_path(struct store *s, const char *path);
/*
 * Add async reads a onto f's (sums; the larger depth_max), given at every
 * drain of the files and at the end. 0 or -ENOMEM.
 */
int store__add_async(struct store *s, struct file_rec *f, const struct async_file *a);
/* Give f, which has none, the absolute path path (copied). 0 or -ENOMEM. */
int store__set_path(struct store *s, struct file_rec *f, const char *path);
/*
 * Keep memory flat in a long run (an exporter): past files_max records,
 * drop the least recently used (by last_ts) down to 3/4 of files_max. Their
 * counts stay in every total (counters, cgroups, timeline); what counts
 * files (distinct files, directories, file sizes) then covers the files
 * kept, and says so (trace__files_lower_bound()). Threads likewise past
 * threads.max (threads__bound()): a node's exporter sees every thread ever
 * started. Returns how many files were dropped, or -ENOMEM.
 */
int store__bound(struct store *s);
/*
 * At the end of a trace: the files whose host path was not found when
 * merged (a stat() by a name that crosses a mount of the job's, its
 * process gone) get one from the directories the view's other files were
 * found in. Returns how many, or -ENOMEM.
 */
int store__rehost(struct store *s);
/*
 * Join the records of one file seen under two devices: stat() reports a
 * btrfs subvolume's own device, while opens and the page cache name the
 * file system's. Records with the same inode number and the same path, one
 * of them on an anonymous device (major 0: btrfs subvolumes, overlayfs),
 * are one file; the one whose path came from an open is kept. Two block
 * devices (two images of one dataset) are never joined. Returns how many
 * records were joined into others, or -ENOMEM (then nothing changed).
 */
int store__join_aliases(struct store *s);
/* Every file record, in hash order, for sorting by the caller; free() it. */
struct file_rec **store__files(const struct store *s, size_t *n);
/*
 * Memory held by the store, in bytes: hash tables, records, paths and the
 * thread array as requested from malloc (its own overhead not included).
 */
size_t store__bytes(const struct store *s);

#endif /* STORE_H */
