// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The files table's protocol (bpf/table.h), the code the BPF programs run:
 * a slot's claim with its entry, and the CPUs' chunks of entries.
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
#include "unit.h"

#define CPUS	4		/* chunks */

/* Both halves of a table of n home slots, as the maps hold them. */
struct table {
	__u32 n;
	__u64 *index;			/* 2 * SLOT_HALF(n) */
	struct file_stats *entries;	/* 2 * SLOT_HALF(n) */
	__u64 used[2];
	struct file_chunk chunk[CPUS];
};

/* A probe's context: the table, and the CPU it runs on (its chunk). */
struct on_cpu {
	struct table *t;
	int cpu;
};

/* As bpf/entry.bpf.h defines them for the programs. */
static int take(struct on_cpu *c, __u32 gen);
#define TABLE_TAKE(ctx, gen)	take(ctx, gen)
#define TABLE_ENTRY(ctx, e)	(&((struct on_cpu *)(ctx))->t->entries[e])
#include "table.h"

static int take(struct on_cpu *c, __u32 gen)
{
	return chunk_take(&c->t->chunk[c->cpu], &c->t->used[gen & 1], gen, SLOT_HALF(c->t->n));
}

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
 * bpf/entry.bpf.h file_slot() for generation gen, on CPU cpu (its
 * chunk): the file's entry index in entries, or -1.
 */
static int file_slot(struct table *t, int cpu, __u32 gen, __u64 ino, __u32 dev, int claim)
{
	struct on_cpu c = { t, cpu };
	struct slot_probe p = {
		.ino = ino ^ SLOT_INO_FLIP, .dev = ~dev, .gen = gen, .claim = claim, .taken = -1,
	};
	__u32 i;
	int r = -1;

	if (!p.ino || !t->n)
		return -1;
	p.fp = slot_fp(p.ino, p.dev);
	i = (gen & 1) * SLOT_HALF(t->n) + slot_home(p.ino, p.dev, t->n);
	for (__u32 k = 0; k < SLOT_PROBES; k++, i++) {
		r = slot_try(&c, &t->index[i], &p);
		if (r != TRY_OTHER)
			break;
	}
	slot_untake(&c, p.taken);
	return r < 0 ? -1 : r;
}

static bool key_is(const __u64 *ino_w, const __u32 *dev_w, __u64 ino, __u32 dev)
{
	return *ino_w == (ino ^ SLOT_INO_FLIP) && *dev_w == (__u32)~dev;
}

/*
 * Index slots of half h that are the file (ino, dev)'s: its fingerprint,
 * and an entry holding its key.
 */
