/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One fixed, rich trace for golden-output tests: a training job reading
 * small images, TFRecord shards, a checkpoint and libraries from two block
 * devices, through a tf.data pool and PyTorch workers, over 60 s. Every
 * number is a constant, the machine's memory and page size included: no
 * clock, pid, host or map is read. The fixture
 * fills only what a trace measures; judging it (findings__judge()) is the
 * caller's, because the findings are not measured data.
 */
#ifndef FIXTURE_H
#define FIXTURE_H

#include <stdbool.h>
#include "model/trace.h"

/* Fill t (its old contents ignored); 0 or -ENOMEM, then t holds nothing. */
int fixture__trace(struct trace *t);
/*
 * The same trace as a node's (-a) would show it: two more training loops,
 * a second rank in the trainer's pod (its own container) and a Slurm job's
 * (job 4242, its own cgroup and I/O), each with its cause; the run's loop
 * still waits most. For the loops grouped by workload. 0 or -ENOMEM.
 */
int fixture__node_trace(struct trace *t);
/* Free what fixture__trace() allocated. */
void fixture__free(struct trace *t);
/*
 * Two interval snapshots one second apart, near the end of the same
 * trace; 0 or -ENOMEM. Free them with fixture__snaps_free().
 */
int fixture__snaps(struct trace_snap *a, struct trace_snap *b);
void fixture__snaps_free(struct trace_snap *a, struct trace_snap *b);
/* A 6.x /proc/diskstats line: 17 counters after the name (loop0). */
#define FIXTURE_DISKSTATS_6X \
	"   7       0 loop0 529 1 28770 526 64 304 95120 77 0 156 633 2 0 1048584 9 18 28\n"
/*
 * loop0: the target read 100 requests of 32 KiB (2 ms each: 0.5 queued),
 * 90 sequential, all small, 2 merged, and wrote 10 of 4 KiB; a kernel
 * thread read 20 of 128 KiB; another process wrote 5 of 8 KiB. vda: a
 * kernel thread's reads only. Over 2 s, with diskstats around it.
 */
void fixture__block_sample(struct block *b);

/*
 * A small-file storm on NFS over 20 s: 400 files of 64 KiB under mnt (an
 * NFSv4.2 mount of 10.0.0.5:/data, device 0:61, rsize 524288, no nconnect,
 * close-to-open), each opened, read whole (one read, one at EOF) and
 * closed by the target, which sends one LOOKUP, OPEN, READ and CLOSE a
 * file (1.1 ms round trips, 1.3 ms calls), 40 GETATTRs, and has 2 READs in
 * flight at the end; the NFS client's own RPC client (clid 3, the mount's
 * is 7) sent 10 SEQUENCEs. No block request. With mount_known false, the
 * store judges code and data without the mount table (as before a mount
 * is read). 0 or -ENOMEM.
 */
#define FIXTURE_NFS_DEV		(0 << 20 | 61)
#define FIXTURE_NFS_FILES	400
int fixture__nfs_trace(struct trace *t, const char *mnt, bool mount_known);

#endif /* FIXTURE_H */
