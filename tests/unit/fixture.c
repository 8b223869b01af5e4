// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The golden trace, see fixture.h. Files and threads go through the
 * store's merges, as drain.c feeds them; the global counters and the read
 * histograms are summed from the same entries, so the totals agree with
 * the tables. The block layer is filled as block__read() leaves it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "fixture.h"
#include "model/diskstats.h"
#include "model/hist.h"

#define US		1000ULL			/* ns */
#define MS		1000000ULL
#define SEC		1000000000ULL
#define KIB		1024ULL
#define MIB		(1024ULL * 1024)
#define T0		(5 * SEC)		/* the trace starts, CLOCK_MONOTONIC */
#define TRACE_SECS	60

#define DEV_DATA	(259 << 20 | 1)		/* nvme0n1p1: /data */
#define DEV_ROOT	(8 << 20 | 1)		/* sda1: / */
#define DEV_ANON	(0 << 20 | 47)		/* an overlayfs: paths unknown */
#define DISK_NVME	(259 << 20 | 0)
#define DISK_SDA	(8 << 20 | 0)
#define TGID		4242
#define CG_TRAINER	7001			/* cgroup ids of the two containers */
#define CG_LOADER	7002
#define CG_SLURM	7003			/* fixture__node_trace()'s Slurm job */

/* The metadata calls of a network file system: slow opens and stats. */
#define OPEN_NS		(800 * US)
#define STAT_NS		(300 * US)
#define CLOSE_NS	(20 * US)
#define GETDENTS_NS	(1500 * US)
#define EOF_READ_NS	(2 * US)

/* ---- files ---- */

static void count_file(struct trace *t, const struct file_stats *fs)
{
	__u64 *c = t->counters;

	c[C_OPENS] += fs->opens;
	c[C_CLOSES] += fs->closes;
	c[C_STATS] += fs->stats;
	c[C_READS] += fs->reads;
	c[C_READ_BYTES] += fs->read_bytes;
	c[C_READ_NS] += fs->read_ns;
	c[C_GETDENTS] += fs->getdents;
	c[C_MMAPS] += fs->mmaps;
	c[C_FAULTS] += fs->faults;
	c[C_CACHE_PAGES] += fs->cache_pages;
	c[C_META_NS] += fs->meta_ns;
	c[C_WRITES] += fs->writes;
	c[C_WRITE_BYTES] += fs->write_bytes;
	c[C_WRITE_NS] += fs->write_ns;
	c[C_FSYNCS] += fs->fsyncs;
	c[C_FSYNC_NS] += fs->fsync_ns;
	c[C_COMMITS] += fs->commits;
	c[C_COMMIT_NS] += fs->commit_ns;
	c[C_FILE_ENTRIES]++;
}

/*
 * The read histograms of one entry: eof reads return 0 bytes in
 * EOF_READ_NS; of the others, one took read_ns_max and the rest share
 * what is left evenly, each returning an equal part of the bytes.
 */
static void hist_reads(struct trace *t, const struct file_stats *fs, __u64 eof)
{
	struct hist *lat = &t->hists[H_READ_LAT], *size = &t->hists[H_READ_SIZE];
	__u64 n = fs->reads - eof, ns = fs->read_ns - eof * EOF_READ_NS;

	hist__add(size, 0, eof);
	hist__add(lat, EOF_READ_NS, eof);
	if (!n)
		return;
	hist__add(size, fs->read_bytes / n, n);
	if (n > 1 && fs->read_ns_max) {
		hist__add(lat, fs->read_ns_max, 1);
		ns -= fs->read_ns_max;
		n--;
	}
	hist__add(lat, ns / n, n);
}

/* Merge one interval's entry of a file and count it where the kernel would. */
static int add_file(struct trace *t, __u32 dev, __u64 ino, const char *path,
		    struct file_stats fs, __u64 eof_reads)
{
	struct file_key k = { .dev = dev, .ino = ino };

	if (path) {
		snprintf(fs.path, sizeof(fs.path), "%s", path);
		fs.path_len = strlen(fs.path);
		fs.flags |= FILE_F_PATH;
	}
	if (fs.reads)
		fs.flags |= FILE_F_READ;
	if (fs.reads && !fs.read_ts)
		fs.read_ts = fs.first_ts;
	/* The kernel keeps both whenever it counts: fill in the obvious. */
	if (fs.reads > eof_reads && !fs.read_ns_max)
		fs.read_ns_max = (fs.read_ns - eof_reads * EOF_READ_NS) /
				 (fs.reads - eof_reads);
	if (fs.last_ts < fs.first_ts)
		fs.last_ts = fs.first_ts;
	count_file(t, &fs);
	hist_reads(t, &fs, eof_reads);
	return store__merge_file(&t->store, &k, &fs);
}

/*
 * n small images in dir, each opened, stat-ed and read whole (one read,
 * then one at EOF) once per epoch; first read in a shuffled order.
 */
static int add_images(struct trace *t, const char *dir, __u64 ino0, int n, __u64 epochs)
{
	char path[64];
	int err = 0;

	for (int i = 0; i < n && !err; i++) {
		__u64 size = 98304 + i * 6151, lat = 180 * US + (i % 7) * 40 * US;

		snprintf(path, sizeof(path), "%s/img_%04d.jpg", dir, i);
		err = add_file(t, DEV_DATA, ino0 + i, path, (struct file_stats){
			.flags = FILE_F_REG, .size = size, .opens = epochs,
			.closes = epochs, .stats = epochs, .reads = 2 * epochs,
			.read_bytes = epochs * size,
			.read_ns = epochs * (lat + EOF_READ_NS), .read_ns_max = 4 * lat,
			.reads_consec = epochs, .reads_seq = epochs, .first_end = size,
			.last_end = size, .max_end = size,
			.meta_ns = epochs * (OPEN_NS + STAT_NS + CLOSE_NS),
			.cache_pages = (size + 4095) / 4096 * (i % 5 ? 1 : 2),
			.first_ts = T0 + (i * 7 % n) * 10 * MS,
			.last_ts = T0 + 50 * SEC + i * MS }, epochs);
	}
	return err;
}

/*
 * A 256 MiB TFRecord shard read in 1 MiB reads over two intervals: 128
 * MiB, then 64 more from where the first stopped (the last shard is
 * still in its first interval at the end).
 */
static int add_shard(struct trace *t, int i)
{
	char path[64];
	__u64 ino = 3100 + i;
	int err;

	snprintf(path, sizeof(path), "/data/shards/train-%05d-of-00004.tfrecord", i);
	err = add_file(t, DEV_DATA, ino, path, (struct file_stats){
		.flags = FILE_F_REG, .size = 256 * MIB, .opens = 1, .stats = 1,
		.reads = 128, .read_bytes = 128 * MIB, .read_ns = 128 * 2100 * US,
		.read_ns_max = 9 * MS, .reads_consec = 127, .reads_seq = 127,
		.first_end = MIB, .last_end = 128 * MIB, .max_end = 128 * MIB,
		.meta_ns = OPEN_NS + STAT_NS, .cache_pages = 128 * MIB / 4096,
		.first_ts = T0 + 2 * SEC + i * 9 * SEC,
		.last_ts = T0 + 6 * SEC + i * 9 * SEC }, 0);
	if (err || i == 3)
		return err;
	return add_file(t, DEV_DATA, ino, path, (struct file_stats){
		.flags = FILE_F_REG, .size = 256 * MIB, .closes = 1, .reads = 64,
		.read_bytes = 64 * MIB, .read_ns = 64 * 1900 * US, .read_ns_max = 6 * MS,
		.reads_consec = 63, .reads_seq = 63, .first_off = 128 * MIB,
		.first_end = 129 * MIB, .last_end = 192 * MIB, .max_end = 192 * MIB,
		.meta_ns = CLOSE_NS, .cache_pages = 64 * MIB / 4096,
		.first_ts = T0 + 7 * SEC + i * 9 * SEC,
		.last_ts = T0 + 9 * SEC + i * 9 * SEC }, 0);
}

