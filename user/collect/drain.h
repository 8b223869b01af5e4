/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Moving what the kernel counted into user space: the per-interval file and
 * thread maps are swapped and drained into the store; the global counters,
 * histograms and lost counts are read (they are cumulative).
 */
#ifndef DRAIN_H
#define DRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct block;
struct hist;
struct iostorm_bpf;
struct trace;

struct gen {
	int outer_fd;		/* ARRAY_OF_MAPS, slot 0 = the map being filled */
	int inner_fd[2];
	int active;		/* index into inner_fd */
	size_t key_size;
	size_t value_size;
	void *keys;		/* batch buffers */
	void *values;
};

struct drain {
	struct gen files;
	struct gen threads;
	int ncpus;
	void *percpu;		/* buffer for one per-CPU value */
	int counters_fd;
	__u64 files_max;	/* entries an inner files map holds */
	__u64 entries_at_swap;	/* C_FILE_ENTRIES when the files maps last swapped */
};

int drain__init(struct drain *d, struct iostorm_bpf *skel);
void drain__free(struct drain *d);
/* Swap to the other inner maps and merge the previous ones into the store. */
int drain__files(struct drain *d, struct trace *t);
/*
 * Is the files map being filled half full? Then drain now, not at the next
 * period: a storm must not overflow it (false when it cannot tell).
 */
bool drain__files_filling(struct drain *d);
/* After detach: merge both inner maps, so nothing stays behind. */
int drain__final(struct drain *d, struct trace *t);
/* Read counters, lost counts, errnos and histograms (cumulative). */
int drain__globals(struct drain *d, struct iostorm_bpf *skel, struct trace *t);
/* The few globals an interval line needs: counters and H_READ_LAT. */
int drain__live(struct drain *d, struct iostorm_bpf *skel, __u64 *counters,
		struct hist *read_lat);
/* What drain__block() reads beyond counts and busy time. */
enum drain_block_flags {
	DRAIN_BLOCK_HISTS = 1,		/* the histograms */
	DRAIN_BLOCK_UNFINISHED = 2,	/* requests left in flight: after the detach */
};

/* Read the block maps into b, see block__read(); flags: drain_block_flags. */
int drain__block(struct drain *d, struct iostorm_bpf *skel, struct block *b,
		 unsigned int flags, __u64 now_ns);

#endif /* DRAIN_H */
