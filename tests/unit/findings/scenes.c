// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the findings tests judge: a storm's evidence built by hand, and a
 * synthetic trace to take evidence from (scenes.h).
 */
#include <stdlib.h>
#include <string.h>
#include "model/hist.h"
#include "model/trace.h"
#include "findings/rules.h"
#include "scenes.h"

/*
 * Scenario 1: 20,000 files of ~80 KB read whole in random order by 8
 * threads from storage capped at ~1,000 IOPS above the device, cold cache.
 */
void scene__storm_cold_capped(struct evidence *e)
{
	memset(e, 0, sizeof(*e));
	e->duration_s = 20;
	e->files_read = 20000;
	e->opens = 20000;
	e->reads = 40000;		/* a data read and an EOF read per file */
	e->read_bytes = 20000 * 80000ULL;
	e->stats = 20000;
	e->files_per_s = 1000;
	e->opens_per_s = 1000;
	e->reads_per_s = 2000;
	e->read_bytes_per_s = 80e6;
	e->median_file_bytes = 80000;
	e->whole_file_share = 1;
	e->file_order_random = 0.98;
	e->small_read_share = 1;
	e->meta_share = 0.1;
	e->meta_s = 17.8;
	e->read_s = 160;
	e->read_p50_us = 7900;
	e->read_p99_us = 16000;
	e->read_mean_us = 4000;
	e->open_p50_us = 30;
	e->stat_p50_us = 10;
	e->io_threads = 8;
	e->cpu_share = 0.1;
	e->io_wait_share = 0.8;
	e->runq_share = 0.02;
	e->sleep_share = 0.08;
	e->read_concurrency = 8;
	e->cache_bytes = e->read_bytes;
	e->miss_share = 1;
	e->working_set_bytes = e->read_bytes;
	e->mem_total_bytes = 16 * GIB;
	e->have_block = true;
	e->blk_reads = 20000;
	e->blk_mean_bytes = (double)e->read_bytes / e->blk_reads;
	e->blk_reads_per_s = 1000;
	e->blk_random_share = 0.9;
	e->blk_small_share = 0.97;
	e->blk_await_ms = 0.2;
	e->blk_queue_share = 0.05;
	e->blk_device_p50_us = 150;
	e->blk_inflight_mean = 0.2;
	e->blk_util = 0.15;
	e->layer = LAYER_ABOVE;
}

struct trace *scene__trace_new(void)
{
	struct trace *t = calloc(1, sizeof(*t));

	if (t && store__init(&t->store)) {
		free(t);
		return NULL;
	}
	return t;
}

void scene__trace_free(struct trace *t)
{
	store__free(&t->store);
	free(t);
}

int scene__add_file(struct store *s, __u64 ino, const char *path, __u64 size,
		    __u64 bytes_read, __u64 ts)
{
	struct file_key k = { .ino = ino, .dev = 8 << 20 | 1 };
	struct file_stats fs = { .size = size, .opens = 1, .closes = 1, .first_ts = ts,
				 .last_ts = ts + 1000, .flags = FILE_F_REG };

	if (path) {
		snprintf(fs.path, sizeof(fs.path), "%s", path);
		fs.path_len = strlen(fs.path);
		fs.flags |= FILE_F_PATH;
	}
	if (bytes_read) {
		fs.flags |= FILE_F_READ;
		fs.reads = 2;
		fs.read_bytes = bytes_read;
		fs.first_end = fs.last_end = fs.max_end = bytes_read;
		fs.reads_consec = fs.reads_seq = 1;
	}
	return store__merge_file(s, &k, &fs);
}

int scene__add_thread(struct store *s, __u32 tid, __u64 opens, __u64 cpu,
		      __u64 io, __u64 runq, __u64 sleep)
{
	struct thread_stats ts = { .tgid = 100, .comm = "tf_data", .opens = opens,
				   .reads = 2 * opens, .cpu_ns = cpu, .io_wait_ns = io,
				   .runq_ns = runq, .sleep_ns = sleep };

	return threads__merge(&s->threads, tid, &ts);
}

/* Deterministic shuffle (xorshift), so the test never flakes. */
void scene__shuffle(int *a, int n)
{
	__u64 x = 88172645463325252ULL;

	for (int i = n - 1; i > 0; i--) {
		int j, tmp;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = x % (i + 1);
		tmp = a[i];
		a[i] = a[j];
		a[j] = tmp;
	}
}