/* A shared library: stat, open, its ELF header read, mapped and faulted in. */
static int add_lib(struct trace *t, __u64 ino, const char *path, __u64 size,
		   __u64 meta_ns)
{
	return add_file(t, DEV_ROOT, ino, path, (struct file_stats){
		.flags = FILE_F_REG, .size = size, .opens = 1, .closes = 1, .stats = 1,
		.reads = 1, .read_bytes = 832, .read_ns = 45 * US, .first_end = 832,
		.last_end = 832, .max_end = 832, .meta_ns = meta_ns, .mmaps = 4,
		.faults = size / 4096 / 8, .cache_pages = size / 4096 / 6,
		.first_ts = T0 + ino % 100 * US, .last_ts = T0 + 300 * MS }, 0);
}

static int add_libs(struct trace *t)
{
	return add_lib(t, 1310721, "/usr/lib/x86_64-linux-gnu/libcudnn_ops_infer.so.8",
		       101654512, 40 * US) ?:
	       add_lib(t, 1310722, "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30",
		       2190440, 40 * US) ?:
	       /* Its directory walked by a cold import: slow to find. */
	       add_lib(t, 1310723, "/usr/local/lib/python3.11/dist-packages/numpy/core/"
		       "_multiarray_umath.cpython-311-x86_64-linux-gnu.so", 7185784,
		       70 * MS) ?:
	       add_file(t, DEV_ROOT, 1310724, "/etc/ld.so.cache", (struct file_stats){
			.flags = FILE_F_REG, .size = 61202, .opens = 3, .closes = 3,
			.stats = 3, .mmaps = 3, .meta_ns = 3 * 35 * US, .cache_pages = 15,
			.first_ts = T0 }, 0) ?:
	       add_file(t, DEV_ROOT, 1310725, "/etc/passwd", (struct file_stats){
			.flags = FILE_F_REG, .size = 2895, .stats = 4, .meta_ns = 4 * 9 * US,
			.first_ts = T0 + 10 * MS }, 0);
}

/* A checkpoint: its pickle records read at scattered offsets, the rest mapped. */
static int add_checkpoint(struct trace *t)
{
	return add_file(t, DEV_ROOT, 393219,
			"/home/user/.cache/torch/hub/checkpoints/resnet50-0676ba61.pth",
			(struct file_stats){
			.flags = FILE_F_REG, .size = 102530333, .opens = 1, .closes = 1,
			.stats = 2, .reads = 6, .read_bytes = 6 * 4096, .read_ns = 6 * 400 * US,
			.read_ns_max = 1200 * US, .reads_consec = 1, .reads_seq = 2,
			.first_off = 102400000, .first_end = 102404096, .last_end = 73728,
			.max_end = 102530333, .meta_ns = 2 * 60 * US, .mmaps = 1,
			.faults = 2503, .cache_pages = 25032, .first_ts = T0 + SEC,
			.last_ts = T0 + 3 * SEC }, 0);
}

/*
 * Two checkpoints a saver thread wrote (opened before the attach): 64
 * writes of 4 MiB each, an fsync, the close that commits; 20 s apart.
 */
#define SAVE_WRITES	64
#define SAVE_WRITE_NS	(1200 * MS)
#define SAVE_FSYNC_NS	(1300 * MS)
#define SAVE_CLOSE_NS	(1 * MS)

static int add_saves(struct trace *t)
{
	int err = 0;

	for (int i = 1; i <= 2 && !err; i++) {
		char path[64];

		snprintf(path, sizeof(path), "/data/ckpt/step-%05d.pt", i * 1000);
		err = add_file(t, DEV_DATA, 4000 + i, path, (struct file_stats){
			.flags = FILE_F_REG, .size = SAVE_WRITES * 4 * MIB, .closes = 1,
			.writes = SAVE_WRITES, .write_bytes = SAVE_WRITES * 4 * MIB,
			.write_ns = SAVE_WRITE_NS, .fsyncs = 1, .fsync_ns = SAVE_FSYNC_NS,
			.commits = 1, .commit_ns = SAVE_CLOSE_NS,
			.first_ts = T0 + i * 20 * SEC, .last_ts = T0 + i * 20 * SEC + 3 * SEC }, 0);
		hist__add(&t->hists[H_WRITE_LAT], SAVE_WRITE_NS / SAVE_WRITES, SAVE_WRITES);
		hist__add(&t->hists[H_FSYNC_LAT], SAVE_FSYNC_NS, 1);
	}
	return err;
}

/* labels.csv: first seen by a relative stat, then opened and read in order. */
static int add_labels(struct trace *t)
{
	return add_file(t, DEV_DATA, 1500, "/data/./train/../train/labels.csv",
			(struct file_stats){
			.flags = FILE_F_REG | FILE_F_RELPATH, .size = 245760, .stats = 1,
			.meta_ns = STAT_NS, .first_ts = T0 + 400 * MS }, 0) ?:
	       add_file(t, DEV_DATA, 1500, "/data/train/labels.csv", (struct file_stats){
			.flags = FILE_F_REG, .size = 245760, .opens = 1, .closes = 1,
			.reads = 5, .read_bytes = 245760, .read_ns = 4 * 350 * US + EOF_READ_NS,
			.reads_consec = 4, .reads_seq = 4, .first_end = 65536,
			.last_end = 245760, .max_end = 245760, .meta_ns = OPEN_NS + CLOSE_NS,
			.cache_pages = 60, .last_ts = T0 + 500 * MS }, 1);
}

/* Directories listed or stat-ed, a stat through "..", paths never resolved. */
static int add_odd_files(struct trace *t)
{
	return add_file(t, DEV_DATA, 900, "/data/train", (struct file_stats){
			.flags = FILE_F_DIR, .opens = 2, .closes = 2, .stats = 2,
			.getdents = 14, .meta_ns = 2 * (OPEN_NS + STAT_NS + CLOSE_NS) +
			14 * GETDENTS_NS, .first_ts = T0 + 200 * MS }, 0) ?:
	       add_file(t, DEV_DATA, 901, "/data/val", (struct file_stats){
			.flags = FILE_F_DIR, .opens = 1, .closes = 1, .getdents = 3,
			.meta_ns = OPEN_NS + CLOSE_NS + 3 * GETDENTS_NS }, 0) ?:
	       add_file(t, DEV_DATA, 902, "/data/shards", (struct file_stats){
			.flags = FILE_F_DIR, .stats = 3, .meta_ns = 3 * STAT_NS }, 0) ?:
	       add_file(t, DEV_DATA, 2100, "/data/train/../val/./meta.json",
			(struct file_stats){ .flags = FILE_F_REG | FILE_F_RELPATH,
			.size = 1033, .stats = 8, .meta_ns = 8 * STAT_NS }, 0) ?:
	       add_file(t, DEV_ANON, 5551, NULL, (struct file_stats){
			.flags = FILE_F_REG, .size = 40960, .opens = 2, .closes = 2,
			.reads = 10, .read_bytes = 40960, .read_ns = 10 * 8 * MS,
			.reads_consec = 4, .reads_seq = 4, .first_end = 4096,
			.last_end = 20480, .max_end = 40960, .meta_ns = 2 * 25 * US,
			.cache_pages = 10, .first_ts = T0 + 700 * MS }, 0) ?:
	       add_file(t, DEV_ANON, 5552, NULL, (struct file_stats){
			.flags = FILE_F_REG, .size = 512, .stats = 2, .meta_ns = 2 * 8 * US }, 0);
}

/* A parquet file whose path was longer than the kernel's buffer: its tail. */
static int add_truncated(struct trace *t)
{
	char path[PATH_LEN];
	int n = 0;

	while (n < PATH_LEN - 64)
		n += snprintf(path + n, sizeof(path) - n, "/partition=%04d", 2000 + n / 15);
	snprintf(path + n, sizeof(path) - n, "/part-00017-c000.snappy.parquet");
	return add_file(t, DEV_DATA, 3000, path, (struct file_stats){
		.flags = FILE_F_REG | FILE_F_TRUNC, .size = 48 * MIB, .opens = 1,
		.closes = 1, .stats = 1, .reads = 12, .read_bytes = 12 * MIB,
		.read_ns = 12 * 9 * MS, .read_ns_max = 25 * MS, .reads_consec = 3,
		.reads_seq = 6, .first_off = 40 * MIB, .first_end = 41 * MIB,
		.last_end = 9 * MIB, .max_end = 48 * MIB, .meta_ns = OPEN_NS + STAT_NS + CLOSE_NS,
		.cache_pages = 12 * MIB / 4096, .first_ts = T0 + 45 * SEC,
		.last_ts = T0 + 46 * SEC }, 0);
}

