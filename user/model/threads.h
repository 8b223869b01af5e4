/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The threads the trace has seen, merged from the kernel's per-interval
 * threads map: an array, plus an open-addressing index on tid holding
 * array positions. Embedded in struct store (model/store.h); a zeroed
 * struct threads is an empty one.
 */
#ifndef MODEL_THREADS_H
#define MODEL_THREADS_H

#include <stddef.h>
#include <linux/types.h>
#include "iostorm.h"

struct thread_rec {
	__u32 tid;
	__u32 tgid;
	char comm[COMM_LEN];
	struct io_counters io;	/* summed over intervals (bpf/iostorm.h) */
	__u64 cpu_ns;		/* see struct thread_stats */
	__u64 io_wait_ns;
	__u64 runq_ns;
	__u64 sleep_ns;
	__u64 seen;		/* threads.clock at its last merge */
	__u64 async_reads;	/* of io.reads, through io_uring or AIO (at the end) */
	__u64 async_depth;	/* their depth at submit, summed */
	__u64 recv_cpu_ns;	/* receiving from other threads, on CPU (bpf/recv.bpf.h) */
	__u64 recv_runq_ns;	/* and runnable */
	__u64 recv_shake_ns;	/* and asleep in their handshakes' round trips */
	struct write_counters w;	/* its writes, syncs and commits (bpf/write.bpf.h) */
	char group[COMM_LEN];	/* grouped under this name, when not its comm's:
				 * set by stall.c (TensorFlow's "tf.data") */
	__u64 cgid;		/* its cgroup v2 id at its last merge; 0: not known */
	__u32 gone;		/* THREAD_GONE_*: its kernel table entries deleted
				 * at its exit; a later one (an async request of
				 * its completing) adds on (collect/drain.c) */
};

#define THREAD_GONE_RECV	1u
#define THREAD_GONE_WRITES	2u
#define THREAD_GONE_ASYNC	4u

struct threads {
	struct thread_rec *v;		/* unsorted array */
	size_t n;
	size_t cap;
	__u32 *index;			/* hash on tid: index + 1 into v, 0 empty */
	size_t index_cap;		/* power of two */
	__u64 clock;			/* merges so far: recency */
	size_t max;			/* 0: keep every thread; else see threads__bound() */
	__u64 evicted;			/* records threads__bound() dropped */
	struct thread_rec gone;		/* the evicted threads' counters, summed:
					 * totals over threads stay monotonic */
};

void threads__free(struct threads *t);
/* Merge one interval's kernel entry for tid. 0 or -ENOMEM (then nothing changed). */
int threads__merge(struct threads *t, __u32 tid, const struct thread_stats *ts);
struct thread_rec *threads__find(const struct threads *t, __u32 tid);
/*
 * Keep memory flat in a long run (an exporter): past max records, drop the
 * least recently merged down to 3/4 of max, their counters summed into
 * gone. A record's index in v changes: only for a trace that keeps no
 * timeline.
 */
void threads__bound(struct threads *t);
/* Memory held, in bytes: the array and the index as requested from malloc. */
size_t threads__bytes(const struct threads *t);
/*
 * A thread's pool: its comm without an index after a separator
 * ("tf_data_12" -> "tf_data_", "python3.11" kept).
 */
void threads__comm_group(const char *comm, char name[COMM_LEN]);
/* The name thread th is grouped under: its group, or its comm's. */
void threads__group(const struct thread_rec *th, char name[COMM_LEN]);

#endif /* MODEL_THREADS_H */