static int slots_of(struct table *t, __u32 h, __u64 ino, __u32 dev)
{
	__u32 n = SLOT_HALF(t->n), fp = slot_fp(ino ^ SLOT_INO_FLIP, ~dev);
	int c = 0;

	for (__u32 i = h * n; i < (h + 1) * n; i++) {
		__u64 w = t->index[i];
		const struct file_stats *e;

		if (!w || (__u32)(w >> 32) != fp)
			continue;
		e = &t->entries[(__u32)w - 1];
		c += key_is(&e->key_ino, &e->key_dev, ino, dev);
	}
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
 * Files that start at one home slot take the next ones, each with its
 * entry, the first ones of the CPU's chunk; a look-up finds each where it
 * was claimed, and claims nothing.
 */
TEST(table_same_home)
{
	struct table *t = table_new(4);
	__u32 home = home_of(7, 1, 4), d2 = dev_at_home(7, 1, 4);
	__u64 i2 = ino_at_home(7, 1, 4);
	int a, b, c;

	REQUIRE(t);
	REQUIRE(d2 != 1 && i2 != 7);
	a = file_slot(t, 0, 0, 7, 1, 1);
	b = file_slot(t, 0, 0, 7, d2, 1);
	c = file_slot(t, 0, 0, i2, 1, 1);
	CHECK_EQ_INT(a, 0);
	CHECK_EQ_INT(b, 1);
	CHECK_EQ_INT(c, 2);
	CHECK_EQ_U64((__u32)t->index[home] - 1, a);
	CHECK_EQ_U64((__u32)t->index[home + 1] - 1, b);
	CHECK_EQ_U64((__u32)t->index[home + 2] - 1, c);
	CHECK_EQ_INT(slots_of(t, 0, 7, 1), 1);
	CHECK_EQ_INT(slots_of(t, 0, 7, d2), 1);
	CHECK_EQ_INT(entries_of(t, 0, i2, 1), 1);
	CHECK_EQ_INT(file_slot(t, 1, 0, 7, 1, 0), a);
	CHECK_EQ_INT(file_slot(t, 1, 0, 7, d2, 0), b);
	CHECK_EQ_INT(file_slot(t, 1, 0, i2, 1, 0), c);
	CHECK_EQ_INT(file_slot(t, 1, 0, 8, 1, 0), -1);
	CHECK_EQ_INT(entries_of(t, 0, 0, 0), 3);
	table_free(t);
}

/*
 * A slot with the file's fingerprint whose entry holds another key (two
 * keys' fingerprints are alike once in 2^32) is another file's: the
 * probe goes on, and the file claims the next slot.
 */
TEST(table_same_fingerprint_other_key)
{
	struct table *t = table_new(4);
	__u64 ino = 11 ^ SLOT_INO_FLIP;
	__u32 dev = ~3u, home = home_of(11, 3, 4);
	int a;

	REQUIRE(t);
	t->entries[40].key_ino = 12 ^ SLOT_INO_FLIP;
	t->entries[40].key_dev = dev;
	t->index[home] = (__u64)slot_fp(ino, dev) << 32 | 41;
	a = file_slot(t, 0, 0, 11, 3, 1);
	CHECK_EQ_INT(a, 0);
	CHECK_EQ_U64(t->index[home + 1], (__u64)slot_fp(ino, dev) << 32 | 1);
	CHECK_EQ_INT(file_slot(t, 0, 0, 11, 3, 0), 0);
	table_free(t);
}

/*
 * Two CPUs find one new file's slot free and each takes an entry. The
 * first claims the slot; the second's claim fails, it finds the slot the
 * file's, uses the first's entry and leaves its own a hole (key 0), which
 * user space skips.
 */
TEST(table_claim_race_leaves_a_hole)
{
	struct table *t = table_new(4);
	struct on_cpu c0 = { t, 0 }, c1 = { t, 1 };
	__u64 ino = 9 ^ SLOT_INO_FLIP, *s = &t->index[home_of(9, 2, 4)];
	__u32 dev = ~2u, fp = slot_fp(ino, dev);
	struct slot_probe p0 = { ino, dev, fp, 0, 1, -1, 0 }, p1 = p0;
	int t1, e0;

	REQUIRE(t);
	/* CPU 1 has taken its entry and written its key, and is about to claim. */
	t1 = p1.taken = take(&c1, 0);
	t->entries[t1].key_ino = ino;
	t->entries[t1].key_dev = dev;
	e0 = slot_try(&c0, s, &p0);
	CHECK(e0 >= 0 && e0 != t1);
	CHECK_EQ_INT(p0.taken, -1);
	CHECK_EQ_INT(slot_try(&c1, s, &p1), e0);
	CHECK_EQ_INT(p1.taken, t1);
	slot_untake(&c1, p1.taken);
	CHECK_EQ_U64(t->entries[t1].key_ino, 0);
	CHECK_EQ_INT(entries_of(t, 0, 9, 2), 1);
	CHECK_EQ_INT(slots_of(t, 0, 9, 2), 1);
	CHECK_EQ_INT(file_slot(t, 2, 0, 9, 2, 0), e0);
	table_free(t);
}

/*
 * A probe whose claim lost to another file keeps the entry it took for
 * the next free slot: no second entry, no hole.
 */
TEST(table_claim_lost_to_other_file)
{
	struct table *t = table_new(4);
	struct on_cpu c0 = { t, 0 };
	__u32 home = home_of(7, 1, 4), d2 = dev_at_home(7, 1, 4);
	__u64 ino = 7 ^ SLOT_INO_FLIP;
	__u32 dev = ~1u, fp = slot_fp(ino, dev);
	struct slot_probe p = { ino, dev, fp, 0, 1, -1, 0 };
	int r, other;

	REQUIRE(t);
	REQUIRE(d2 != 1);
	p.taken = take(&c0, 0);
	t->entries[p.taken].key_ino = ino;
	t->entries[p.taken].key_dev = dev;
	other = file_slot(t, 1, 0, 7, d2, 1);		/* CPU 1: wins the home slot */
	CHECK_EQ_INT(other, CHUNK_ENTRIES);
	r = slot_try(&c0, &t->index[home], &p);
	CHECK_EQ_INT(r, TRY_OTHER);
	CHECK_EQ_INT(p.taken, 0);
	r = slot_try(&c0, &t->index[home + 1], &p);
	CHECK_EQ_INT(r, 0);
	CHECK_EQ_INT(p.taken, -1);
	CHECK_EQ_INT(entries_of(t, 0, 0, 0), 2);
	CHECK_EQ_U64(t->used[0], 2 * CHUNK_ENTRIES);
	CHECK_EQ_INT(file_slot(t, 0, 0, 7, 1, 0), 0);
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

/*
 * Two lives of one inode number in one interval (issue 46): the same
 * (ino, dev) with two generations are two entries, each found again by its
 * own generation; the second only probes one slot further.
 */
TEST(table_inode_lives)
{
	struct table *t = table_new(64);
	struct on_cpu c = { t, 0 };
	__u64 ino = 42 ^ SLOT_INO_FLIP;
	__u32 dev = ~3u, home = home_of(42, 3, 64);
	struct slot_probe a = { ino, dev, slot_fp(ino, dev), 0, 1, -1, 0x1111 }, b = a, a2;
	int ea, eb;

	REQUIRE(t);
	b.igen = 0x2222;
	a2 = a;
	ea = slot_try(&c, &t->index[home], &a);
	CHECK(ea >= 0);
	CHECK_EQ_INT(slot_try(&c, &t->index[home], &b), TRY_OTHER);
	eb = slot_try(&c, &t->index[home + 1], &b);
	CHECK(eb >= 0 && eb != ea);
	CHECK_EQ_U64(t->entries[ea].key_gen, 0x1111);
	CHECK_EQ_U64(t->entries[eb].key_gen, 0x2222);
	a2.claim = 0;
	CHECK_EQ_INT(slot_try(&c, &t->index[home], &a2), ea);
	slot_untake(&c, b.taken);
	table_free(t);
}