static int fill_files(struct trace *t)
{
	int err = add_images(t, "/data/train", 1000, 24, 40) ?:
		  add_images(t, "/data/val", 2000, 8, 10) ?:
		  add_libs(t) ?: add_checkpoint(t) ?: add_labels(t) ?:
		  add_odd_files(t) ?: add_truncated(t) ?: add_saves(t);

	for (int i = 0; i < 4 && !err; i++)
		err = add_shard(t, i);
	return err;
}

/*
 * The last shard read through io_uring by the second PyTorch worker, 4 on
 * its ring at each submit and 3.5 on the file on average; 2 of its reads
 * found their file only at completion (a linked open's fixed slot), and
 * one more is still in flight at the end. Call after fill_threads().
 */
#define URING_READS	128
#define URING_LAT	(2100 * US)

static int fill_async(struct trace *t)
{
	struct file_rec *f = store__find(&t->store, DEV_DATA, 3103, 0);
	struct thread_rec *th = threads__find(&t->store.threads, 4402);
	struct async_file a = {
		.reads = URING_READS - 2, .depth = (URING_READS - 2) * 7 / 2, .late = 2,
		.inflight = 1, .depth_max = 4 };
	__u64 *c = t->counters;

	if (!f || !th)
		return -ENOENT;
	c[C_URING_READS] = URING_READS;
	c[C_URING_READ_BYTES] = URING_READS * MIB;
	c[C_ASYNC_SUBMITS] = URING_READS;
	c[C_ASYNC_DEPTH_SUM] = URING_READS * 4;
	c[C_ASYNC_FILE_LATE] = 2;
	hist__add(&t->hists[H_ASYNC_DEPTH], 4, URING_READS);
	hist__add(&t->hists[H_URING_LAT], URING_LAT, URING_READS);
	th->async_reads = URING_READS;
	th->async_depth = URING_READS * 4;
	t->async_in_flight = 1;
	return store__add_async(&t->store, f, &a);
}

/* ---- threads ---- */

static int add_thread(struct trace *t, __u32 tid, const char *comm,
		      struct thread_stats ts)
{
	int err;

	ts.tgid = TGID;
	snprintf(ts.comm, sizeof(ts.comm), "%s", comm);
	/* The trainer's container, and the DataLoader workers' sidecar-like one. */
	ts.cgid = strcmp(comm, "pt_data_worker") ? CG_TRAINER : CG_LOADER;
	err = threads__merge(&t->store.threads, tid, &ts);
	return err ?: cgroups__add(&t->cgroups, &ts);
}

/* The two containers' paths, as cgroups__resolve() would find them. */
static int name_cgroups(struct trace *t)
{
	struct cgroup_rec *a = cgroups__find(&t->cgroups, CG_TRAINER);
	struct cgroup_rec *b = cgroups__find(&t->cgroups, CG_LOADER);

	if (!a || !b)
		return -ENOENT;
	return cgroup__set_path(a, "/kubepods.slice/kubepods-burstable.slice/"
				"kubepods-burstable-pod8f2c1d4e_97ab_4c1e_b7a2_5d3e9f0a1b2c.slice/"
				"cri-containerd-3f9a8c7e6d5b4a392817f6e5d4c3b2a19f8e7d6c5b4a39281706f5e4d3c2b1a0.scope") ?:
		cgroup__set_path(b, "/kubepods/besteffort/pod0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9/"
				 "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d");
}

/*
 * The saver thread that wrote the checkpoints (add_saves()): mostly asleep,
 * waiting for the next save; the loop joins it at each (fixture_wakes).
 */
#define SAVER		4250

static int add_saver(struct trace *t)
{
	struct thread_rec *th;
	int err = add_thread(t, SAVER, "pt_saver", (struct thread_stats){
		.cpu_ns = 900 * MS, .io_wait_ns = 4 * SEC, .runq_ns = 100 * MS,
		.sleep_ns = 55 * SEC });

	th = threads__find(&t->store.threads, SAVER);
	if (err || !th)
		return err ?: -ENOENT;
	th->w = (struct write_counters){
		.writes = 2 * SAVE_WRITES, .write_bytes = 2 * SAVE_WRITES * 4 * MIB,
		.write_ns = 2 * SAVE_WRITE_NS, .fsyncs = 2, .fsync_ns = 2 * SAVE_FSYNC_NS,
		.commits = 2, .commit_ns = 2 * SAVE_CLOSE_NS };
	return 0;
}

/*
 * The main thread, a tf.data pool of three, two PyTorch workers, a saver,
 * an idle helper.
 */
static int fill_threads(struct trace *t)
{
	int err = add_thread(t, TGID, "python3", (struct thread_stats){
		.opens = 12, .reads = 17, .read_bytes = 270336, .read_ns = 4 * MS,
		.stats = 12, .meta_ns = 2 * MS, .cache_pages = 50100,
		.cpu_ns = 21300 * MS, .io_wait_ns = 400 * MS, .runq_ns = 900 * MS,
		.sleep_ns = 37400 * MS });

	for (int i = 1; i <= 3 && !err; i++) {
		char comm[COMM_LEN];

		snprintf(comm, sizeof(comm), "tf_data_%d", i);
		err = add_thread(t, 4300 + i, comm, (struct thread_stats){
			.opens = 340 - i * 7, .reads = 680 - i * 14,
			.read_bytes = (41 - i) * MIB, .read_ns = (150 - i * 3) * MS,
			.stats = 340 - i * 7, .meta_ns = (380 - i * 8) * MS,
			.cache_pages = 2900 + i * 13, .cpu_ns = (9100 + i * 700) * MS,
			.io_wait_ns = 31 * SEC, .runq_ns = 2200 * MS,
			.sleep_ns = (17700 - i * 700) * MS });
	}
	for (int i = 0; i < 2 && !err; i++)
		err = add_thread(t, 4401 + i, "pt_data_worker", (struct thread_stats){
			.opens = 2 - i, .reads = 384 - i * 64, .read_bytes = (384 - i * 64) * MIB,
			.read_ns = (790 - i * 150) * MS, .stats = 2, .meta_ns = 3 * MS,
			.cache_pages = (96 - i * 16) * 256, .cpu_ns = 14 * SEC,
			.io_wait_ns = 12 * SEC, .runq_ns = 300 * MS, .sleep_ns = 33700 * MS });
	if (!err)
		err = add_saver(t);
	/* A second interval of tf_data_1: merged into the same record. */
	return err ?: add_thread(t, 4301, "tf_data_1", (struct thread_stats){
			.opens = 9, .reads = 18, .read_bytes = MIB, .read_ns = 4 * MS,
			.stats = 9, .meta_ns = 10 * MS, .cpu_ns = 300 * MS,
			.io_wait_ns = 600 * MS, .sleep_ns = 100 * MS }) ?:
		add_thread(t, 4243, "jemalloc_bg_thd", (struct thread_stats){
			.cpu_ns = 20 * MS, .sleep_ns = 59980 * MS });
}

/*
 * Who ended whose sleeps: the training loop (python3) is woken by the
 * tf.data threads (the loader) and by a timer (outside) and jemalloc's
 * background thread; the readers wake each other through their queues.
 */
static const struct wake_rec fixture_wakes[] = {
	{ TGID, 4301, 600, 7000 * MS },
	{ TGID, 4302, 450, 5200 * MS },
	{ TGID, 4303, 150, 1800 * MS },
	{ TGID, WAKER_OUTSIDE, 40, 18000 * MS },
	{ TGID, SAVER, 2, 3000 * MS },
	{ TGID, 4243, 6, 2400 * MS },
	{ 4301, 4302, 900, 6000 * MS },
	{ 4302, 4303, 880, 5800 * MS },
	{ 4303, 4301, 870, 5700 * MS },
	{ 4401, WAKER_OUTSIDE, 300, 33000 * MS },
};

/* The loops' processes, alive since boot + 81.92 s (8192 clock ticks). */
static int fixture_proc(__u32 pid, struct loop_proc *out, void *ctx)
{
	memset(out, 0, sizeof(*out));
	out->start = 8192;
	return 0;
}

