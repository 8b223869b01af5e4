/*
 * iostorm-workload: a file-reading workload whose syscalls are known
 * exactly, so tests can check the tracer's counts against its own tally.
 *
 *   gen DIR --files N ...	write a dataset of pseudo-random files
 *   read DIR ...		read every file like an ML input pipeline
 *   scenario DIR ...		a fixed mix of every path a tracer must handle
 *   pipeline DIR ...		tf.data-like: readers -> decoders -> a training
 *				loop that times its own wait for the next batch
 *   thread FILE ...		a thread that is not the leader reads FILE
 *   churn DIR ...		a node's churn: short threads and processes,
 *				new small files written and read
 *   reuse DIR ...		files made, read and deleted, round after round:
 *				inode numbers freed and given to new files
 *   shape DIR --seed S ...	a random job shape drawn from the seed, on the
 *				file systems at DIR's directories (shape.h)
 *
 * All that is not measured happens before the gate: listing the dataset
 * (opendir/readdir/stat), buffers, the shared tally and the tally file.
 * After it, only the tallied calls touch dataset files, each a libc wrapper
 * that is exactly one syscall (no stdio, no readdir). Processes count into
 * one MAP_SHARED|MAP_ANONYMOUS tally made before the gate. The tally file
 * (or stdout) is written with write(); like scenario's directory fd it is
 * never closed explicitly, so it adds no close to the trace.
 *
 * Tally, one line, then with --tally-files (always in scenario) one per file:
 *   total opens=N open_errors=N reads=N read_bytes=N stats=N closes=N mmaps=N files=N readers=N
 *   file opens=N reads=N read_bytes=N stats=N closes=N mmaps=N path=/abs/path
 * opens counts successful opens; reads counts every read-family call, the
 * 0-byte EOF one included; stats counts stat, lstat, fstat, fstatat and
 * statx calls; files counts the files with any tallied call; readers counts
 * read's threads that took a file (one started late may find none left).
 * The path is absolute and last, as it may contain spaces.
 *
 * One file per mode (gen.c, read.c, scenario.c, pipeline.c, pack.c,
 * mapread.c, thread.c, churn.c, reuse.c; shape.c, shape_ops.c and
 * shape_async.c, which keep a tally of their own: shape.h); tally.c counts and writes the tally and waits at the
 * gate, files.c lists and writes datasets, workers.c runs threads and
 * processes, main.c holds the option table and the dispatch.
 */
#ifndef IOSTORM_WORKLOAD_H
#define IOSTORM_WORKLOAD_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define PROG		"iostorm-workload"
#define MAX_THREADS	1024

typedef unsigned long long u64;

struct count {
	u64 opens, reads, read_bytes, stats, closes, mmaps;
};

/* Shared by all processes of a run: a MAP_SHARED anonymous mapping. */
struct tally {
	u64 open_errors;
	u64 readers;		/* read's threads that took at least one file */
	struct count file[];
};

enum style { STYLE_POSIX, STYLE_TF, STYLE_TORCH, STYLE_N };

/* Every mode's options, set once by main.c's table (defaults there). */
struct opts {
	u64 files, dirs, min_size, max_size, seed;
	u64 threads, procs, bufsize, limit, cpu_us, shard_size;
	u64 readers, decoders, batch, step_ms, queue, pages, times, epochs;
	u64 seconds, rate, file_rate, rounds;
	int tally_files, plan;
	const char *order, *style_name, *gate, *tally, *out, *names, *disk_stat, *tag;
	enum style style;
};

extern struct opts opt;
extern struct tally *tally;
extern char **paths;		/* paths[i] is counted in tally->file[i] */
extern size_t nlist;		/* paths listed by walk() */
extern int ofd;			/* tally output */

/* main.c */
void __attribute__((noreturn, format(printf, 1, 2))) usage_error(const char *fmt, ...);

/* tally.c: failures, then the tallied calls on file i, given what the syscall returned */
void *xalloc(void *p);
int fail(const char *what, const char *path);
int topen(size_t i, int fd);
ssize_t tread(size_t i, ssize_t n, const char *what);
int tstat(size_t i, int ret, const char *what);
int tclose(size_t i, int fd);
int read_whole(size_t i, char *buf, size_t bufsize);
int pread_whole(size_t i, char *buf, size_t bufsize);
int write_all(int fd, const char *buf, size_t len, const char *name);
int print_tally(size_t n, int per_file);
void tally_alloc(size_t n);
int open_tally_and_gate(void);

static inline void add(u64 *c, u64 v)
{
	__atomic_fetch_add(c, v, __ATOMIC_RELAXED);
}

/* files.c */
char *join(const char *dir, const char *name);
int mkdir_p(const char *path);
void rnd_seed(u64 seed);
u64 rnd(void);
int write_file(const char *path, u64 size);
int walk(const char *dir);
int cmp_path(const void *a, const void *b);
void shuffle(void);
int list_dataset(const char *dir, size_t *nread);

/* workers.c */
int in_threads(size_t n, void *(*fn)(void *));
int in_children(size_t n, int (*fn)(size_t));
void spin_us(u64 us, const char *buf);

/* the modes, one file each */
int cmd_gen(const char *dir);
int cmd_read(const char *dir);
int cmd_scenario(const char *dir);
int cmd_pipeline(const char *dir);
int cmd_pack(const char *dir);
int cmd_mapread(const char *file);
int cmd_thread(const char *file);
int cmd_reuse(const char *dir);
int cmd_churn(const char *dir);
int cmd_shape(const char *dir);

#endif
