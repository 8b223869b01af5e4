/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The files table's protocol, shared by the BPF programs (entry.bpf.h) and
 * the unit test that races it on every CPU (tests/unit/model).
 *
 * Per drain generation, a half of two arrays the programs own:
 *
 *   file_index  an open-addressing hash table with linear probing of
 *               16-byte slots (struct file_slot): a file's key and the
 *               number of its entry. A file's slots are tried from
 *               slot_home() on, at most SLOT_PROBES, and the first that is
 *               free or the file's own is taken. A half is n home slots
 *               and a tail of SLOT_PROBES - 1 more, so a probe never wraps
 *               around: one path through the loop for the verifier (a
 *               wrap's branch made each probe a state of its own, ~40,000
 *               instructions a program).
 *   files       the entries (struct file_stats), as many as the index has
 *               slots, taken in order: each CPU takes CHUNK_ENTRIES at a
 *               time by a fetch-and-add on the half's count (struct
 *               file_used), then one by one from its chunk (struct
 *               file_chunk): the count's cache line is not written by
 *               every CPU at every new file, and a CPU's new files have
 *               entries next to one another, not each at a random place
 *               in ~19 MB (see entry_touch() in entry.bpf.h).
 *
 * A key is 12 bytes (ino, dev) and an atomic compare-and-swap is at most
 * 8, so a slot is claimed word by word, then given its entry:
 *
 *   key_ino: 0 -> ino ^ SLOT_INO_FLIP    by CAS, once
 *   key_dev: 0 -> ~dev                   by CAS, once, by a CPU whose ino
 *                                        matched (whoever set key_ino)
 *   entry:   0 -> 1 + a                  by CAS, once, by a CPU that took
 *                                        entry a and wrote the key there
 *
 * Each word changes once (until user space zeroes the drained half), so
 * every CPU probing for one file sees the same final words at each slot
 * and stops at the same slot: a CPU that finds a word 0 tries to set it
 * and, losing, reads the winner's, never acting on a word not final. A
 * slot whose ino a file won and whose dev another file with that ino won
 * is the other file's slot; the first file probes on. Two CPUs that find
 * the file's slot with no entry each take one; the one whose CAS loses
 * zeroes the key of the entry it took (a hole, which user space skips)
 * and uses the winner's. So one file has one slot and one entry, and a
 * slot one file: no lock, no allocation, no delete.
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
 * A CPU's chunk of entries: word is end << 32 | next, absolute indices
 * into files, handed out by a fetch-and-add on it, so that tasks that
 * preempt one another on the CPU each get their own; gen is the drain
 * generation it was taken in.
 */
struct file_chunk {
	__u64 word;
	__u32 gen;
	__u32 pad;
};

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

enum slot_match {
	SLOT_FREE = -1,		/* free, and not claimed: the file has no slot */
	SLOT_OTHER = 0,		/* another file's */
	SLOT_MINE = 1,		/* the file's own (found or claimed) */
};

/*
 * Is slot s the file's (ino, dev as stored: see SLOT_INO_FLIP)? A free
 * slot is claimed when claim is set, else SLOT_FREE. A slot whose key_ino
 * is set but key_dev not yet (its claimer is between its two CASes) is
 * completed here as by its claimer: there is no waiting on another CPU.
 */
static __always_inline int slot_match(struct file_slot *s, __u64 ino, __u32 dev, int claim)
{
	__u64 w = *(volatile __u64 *)&s->key_ino;
	__u32 d;

	if (!w) {
		if (!claim)
			return SLOT_FREE;
		w = __sync_val_compare_and_swap(&s->key_ino, 0, ino);
		if (!w)
			w = ino;
	}
	if (w != ino)
		return SLOT_OTHER;
	d = *(volatile __u32 *)&s->key_dev;
	if (!d) {
		d = __sync_val_compare_and_swap(&s->key_dev, 0, dev);
		if (!d)
			d = dev;
	}
	return d == dev ? SLOT_MINE : SLOT_OTHER;
}

/*
 * The entry of slot s (the file's own, by slot_match()) when it has one:
 * its index, else -1.
 */
static __always_inline int slot_entry(struct file_slot *s)
{
	return (int)*(volatile __u32 *)&s->entry - 1;
}

/*
 * Give slot s (the file's own) entry a, which the caller took: fs, zeroed.
 * The key goes into the entry before the slot points to it. Returns the
 * slot's entry: a, or the one another CPU gave it first, when fs is left a
 * hole (key 0).
 */
static __always_inline int slot_entry_set(struct file_slot *s, struct file_stats *fs,
					  __u32 a, __u64 ino, __u32 dev)
{
	__u32 old;

	fs->key_ino = ino;
	fs->key_dev = dev;
	old = __sync_val_compare_and_swap(&s->entry, 0, a + 1);
	if (!old)
		return a;
	fs->key_ino = 0;
	fs->key_dev = 0;
	return (int)old - 1;
}

#endif /* TABLE_H */