/* The training loop's wait, measured from the threads and wakes above. */
static int fill_stall(struct trace *t)
{
	struct stall_opts o = {
		.root_tgid = TGID, .min_cpu_share = 0.02, .min_wakeups = 10,
	};

	for (size_t i = 0; i < sizeof(fixture_wakes) / sizeof(fixture_wakes[0]); i++) {
		const struct wake_rec *w = &fixture_wakes[i];

		if (wakes__add(&t->wakes, w->wakee, w->waker, w->wakeups, w->sleep_ns))
			return -ENOMEM;
	}
	return stall__measure(t, &o) ?: ledger__update(&t->ledger, t, fixture_proc, NULL);
}

/* ---- block layer ---- */

static void nvme_stats(struct blk_dev *d)
{
	d->dev = DISK_NVME;
	snprintf(d->name, sizeof(d->name), "nvme0n1");
	d->st[BLK_READ][WHO_TARGET] = (struct blk_stats){
		.reqs = 1800, .bytes = 1300 * 64 * KIB + 500 * 512 * KIB,
		.total_ns = 1620 * MS, .queue_ns = 120 * MS, .device_ns = 1500 * MS,
		.seq = 700, .small = 1300, .merged = 40 };
	d->st[BLK_READ][WHO_KTHREAD] = (struct blk_stats){
		.reqs = 60, .bytes = 60 * 128 * KIB, .total_ns = 42 * MS, .queue_ns = 3 * MS,
		.device_ns = 39 * MS, .seq = 50, .small = 60 };
	d->st[BLK_READ][WHO_OTHER] = (struct blk_stats){
		.reqs = 150, .bytes = 150 * 16 * KIB, .total_ns = 45 * MS, .queue_ns = 3 * MS,
		.device_ns = 42 * MS, .seq = 20, .small = 150 };
	d->st[BLK_WRITE][WHO_TARGET] = (struct blk_stats){
		.reqs = 12, .bytes = 12 * 4 * KIB, .total_ns = 6 * MS, .queue_ns = 600 * US,
		.device_ns = 5400 * US, .small = 12 };
	d->st[BLK_WRITE][WHO_KTHREAD] = (struct blk_stats){
		.reqs = 300, .bytes = 300 * 64 * KIB, .total_ns = 360 * MS, .queue_ns = 60 * MS,
		.device_ns = 300 * MS, .seq = 240, .small = 300, .merged = 35 };
	d->st[BLK_FLUSH][WHO_KTHREAD] = (struct blk_stats){
		.reqs = 20, .total_ns = 40 * MS, .device_ns = 40 * MS };
	d->st[BLK_DISCARD][WHO_OTHER] = (struct blk_stats){
		.reqs = 2, .bytes = 2 * MIB, .total_ns = 10 * MS, .device_ns = 10 * MS };
	d->busy_ns[BLK_SCOPE_DEVICE] = 22400 * MS;
	d->busy_ns[BLK_SCOPE_TARGET] = 14100 * MS;
	d->unfinished[BLK_READ] = 1;
	d->untracked[BLK_WRITE] = 3;
}

static void sda_stats(struct blk_dev *d)
{
	d->dev = DISK_SDA;
	snprintf(d->name, sizeof(d->name), "sda");
	d->st[BLK_READ][WHO_TARGET] = (struct blk_stats){
		.reqs = 40, .bytes = 40 * 32 * KIB, .total_ns = 10 * MS, .queue_ns = 1200 * US,
		.device_ns = 8800 * US, .seq = 12, .small = 40 };
	d->st[BLK_WRITE][WHO_OTHER] = (struct blk_stats){
		.reqs = 500, .bytes = 500 * 8 * KIB, .total_ns = 200 * MS, .queue_ns = 25 * MS,
		.device_ns = 175 * MS, .seq = 420, .small = 500, .merged = 80 };
	d->st[BLK_FLUSH][WHO_OTHER] = (struct blk_stats){
		.reqs = 40, .total_ns = 32 * MS, .device_ns = 32 * MS };
	d->busy_ns[BLK_SCOPE_DEVICE] = 3100 * MS;
	d->busy_ns[BLK_SCOPE_TARGET] = 10 * MS;
}

/* The devices' counts, the target's busiest first as block__read() sorts them. */
static int block_devs(struct block *b)
{
	memset(b, 0, sizeof(*b));
	b->devs = calloc(2, sizeof(*b->devs));
	if (!b->devs)
		return -ENOMEM;
	b->nr_devs = 2;
	nvme_stats(&b->devs[0]);
	sda_stats(&b->devs[1]);
	b->start_ns = T0;
	b->end_ns = T0 + TRACE_SECS * SEC;
	return 0;
}

/* One histogram sample set: the target's go into both scopes. */
struct blk_sample {
	int dev;		/* index into block.devs */
	int op;
	int hist;		/* H_BLK_* */
	int who;		/* BLK_SCOPE_TARGET: both scopes; BLK_SCOPE_DEVICE: device only */
	__u64 v, n;
};

static const struct blk_sample blk_samples[] = {
	{ 0, BLK_READ, H_BLK_QUEUE_LAT, BLK_SCOPE_TARGET, 40 * US, 1500 },
	{ 0, BLK_READ, H_BLK_QUEUE_LAT, BLK_SCOPE_TARGET, 200 * US, 300 },
	{ 0, BLK_READ, H_BLK_DEV_LAT, BLK_SCOPE_TARGET, 600 * US, 1300 },
	{ 0, BLK_READ, H_BLK_DEV_LAT, BLK_SCOPE_TARGET, 1400 * US, 500 },
	{ 0, BLK_READ, H_BLK_TOTAL_LAT, BLK_SCOPE_TARGET, 650 * US, 1300 },
	{ 0, BLK_READ, H_BLK_TOTAL_LAT, BLK_SCOPE_TARGET, 1550 * US, 499 },
	{ 0, BLK_READ, H_BLK_TOTAL_LAT, BLK_SCOPE_TARGET, 38 * MS, 1 },
	{ 0, BLK_READ, H_BLK_SIZE, BLK_SCOPE_TARGET, 64 * KIB, 1300 },
	{ 0, BLK_READ, H_BLK_SIZE, BLK_SCOPE_TARGET, 512 * KIB, 500 },
	{ 0, BLK_READ, H_BLK_INFLIGHT, BLK_SCOPE_TARGET, 1, 900 },
	{ 0, BLK_READ, H_BLK_INFLIGHT, BLK_SCOPE_TARGET, 2, 600 },
	{ 0, BLK_READ, H_BLK_INFLIGHT, BLK_SCOPE_TARGET, 6, 300 },
	{ 0, BLK_READ, H_BLK_TOTAL_LAT, BLK_SCOPE_DEVICE, 300 * US, 210 },
	{ 0, BLK_READ, H_BLK_DEV_LAT, BLK_SCOPE_DEVICE, 280 * US, 210 },
	{ 0, BLK_READ, H_BLK_QUEUE_LAT, BLK_SCOPE_DEVICE, 20 * US, 210 },
	{ 0, BLK_READ, H_BLK_SIZE, BLK_SCOPE_DEVICE, 16 * KIB, 150 },
	{ 0, BLK_READ, H_BLK_SIZE, BLK_SCOPE_DEVICE, 128 * KIB, 60 },
	{ 0, BLK_WRITE, H_BLK_QUEUE_LAT, BLK_SCOPE_TARGET, 50 * US, 12 },
	{ 0, BLK_WRITE, H_BLK_DEV_LAT, BLK_SCOPE_TARGET, 450 * US, 12 },
	{ 0, BLK_WRITE, H_BLK_TOTAL_LAT, BLK_SCOPE_TARGET, 500 * US, 12 },
	{ 0, BLK_WRITE, H_BLK_QUEUE_LAT, BLK_SCOPE_DEVICE, 200 * US, 300 },
	{ 0, BLK_WRITE, H_BLK_DEV_LAT, BLK_SCOPE_DEVICE, 1000 * US, 300 },
	{ 0, BLK_WRITE, H_BLK_SIZE, BLK_SCOPE_TARGET, 4 * KIB, 12 },
	{ 0, BLK_WRITE, H_BLK_TOTAL_LAT, BLK_SCOPE_DEVICE, 1200 * US, 300 },
	{ 0, BLK_WRITE, H_BLK_SIZE, BLK_SCOPE_DEVICE, 64 * KIB, 300 },
	{ 0, BLK_FLUSH, H_BLK_TOTAL_LAT, BLK_SCOPE_DEVICE, 2 * MS, 20 },
	{ 1, BLK_READ, H_BLK_QUEUE_LAT, BLK_SCOPE_TARGET, 30 * US, 40 },
	{ 1, BLK_READ, H_BLK_DEV_LAT, BLK_SCOPE_TARGET, 220 * US, 40 },
	{ 1, BLK_READ, H_BLK_TOTAL_LAT, BLK_SCOPE_TARGET, 250 * US, 40 },
	{ 1, BLK_READ, H_BLK_SIZE, BLK_SCOPE_TARGET, 32 * KIB, 40 },
	{ 1, BLK_WRITE, H_BLK_QUEUE_LAT, BLK_SCOPE_DEVICE, 50 * US, 500 },
	{ 1, BLK_WRITE, H_BLK_DEV_LAT, BLK_SCOPE_DEVICE, 350 * US, 500 },
	{ 1, BLK_WRITE, H_BLK_TOTAL_LAT, BLK_SCOPE_DEVICE, 400 * US, 500 },
	{ 1, BLK_WRITE, H_BLK_SIZE, BLK_SCOPE_DEVICE, 8 * KIB, 500 },
	{ 1, BLK_FLUSH, H_BLK_TOTAL_LAT, BLK_SCOPE_DEVICE, 800 * US, 40 },
};

