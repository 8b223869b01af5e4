// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The files table's slot claim (bpf/table.h), the code the BPF programs run:
 * interleavings of two claimers stepped by hand, then threads on every CPU
 * claiming one file at once, round after round, and files that share an
 * inode number or a home slot. file_slot() is the loop of bpf/entry.bpf.h.
 */
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#include <stdlib.h>
#include <linux/types.h>
#include "iostorm.h"
#include "table.h"
#include "unit.h"

/*
 * bpf/entry.bpf.h file_slot() over one half of n home slots (SLOT_HALF(n)
 * slots): the index or -1.
 */
static int file_slot(struct file_stats *t, __u32 n, __u64 ino, __u32 dev, int claim)
{
	__u32 i;

	ino ^= SLOT_INO_FLIP;
	dev = ~dev;
	if (!ino || !n)
		return -1;
	i = slot_home(ino, dev, n);
	for (__u32 k = 0; k < SLOT_PROBES; k++, i++) {
		int m = slot_match(&t[i], ino, dev, claim);

		if (m == SLOT_MINE)
			return i;
		if (m == SLOT_FREE)
			return -1;
	}
	return -1;
}

/* Slots holding key (ino, dev). */
static int slots_of(struct file_stats *t, __u32 n, __u64 ino, __u32 dev)
{
	int c = 0;

	for (__u32 i = 0; i < SLOT_HALF(n); i++)
		c += t[i].key_ino == (ino ^ SLOT_INO_FLIP) && t[i].key_dev == (__u32)~dev;
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
 * device: the slot is (7, d2)'s, and (7, 1), resumed, probes on to the next.
 */
TEST(table_claim_interleaved_same_ino)
{
	struct file_stats t[SLOT_HALF(4)] = {};
	__u32 home = home_of(7, 1, 4), d2 = dev_at_home(7, 1, 4);
	int a, b;

	REQUIRE(d2 != 1);
	CHECK_EQ_U64(__sync_val_compare_and_swap(&t[home].key_ino, 0, 7 ^ SLOT_INO_FLIP), 0);
	b = file_slot(t, 4, 7, d2, 1);
	a = file_slot(t, 4, 7, 1, 1);
	CHECK_EQ_INT(b, home);
	CHECK_EQ_INT(a, home + 1);
	CHECK_EQ_INT(slots_of(t, 4, 7, 1), 1);
	CHECK_EQ_INT(slots_of(t, 4, 7, d2), 1);
	/* Found again where claimed, and not claimed by a look-up. */
	CHECK_EQ_INT(file_slot(t, 4, 7, 1, 0), a);
	CHECK_EQ_INT(file_slot(t, 4, 7, d2, 0), b);
	CHECK_EQ_INT(file_slot(t, 4, 8, 1, 0), -1);
	CHECK_EQ_INT(slots_of(t, 4, 8, 1), 0);
}

/*
 * A full table: 16 home slots and the tail of 63 hold at most 79 files; a
 * file with no slot has none, a file with one has exactly one, found again
 * by a look-up.
 */
TEST(table_full)
{
	struct file_stats t[SLOT_HALF(16)] = {};
	int got = 0, taken = 0, idx;

	for (__u64 ino = 1; ino <= 200; ino++)
		got += file_slot(t, 16, ino, 3, 1) >= 0;
	CHECK(got >= 16 && got <= SLOT_HALF(16));
	for (__u32 i = 0; i < SLOT_HALF(16); i++)
		taken += t[i].key_ino != 0;
	CHECK_EQ_INT(taken, got);
	for (__u64 ino = 1; ino <= 200; ino++) {
		idx = file_slot(t, 16, ino, 3, 0);
		CHECK_EQ_INT(slots_of(t, 16, ino, 3), idx >= 0);
	}
	CHECK_EQ_INT(file_slot(t, 16, 1ULL << 63, 3, 1), -1);	/* the one ino kept out */
}

#define THREADS	8
#define ROUNDS	4000
#define NSLOTS	8

/*
 * The threads spin (yielding: valgrind runs one thread at a time) until a
 * round starts, so those on different CPUs claim within nanoseconds.
 */
struct race {
	struct file_stats t[SLOT_HALF(NSLOTS)];
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
		r->got[a->me] = file_slot(r->t, NSLOTS, k->ino, k->dev, 1);
		__atomic_fetch_add(&r->done, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/*
 * Threads on every CPU claim the same files at once: in every round each
 * file has exactly one slot, every thread of a file got that slot, and
 * every taken slot holds one of the files.
 */
TEST(table_claim_race)
{
	struct race *r = calloc(1, sizeof(*r));
	struct racer arg[THREADS];
	pthread_t th[THREADS];
	int bad = 0, taken;

	REQUIRE(r);
	race_keys[0] = (struct file_key){ .ino = 5, .dev = 1 };
	race_keys[1] = (struct file_key){ .ino = 5, .dev = dev_at_home(5, 1, NSLOTS) };
	race_keys[2] = (struct file_key){ .ino = ino_at_home(5, 1, NSLOTS), .dev = 1 };
	REQUIRE(race_keys[1].dev != 1 && race_keys[2].ino != 5);
	/* One thread a CPU (at least two): more would wait for a CPU, not race. */
	r->threads = sysconf(_SC_NPROCESSORS_ONLN);
	r->threads = r->threads < 2 ? 2 : r->threads > THREADS ? THREADS : r->threads;
	for (int i = 0; i < r->threads; i++) {
		arg[i] = (struct racer){ r, i };
		REQUIRE(!pthread_create(&th[i], NULL, racer, &arg[i]));
	}
	for (int round = 1; round <= ROUNDS; round++) {
		__atomic_store_n(&r->start, round, __ATOMIC_RELEASE);
		spin_until(&r->done, round * r->threads);
		int files = round & 1 ? 1 : r->threads < 3 ? r->threads : 3;

		taken = 0;
		for (int f = 0; f < files; f++)
			bad += slots_of(r->t, NSLOTS, race_keys[f].ino, race_keys[f].dev) != 1;
		for (int i = 0; i < SLOT_HALF(NSLOTS); i++)
			taken += r->t[i].key_ino != 0;
		bad += taken != files;
		for (int i = 0; i < r->threads; i++) {
			const struct file_key *k = &race_keys[round & 1 ? 0 : i % 3];
			const struct file_stats *s;

			if (r->got[i] < 0) {
				bad++;
				continue;
			}
			s = &r->t[r->got[i]];
			bad += s->key_ino != (k->ino ^ SLOT_INO_FLIP) || s->key_dev != (__u32)~k->dev;
		}
		memset(r->t, 0, sizeof(r->t));
	}
	for (int i = 0; i < r->threads; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ_INT(bad, 0);
	free(r);
}
