// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The store: merging sums, read classes across intervals, paths, growth. */
#include <malloc.h>
#include <stdlib.h>
#include <time.h>
#include "model/store.h"
#include "unit.h"

#define ELL	"\xe2\x80\xa6"

static struct file_key key_of(__u32 dev, __u64 ino)
{
	struct file_key k = { .ino = ino, .dev = dev };

	return k;
}

static void set_path(struct file_stats *fs, const char *path, __u32 flags)
{
	snprintf(fs->path, sizeof(fs->path), "%s", path);
	fs->path_len = strlen(fs->path);
	fs->flags |= FILE_F_PATH | flags;
}

/* One interval's reads: first at first_off, last ending at last_end. */
static void set_reads(struct file_stats *fs, __u64 reads, __u64 first_off,
		      __u64 first_end, __u64 last_end, __u64 consec, __u64 seq)
{
	fs->flags |= FILE_F_READ | FILE_F_REG;
	fs->reads = reads;
	fs->first_off = first_off;
	fs->first_end = first_end;
	fs->last_end = last_end;
	fs->max_end = last_end > first_end ? last_end : first_end;
	fs->reads_consec = consec;
	fs->reads_seq = seq;
}

TEST(store_merge_sums)
{
	struct file_stats a = {
		.size = 100, .opens = 1, .closes = 1, .stats = 2, .reads = 3,
		.read_bytes = 300, .read_ns = 3000, .read_ns_max = 2000,
		.max_end = 300, .meta_ns = 50, .getdents = 2, .mmaps = 1, .faults = 4,
		.cache_pages = 5, .first_ts = 1000, .last_ts = 2000,
		.flags = FILE_F_REG | FILE_F_CLAIM | FILE_F_TRUNC,
	}, b;
	struct store s;
	struct file_key k = key_of(8 << 20 | 1, 1234);
	struct file_rec *f;

	REQUIRE(!store__init(&s));
	b = a;
	b.size = 0;		/* unknown this interval: keep 100 */
	b.read_ns_max = 500;
	b.max_end = 200;
	b.first_ts = 0;		/* unset: ignored */
	b.last_ts = 5000;
	REQUIRE(!store__merge_file(&s, &k, &a));
	REQUIRE(!store__merge_file(&s, &k, &b));
	b.size = 150;
	b.first_ts = 900;
	REQUIRE(!store__merge_file(&s, &k, &b));
	f = store__find(&s, k.dev, k.ino, 0);
	REQUIRE(f);
	CHECK_EQ_U64(s.nr_files, 1);
	CHECK_EQ_U64(f->size, 150);
	CHECK_EQ_U64(f->c.opens, 3);
	CHECK_EQ_U64(f->c.closes, 3);
	CHECK_EQ_U64(f->c.stats, 6);
	CHECK_EQ_U64(f->c.reads, 9);
	CHECK_EQ_U64(f->c.read_bytes, 900);
	CHECK_EQ_U64(f->c.read_ns, 9000);
	CHECK_EQ_U64(f->read_ns_max, 2000);
	CHECK_EQ_U64(f->max_end, 300);
	CHECK_EQ_U64(f->c.meta_ns, 150);
	CHECK_EQ_U64(f->c.getdents, 6);
	CHECK_EQ_U64(f->c.mmaps, 3);
	CHECK_EQ_U64(f->c.faults, 12);
	CHECK_EQ_U64(f->c.cache_pages, 15);
	CHECK_EQ_U64(f->first_ts, 900);
	CHECK_EQ_U64(f->last_ts, 5000);
	CHECK(f->flags & FILE_F_REG);
	CHECK(!(f->flags & FILE_F_READ));	/* no read was ever seen */
	CHECK(!(f->flags & FILE_F_CLAIM));	/* the kernel's lock bit stays there */
	CHECK(!(f->flags & FILE_F_TRUNC));	/* says nothing without a path */
	CHECK(!f->path);
	CHECK(!store__find(&s, k.dev, k.ino + 1, 0));
	CHECK(!store__find(&s, k.dev + 1, k.ino, 0));
	store__free(&s);
}