/* d's histogram, allocated on first use as block__read() does. */
static int blk_add(struct blk_dev *d, int op, int hist, int scope, __u64 v, __u64 n)
{
	struct hist **h = &d->hists[op][hist - H_BLK_QUEUE_LAT][scope];

	if (!*h)
		*h = calloc(1, sizeof(**h));
	if (!*h)
		return -ENOMEM;
	hist__add(*h, v, n);
	return 0;
}

static int block_hists(struct block *b)
{
	int err = 0;

	for (size_t i = 0; i < sizeof(blk_samples) / sizeof(blk_samples[0]) && !err; i++) {
		const struct blk_sample *s = &blk_samples[i];
		struct blk_dev *d = &b->devs[s->dev];

		err = blk_add(d, s->op, s->hist, BLK_SCOPE_DEVICE, s->v, s->n);
		if (!err && s->who == BLK_SCOPE_TARGET)
			err = blk_add(d, s->op, s->hist, BLK_SCOPE_TARGET, s->v, s->n);
	}
	return err;
}

/* /proc/diskstats at the start: an idle loop device too, never traced. */
static const char *const ds_lines[] = {
	"   7       0 loop0 529 1 28770 526 64 304 95120 77 0 156 633 2 0 1048584 9 18 28\n",
	"   8       0 sda 120033 4410 9012345 60123 300221 150234 8812345 400123 0 250123 "
	"460246 0 0 0 0 9021 3012\n",
	" 259       0 nvme0n1 5123456 12345 812345678 3123456 2345678 345678 123456789 "
	"2345678 0 4123456 5469134 1234 0 456789 1234 45678 23456\n",
};

/* What the window added to each line of ds_lines, the same devices' counts. */
static const struct diskstat ds_deltas[] = {
	{ .dev = 7 << 20 },
	{ .dev = DISK_SDA, .reads = 40, .read_sectors = 2560, .read_ms = 10,
	  .writes = 500, .writes_merged = 80, .write_sectors = 8000, .write_ms = 200,
	  .io_ms = 3100, .weighted_ms = 242, .flushes = 40, .flush_ms = 32 },
	{ .dev = DISK_NVME, .reads = 2010, .reads_merged = 40, .read_sectors = 698560,
	  .read_ms = 1707, .writes = 312, .writes_merged = 35, .write_sectors = 38496,
	  .write_ms = 366, .in_flight = 1, .io_ms = 22400, .weighted_ms = 2123,
	  .discards = 2, .discard_sectors = 4096, .discard_ms = 10, .flushes = 20,
	  .flush_ms = 40 },
};

static void diskstat_add(struct diskstat *d, const struct diskstat *add)
{
	d->reads += add->reads;
	d->reads_merged += add->reads_merged;
	d->read_sectors += add->read_sectors;
	d->read_ms += add->read_ms;
	d->writes += add->writes;
	d->writes_merged += add->writes_merged;
	d->write_sectors += add->write_sectors;
	d->write_ms += add->write_ms;
	d->in_flight = add->in_flight;		/* a level, not a counter */
	d->io_ms += add->io_ms;
	d->weighted_ms += add->weighted_ms;
	d->discards += add->discards;
	d->discard_sectors += add->discard_sectors;
	d->discard_ms += add->discard_ms;
	d->flushes += add->flushes;
	d->flush_ms += add->flush_ms;
}

static int block_diskstats(struct block *b)
{
	size_t n = sizeof(ds_lines) / sizeof(ds_lines[0]);
	int err;

	b->ds_start.v = calloc(n, sizeof(struct diskstat));
	b->ds_end.v = calloc(n, sizeof(struct diskstat));
	if (!b->ds_start.v || !b->ds_end.v)
		return -ENOMEM;
	b->ds_start.n = b->ds_end.n = n;
	for (size_t i = 0; i < n; i++) {
		err = diskstats__parse_line(ds_lines[i], &b->ds_start.v[i]);
		if (err)
			return err;
		b->ds_end.v[i] = b->ds_start.v[i];
		diskstat_add(&b->ds_end.v[i], &ds_deltas[i]);
	}
	return 0;
}

/* ---- the rest: counters no file holds, hists, losses, the run ---- */

/* Opens of pipes and sockets, failures, forks: counted, held by no file. */
static void fill_counters(struct trace *t)
{
	__u64 *c = t->counters;

	c[C_OPENS_OTHER] = 26;
	c[C_OPENS] += c[C_OPENS_OTHER];
	c[C_OPEN_ERRORS] = 43;
	t->open_errnos[ENOENT] = 37;
	t->open_errnos[EACCES] = 3;
	t->open_errnos[ENOTDIR] = 2;
	t->open_errnos[ERRNO_SLOTS - 1] = 1;
	c[C_READ_ERRORS] = 2;
	c[C_READS_OTHER] = 310;
	c[C_STAT_ERRORS] = 9;
	c[C_FORKS] = 3;
	c[C_EXITS] = 1;
}

/* Metadata latencies, as many as the counters say: most slow, a few fast. */
static void fill_meta_hists(struct trace *t)
{
	struct hist *h = t->hists;
	const __u64 *c = t->counters;
	__u64 n = c[C_OPENS];

	hist__add(&h[H_OPEN_LAT], 30 * US, n / 5);
	hist__add(&h[H_OPEN_LAT], 4 * MS, n / 20);
	hist__add(&h[H_OPEN_LAT], OPEN_NS, n - n / 5 - n / 20);
	n = c[C_STATS];
	hist__add(&h[H_STAT_LAT], 12 * US, n / 10);
	hist__add(&h[H_STAT_LAT], STAT_NS, n - n / 10);
	hist__add(&h[H_CLOSE_LAT], CLOSE_NS, c[C_CLOSES]);
	hist__add(&h[H_GETDENTS_LAT], GETDENTS_NS, c[C_GETDENTS]);
}

static void fill_run(struct trace *t)
{
	t->mem_bytes = 16384000ULL * 1024;	/* ~15.6 GiB */
	t->drains = 75;				/* 60 on schedule, 15 early */
	t->page_size = 4096;
	snprintf(t->target, sizeof(t->target), "command 'python3 train.py --epochs 40' (pid %d)",
		 TGID);
	t->duration_s = TRACE_SECS;
	t->exit_status = 1;
	t->stopped_by = STOP_TARGET_EXIT;
	t->lost[L_FILES_FULL] = 12;
	t->lost[L_INFLIGHT] = 3;
	t->lost[L_FD_UNRESOLVED] = 5;
	t->lost[L_STATBUF] = 1;
	t->lost[L_BLK_REQS_FULL] = 2;
	t->prog_misses = 4;
	t->maps_bytes = 63308688;
	/* Debian 12's 6.12 kernel, run with two fallbacks forced (as CI runs them). */
	t->kernel.probed = true;
	snprintf(t->kernel.release, sizeof(t->kernel.release), "6.12.118+deb12-amd64");
	for (int l = 0; l < KL__MAX; l++) {
		t->kernel.layers[l].measured = true;
		snprintf(t->kernel.layers[l].how, sizeof(t->kernel.layers[l].how), "%s tracepoints",
			 kernel__layer_name(l));
	}
	t->kernel.fallbacks = t->kernel.forced = 1U << KF_CORE_READ | 1U << KF_BLOCK_RQ;
}

