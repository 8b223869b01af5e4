// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The files table's protocol (bpf/table.h), the code the BPF programs run:
 * a slot's claim and its entry, and the CPUs' chunks of entries.
 * Interleavings stepped by hand, then threads on every CPU taking the same
 * files at once, round after round and generation after generation, two
 * threads sharing each chunk (as tasks that preempt one another on one CPU
 * do, but truly at once), and files that share an inode number or a home
 * slot. file_slot() is the loop of bpf/entry.bpf.h.
 */
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#include <stdbool.h>
#include <stdlib.h>
#include <linux/types.h>
#include "iostorm.h"
#include "table.h"
#include "unit.h"

#define CPUS	4		/* chunks */

/* Both halves of a table of n home slots, as the maps hold them. */
struct table {
	__u32 n;
	struct file_slot *index;	/* 2 * SLOT_HALF(n) */
	struct file_stats *entries;	/* 2 * SLOT_HALF(n) */
	__u64 used[2];
	struct file_chunk chunk[CPUS];
};

static struct table *table_new(__u32 n)
{
	struct table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->n = n;
	t->index = calloc(2 * SLOT_HALF(n), sizeof(*t->index));
	t->entries = calloc(2 * SLOT_HALF(n), sizeof(*t->entries));
	if (!t->index || !t->entries) {
		free(t->index);
		free(t->entries);
		free(t);
		return NULL;
	}
	return t;
}

static void table_free(struct table *t)
{
	free(t->index);
	free(t->entries);
	free(t);
}

/* What user space does to a drained half: zero its index, entries and count. */
static void table_empty(struct table *t, __u32 h)
{
	__u32 n = SLOT_HALF(t->n);

	memset(t->index + (size_t)h * n, 0, n * sizeof(*t->index));
	memset(t->entries + (size_t)h * n, 0, n * sizeof(*t->entries));
	t->used[h] = 0;
}

/*
 * bpf/entry.bpf.h file_slot() and file_slot_try() for generation gen, on
 * CPU cpu (its chunk): the file's entry index in entries, or -1.
 */
static int file_slot(struct table *t, int cpu, __u32 gen, __u64 ino, __u32 dev, int claim)
{
	__u32 n = SLOT_HALF(t->n), i;
	int a, e;

	ino ^= SLOT_INO_FLIP;
	dev = ~dev;
	if (!ino || !t->n)
		return -1;
	i = (gen & 1) * n + slot_home(ino, dev, t->n);
	for (__u32 k = 0; k < SLOT_PROBES; k++, i++) {
		struct file_slot *s = &t->index[i];
		int m = slot_match(s, ino, dev, claim);

		if (m == SLOT_FREE)
			return -1;
		if (m == SLOT_OTHER)
			continue;
		e = slot_entry(s);
		if (e >= 0 || !claim)
			return e;
		a = chunk_take(&t->chunk[cpu], &t->used[gen & 1], gen, n);
		if (a < 0)
			return -1;
		return slot_entry_set(s, &t->entries[a], a, ino, dev);
	}
	return -1;
}

static bool key_is(const __u64 *ino_w, const __u32 *dev_w, __u64 ino, __u32 dev)
{
	return *ino_w == (ino ^ SLOT_INO_FLIP) && *dev_w == (__u32)~dev;
}

/* Index slots of half h holding key (ino, dev). */
static int slots_of(struct table *t, __u32 h, __u64 ino, __u32 dev)
{
	__u32 n = SLOT_HALF(t->n);
	int c = 0;

	for (__u32 i = h * n; i < (h + 1) * n; i++)
		c += key_is(&t->index[i].key_ino, &t->index[i].key_dev, ino, dev);
	return c;
}

/* Entries of half h holding key (ino, dev); with ino 0, the taken ones. */
static int entries_of(struct table *t, __u32 h, __u64 ino, __u32 dev)
{
	__u32 n = SLOT_HALF(t->n);
	int c = 0;

	for (__u32 i = h * n; i < (h + 1) * n; i++) {
		const struct file_stats *e = &t->entries[i];

		c += ino ? key_is(&e->key_ino, &e->key_dev, ino, dev) : e->key_ino != 0;
	}
	return c;
}

