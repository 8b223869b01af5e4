/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The files table's protocol, shared by the BPF programs (entry.bpf.h) and
 * the unit test that races it on every CPU (tests/unit/model).
 *
 * Per drain generation, a half of two arrays the programs own:
 *
 *   file_index  an open-addressing hash table with linear probing of
 *               8-byte slots: 0 when free, else the file's fingerprint
 *               (slot_fp(), 32 bits of a second hash of its key) and the
 *               number of its entry. A file's slots are tried from
 *               slot_home() on, at most SLOT_PROBES, and the first that is
 *               free or the file's own is taken. A half is n home slots
 *               and a tail of SLOT_PROBES - 1 more, so a probe never wraps
 *               around: one path through the loop for the verifier (a
 *               wrap's branch made each probe a state of its own, ~40,000
 *               instructions a program). Eight slots to a cache line, 256
 *               KiB a half by default: a probe past other files' slots
 *               reads no entry, and the index stays in fewer pages and
 *               lines than the entries' ~18 MB would.
 *   files       the entries (struct file_stats), as many as the index has
 *               slots, each holding its file's key, taken in order: each
 *               CPU takes CHUNK_ENTRIES at a time by a fetch-and-add on the
 *               half's count (struct file_used), then one by one from its
 *               chunk (struct file_chunk): the count's cache line is not
 *               written by every CPU at every new file, and a CPU's new
 *               files have entries next to one another, not each at a
 *               random place in ~18 MB (see entry_touch() in entry.bpf.h).
 *
 * A new file's entry is taken and its key written there before the slot
 * is claimed, by one compare-and-swap of the slot from 0 to the file's
 * word. A slot changes once (until user space zeroes the drained half), so
 * every CPU probing for one file sees the same final word at each slot and
 * stops at the same one: a CPU that finds a slot 0 tries to set it and,
 * losing, reads the winner's, never acting on a word not final. A word
 * with the file's fingerprint is the file's when its entry holds the
 * file's key (the key was written before the word, and is read through
 * it); else, as for any other word, the probe goes on. A CPU whose claim
 * lost keeps the entry it took for the next free slot, and when it finds
 * the file's slot (another CPU claimed it for the same file) or none, the
 * entry becomes a hole (key 0), which user space skips. So one file has
 * one slot and one entry, and a slot one file: no lock, no allocation, no
 * delete.
 */
#ifndef TABLE_H
#define TABLE_H

#ifndef __always_inline		/* user space: the unit test */
#define __always_inline inline __attribute__((always_inline))
#endif

/*
 * Slots tried for one file: a probe that finds neither the file nor a free
 * slot in as many gives up and the event is counted lost (L_FILES_FULL), as
 * a full table's are. User space drains a half before it is half full,
 * where linear probing tries ~2.5 slots for a new file and ~1.5 for a
 * known one; 64 keep a loss for a table nearly full.
 */
#define SLOT_PROBES	64

/*
 * Entries a CPU takes from its half's count at a time. A chunk's entries
 * not taken by the drain stay zero: holes, CHUNK_ENTRIES a CPU at most.
 */
#define CHUNK_ENTRIES	16

/*
 * Take an entry for generation gen from chunk c, a new chunk from *used
 * (the count of half gen & 1, of n entries) when it has none left: the
 * entry's index in files, or -1 when the half has none. A task that
 * preempts another between the refill's two stores at worst takes a chunk
 * of its own (the other's rest are holes); the word is checked against the
 * half as well as gen, for a program of the previous generation still
 * running when one of the next refills (the drain waits for the first,
 * not for the second): neither takes an entry of the other's half.
 */
static __always_inline int chunk_take(struct file_chunk *c, __u64 *used, __u32 gen, __u32 n)
{
	__u32 lo = (gen & 1) * n, next, end;
	__u64 w, b;

	if (*(volatile __u32 *)&c->gen == gen) {
		w = __sync_fetch_and_add(&c->word, 1);
		next = (__u32)w;
		end = w >> 32;
		if (next < end && next >= lo && end <= lo + n)
			return next;
	}
	b = __sync_fetch_and_add(used, CHUNK_ENTRIES);
	if (b >= n)
		return -1;
	end = b + CHUNK_ENTRIES > n ? n : b + CHUNK_ENTRIES;
	*(volatile __u64 *)&c->word = (__u64)(lo + end) << 32 | (lo + b + 1);
	*(volatile __u32 *)&c->gen = gen;
	return lo + b;
}