TEST(store_read_classes)
{
	struct store s;
	struct file_key k1 = key_of(1, 1), k2 = key_of(1, 2), k3 = key_of(1, 3);
	struct file_stats fs;
	struct file_rec *f;

	REQUIRE(!store__init(&s));

	/* First read ever at 0: consecutive; the kernel classified the other 3. */
	memset(&fs, 0, sizeof(fs));
	set_reads(&fs, 4, 0, 4096, 16384, 3, 3);
	REQUIRE(!store__merge_file(&s, &k1, &fs));
	f = store__find(&s, 1, 1, 0);
	REQUIRE(f);
	CHECK_EQ_U64(f->c.reads_consec, 4);
	CHECK_EQ_U64(f->c.reads_seq, 4);
	CHECK_EQ_U64(f->last_end, 16384);
	CHECK(f->flags & FILE_F_READ);

	/* Next interval starts where the last ended: consecutive. */
	memset(&fs, 0, sizeof(fs));
	set_reads(&fs, 1, 16384, 20480, 20480, 0, 0);
	REQUIRE(!store__merge_file(&s, &k1, &fs));
	CHECK_EQ_U64(f->c.reads_consec, 5);
	CHECK_EQ_U64(f->c.reads_seq, 5);

	/* A stat-only interval neither classifies nor moves last_end. */
	memset(&fs, 0, sizeof(fs));
	fs.stats = 1;
	fs.flags = FILE_F_REG;
	fs.first_off = 0;
	fs.last_end = 0;
	REQUIRE(!store__merge_file(&s, &k1, &fs));
	CHECK_EQ_U64(f->c.reads_consec, 5);
	CHECK_EQ_U64(f->c.reads_seq, 5);
	CHECK_EQ_U64(f->last_end, 20480);

	/* A forward skip: sequential, not consecutive. */
	memset(&fs, 0, sizeof(fs));
	set_reads(&fs, 1, 40960, 45056, 45056, 0, 0);
	REQUIRE(!store__merge_file(&s, &k1, &fs));
	CHECK_EQ_U64(f->c.reads_consec, 5);
	CHECK_EQ_U64(f->c.reads_seq, 6);

	/* Back to the start: random. */
	memset(&fs, 0, sizeof(fs));
	set_reads(&fs, 1, 0, 4096, 4096, 0, 0);
	REQUIRE(!store__merge_file(&s, &k1, &fs));
	CHECK_EQ_U64(f->c.reads, 7);
	CHECK_EQ_U64(f->c.reads_consec, 5);
	CHECK_EQ_U64(f->c.reads_seq, 6);
	CHECK_EQ_U64(f->c.reads - f->c.reads_seq, 1);	/* random */
	CHECK_EQ_U64(f->last_end, 4096);

	/* First read ever not at 0: random (Darshan's "last byte" is before 0). */
	memset(&fs, 0, sizeof(fs));
	set_reads(&fs, 2, 100, 200, 300, 1, 1);
	REQUIRE(!store__merge_file(&s, &k2, &fs));
	f = store__find(&s, 1, 2, 0);
	REQUIRE(f);
	CHECK_EQ_U64(f->c.reads_consec, 1);
	CHECK_EQ_U64(f->c.reads_seq, 1);

	/* A file stat-ed first, read later: that read is still its first. */
	memset(&fs, 0, sizeof(fs));
	fs.stats = 1;
	fs.flags = FILE_F_REG;
	REQUIRE(!store__merge_file(&s, &k3, &fs));
	memset(&fs, 0, sizeof(fs));
	set_reads(&fs, 1, 0, 10, 10, 0, 0);
	REQUIRE(!store__merge_file(&s, &k3, &fs));
	f = store__find(&s, 1, 3, 0);
	REQUIRE(f);
	CHECK_EQ_U64(f->c.reads_consec, 1);
	CHECK_EQ_U64(f->c.reads_seq, 1);
	store__free(&s);
}