/* The stored words' home slot of file (ino, dev) in n. */
static __u32 home_of(__u64 ino, __u32 dev, __u32 n)
{
	return slot_home(ino ^ SLOT_INO_FLIP, ~dev, n);
}

/* A device d != dev whose file ino starts at the same slot as (ino, dev). */
static __u32 dev_at_home(__u64 ino, __u32 dev, __u32 n)
{
	for (__u32 d = dev + 1; d < dev + 100000; d++)
		if (home_of(ino, d, n) == home_of(ino, dev, n))
			return d;
	return dev;
}

/* The same for an inode number on the device. */
static __u64 ino_at_home(__u64 ino, __u32 dev, __u32 n)
{
	for (__u64 i = ino + 1; i < ino + 100000; i++)
		if (home_of(i, dev, n) == home_of(ino, dev, n))
			return i;
	return ino;
}

/*
 * A claimer of (7, 1) stopped between its two CASes; a claimer of (7, d2),
 * same home, meets the half-claimed slot and completes it for its own
 * device: the slot is (7, d2)'s, and (7, 1), resumed, probes on to the
 * next. Each has its entry, with its key, the first two of the chunk.
 */
TEST(table_claim_interleaved_same_ino)
{
	struct table *t = table_new(4);
	__u32 home = home_of(7, 1, 4), d2 = dev_at_home(7, 1, 4);
	int a, b;

	REQUIRE(t);
	REQUIRE(d2 != 1);
	CHECK_EQ_U64(__sync_val_compare_and_swap(&t->index[home].key_ino, 0,
						 7 ^ SLOT_INO_FLIP), 0);
	b = file_slot(t, 0, 0, 7, d2, 1);
	a = file_slot(t, 0, 0, 7, 1, 1);
	CHECK_EQ_INT(b, 0);
	CHECK_EQ_INT(a, 1);
	CHECK_EQ_INT(slot_entry(&t->index[home]), b);
	CHECK_EQ_INT(slot_entry(&t->index[home + 1]), a);
	CHECK_EQ_INT(slots_of(t, 0, 7, 1), 1);
	CHECK_EQ_INT(slots_of(t, 0, 7, d2), 1);
	CHECK_EQ_INT(entries_of(t, 0, 7, 1), 1);
	CHECK_EQ_INT(entries_of(t, 0, 7, d2), 1);
	/* Found again where claimed, and not claimed by a look-up. */
	CHECK_EQ_INT(file_slot(t, 1, 0, 7, 1, 0), a);
	CHECK_EQ_INT(file_slot(t, 1, 0, 7, d2, 0), b);
	CHECK_EQ_INT(file_slot(t, 1, 0, 8, 1, 0), -1);
	CHECK_EQ_INT(slots_of(t, 0, 8, 1), 0);
	table_free(t);
}

/*
 * Two CPUs find one file's slot with no entry: each takes one from its own
 * chunk; the second to set the slot's entry finds the first's, uses it and
 * leaves its own a hole (key 0), which user space skips.
 */
TEST(table_entry_race_leaves_a_hole)
{
	struct table *t = table_new(4);
	__u32 home = home_of(9, 2, 4);
	struct file_slot *s = &t->index[home];
	int a0, a1;

	REQUIRE(t);
	CHECK_EQ_INT(slot_match(s, 9 ^ SLOT_INO_FLIP, ~2u, 1), SLOT_MINE);
	a0 = chunk_take(&t->chunk[0], &t->used[0], 0, SLOT_HALF(4));
	a1 = chunk_take(&t->chunk[1], &t->used[0], 0, SLOT_HALF(4));
	CHECK_EQ_INT(a0, 0);
	CHECK_EQ_INT(a1, CHUNK_ENTRIES);
	CHECK_EQ_INT(slot_entry_set(s, &t->entries[a1], a1, 9 ^ SLOT_INO_FLIP, ~2u), a1);
	CHECK_EQ_INT(slot_entry_set(s, &t->entries[a0], a0, 9 ^ SLOT_INO_FLIP, ~2u), a1);
	CHECK_EQ_U64(t->entries[a0].key_ino, 0);
	CHECK_EQ_INT(entries_of(t, 0, 9, 2), 1);
	CHECK_EQ_INT(file_slot(t, 2, 0, 9, 2, 0), a1);
	table_free(t);
}

