/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Latency by layer for FUSE: per connection, the target's syscalls on the
 * files of its mount (read(), open/stat) next to the FUSE requests they
 * caused (READ; LOOKUP, GETATTR, OPEN), and round trips per file opened.
 * Measured, not judged: sums, means and percentiles.
 */
#ifndef MODEL_FUSE_LAYERS_H
#define MODEL_FUSE_LAYERS_H

#include <linux/types.h>
#include <stddef.h>
#include "model/layers.h"	/* struct layer_lat, struct mount_syscalls */

struct trace;
struct fuse_conn;
struct mount_rec;

struct fuse_layers {
	__u32 conn;
	const struct mount_rec *mount;	/* NULL when not in mountinfo */
	struct mount_syscalls sys;	/* the target's syscalls on the mount's files */
	/* the target's FUSE requests */
	__u64 reqs;
	__u64 read_reqs;
	__u64 read_bytes_fuse;	/* READ reply bytes */
	double rtt_mean_ns;	/* every request, send -> end */
	double round_trips;	/* reqs per file opened; -1 without opens */
	double read_inflight;	/* READ requests in flight at send, mean */
	struct layer_lat read;	/* READ */
	struct layer_lat lookup;
	struct layer_lat getattr;	/* GETATTR and STATX */
	struct layer_lat open;
	__u64 unattributed;	/* background, other processes, untracked */
	__u64 inflight_end;	/* the target's, still in flight at the end */
};

/* The FUSE layers of connection c in t. */
void fuse_layers__measure(const struct trace *t, const struct fuse_conn *c,
			  struct fuse_layers *fl);
/* "fuse.sshfs", else "fuse" or "fuse (0:41)" when the mount is unknown. */
const char *fuse_layers__fs(const struct fuse_layers *fl, char *buf, size_t len);

#endif /* MODEL_FUSE_LAYERS_H */
