/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the store's open-addressing tables share (model/store.c's files,
 * model/threads.c's index): linear probing on a power-of-two table,
 * doubled at 70% load.
 */
#ifndef MODEL_HASH_H
#define MODEL_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* splitmix64's finalizer: inode numbers and tids are often dense, spread them. */
static inline __u64 hash__mix64(__u64 x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* A table of cap slots holding n is due to grow. */
static inline bool hash__over_load(size_t n, size_t cap)
{
	return n * 10 >= cap * 7;
}

#endif /* MODEL_HASH_H */