/*
 * A program of generation 0 (half 0) still runs when generation 1 begins,
 * on the same CPU, and is preempted between its refill's two stores: the
 * chunk's word is of half 0, its gen still 1. A program of generation 1
 * takes from it, sees an entry outside its half and refills from half 1's
 * count: no program takes an entry of the other generation's half.
 */
TEST(table_chunk_across_generations)
{
	struct table *t = table_new(64);
	struct file_chunk *c = &t->chunk[0];
	__u32 n = SLOT_HALF(64);
	int a;

	REQUIRE(t);
	CHECK_EQ_INT(chunk_take(c, &t->used[1], 1, n), n);
	CHECK_EQ_INT(chunk_take(c, &t->used[1], 1, n), n + 1);
	/* The old program's refill, half done: its word, not yet its gen. */
	c->word = (__u64)CHUNK_ENTRIES << 32 | 1;
	a = chunk_take(c, &t->used[1], 1, n);
	CHECK(a >= (int)n && a < 2 * (int)n);
	CHECK_EQ_INT(a, n + CHUNK_ENTRIES);
	CHECK_EQ_INT(chunk_take(c, &t->used[1], 1, n), n + CHUNK_ENTRIES + 1);
	/* The old program's gen store lands: the next of generation 1 refills. */
	c->gen = 0;
	CHECK_EQ_INT(chunk_take(c, &t->used[1], 1, n), n + 2 * CHUNK_ENTRIES);
	/* Two generations on, half 1 again, emptied: the stale chunk is not used. */
	table_empty(t, 1);
	CHECK_EQ_INT(chunk_take(c, &t->used[1], 3, n), n);
	table_free(t);
}

/*
 * A full table: 16 home slots and the tail of 63 hold at most 79 files; a
 * file with no entry has none, a file with one has exactly one slot and
 * one entry, found again by a look-up. A half's last chunk is cut at its
 * end, and a full half hands out nothing more.
 */
TEST(table_full)
{
	struct table *t = table_new(16);
	int got = 0, idx;

	REQUIRE(t);
	for (__u64 ino = 1; ino <= 200; ino++) {
		idx = file_slot(t, ino % 2, 0, ino, 3, 1);
		CHECK(idx < (int)SLOT_HALF(16));
		got += idx >= 0;
	}
	CHECK(got >= 16 && got <= SLOT_HALF(16));
	CHECK_EQ_INT(entries_of(t, 0, 0, 0), got);
	for (__u64 ino = 1; ino <= 200; ino++) {
		idx = file_slot(t, 0, 0, ino, 3, 0);
		CHECK_EQ_INT(entries_of(t, 0, ino, 3), idx >= 0);
		if (idx >= 0)
			CHECK_EQ_INT(slots_of(t, 0, ino, 3), 1);
	}
	CHECK_EQ_INT(file_slot(t, 0, 0, 1ULL << 63, 3, 1), -1);	/* the one ino kept out */
	t->used[0] = SLOT_HALF(16);
	CHECK_EQ_INT(chunk_take(&t->chunk[2], &t->used[0], 0, SLOT_HALF(16)), -1);
	table_free(t);
}

#define THREADS	8
#define ROUNDS	4000
#define NSLOTS	8

/*
 * The threads spin (yielding: valgrind runs one thread at a time) until a
 * round starts, so those on different CPUs claim within nanoseconds.
 */
struct race {
	struct table *t;
	int threads;
	int start;		/* rounds started */
	int done;		/* claims done, all rounds */
	int got[THREADS];
};

