/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The files table's slot protocol, shared by the BPF programs (entry.bpf.h)
 * and the unit test that races it on every CPU (tests/unit/model).
 *
 * The table is an array of struct file_stats per drain generation, used as
 * an open-addressing hash table with linear probing: a file's slots are
 * tried from slot_home() on, at most SLOT_PROBES of them, and the first
 * that is free or the file's own is taken. A half is n home slots and a
 * tail of SLOT_PROBES - 1 more (--map-files slots in all), so a probe never
 * wraps around: one path through the loop for the verifier (a wrap's
 * branch made each probe a state of its own, ~40,000 instructions a
 * program). A key is 12 bytes (ino, dev) and an atomic compare-and-swap is
 * at most 8, so a slot is claimed word by word:
 *
 *   key_ino: 0 -> ino ^ SLOT_INO_FLIP    by CAS, once
 *   key_dev: 0 -> ~dev                   by CAS, once, by a CPU whose ino
 *                                        matched (whoever set key_ino)
 *
 * Each word changes once (until user space zeroes the drained table), so
 * every CPU probing for one file sees the same final words at each slot
 * and stops at the same slot: a CPU that finds a word 0 tries to set it
 * and, losing, reads the winner's, never acting on a word not final. A
 * slot whose ino a file won and whose dev another file with that ino won
 * is the other file's slot; the first file probes on. So one file has one
 * slot, and a slot one file: no lock, no allocation, no delete.
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
static __always_inline int slot_match(struct file_stats *s, __u64 ino, __u32 dev, int claim)
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

#endif /* TABLE_H */