/* Slots of a half with n home slots: the tail holds the last homes' probes. */
#define SLOT_HALF(n)	((n) + SLOT_PROBES - 1)

/* The slot of n (1 .. 2^32-1) where a file's probe starts. */
static __always_inline __u32 slot_home(__u64 ino, __u32 dev, __u32 n)
{
	__u64 h = (ino ^ ((__u64)dev << 32 | dev)) * 0x9e3779b97f4a7c15ULL;

	h ^= h >> 29;
	return (__u32)(((h >> 32) * n) >> 32);
}

/* The fingerprint of a file (ino, dev as stored) kept in its slot. */
static __always_inline __u32 slot_fp(__u64 ino, __u32 dev)
{
	__u64 h = (ino + ((__u64)dev << 17)) * 0xbf58476d1ce4e5b9ULL;

	h ^= h >> 31;
	return (__u32)(h >> 32);
}

/* What slot_try() found when not the file's entry (an index, >= 0). */
enum {
	TRY_FREE = -1,		/* a free slot, not claimed: the file has no entry */
	TRY_OTHER = -2,		/* another file's slot: probe on */
	TRY_FULL = -3,		/* a free slot, but no entry left to take */
};

/*
 * A probe for one file: its key as stored (see SLOT_INO_FLIP) and its
 * fingerprint, the generation whose half it is in, whether to claim a
 * free slot, the entry it took and has not placed yet (-1 if none), and
 * the file's inode generation (struct file_key's gen; not in the
 * fingerprint nor the home: two lives of one inode number in one
 * interval, rare, only probe one slot further).
 */
struct slot_probe {
	__u64 ino;
	__u32 dev;
	__u32 fp;
	__u32 gen;
	int claim;
	int taken;
	__u32 igen;
};

/*
 * slot_try() needs, defined by its includer:
 *   TABLE_ENTRY(ctx, e)   struct file_stats * of entry e (an int variable), or NULL
 *   TABLE_TAKE(ctx, gen)  the index of an entry taken for generation gen
 *                         (zeroed, this probe's alone), or -1 when none is left
 */
#ifdef TABLE_ENTRY

/*
 * Slot s for probe p: the index of the file's entry, or one of TRY_*. A
 * free slot is claimed when p->claim is set, with the entry the probe
 * took (p->taken), or with one taken here and kept in p->taken until a
 * claim places it.
 */
static __always_inline int slot_try(void *ctx, __u64 *s, struct slot_probe *p)
{
	struct file_stats *fs;
	__u64 w = *(volatile __u64 *)s;
	int e;

	if (!w) {
		if (!p->claim)
			return TRY_FREE;
		e = p->taken;
		if (e < 0) {
			e = TABLE_TAKE(ctx, p->gen);
			if (e < 0)
				return TRY_FULL;
			fs = TABLE_ENTRY(ctx, e);
			if (!fs)
				return TRY_FULL;
			fs->key_ino = p->ino;
			fs->key_dev = p->dev;
			fs->key_gen = p->igen;
			p->taken = e;
		}
		w = __sync_val_compare_and_swap(s, 0, (__u64)p->fp << 32 | (__u32)(e + 1));
		if (!w) {
			p->taken = -1;
			return e;
		}
	}
	if ((__u32)(w >> 32) != p->fp)
		return TRY_OTHER;
	e = (int)(__u32)w - 1;
	fs = TABLE_ENTRY(ctx, e);
	if (!fs || *(volatile __u64 *)&fs->key_ino != p->ino ||
	    *(volatile __u32 *)&fs->key_dev != p->dev ||
	    *(volatile __u32 *)&fs->key_gen != p->igen)
		return TRY_OTHER;
	return e;
}

/* An entry a probe took and did not place becomes a hole: its key 0. */
static __always_inline void slot_untake(void *ctx, int e)
{
	struct file_stats *fs;

	if (e < 0)
		return;
	fs = TABLE_ENTRY(ctx, e);
	if (!fs)
		return;
	fs->key_ino = 0;
	fs->key_dev = 0;
	fs->key_gen = 0;
}

#endif /* TABLE_ENTRY */

#endif /* TABLE_H */