static void spin_until(int *v, int want)
{
	while (__atomic_load_n(v, __ATOMIC_ACQUIRE) < want)
		sched_yield();
}

/*
 * Three files that start at one home slot (two share an inode number).
 * In odd rounds every thread claims file 0 (one file, all CPUs), in even
 * ones thread i claims file i % 3. Set before the threads start.
 */
static struct file_key race_keys[3];

struct racer {
	struct race *r;
	int me;
};

/* Round r is generation r: each round has a half emptied two rounds before. */
static void *racer(void *arg)
{
	struct racer *a = arg;
	struct race *r = a->r;

	for (int round = 1; round <= ROUNDS; round++) {
		const struct file_key *k = &race_keys[round & 1 ? 0 : a->me % 3];

		/*
		 * Spin for the start: the start is the race. Past a while,
		 * yield: under valgrind, which runs one thread at a time, a
		 * spin without end waits for its scheduler's slice (hours).
		 */
		for (int n = 0; __atomic_load_n(&r->start, __ATOMIC_ACQUIRE) < round; n++)
			if (n >= 4096)
				sched_yield();
		r->got[a->me] = file_slot(r->t, a->me / 2 % CPUS, round, k->ino, k->dev, 1);
		__atomic_fetch_add(&r->done, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/*
 * Threads on every CPU claim the same files at once, two threads to each
 * chunk: in every round each file has exactly one slot and one entry, every
 * thread of a file got that entry, every taken entry holds one of the
 * files, and none lies outside the round's half.
 */
TEST(table_claim_race)
{
	struct race *r = calloc(1, sizeof(*r));
	struct racer arg[THREADS];
	pthread_t th[THREADS];
	int bad = 0;

	REQUIRE(r);
	r->t = table_new(NSLOTS);
	REQUIRE(r->t);
	race_keys[0] = (struct file_key){ .ino = 5, .dev = 1 };
	race_keys[1] = (struct file_key){ .ino = 5, .dev = dev_at_home(5, 1, NSLOTS) };
	race_keys[2] = (struct file_key){ .ino = ino_at_home(5, 1, NSLOTS), .dev = 1 };
	REQUIRE(race_keys[1].dev != 1 && race_keys[2].ino != 5);
	/* Two threads a CPU (at least four): more would wait for a CPU, not race. */
	r->threads = 2 * sysconf(_SC_NPROCESSORS_ONLN);
	r->threads = r->threads < 4 ? 4 : r->threads > THREADS ? THREADS : r->threads;
	for (int i = 0; i < r->threads; i++) {
		arg[i] = (struct racer){ r, i };
		REQUIRE(!pthread_create(&th[i], NULL, racer, &arg[i]));
	}
	for (int round = 1; round <= ROUNDS; round++) {
		__u32 h = round & 1, n = SLOT_HALF(NSLOTS);
		int files = round & 1 ? 1 : 3;

		__atomic_store_n(&r->start, round, __ATOMIC_RELEASE);
		spin_until(&r->done, round * r->threads);
		for (int f = 0; f < files; f++) {
			bad += slots_of(r->t, h, race_keys[f].ino, race_keys[f].dev) != 1;
			bad += entries_of(r->t, h, race_keys[f].ino, race_keys[f].dev) != 1;
		}
		bad += entries_of(r->t, h, 0, 0) != files;
		for (int i = 0; i < r->threads; i++) {
			const struct file_key *k = &race_keys[round & 1 ? 0 : i % 3];
			const struct file_stats *e;

			if (r->got[i] < (int)(h * n) || r->got[i] >= (int)((h + 1) * n)) {
				bad++;
				continue;
			}
			e = &r->t->entries[r->got[i]];
			bad += !key_is(&e->key_ino, &e->key_dev, k->ino, k->dev);
		}
		table_empty(r->t, h);
	}
	for (int i = 0; i < r->threads; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ_INT(bad, 0);
	table_free(r->t);
	free(r);
}
