/*
 * shape: a random job shape drawn from a seed, run by tests/shapes/run.sh
 * under iostorm and under strace, and compared with its own tally.
 *
 * What the seed draws (shape.c): 1-4 workers, each a thread or a forked
 * process, each with its own files on every writable root (a file system:
 * ext4, XFS, tmpfs) under ROOT/TAG/wK/dJ/fS, and the read-only root's
 * files (FUSE) shared by all; then per worker 12-48 operations
 * (shape_ops.c): files created, read whole or in part (read, pread64,
 * readv through a directory fd, mmap and a touch of every page, io_uring
 * and Linux AIO reads: shape_async.c), written (appended, overwritten,
 * truncated, fsync'ed), renamed within their root, unlinked and made again
 * at the same path (a number the file system just freed: inode reuse),
 * directories made and removed. Half the shapes are a training loop: the
 * workers then read 40-120 times more, mostly or only in a way of their own
 * (read, mmap, io_uring...), each read followed by decode-like CPU work and,
 * for half of them, by a rewrite of a progress file of a few bytes; the
 * main thread takes an item from a pipe after each read a worker did and
 * computes, timing its wait (the job's own clock); each worker times its
 * writes, syncs, commits and renames against its busy time.
 *
 * Each life of a file (made, or found on the read-only root) is one record
 * of the tally, kept where it was made (a rename keeps it, as iostorm's
 * record keeps the path it first saw). A worker draws from its own stream
 * of the seed, and touches only its own files: the same seed makes the same
 * calls, whatever the timing, under a tracer or not.
 */
#ifndef IOSTORM_SHAPE_H
#define IOSTORM_SHAPE_H

#include "workload.h"

#define SHAPE_ROOTS	8	/* file systems: the directories of DIR */
#define SHAPE_WORKERS	4
#define SHAPE_DIRS	3	/* a worker's directories on each root */
#define SHAPE_SLOTS	5	/* file names in each */
#define SHAPE_OPS	48	/* most operations a worker draws, set-up included */
#define SHAPE_RO_FILES	64	/* files of a read-only root taken */
#define SHAPE_PATH	200
#define SHAPE_BUF	(256 << 10)

enum shape_fs { FS_EXT4, FS_XFS, FS_TMPFS, FS_FUSE, FS_OTHER };

/* One life of one file, in memory shared by the workers. */
struct life {
	u64 opens, reads, read_bytes, async_reads, async_bytes;
	u64 writes, write_bytes, fsyncs, mmaps;
	u64 size;		/* its size after the last call on it */
	u64 root;
	char path[SHAPE_PATH];	/* where it was made or found */
	char now[SHAPE_PATH];	/* where it is at the end; "" when unlinked */
	char hist[64];		/* one letter per operation on it, below */
};

/*
 * A life's hist: c made, w written, one of SHAPE_READS read (read, pread64,
 * readv, mmap, io_uring, Linux AIO), n renamed, u unlinked, x replaced by a
 * file renamed over it. The first 63 operations; none for a shared file.
 */
#define SHAPE_READS	"rpvmqa"

struct shape_root {
	char *path;		/* DIR/NAME */
	char *top;		/* DIR/NAME/TAG: this run's files (writable roots) */
	const char *name;
	enum shape_fs fs;
	int ro;
	size_t nfiles;		/* read-only: its files, lives first_life.. */
	u64 first_life;
};

/* One worker's clock, shared: its busy time and the part spent writing. */
struct shape_clock {
	u64 busy_ns, write_ns, items;
	u64 tid;
};

struct shape_rng {
	u64 s;
};

/* A worker's view of its files: slot -> life, or -1. */
struct shape_worker {
	size_t k;
	struct shape_rng r;
	int dir_made[SHAPE_ROOTS][SHAPE_DIRS];
	long slot[SHAPE_ROOTS][SHAPE_DIRS][SHAPE_SLOTS];
	u64 next_life, last_life;
	int favorite;		/* the read (of SHAPE_READS) it draws 7 times in 10 */
	int only;		/* or every time, when it must read */
	long progress_life;	/* its progress file's, or -1 */
	char *buf;
	int items_fd;		/* the loop's pipe, or -1 */
	struct shape_clock *clock;
	struct shape_async *async;
};

/* shape.c */
extern struct shape_root shape_roots[SHAPE_ROOTS];
extern size_t shape_nroots;
extern struct life *shape_lives;
u64 shape_rnd(struct shape_rng *r);
u64 shape_range(struct shape_rng *r, u64 lo, u64 hi);
u64 shape_now_ns(void);
char *shape_path(char *out, const struct shape_worker *w, size_t root, size_t dir, size_t slot);

/* shape_ops.c: one operation drawn and done; the set-up's files */
int shape_op(struct shape_worker *w, int want_read);
int shape_favorite(struct shape_rng *r);
int shape_progress(struct shape_worker *w);
int shape_setup(struct shape_worker *w);

/* shape_async.c: io_uring and Linux AIO reads of a file, whole */
struct shape_async;
struct shape_async *shape_async_new(void);
void shape_async_free(struct shape_async *a);
int shape_uring_read(struct shape_async *a, struct life *l, int fd, u64 size, u64 chunk,
		     char *buf);
int shape_aio_read(struct shape_async *a, struct life *l, int fd, u64 size, u64 chunk,
		   char *buf);

#endif
