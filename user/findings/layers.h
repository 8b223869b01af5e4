/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where a read's time goes: the verdict on the latency by layer that
 * model/layers.h measures.
 */
#ifndef FINDINGS_LAYERS_H
#define FINDINGS_LAYERS_H

#include "model/layers.h"
#include "findings/thresholds.h"

enum layer_verdict {
	LAYER_NONE = 0,		/* no reads */
	LAYER_ABOVE,		/* read() waits beyond its block requests */
	LAYER_CACHE,		/* storage supplied few of the bytes read */
	LAYER_QUEUE,		/* slow requests, mostly waiting in the queue */
	LAYER_DEVICE,		/* slow requests, mostly in the device */
	LAYER_OK,		/* block requests explain read(), and are fast */
	LAYER_FUSE,		/* a FUSE daemon returned most of the bytes read */
	LAYER_NFS,		/* an NFS server returned most of the bytes read */
	LAYER_NO_BLOCK,		/* from storage, yet no block request by the target */
	LAYER_UNMEASURED,	/* the kernel gave no block layer or page cache: not judged */
	LAYER__MAX,
};

/*
 * The rules of layers__judge(), in the order they are tried:
 * FUSE:  FUSE daemons returned at least half of the bytes read (their
 *        READ replies): a network or user-space file system serves the
 *        reads, whatever the few block requests of the job's code;
 * NFS:   NFS servers returned at least half of the bytes read (their READ
 *        and READ_PLUS replies): the network and the server serve the reads;
 * ABOVE: read() time, with mapped data's faults' wait, is at least
 *        LAYER_ABOVE_RATIO times the block time and exceeds it by
 *        LAYER_ABOVE_MIN_NS per read or fault on average (a copy from the
 *        page cache costs ~0.1 ms per MiB, far less);
 * CACHE: the storage share (layers__storage_share()) is under the
 *        cache_miss threshold: the page cache served the rest;
 * NO_BLOCK: from storage, yet the target issued no block read request (a
 *        network file system; another process's requests);
 * QUEUE / DEVICE: the block reads took at least what requests of their
 *        size should (slow_request_us each plus slow_request_us_per_mib
 *        per MiB they carry), and queue time is more (QUEUE) or not
 *        (DEVICE) than device time;
 * OK:    the rest.
 */
#define LAYER_ABOVE_RATIO	2
#define LAYER_ABOVE_MIN_NS	500000ULL

/*
 * The share of the bytes read (and faulted in) that came from storage:
 * the most of what block reads, pages added to the page cache, FUSE
 * daemons' READ replies and NFS servers' READ replies brought (direct I/O fills no page cache, a FUSE
 * file opened with direct_io neither; readahead may make it exceed 1).
 * -1 without bytes read. The one figure behind the layer verdict's
 * page_cache and the findings' miss_share.
 */
double layers__storage_share(const struct layer_sums *s);
/* What a block read of these sums should take at most, ns: the slow limit. */
double layers__slow_ns(const struct layer_sums *s, const double *th);
/* Where a read's time goes, by the rules above; th: struct thresholds' v[]. Pure. */
enum layer_verdict layers__judge(const struct layer_sums *s, const double *th);
/* "above_block", "page_cache", "queue", "device", "ok", "fuse", "nfs", "no_block", "none". */
const char *layers__key(enum layer_verdict v);
/* The verdict in words, one sentence without a full stop. */
const char *layers__words(enum layer_verdict v);

#endif /* FINDINGS_LAYERS_H */