/* ---- the timeline: a cold first third, then a warm cache ---- */

#define COLD_SECS	20

/* Share i of total over TRACE_SECS points weighted cold : warm; sums to total. */
static __u64 share(__u64 total, int i, unsigned int cold, unsigned int warm)
{
	unsigned __int128 all = (unsigned __int128)cold * COLD_SECS +
				(unsigned __int128)warm * (TRACE_SECS - COLD_SECS);
	unsigned __int128 upto = 0, before;

	for (int k = 0; k <= i; k++) {
		before = upto;
		upto += k < COLD_SECS ? cold : warm;
	}
	return (__u64)(total * upto / all - total * before / all);
}

/* Totals of the loader threads, by the findings' 1% rule over the run. */
static void loader_totals(const struct store *s, __u64 time[4])
{
	__u64 ops = 0;

	memset(time, 0, 4 * sizeof(*time));
	for (size_t i = 0; i < s->threads.n; i++)
		ops += s->threads.v[i].io.opens + s->threads.v[i].io.reads;
	for (size_t i = 0; i < s->threads.n; i++) {
		const struct thread_rec *th = &s->threads.v[i];
		__u64 own = th->io.opens + th->io.reads;

		if (!own || own * 100 < ops)
			continue;
		time[0] += th->cpu_ns;
		time[1] += th->io_wait_ns;
		time[2] += th->runq_ns;
		time[3] += th->sleep_ns;
	}
}

/* Slow reads (64 us and more) mostly while the cache is cold. */
static void timeline_lat(const struct trace *t, struct tl_point *p, int i)
{
	const struct hist *h = &t->hists[H_READ_LAT];

	for (__u32 k = 0; k < HIST_SLOTS; k++) {
		bool slow = hist__lower(k) >= 64 * US;
		__u64 n = share(h->slots[k], i, slow ? 10 : 1, slow ? 1 : 2);

		if (n)
			tl_point__add_lat(p, hist__lower(k), n);
	}
}

static int fill_timeline(struct trace *t)
{
	const __u64 *c = t->counters;
	struct blk_stats rd;
	__u64 loader[4];
	int err = timeline__init(&t->timeline, T0, SEC);

	block__sum(&t->block, BLK_READ, WHO_BIT(WHO_TARGET), &rd);
	loader_totals(&t->store, loader);
	for (int i = 0; i < TRACE_SECS && !err; i++) {
		struct tl_point p = { .t_ns = i * SEC, .dur_ns = SEC, .intervals = 1 };
		bool cold = i < COLD_SECS;
		__u64 k;

		p.n[TL_FILES] = share(t->store.reg_opens, i, 1, 2);
		p.n[TL_OPENS] = share(c[C_OPENS], i, 1, 2);
		p.n[TL_READS] = share(c[C_READS], i, 1, 2);
		p.n[TL_READ_BYTES] = share(c[C_READ_BYTES], i, 1, 2);
		p.n[TL_READ_NS] = share(c[C_READ_NS], i, 5, 1);
		p.n[TL_CACHE_PAGES] = share(c[C_CACHE_PAGES], i, 10, 1);
		p.n[TL_BLK_READS] = share(rd.reqs, i, 10, 1);
		p.n[TL_BLK_READ_NS] = share(rd.total_ns, i, 20, 1);
		/* Warm, the few requests left are a quarter of the cold ones' size. */
		p.n[TL_BLK_READ_BYTES] = share(rd.bytes, i, 40, 1);
		p.n[TL_BUSY_NS] = cold ? 900 * MS + i * MS : 40 * MS;
		p.n[TL_CPU_NS] = share(loader[0], i, 1, 3);
		p.n[TL_IO_WAIT_NS] = share(loader[1], i, 10, 1);
		p.n[TL_RUNQ_NS] = share(loader[2], i, 1, 1);
		p.n[TL_SLEEP_NS] = share(loader[3], i, 1, 1);
		/* The loop waits for data mostly while the cache is cold. */
		p.n[TL_STALL_DATA_NS] = share(t->stall.data_wait_ns, i, 6, 1);
		p.n[TL_STALL_WALL_NS] = share(t->stall.wall_ns, i, 1, 1);
		/*
		 * The two saves, 20 s apart, each 2 s long (too short a stretch
		 * to be a phase): the loop waits through them.
		 */
		if (i % 20 < 2 && i >= 20) {
			p.n[TL_WRITES] = i % 20 ? 0 : SAVE_WRITES;
			p.n[TL_WRITE_BYTES] = p.n[TL_WRITES] * 4 * MIB;
			p.n[TL_WRITE_NS] = i % 20 ? SAVE_FSYNC_NS + SAVE_CLOSE_NS : SAVE_WRITE_NS;
			k = (i / 20 - 1) * 2 + i % 20;	/* 0..3: the points sum to the total */
			p.n[TL_STALL_WRITE_NS] = t->stall.write_wait_ns * (k + 1) / 4 -
						 t->stall.write_wait_ns * k / 4;
		}
		timeline_lat(t, &p, i);
		err = timeline__add(&t->timeline, &p);
	}
	if (!err)
		err = timeline__finish(&t->timeline);
	if (!err)
		t->timeline.last_ns = T0 + TRACE_SECS * SEC;
	return err;
}

/* The mounts of the files' devices, and a FUSE mount of images. */
#define DEV_FUSE	(0 << 20 | 52)		/* sshfs: /mnt/images */

