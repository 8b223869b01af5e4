// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* io_uring and Linux AIO at the trace's end: reads in flight, and per file. */
#include <bpf/libbpf.h>
#include <linux/types.h>
#include "iostorm.h"
#include "iostorm.skel.h"
#include "collect/collect_int.h"

static int add_async(const void *key, void *value, void *ctx)
{
	const struct async_rec *r = value;

	if (r->op == AOP_READ)
		*(__u64 *)ctx += 1;
	return 0;
}

/*
 * A file's async reads, onto its record (none: it was evicted from the
 * store, or its reads were all lost to a full files map).
 */
static int add_async_file(const void *key, void *value, void *ctx)
{
	const struct file_key *k = key;
	struct file_rec *f = store__find(ctx, k->dev, k->ino);

	return f ? store__set_async(ctx, f, value) : 0;
}

/* Threads' async reads came with every drain of the threads (drain_threads.c). */
int drain__async(struct iostorm_bpf *skel, struct trace *t)
{
	struct async_file af;
	struct async_key key;
	struct file_key fk;
	struct async_rec rec;
	int err;

	t->async_in_flight = 0;
	err = map_each(bpf_map__fd(skel->maps.async_reqs), &key, sizeof(key), &rec, 0,
		       add_async, &t->async_in_flight);
	if (!err)
		err = map_each(bpf_map__fd(skel->maps.async_files), &fk, sizeof(fk), &af,
			       0, add_async_file, &t->store);
	return err;
}
