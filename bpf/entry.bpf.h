/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The per-file entries of the current interval: entries of the files
 * table's half that file_gen names, found through the files index (see
 * maps.bpf.h, and bpf/table.h for a slot's claim), taken on first use.
 */
#ifndef ENTRY_BPF_H
#define ENTRY_BPF_H

#include "maps.bpf.h"
#include "target.bpf.h"

/* What bpf/table.h's slot_try() takes entries with, and finds them by. */
static __always_inline int entry_take(__u32 gen);
#define TABLE_TAKE(ctx, gen)	entry_take(gen)
#define TABLE_ENTRY(ctx, e)	((struct file_stats *)bpf_map_lookup_elem(&files, &(e)))
#include "table.h"

/* A zero into the 8 bytes at off of entry fs: a store the compiler keeps. */
#define TOUCH(fs, off)	(*(volatile __u64 *)((char *)(fs) + (off)) = 0)

/*
 * Bring every cache line of a new entry (zeroed, and still this CPU's
 * alone) in for writing, all at once: a store of the zero it holds to each.
 * The stores wait in the store buffer while their lines come, together;
 * without them, each atomic operation of the file's first events (the
 * stamp, the flags, the counts, the path's) waited for its own line, one
 * after the other. 600 bytes from anywhere in a line span at most 11.
 */
static __always_inline void entry_touch(struct file_stats *fs)
{
	TOUCH(fs, 64);
	TOUCH(fs, 128);
	TOUCH(fs, 192);
	TOUCH(fs, 256);
	TOUCH(fs, 320);
	TOUCH(fs, 384);
	TOUCH(fs, 448);
	TOUCH(fs, 512);
	TOUCH(fs, 576);
	TOUCH(fs, sizeof(*fs) - 8);
}

/*
 * Take an entry of generation gen's half for a new file, its cache lines
 * on their way: its index in files, or -1 when the half has none left.
 */
static __always_inline int entry_take(__u32 gen)
{
	struct file_chunk *c;
	struct file_stats *fs;
	struct file_used *u;
	__u32 h = gen & 1, zero = 0;
	int a;

	c = bpf_map_lookup_elem(&file_chunks, &zero);
	u = bpf_map_lookup_elem(&file_used, &h);
	if (!c || !u)
		return -1;
	a = chunk_take(c, &u->n, gen, SLOT_HALF(targ_file_slots));
	if (a < 0)
		return -1;
	fs = bpf_map_lookup_elem(&files, &a);
	if (fs)
		entry_touch(fs);
	return a;
}

/*
 * Slot idx of the files index for probe p: slot_try(). A global function
 * of its own: the verifier sees one outcome of it, not each of its
 * branches at every probe of file_slot()'s loop (inlined, the loop did not
 * verify in 1M instructions).
 */
__weak __noinline int file_slot_try(__u32 idx, struct slot_probe *p)
{
	__u64 *s = bpf_map_lookup_elem(&file_index, &idx);

	if (!s || !p)
		return TRY_FREE;
	return slot_try(NULL, s, p);
}

/*
 * The index in files of the entry of the file (ino, dev, gen), taking one for
 * it when claim is set; -1 when it has none: not claimed, no slot free in
 * SLOT_PROBES, or no entry left (the caller counts those as lost). A global
 * function (weak: each build that includes this carries it, the link keeps
 * one): the verifier checks the probe loop once, not at each caller.
 */
__weak __noinline int file_slot(__u64 ino, __u32 dev, __u32 gen, int claim)
{
	struct slot_probe p = {
		.ino = ino ^ SLOT_INO_FLIP,
		.dev = ~dev,
		.gen = file_gen,
		.claim = claim,
		.taken = -1,
		.igen = gen,
	};
	__u32 n = targ_file_slots, i, k;
	int r = -1;

	if (!p.ino || !n)
		return -1;	/* an inode number 1 << 63: no file system's */
	p.fp = slot_fp(p.ino, p.dev);
	i = (p.gen & 1) * SLOT_HALF(n) + slot_home(p.ino, p.dev, n);
	for (k = 0; k < SLOT_PROBES; k++, i++) {
		r = file_slot_try(i, &p);
		if (r != TRY_OTHER)
			break;
	}
	slot_untake(NULL, p.taken);
	return r < 0 ? -1 : r;
}

/* The entry of key in the current half when it has one; NULL if not. */
static __always_inline struct file_stats *file_find(const struct file_key *key)
{
	int idx = file_slot(key->ino, key->dev, key->gen, 0);

	return idx < 0 ? NULL : bpf_map_lookup_elem(&files, &idx);
}

/*
 * The entry for key in the current half, taken when missing and stamped
 * with now (the caller's clock read; 0 to read it here). When want_path is
 * set and the entry has no path yet, *need_path tells the one caller that
 * claimed it to resolve the path. NULL when the table has no slot for it:
 * that is counted as lost.
 */
static __always_inline struct file_stats *file_entry(struct file_key *key, __u64 now,
						     bool want_path, bool *need_path)
{
	struct file_stats *fs = NULL;
	int idx;
	__u32 old;

	*need_path = false;
	idx = file_slot(key->ino, key->dev, key->gen, 1);
	if (idx >= 0)
		fs = bpf_map_lookup_elem(&files, &idx);
	if (!fs) {
		count_lost(L_FILES_FULL);
		return NULL;
	}
	/* A new entry: several CPUs may find it unstamped, one stamps it. */
	if (!fs->first_ts &&
	    !__sync_val_compare_and_swap(&fs->first_ts, 0, now ?: bpf_ktime_get_ns()))
		count(C_FILE_ENTRIES, 1);
	if (want_path && !(fs->flags & FILE_F_PATH)) {
		old = __sync_fetch_and_or(&fs->flags, FILE_F_CLAIM);
		*need_path = !(old & FILE_F_CLAIM);
	}
	return fs;
}

#endif /* ENTRY_BPF_H */