static int add_mount(struct mounts *m, __u32 dev, const char *point, const char *fstype,
		     const char *source)
{
	struct mount_rec *v = realloc(m->recs, (m->nr + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	m->recs = v;
	v[m->nr++] = (struct mount_rec){ .dev = dev, .point = strdup(point),
		.fstype = strdup(fstype), .source = strdup(source) };
	return v[m->nr - 1].point && v[m->nr - 1].fstype && v[m->nr - 1].source ? 0 : -ENOMEM;
}

static int fill_mounts(struct mounts *m)
{
	return add_mount(m, DEV_DATA, "/data", "ext4", "/dev/nvme0n1p1") ?:
	       add_mount(m, DEV_ROOT, "/", "ext4", "/dev/sda1") ?:
	       add_mount(m, DEV_FUSE, "/mnt/images", "fuse.sshfs", "host:/images");
}

/* One opcode of the FUSE connection: n requests of lat ns, the target's all but bg. */
static int fuse_op_fill(struct fuse_conn *c, __u16 opcode, __u64 n, __u64 bg, __u64 lat,
			__u64 out_bytes)
{
	struct fuse_op *op = fuse_conn__op(c, opcode);

	if (!op)
		return -ENOMEM;
	op->st[FUSE_WHO_TARGET] = (struct fuse_stats){ .reqs = n - bg,
		.out_bytes = out_bytes, .total_ns = (n - bg) * lat, .inflight_sum = n - bg };
	op->st[FUSE_WHO_BACKGROUND] = (struct fuse_stats){ .reqs = bg, .total_ns = bg * lat,
		.background = bg, .inflight_sum = 2 * bg };
	for (int s = 0; s < FUSE_SCOPE__MAX; s++) {
		op->hists[FUSE_H_LAT][s] = calloc(1, sizeof(struct hist));
		if (!op->hists[FUSE_H_LAT][s])
			return -ENOMEM;
		hist__add(op->hists[FUSE_H_LAT][s], lat, s == FUSE_SCOPE_TARGET ? n - bg : n);
	}
	return 0;
}

static int fill_fuse(struct fuse_layer *l)
{
	struct fuse_conn *c = fuse_layer__conn(l, DEV_FUSE);

	if (!c)
		return -ENOMEM;
	c->conn = DEV_FUSE;
	return fuse_op_fill(c, FUSE_OP_LOOKUP, 12, 0, 2100 * US, 0) ?:
	       fuse_op_fill(c, FUSE_OP_OPEN, 10, 0, 2200 * US, 0) ?:
	       fuse_op_fill(c, FUSE_OP_READ, 24, 4, 2300 * US, 10 * 81920) ?:
	       fuse_op_fill(c, FUSE_OP_RELEASE, 10, 10, 150 * US, 0);
}

int fixture__trace(struct trace *t)
{
	int err;

	memset(t, 0, sizeof(*t));
	err = store__init(&t->store);
	if (err)
		return err;
	fill_run(t);
	err = fill_files(t) ?: fill_threads(t) ?: name_cgroups(t) ?: block_devs(&t->block) ?:
	      block_hists(&t->block) ?: block_diskstats(&t->block) ?:
	      fill_mounts(&t->mounts) ?: fill_fuse(&t->fuse);
	if (err) {
		fixture__free(t);
		return err;
	}
	fill_counters(t);
	fill_meta_hists(t);
	err = fill_async(t) ?: fill_stall(t) ?: fill_timeline(t);
	if (err)
		fixture__free(t);
	return err;
}

/*
 * A second rank of the trainer's pod (pid 4343, its own container) and a
 * Slurm job's loop (pid 5151, job 4242), with the Slurm job's cgroup: the
 * run's own loop stays the one that waits most.
 */
#define RANK2		4343
#define SLURM_LOOP	5151
#define CG_RANK2	7004

static int add_node_loops(struct trace *t)
{
	struct stall *v = realloc(t->loops, 3 * sizeof(*v));
	struct thread_stats rank = { .tgid = RANK2, .cgid = CG_RANK2, .opens = 40, .reads = 80,
				     .read_bytes = 20 * MIB, .read_ns = 60 * MS, .stats = 40,
				     .meta_ns = 30 * MS };
	/* The Slurm job reads 6000 small files over the minute, 3 ms a read. */
	struct thread_stats job = { .tgid = SLURM_LOOP, .cgid = CG_SLURM, .opens = 6000,
				    .reads = 12000, .read_bytes = 6000 * 96 * KIB,
				    .read_ns = 6000 * 3 * MS, .stats = 6000, .meta_ns = 4 * SEC };
	int err;

	if (!v)
		return -ENOMEM;
	t->loops = v;
	v[1] = v[2] = v[0];
	v[1].how = v[2].how = CONSUMER_FED;
	snprintf(v[1].why, sizeof(v[1].why), "a process main thread the loader feeds");
	snprintf(v[2].why, sizeof(v[2].why), "a process main thread the loader feeds");
	v[1].tid = v[1].tgid = SLURM_LOOP;
	v[1].cgid = CG_SLURM;
	v[1].data_wait_ns = 11 * SEC;		/* 18%, the rest computing */
	v[1].loader_wait_ns = 11 * SEC;
	v[1].on_cpu_ns += 3400 * MS + v[1].write_wait_ns;	/* no saves */
	v[1].write_wait_ns = v[1].own_write_ns = v[1].writer_wait_ns = 0;
	v[1].writer_wakeups = v[1].writer_threads = 0;
	v[1].cause = "small_file_storm";
	v[2].tid = v[2].tgid = RANK2;
	v[2].cgid = CG_RANK2;
	v[2].data_wait_ns = 3 * SEC;		/* 5%: it waits for rank 0 instead */
	v[2].loader_wait_ns = 3 * SEC;
	v[2].rank_wait_ns = 11400 * MS;
	v[2].cause = "none";
	t->nr_loops = 3;
	err = cgroups__add(&t->cgroups, &rank) ?: cgroups__add(&t->cgroups, &job);
	return err ?: cgroup__set_path(cgroups__find(&t->cgroups, CG_RANK2),
				       "/kubepods.slice/kubepods-burstable.slice/"
				       "kubepods-burstable-pod8f2c1d4e_97ab_4c1e_b7a2_5d3e9f0a1b2c.slice/"
				       "cri-containerd-5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f.scope") ?:
		cgroup__set_path(cgroups__find(&t->cgroups, CG_SLURM),
				 "/system.slice/slurmstepd.scope/job_4242/step_0");
}

int fixture__node_trace(struct trace *t)
{
	int err = fixture__trace(t);

	if (!err && (err = add_node_loops(t)))
		fixture__free(t);
	return err;
}

void fixture__free(struct trace *t)
{
	timeline__free(&t->timeline);
	block__free(&t->block);
	fuse_layer__free(&t->fuse);
	nfs_layer__free(&t->nfs);
	mounts__free(&t->mounts);
	cgroups__free(&t->cgroups);
	ledger__free(&t->ledger);
	store__free(&t->store);
	wakes__free(&t->wakes);
	free(t->loops);
	stall__starts_free(t);
	t->loops = NULL;
	procs__free(&t->procs);
}

/* ---- interval snapshots ---- */

/*
 * 46 s into the trace, one second: 25 opens (22 of regular files), 85
 * reads (70 from the cache, 15 from the device), 42 target block reads on
 * nvme0n1 busy 310 ms for the target, one on sda.
 */
int fixture__snaps(struct trace_snap *a, struct trace_snap *b)
{
	struct blk_dev *d;
	int err;

	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	err = block_devs(&a->block) ?: block_devs(&b->block);
	if (err) {
		fixture__snaps_free(a, b);
		return err;
	}
	a->ns = T0 + 45 * SEC;
	b->ns = a->ns + SEC;
	a->reg_opens = 650;
	b->reg_opens = 672;
	a->counters[C_OPENS] = 700;
	b->counters[C_OPENS] = 725;
	a->counters[C_READS] = 1900;
	b->counters[C_READS] = 1985;
	a->counters[C_READ_BYTES] = 600 * MIB;
	b->counters[C_READ_BYTES] = 612 * MIB;
	hist__add(&a->read_lat, 250 * US, 1900);
	b->read_lat = a->read_lat;
	hist__add(&b->read_lat, 250 * US, 70);
	hist__add(&b->read_lat, 2100 * US, 15);
	d = &a->block.devs[0];
	d->st[BLK_READ][WHO_TARGET].reqs -= 42;
	d->st[BLK_READ][WHO_TARGET].total_ns -= 42 * 900 * US;
	d->busy_ns[BLK_SCOPE_TARGET] -= 310 * MS;
	a->block.devs[1].st[BLK_READ][WHO_TARGET].reqs -= 1;
	a->block.devs[1].st[BLK_READ][WHO_TARGET].total_ns -= 250 * US;
	/* The training loop waited 400 ms for data in the 950 ms it had a CPU. */
	a->consumer_tid = b->consumer_tid = TGID;
	a->consumer_data_ns = 14000 * MS;
	b->consumer_data_ns = 14400 * MS;
	a->consumer_wall_ns = 58150 * MS;
	b->consumer_wall_ns = 59100 * MS;
	return 0;
}

void fixture__snaps_free(struct trace_snap *a, struct trace_snap *b)
{
	block__free(&a->block);
	block__free(&b->block);
}

/* ---- a small block layer ---- */

/*
 * loop0: the target read 100 requests of 32 KiB (2 ms each: 0.5 queued),
 * 90 sequential, all small, 2 merged, and wrote 10 of 4 KiB; a kernel
 * thread read 20 of 128 KiB; another process wrote 5 of 8 KiB. vda: a
 * kernel thread's reads only. Over 2 s, with diskstats around it.
 */
void fixture__block_sample(struct block *b)
{
	struct blk_dev *d;

	memset(b, 0, sizeof(*b));
	b->devs = calloc(2, sizeof(*b->devs));
	if (!b->devs)
		return;
	b->nr_devs = 2;
	d = &b->devs[0];
	d->dev = (7 << 20 | 0);
	snprintf(d->name, sizeof(d->name), "loop0");
	d->st[BLK_READ][WHO_TARGET] = (struct blk_stats){
		.reqs = 100, .bytes = 100 * 32768, .total_ns = 200 * MS,
		.queue_ns = 50 * MS, .device_ns = 150 * MS, .seq = 90, .small = 100,
		.merged = 2 };
	d->st[BLK_WRITE][WHO_TARGET] = (struct blk_stats){
		.reqs = 10, .bytes = 10 * 4096, .total_ns = 10 * MS, .device_ns = 10 * MS,
		.small = 10 };
	d->st[BLK_READ][WHO_KTHREAD] = (struct blk_stats){
		.reqs = 20, .bytes = 20 * 131072, .total_ns = 20 * MS, .device_ns = 20 * MS,
		.small = 20 };
	d->st[BLK_WRITE][WHO_OTHER] = (struct blk_stats){
		.reqs = 5, .bytes = 5 * 8192, .total_ns = 5 * MS, .device_ns = 5 * MS,
		.small = 5 };
	d->busy_ns[BLK_SCOPE_DEVICE] = 500 * MS;
	d->busy_ns[BLK_SCOPE_TARGET] = 400 * MS;
	d->unfinished[BLK_READ] = 1;
	d->untracked[BLK_WRITE] = 2;
	d->hists[BLK_READ][H_BLK_TOTAL_LAT - H_BLK_QUEUE_LAT][BLK_SCOPE_TARGET] =
		calloc(1, sizeof(struct hist));
	if (d->hists[BLK_READ][H_BLK_TOTAL_LAT - H_BLK_QUEUE_LAT][BLK_SCOPE_TARGET])
		hist__add(d->hists[BLK_READ][H_BLK_TOTAL_LAT - H_BLK_QUEUE_LAT][BLK_SCOPE_TARGET],
			  2 * MS, 100);
	d = &b->devs[1];
	d->dev = 254 << 20;
	snprintf(d->name, sizeof(d->name), "vda");
	d->st[BLK_READ][WHO_KTHREAD] = (struct blk_stats){
		.reqs = 7, .bytes = 7 * 4096, .total_ns = 7 * MS, .device_ns = 7 * MS };
	b->start_ns = 1000 * MS;
	b->end_ns = 3000 * MS;
	b->ds_start.v = calloc(1, sizeof(struct diskstat));
	b->ds_end.v = calloc(1, sizeof(struct diskstat));
	if (!b->ds_start.v || !b->ds_end.v)
		return;
	b->ds_start.n = b->ds_end.n = 1;
	diskstats__parse_line(FIXTURE_DISKSTATS_6X, b->ds_start.v);
	*b->ds_end.v = *b->ds_start.v;
	b->ds_end.v->reads += 120;
	b->ds_end.v->read_sectors += (100 * 32768 + 20 * 131072) / 512;
}

/* ---- a storm on NFS ---- */

#define NFS_RTT		(1100 * US)
#define NFS_CALL	(1300 * US)

/* n calls of proc (named name) of who on r, each a round trip and a call as above. */
static int nfs_op_fill(struct nfs_rpc *r, __u16 proc, const char *name, int who, __u64 n,
		       __u64 recv)
{
	struct nfs_op *op = nfs_rpc__op(r, proc);

	if (!op)
		return -ENOMEM;
	snprintf(op->name, sizeof(op->name), "%s", name);
	op->st[who] = (struct nfs_stats){ .calls = n, .trans = n, .bytes_sent = 200 * n,
		.bytes_recv = recv, .queue_ns = n * 50 * US, .rtt_ns = n * NFS_RTT,
		.total_ns = n * NFS_CALL, .async = !strcmp(name, "READ") ||
		!strcmp(name, "CLOSE") ? n : 0, .inflight_sum = 2 * n };
	for (int h = 0; h < NFS_H__MAX; h++)
		for (int s = 0; s < NFS_SCOPE__MAX; s++) {
			__u64 v = h == NFS_H_RTT ? NFS_RTT : h == NFS_H_TOTAL ? NFS_CALL :
				  h == NFS_H_QUEUE ? 50 * US : 2;

			if (s == NFS_SCOPE_TARGET && who != NFS_WHO_TARGET)
				continue;
			op->hists[h][s] = calloc(1, sizeof(struct hist));
			if (!op->hists[h][s])
				return -ENOMEM;
			hist__add(op->hists[h][s], v, n);
		}
	return 0;
}

static int nfs_calls(struct nfs_layer *l)
{
	struct nfs_rpc *c = nfs_layer__rpc(l, 3), *m;
	const struct nfs_clnt info = { .prog = NFS_PROGRAM, .vers = 4, .minor = 2,
				       .addrlen = 16,
				       .addr = { 2, 0, 0, 0, 10, 0, 0, 5 } };	/* AF_INET */
	__u64 n = FIXTURE_NFS_FILES;
	int err;

	if (!c)
		return -ENOMEM;
	c->known = true;
	c->info = info;
	c->info.role = NFS_ROLE_CLIENT;
	c->info.parent = 3;
	err = nfs_op_fill(c, 53, "SEQUENCE", NFS_WHO_CLIENT, 10, 10 * 88);
	m = nfs_layer__rpc(l, 7);
	if (err || !m)
		return err ?: -ENOMEM;
	m->known = true;
	m->info = info;
	m->info.role = NFS_ROLE_MOUNT;
	m->info.dev = FIXTURE_NFS_DEV;
	m->info.parent = 3;
	err = nfs_op_fill(m, 1, "READ", NFS_WHO_TARGET, n, n * (64 * KIB + 100)) ?:
	      nfs_op_fill(m, 4, "OPEN", NFS_WHO_TARGET, n, n * 300) ?:
	      nfs_op_fill(m, 6, "CLOSE", NFS_WHO_TARGET, n, n * 100) ?:
	      nfs_op_fill(m, 15, "GETATTR", NFS_WHO_TARGET, n / 10, n / 10 * 250) ?:
	      nfs_op_fill(m, 17, "LOOKUP", NFS_WHO_TARGET, n, n * 350);
	if (!err) {
		m->ops[0].inflight_end[NFS_WHO_TARGET] = 2;
		nfs_layer__sort(l);
	}
	return err;
}

static int nfs_mount(struct mounts *m, const char *mnt)
{
	int err = add_mount(m, FIXTURE_NFS_DEV, mnt, "nfs4", "10.0.0.5:/data");

	if (!err) {
		m->recs[m->nr - 1].options = strdup("rw,vers=4.2,rsize=524288,wsize=524288,"
						    "namlen=255,hard,proto=tcp,timeo=600,"
						    "retrans=2,sec=sys,addr=10.0.0.5");
		err = m->recs[m->nr - 1].options ? 0 : -ENOMEM;
	}
	return err;
}

int fixture__nfs_trace(struct trace *t, const char *mnt, bool mount_known)
{
	char path[160];
	int err;

	memset(t, 0, sizeof(*t));
	err = store__init(&t->store);
	if (err)
		return err;
	t->duration_s = 20;
	t->page_size = 4096;
	t->exit_status = -1;
	snprintf(t->target, sizeof(t->target), "command 'python3 load.py'");
	t->store.mounts = mount_known ? &t->mounts : NULL;
	err = nfs_mount(&t->mounts, mnt) ?: nfs_calls(&t->nfs);
	for (int i = 0; i < FIXTURE_NFS_FILES && !err; i++) {
		snprintf(path, sizeof(path), "%s/train/%03d/img_%04d.jpg", mnt, i % 10, i);
		err = add_file(t, FIXTURE_NFS_DEV, 9000 + i, path, (struct file_stats){
			.flags = FILE_F_REG, .size = 64 * KIB, .opens = 1, .closes = 1,
			.reads = 2, .read_bytes = 64 * KIB, .read_ns = NFS_CALL + EOF_READ_NS,
			.reads_consec = 1, .reads_seq = 1, .first_end = 64 * KIB,
			.last_end = 64 * KIB, .max_end = 64 * KIB,
			.meta_ns = 2 * NFS_CALL + CLOSE_NS, .cache_pages = 16,
			.first_ts = T0 + (i * 7 % FIXTURE_NFS_FILES) * 50 * MS,
			.last_ts = T0 + (i * 7 % FIXTURE_NFS_FILES) * 50 * MS + 3 * MS }, 1);
	}
	for (int l = 0; l < KL__MAX; l++)
		t->kernel.layers[l].measured = true;
	t->kernel.probed = true;
	if (err)
		fixture__free(t);
	return err;
}
