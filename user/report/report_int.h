/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the text and JSON reports share: options, the ranking of files,
 * directories and threads, totals over the store, and names of errnos,
 * stop reasons and lost events.
 */
#ifndef REPORT_H
#define REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "model/hist.h"
#include "model/trace.h"

#define REPORT_TOP_DEFAULT	10

struct report_opts {
	int top;		/* rows of file/dir/thread tables, default 10 */
};

/*
 * One directory, one level deep: the regular files it holds directly, plus
 * the directory itself (opening, listing or stat-ing it), summed.
 */
struct dir_rec {
	char *path;		/* NULL: records whose path is unknown */
	__u64 files;		/* regular files */
	__u64 size;		/* of the regular files */
	__u64 opens;
	__u64 stats;
	__u64 reads;
	__u64 read_bytes;
	__u64 read_ns;
	__u64 reads_seq;
	__u64 meta_ns;
};

/* Sums over the store's records. Read classes count regular files only. */
struct file_totals {
	__u64 files;		/* regular files */
	__u64 dirs;
	__u64 files_read;	/* regular files read at least once */
	__u64 reads;
	__u64 reads_consec;
	__u64 reads_seq;
	__u64 reads_random;
};

/* A file's I/O time, what the tables rank by: read + metadata ns. */
__u64 report__io_ns(const struct file_rec *f);
/* Busiest first: I/O time, then read bytes, then path. */
void report__sort_files(struct file_rec **files, size_t n);
/* Roll files up into their parent directories, busiest first. */
int report__dirs(struct file_rec *const *files, size_t n,
		 struct dir_rec **dirs, size_t *nr_dirs);
void report__dirs_free(struct dir_rec *dirs, size_t nr_dirs);
/* Threads busiest first (read + metadata ns) into *threads; free() it. */
int report__threads(const struct store *s, const struct thread_rec ***threads,
		    size_t *n);
/* The ranked lists both reports print: files, directories, threads. */
struct report_lists {
	struct file_rec **files;
	size_t nr_files;
	struct dir_rec *dirs;
	size_t nr_dirs;
	const struct thread_rec **threads;
	size_t nr_threads;
};

int report__lists(const struct store *s, struct report_lists *l);
void report__lists_free(struct report_lists *l);
void report__file_totals(const struct store *s, struct file_totals *tot);
/* A histogram of the sizes of every regular file. */
void report__file_sizes(const struct store *s, struct hist *h);
/* Counts folded into power-of-two rows of value / unit, as hist__log2. */
void report__log2_rows(const struct hist *h, __u64 unit, __u64 rows[64]);
/* Is there nothing at all to report? */
bool report__empty(const struct trace *t);
/* n per second over secs; 0 when secs is not positive. */
double report__rate(double n, double secs);
/* Terminal columns of UTF-8 text: one per character. */
int report__cols(const char *s);
/* 3 significant digits: "850ns", "12.3µs", "1.23ms", "4.56s". */
const char *report__fmt_ns(char *buf, size_t len, double ns);
/* "512", "4.00K", "1.23G" (short) or "512 B", "4.00 KiB" (long units). */
const char *report__fmt_bytes(char *buf, size_t len, double b, bool long_units);

/* "ENOENT" for an open_errnos slot; "E135+" for the last, shared slot. */
const char *report__errno_name(int slot, char *buf, size_t len);
/* Slots of nonzero open_errnos, most frequent first; returns how many. */
int report__top_errnos(const struct trace *t, int *slots, int max);
/* "duration", "signal", "target_exit". */
const char *report__stop_name(int stopped_by);
/* JSON key of a lost reason ("files_map_full") and its words ("files map full"). */
const char *report__lost_key(int reason);
const char *report__lost_words(int reason);

#endif /* REPORT_H */
