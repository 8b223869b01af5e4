// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * io_uring and Linux AIO per file: at every drain of the files, the reads
 * of the generation just ended onto the files' records, and the files'
 * counts in flight at 0 out of the kernel (bpf/async.bpf.h); at the end,
 * the reads still in flight.
 */
#include <errno.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>
#include "iostorm.h"
#include "iostorm.skel.h"
#include "collect/collect_int.h"

/*
 * One entry of generation set, its key and value (of value_size bytes)
 * read: 1 to delete it, 0 to keep it, or a negative errno.
 */
typedef int (*set_fn)(const struct async_fkey *key, const void *value, struct trace *t);

/*
 * Walk map fd in batches (into d->afile_keys and d->afile_vals), call fn
 * for each entry of set, and delete those it says; the entries of the set
 * the programs write stay. As drain_wake_pairs() does: a bucket's entries
 * deleted once read leave the walk's later buckets as they were. *seen:
 * the entries the map held.
 */
static int drain_set(struct drain *d, struct trace *t, int fd, size_t value_size,
		     __u32 set, set_fn fn, __u64 *seen)
{
	__u64 in = 0, out = 0;
	bool first = true;
	int err, last;

	*seen = 0;
	for (;;) {
		__u32 n = DRAIN_BATCH, k = 0;

		last = bpf_map_lookup_batch(fd, first ? NULL : &in, &out, d->afile_keys,
					    d->afile_vals, &n, NULL);
		if (last && errno != ENOENT)
			return -errno;
		*seen += n;
		for (__u32 i = 0; i < n; i++) {
			const struct async_fkey *key = &d->afile_keys[i];

			if (!(key->ino & ASYNC_FKEY_SET) != !set)
				continue;
			err = fn(key, (const char *)d->afile_vals + i * value_size, t);
			if (err < 0)
				return err;
			if (err)
				d->afile_keys[k++] = *key;
		}
		if (k && bpf_map_delete_batch(fd, d->afile_keys, &k, NULL))
			return -errno;
		if (last)
			return 0;
		in = out;
		first = false;
	}
}

/*
 * A file's async reads of the generation, added onto its record (none: it
 * was evicted from the store, or its reads were lost to a full files
 * table; then they are dropped, as its other figures are), and deleted.
 */
static int add_file_reads(const struct async_fkey *key, const void *value, struct trace *t)
{
	struct file_rec *f = store__find(&t->store, key->dev, key->ino & ~ASYNC_FKEY_SET,
					 key->gen);
	int err = f ? store__add_async(&t->store, f, value) : 0;

	return err ?: 1;
}

/* A file's count in flight: deleted at 0, where it stays (struct async_fkey). */
static int idle_file(const struct async_fkey *key, const void *value, struct trace *t)
{
	return *(const __u32 *)value == 0;
}

int drain__async_files(struct drain *d, struct trace *t, __u32 set)
{
	__u64 seen;
	int err;

	err = drain_set(d, t, d->async_file_sums_fd, sizeof(struct async_file), set,
			add_file_reads, &seen);
	if (err)
		return err;
	drain__table_seen(d, t, KT_ASYNC_FILE_SUMS, seen);
	err = drain_set(d, t, d->async_files_fd, sizeof(__u32), set, idle_file, &seen);
	if (!err)
		drain__table_seen(d, t, KT_ASYNC_FILES, seen);
	return err;
}

/*
 * A request still in flight at the end: a read counts in
 * t->async_in_flight and, its file known at its submit, in its file's
 * (none: evicted, or never read to the end of a read).
 */
static int add_async(const void *key, void *value, void *ctx)
{
	const struct async_rec *r = value;
	struct trace *t = ctx;
	struct async_file a = { .inflight = 1, .depth_max = r->fdepth };
	struct file_rec *f;

	if (r->op != AOP_READ)
		return 0;
	t->async_in_flight++;
	if (r->fstate != AFILE_KEYED)
		return 0;
	f = store__find(&t->store, r->key.dev, r->key.ino, r->key.gen);
	return f ? store__add_async(&t->store, f, &a) : 0;
}

/* Threads' and files' async reads came with every drain (drain_threads.c, above). */
int drain__async(struct iostorm_bpf *skel, struct trace *t)
{
	struct async_key key;
	struct async_rec rec;

	t->async_in_flight = 0;
	return map_each(bpf_map__fd(skel->maps.async_reqs), &key, sizeof(key), &rec, 0,
			add_async, t);
}