TEST(store_paths)
{
	struct store s;
	struct file_key k = key_of(1, 10), k2 = key_of(1, 11), k3 = key_of(1, 12);
	struct file_stats fs;
	struct file_rec *f;

	REQUIRE(!store__init(&s));

	/* A stat's path is normalized... */
	memset(&fs, 0, sizeof(fs));
	fs.stats = 1;
	set_path(&fs, "/home/u/./data/../train//x.bin", FILE_F_RELPATH);
	REQUIRE(!store__merge_file(&s, &k, &fs));
	f = store__find(&s, 1, 10, 0);
	REQUIRE(f);
	CHECK_STR(f->path, "/home/u/train/x.bin");
	CHECK(f->flags & FILE_F_RELPATH);
	CHECK_EQ_U64(s.path_bytes, strlen("/home/u/train/x.bin") + 1);

	/* ...and replaced by an open's path when one comes... */
	memset(&fs, 0, sizeof(fs));
	fs.opens = 1;
	set_path(&fs, "/mnt/data/train/x.bin", 0);
	REQUIRE(!store__merge_file(&s, &k, &fs));
	CHECK_STR(f->path, "/mnt/data/train/x.bin");
	CHECK(!(f->flags & FILE_F_RELPATH));
	CHECK_EQ_U64(s.path_bytes, strlen("/mnt/data/train/x.bin") + 1);

	/* ...which then stays: the first open's path is kept. */
	set_path(&fs, "/other/link.bin", 0);
	REQUIRE(!store__merge_file(&s, &k, &fs));
	memset(&fs, 0, sizeof(fs));
	set_path(&fs, "/stat/again", FILE_F_RELPATH);
	REQUIRE(!store__merge_file(&s, &k, &fs));
	CHECK_STR(f->path, "/mnt/data/train/x.bin");
	CHECK_EQ_U64(f->c.opens, 2);

	/* A truncated tail is marked as such, never mistaken for absolute. */
	memset(&fs, 0, sizeof(fs));
	set_path(&fs, "/deep/tail/file", FILE_F_TRUNC);
	REQUIRE(!store__merge_file(&s, &k2, &fs));
	f = store__find(&s, 1, 11, 0);
	REQUIRE(f);
	CHECK_STR(f->path, ELL "/deep/tail/file");
	CHECK(f->flags & FILE_F_TRUNC);

	/* A truncated stat path: normalized, then marked. */
	memset(&fs, 0, sizeof(fs));
	set_path(&fs, "ep/dir/./sub/../file", FILE_F_TRUNC | FILE_F_RELPATH);
	REQUIRE(!store__merge_file(&s, &k3, &fs));
	f = store__find(&s, 1, 12, 0);
	REQUIRE(f);
	CHECK_STR(f->path, ELL "ep/dir/file");

	/* No path flag: no path, even with bytes in path[]. */
	memset(&fs, 0, sizeof(fs));
	snprintf(fs.path, sizeof(fs.path), "/garbage");
	REQUIRE(!store__merge_file(&s, &(struct file_key){ .dev = 2, .ino = 1 }, &fs));
	f = store__find(&s, 2, 1, 0);
	REQUIRE(f);
	CHECK(!f->path);

	/* A full-length path from the kernel: PATH_LEN - 1 bytes. */
	memset(&fs, 0, sizeof(fs));
	memset(fs.path, 'x', PATH_LEN - 1);
	fs.path[0] = '/';
	fs.path_len = PATH_LEN - 1;
	fs.flags = FILE_F_PATH | FILE_F_TRUNC;
	REQUIRE(!store__merge_file(&s, &(struct file_key){ .dev = 2, .ino = 2 }, &fs));
	f = store__find(&s, 2, 2, 0);
	REQUIRE(f && f->path);
	CHECK_EQ_U64(strlen(f->path), 3 + PATH_LEN - 1);
	store__free(&s);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * btrfs: stat() names a subvolume's device, opens the file system's. The
 * two records of one file (same inode, same path) become the open's; a
 * file with the same inode number elsewhere, with no path, or on two block
 * devices, stays apart.
 */
TEST(store_join_aliases)
{
	struct file_stats open = { .opens = 1, .closes = 1, .reads = 2, .read_bytes = 80,
				   .size = 80, .first_ts = 200, .last_ts = 300 };
	struct file_stats stat = { .stats = 1, .meta_ns = 7, .size = 80, .first_ts = 100,
				   .last_ts = 150 };
	struct file_stats other = { .opens = 1 }, bare = { .cache_pages = 4 };
	struct file_key ko = key_of(0 << 20 | 40, 257), ks = key_of(0 << 20 | 41, 257);
	struct file_key kx = key_of(0 << 20 | 40, 257 + 1), ky = key_of(0 << 20 | 42, 257);
	struct file_key kb = key_of(254 << 20 | 0, 257);
	/* Two loop-mounted images of one dataset, at one path in two namespaces. */
	struct file_key kl0 = key_of(7 << 20 | 0, 300), kl1 = key_of(7 << 20 | 1, 300);
	struct file_rec *f;
	struct store s;
	size_t bytes;

	REQUIRE(!store__init(&s));
	set_path(&open, "/data/train/n01/a.jpg", FILE_F_REG);
	set_path(&stat, "/data/train/n01/./a.jpg", FILE_F_REG | FILE_F_RELPATH);
	set_path(&other, "/data/train/n01/b.jpg", FILE_F_REG);
	REQUIRE(!store__merge_file(&s, &ks, &stat));
	REQUIRE(!store__merge_file(&s, &ko, &open));
	REQUIRE(!store__merge_file(&s, &kx, &other));
	REQUIRE(!store__merge_file(&s, &ky, &other));	/* same ino, other path */
	REQUIRE(!store__merge_file(&s, &kb, &bare));	/* same ino, no path */
	set_path(&bare, "/data/train/n01/c.jpg", FILE_F_REG);
	REQUIRE(!store__merge_file(&s, &kl0, &bare));
	REQUIRE(!store__merge_file(&s, &kl1, &bare));
	CHECK_EQ_U64(s.nr_files, 7);
	bytes = store__bytes(&s);

	CHECK_EQ_INT(store__join_aliases(&s), 1);
	CHECK_EQ_U64(s.nr_files, 6);
	CHECK(store__find(&s, kl0.dev, kl0.ino, 0) && store__find(&s, kl1.dev, kl1.ino, 0));
	CHECK(!store__find(&s, ks.dev, ks.ino, 0));
	f = store__find(&s, ko.dev, ko.ino, 0);
	REQUIRE(f);
	CHECK_STR(f->path, "/data/train/n01/a.jpg");
	CHECK(!(f->flags & FILE_F_RELPATH));
	CHECK_EQ_U64(f->c.opens, 1);
	CHECK_EQ_U64(f->c.stats, 1);
	CHECK_EQ_U64(f->c.reads, 2);
	CHECK_EQ_U64(f->c.meta_ns, 7);
	CHECK_EQ_U64(f->first_ts, 100);
	CHECK_EQ_U64(f->last_ts, 300);
	CHECK(store__find(&s, kx.dev, kx.ino, 0));
	CHECK(store__find(&s, ky.dev, ky.ino, 0));
	CHECK_EQ_U64(store__find(&s, kb.dev, kb.ino, 0)->c.cache_pages, 4);
	CHECK(store__bytes(&s) < bytes);
	CHECK_EQ_INT(store__join_aliases(&s), 0);	/* nothing left to join */
	store__free(&s);
}

/*
 * A file's async figures: given at each drain, added on (sums, the larger
 * max), counted in store__bytes() once; joined with an alias's likewise,
 * or taken over when the kept record has none; freed with the record.
 */
TEST(store_async_join)
{
	struct file_stats open = { .opens = 1, .reads = 3 }, stat = { .stats = 1 };
	struct file_key ko = key_of(0 << 20 | 40, 257), ks = key_of(0 << 20 | 41, 257);
	struct file_key kp = key_of(0 << 20 | 40, 300), kq = key_of(0 << 20 | 41, 300);
	struct async_file a = { .reads = 3, .depth = 5, .depth_max = 2, .inflight = 1 };
	struct async_file b = { .reads = 1, .depth = 4, .late = 2, .depth_max = 4 };
	struct file_rec *f;
	struct store s;
	size_t bytes;

	REQUIRE(!store__init(&s));
	set_path(&open, "/data/a.bin", FILE_F_REG);
	set_path(&stat, "/data/./a.bin", FILE_F_REG | FILE_F_RELPATH);
	REQUIRE(!store__merge_file(&s, &ko, &open));
	REQUIRE(!store__merge_file(&s, &ks, &stat));
	set_path(&open, "/data/p.bin", FILE_F_REG);
	set_path(&stat, "/data/./p.bin", FILE_F_REG | FILE_F_RELPATH);
	REQUIRE(!store__merge_file(&s, &kp, &open));
	REQUIRE(!store__merge_file(&s, &kq, &stat));
	bytes = store__bytes(&s);
	REQUIRE(!store__add_async(&s, store__find(&s, ko.dev, ko.ino, 0), &b));
	REQUIRE(!store__add_async(&s, store__find(&s, ko.dev, ko.ino, 0), &a));	/* added on */
	f = store__find(&s, ko.dev, ko.ino, 0);
	REQUIRE(f && f->async);
	CHECK_EQ_U64(f->async->reads, 4);
	CHECK_EQ_U64(f->async->depth_max, 4);
	REQUIRE(!store__add_async(&s, store__find(&s, ks.dev, ks.ino, 0), &b));
	REQUIRE(!store__add_async(&s, store__find(&s, kq.dev, kq.ino, 0), &b));	/* the alias only */
	CHECK_EQ_U64(s.nr_async, 3);
	CHECK_EQ_U64(store__bytes(&s), bytes + 3 * sizeof(struct async_file));

	CHECK_EQ_INT(store__join_aliases(&s), 2);
	CHECK_EQ_U64(s.nr_async, 2);
	f = store__find(&s, ko.dev, ko.ino, 0);
	REQUIRE(f && f->async);
	CHECK_EQ_U64(f->async->reads, 5);
	CHECK_EQ_U64(f->async->depth, 13);
	CHECK_EQ_U64(f->async->late, 4);
	CHECK_EQ_U64(f->async->inflight, 1);
	CHECK_EQ_U64(f->async->depth_max, 4);
	f = store__find(&s, kp.dev, kp.ino, 0);
	REQUIRE(f && f->async);
	CHECK_EQ_U64(f->async->reads, 1);
	CHECK_EQ_U64(f->async->late, 2);
	CHECK_EQ_U64(store__bytes(&s), bytes - 2 * sizeof(struct file_rec) +
		     2 * sizeof(struct async_file) - strlen("/data/a.bin") - strlen("/data/p.bin") - 2);
	store__free(&s);
}

/*
 * A million files, each with a path as long as a typical dataset's
 * ("/data/imagenet/train/n01440764/n01440764_10026.JPEG" is 51 bytes):
 * all findable after every doubling; memory per file printed.
 */
TEST(store_growth)
{
	const size_t n = 1000000;
	struct file_stats fs;
	struct file_rec **all;
	struct mallinfo2 before, after;
	struct store s;
	size_t got, bytes, missing = 0;
	double t0, t1, t2;

	before = mallinfo2();
	REQUIRE(!store__init(&s));
	memset(&fs, 0, sizeof(fs));
	fs.opens = 1;
	fs.flags = FILE_F_REG;
	t0 = now_s();
	for (size_t i = 0; i < n; i++) {
		struct file_key k = key_of(8 << 20 | (i & 3), i / 4 + 2);

		snprintf(fs.path, sizeof(fs.path), "/data/imagenet/train/n%08zu/n%08zu_%05zu.JPEG",
			 i / 1300, i / 1300, i % 100000);
		fs.path_len = strlen(fs.path);
		fs.flags = FILE_F_REG | FILE_F_PATH;
		fs.size = i;
		if (store__merge_file(&s, &k, &fs)) {
			CHECK(!"merge failed");
			break;
		}
	}
	t1 = now_s();
	CHECK_EQ_U64(s.nr_files, n);
	CHECK(s.files_cap && !(s.files_cap & (s.files_cap - 1)));
	CHECK(s.nr_files * 10 <= s.files_cap * 7);
	for (size_t i = 0; i < n; i++) {
		struct file_rec *f = store__find(&s, 8 << 20 | (i & 3), i / 4 + 2, 0);

		if (!f || f->size != i || f->c.opens != 1)
			missing++;
	}
	t2 = now_s();
	CHECK_EQ_U64(missing, 0);
	all = store__files(&s, &got);
	CHECK(all);
	CHECK_EQ_U64(got, n);
	free(all);
	after = mallinfo2();
	bytes = store__bytes(&s);
	CHECK(bytes >= n * sizeof(struct file_rec) + s.path_bytes);
	printf("store: %zu files in %.2f s (merge %.2f s, find %.2f s): store__bytes %zu = %.0f bytes/file "
	       "(record %zu, path %.0f, table %.1f); malloc'd %.0f bytes/file\n",
	       n, t2 - t0, t1 - t0, t2 - t1, bytes, (double)bytes / n,
	       sizeof(struct file_rec), (double)s.path_bytes / n,
	       (double)s.files_cap * sizeof(void *) / n,
	       ((double)after.uordblks + after.hblkhd - before.uordblks - before.hblkhd) / n);
	store__free(&s);
}

/* --store-files: past files_max, the least recently used go, down to 3/4. */
TEST(store_bound)
{
	struct store s;
	struct file_stats fs;
	char path[64];
	size_t bytes;

	REQUIRE(!store__init(&s));
	s.files_max = 40;
	for (__u64 i = 1; i <= 100; i++) {
		memset(&fs, 0, sizeof(fs));
		fs.opens = 1;
		fs.first_ts = fs.last_ts = i;
		snprintf(path, sizeof(path), "/data/f%llu", (unsigned long long)i);
		set_path(&fs, path, FILE_F_PATH | FILE_F_REG);
		CHECK(!store__merge_file(&s, &(struct file_key){ .dev = 1, .ino = i }, &fs));
		CHECK(store__bound(&s) >= 0);
		CHECK(s.nr_files <= 40);
	}
	/* Cut to the 30 newest at 41 files (i = 41, 52, 63, 74, 85, 96): 67..100 stay. */
	CHECK_EQ_U64(s.nr_files, 34);
	CHECK_EQ_U64(s.files_evicted, 66);
	CHECK(store__find(&s, 1, 100, 0) && store__find(&s, 1, 67, 0));
	CHECK(!store__find(&s, 1, 66, 0) && !store__find(&s, 1, 1, 0));
	bytes = store__bytes(&s);
	CHECK_EQ_U64(s.path_bytes, 33 * sizeof("/data/f67") + sizeof("/data/f100"));
	s.files_max = 0;	/* unbounded: nothing goes */
	CHECK(store__bound(&s) == 0);
	CHECK(store__bytes(&s) == bytes);
	/* its threads are bounded with its files (model/threads.c) */
	s.threads.max = 4;
	for (__u32 tid = 1; tid <= 5; tid++)
		CHECK(!threads__merge(&s.threads, tid, &(struct thread_stats){ .opens = 1 }));
	CHECK(store__bound(&s) == 0);
	CHECK_EQ_U64(s.threads.n, 3);
	CHECK_EQ_U64(s.threads.gone.io.opens, 2);
	store__free(&s);

	/* a zeroed store works as well as an initialized one */
	memset(&s, 0, sizeof(s));
	REQUIRE(!store__merge_file(&s, &(struct file_key){ .dev = 1, .ino = 1 },
				   &(struct file_stats){ .opens = 1 }));
	CHECK(store__find(&s, 1, 1, 0));
	store__free(&s);
}

/*
 * An inode number's lives (issue 46): two files that had one number, with
 * their generations, are two records, each with its own counts and path,
 * also when their entries meet in one interval; a stat by name (gen 0)
 * before the first open becomes that life's record, and one after joins
 * the latest life. Not joined as aliases: same device, same path.
 */
TEST(store_inode_lives)
{
	struct file_stats stat0 = { .stats = 1, .first_ts = 10, .flags = FILE_F_REG },
			  a = { .opens = 1, .reads = 2, .read_bytes = 1024, .first_ts = 20,
				.flags = FILE_F_REG },
			  b = { .opens = 3, .reads = 4, .read_bytes = 2048, .first_ts = 30,
				.flags = FILE_F_REG },
			  stat1 = { .stats = 5, .first_ts = 40, .flags = FILE_F_REG };
	struct file_key k0 = key_of(8 << 20 | 1, 77), ka = k0, kb = k0;
	struct store s;
	struct file_rec *f;

	ka.gen = 0x1111;
	kb.gen = 0x2222;
	set_path(&stat0, "/d/old", 0);
	set_path(&a, "/d/old", 0);
	set_path(&b, "/d/old", 0);	/* made again at the same path */
	REQUIRE(!store__init(&s));
	REQUIRE(!store__merge_file(&s, &k0, &stat0));
	REQUIRE(!store__merge_file(&s, &ka, &a));
	CHECK_EQ_U64(s.nr_files, 1);	/* the stat's record became life a's */
	REQUIRE(!store__merge_file(&s, &kb, &b));
	REQUIRE(!store__merge_file(&s, &k0, &stat1));
	CHECK_EQ_U64(s.nr_files, 2);
	f = store__find(&s, ka.dev, ka.ino, ka.gen);
	REQUIRE(f);
	CHECK_EQ_U64(f->c.opens, 1);
	CHECK_EQ_U64(f->c.reads, 2);
	CHECK_EQ_U64(f->c.read_bytes, 1024);
	CHECK_EQ_U64(f->c.stats, 1);
	f = store__find(&s, kb.dev, kb.ino, kb.gen);
	REQUIRE(f);
	CHECK_EQ_U64(f->c.opens, 3);
	CHECK_EQ_U64(f->c.reads, 4);
	CHECK_EQ_U64(f->c.read_bytes, 2048);
	CHECK_EQ_U64(f->c.stats, 5);
	CHECK(store__find_latest(&s, k0.dev, k0.ino) == f);
	CHECK(!store__find(&s, k0.dev, k0.ino, 0));
	CHECK_EQ_U64(store__join_aliases(&s), 0);
	CHECK_EQ_U64(s.nr_files, 2);
	store__free(&s);
}
