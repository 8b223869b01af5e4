// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The thresholds, see thresholds.h: the one place they are defined and
 * explained, and the parsing of --threshold NAME=VALUE.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "findings/thresholds.h"
#include "lib/log.h"

struct th_def {
	const char *name;
	double def;
	const char *unit;
	const char *why;
};

static const struct th_def th_defs[TH__MAX] = {
	[TH_MIN_READS] = { "min_reads", 100, "reads",
		"fewer reads than this in the trace: too little file I/O to judge" },
	[TH_STORM_FILES] = { "storm_files", 1000, "files",
		"small_file_storm: at least this many distinct files read (per-file costs "
		"add up only over many files; Darshan keeps 1,024 records, datasets hold 100k+)" },
	[TH_STORM_MEDIAN] = { "storm_median_bytes", 1048576, "bytes",
		"small_file_storm: median size of the files read at most this (Drishti's "
		"small-request limit, 1 MiB; ImageNet JPEGs are ~110 KiB)" },
	[TH_STORM_RATE] = { "storm_files_per_s", 100, "files/s",
		"small_file_storm: at least this many new files read per second (each costs "
		"an open, a stat, a close and at least one request of its own)" },
	[TH_STORM_WHOLE] = { "storm_whole_share", 0.5, "fraction",
		"small_file_storm: at least this share of the files read to 90% of their "
		"size or more (a sample per file, read whole)" },
	[TH_STORM_RANDOM] = { "storm_random", 0.5, "fraction",
		"file_order_random at or above which files are said to be read in random "
		"order (path order 0, a shuffle ~1)" },
	[TH_SHARD_BYTES] = { "shard_bytes", 268435456, "bytes",
		"shard size the advice packs small files into (TFRecord, WebDataset and "
		"LMDB guidance: 100 MB to 1 GB)" },
	[TH_PACKED_READ] = { "packed_read_bytes", 1048576, "bytes",
		"read size assumed for packed shards read sequentially, to estimate reads/s" },
	[TH_RANDOM_SHARE] = { "random_share", 0.2, "fraction",
		"random_access: share of the target's block reads not continuing the previous "
		"request above this (Drishti: 20%)" },
	[TH_RANDOM_MIN] = { "random_min_reqs", 1000, "requests",
		"random_access: and more block reads than this (Drishti: 1000)" },
	[TH_SMALL_SHARE] = { "small_share", 0.1, "fraction",
		"small_requests: share of block reads of at most 128 KiB above this "
		"(Drishti: 10%)" },
	[TH_SMALL_MIN] = { "small_min_reqs", 1000, "requests",
		"small_requests: and more block reads than this (Drishti: 1000)" },
	[TH_META_SHARE] = { "meta_share", 0.3, "fraction",
		"metadata_overhead (WARN): open+stat+close+getdents time at least this share "
		"of the time in file syscalls" },
	[TH_META_HIGH] = { "meta_share_high", 0.6, "fraction",
		"metadata_overhead is HIGH from this share, when threads also wait on I/O" },
	[TH_META_MIN] = { "meta_min_ops", 1000, "ops",
		"metadata_overhead: at least this many opens + stats (Drishti's > 1000 ops)" },
	[TH_IO_WAIT_HIGH] = { "io_wait_high", 0.5, "fraction",
		"I/O threads off CPU waiting on file I/O at least this share of their time: "
		"storage holds the job back (HIGH)" },
	[TH_IO_WAIT_WARN] = { "io_wait_warn", 0.2, "fraction",
		"I/O wait share from which storage slows the job noticeably (WARN)" },
	[TH_CPU_BOUND] = { "cpu_bound", 0.7, "fraction",
		"cpu_bound: I/O threads on CPU (or waiting for one) at least this share of "
		"their time" },
	[TH_CPU_IO_WAIT] = { "cpu_bound_io_wait", 0.1, "fraction",
		"cpu_bound: and waiting on I/O less than this share" },
	[TH_RUNQ_HIGH] = { "runq_high", 0.2, "fraction",
		"cpu_bound is WARN (CPU-starved) when threads wait for a CPU this share of "
		"their time or more" },
	[TH_CACHE_MISS] = { "cache_miss", 0.1, "fraction",
		"reads are served from the page cache when less than this share of the bytes "
		"read was brought in from storage" },
	[TH_MEM_FIT] = { "mem_fit_share", 0.5, "fraction",
		"the working set fits in memory below this share of MemTotal (the rest is "
		"the job's own memory)" },
	[TH_READERS_MANY] = { "readers_many", 4, "reads",
		"parallelism: with storage capped or saturated, this many reads in flight "
		"or more are more than it serves" },
	[TH_READERS_FEW] = { "readers_few", 8, "reads",
		"parallelism: below this many reads in flight, an idle device and threads "
		"waiting on I/O call for more readers (a typical num_workers)" },
	[TH_READERS_GAIN] = { "readers_gain_max", 4, "x",
		"parallelism: the most the advice multiplies readers by (Little's law holds "
		"only while the device has headroom)" },
	[TH_UTIL_IDLE] = { "util_idle", 0.5, "fraction",
		"parallelism: the device is said to have headroom below this busy share "
		"(%util understates headroom on SSD and NVMe)" },
	[TH_UTIL_BUSY] = { "util_busy", 0.9, "fraction",
		"parallelism: a slow device busy this share of the time with many requests "
		"in flight is saturated" },
	[TH_STALL_HIGH] = { "stall_high", 0.2, "fraction",
		"input_bound is HIGH when the training loop waits for data at least this "
		"share of its time (TensorFlow Profiler: >= 20% \"highly input-bound\")" },
	[TH_STALL_WARN] = { "stall_warn", 0.05, "fraction",
		"input_bound is WARN from this share (TensorFlow Profiler: >= 5% "
		"\"moderately input-bound\"); below it the loader keeps up and storage "
		"findings are costs, at most WARN" },
	[TH_CONSUMER_CPU] = { "consumer_cpu_share", 0.02, "fraction",
		"a thread is the training loop only if it computes (on CPU outside file "
		"syscalls) at least this share of the time its loader leaves it (apart "
		"from the sleeps the loader ended): a launcher that only waits is not one" },
	[TH_CONSUMER_WAKES] = { "consumer_min_wakeups", 10, "wakeups",
		"and the loader side woke it at least this often (once per batch), or it "
		"read files itself this often (num_workers=0)" },
	[TH_MAPPED_MIN] = { "mapped_min_faults", 100, "faults",
		"mapped_reads: at least this many faults that read a mapped file from "
		"storage (a mapped dataset: LMDB, np.memmap, Arrow); they count as reads "
		"against min_reads too" },
	[TH_MAPPED_RANDOM] = { "mapped_random", 0.5, "fraction",
		"mapped_reads: faults are said to be random when at least this share of "
		"them is not within the stride of the one before on the same file" },
	[TH_LOADER_IDLE] = { "loader_idle", 0.3, "fraction",
		"input_cause: the loader's working threads asleep (not on CPU, not waiting "
		"on I/O) at least this share of their time while the loop waits for data: "
		"they wait for work, the prefetch is too short" },
	[TH_OWN_IO] = { "own_io", 0.5, "fraction",
		"input_cause: the loop's own file I/O is at least this share of its data "
		"wait, and no other process loads for it: loading is serialized in the "
		"loop's process (num_workers=0); or its CPU receiving batches is (with "
		"the handshakes' round trips, if the loader is not short of CPU): the "
		"receiving is the cause" },
	[TH_IOPS_BOUND] = { "iops_bound_util", 0.75, "fraction",
		"storage_bottleneck: fast requests, threads storage-bound and the device "
		"busy at least this share of the time: the device is IOPS-bound (on a "
		"device serving requests in parallel %util saturates before the IOPS do)" },
	[TH_LARGE_REQ] = { "large_req_bytes", 262144, "bytes",
		"storage_bottleneck: block reads of at least this mean size are already "
		"large: a saturated or slow device is then advised faster storage or "
		"memory, not fewer, larger reads" },
	[TH_SLOW_READ_US] = { "slow_read_us", 1000, "us",
		"without block or thread data, a read p50 above this is called slow "
		"(a page-cache hit takes ~10 us, an SSD read ~100 us)" },
	[TH_SLOW_REQ_US] = { "slow_request_us", 1000, "us",
		"a block read is slow (a slow device, or saturated) when it takes at least "
		"this much (an SSD serves a 4 KiB read in ~0.1 ms, an HDD seeks ~8 ms), "
		"plus slow_request_us_per_mib per MiB it carries" },
	[TH_SLOW_REQ_US_PER_MIB] = { "slow_request_us_per_mib", 2000, "us/MiB",
		"the time a block read may take per MiB it carries before it is slow: "
		"2 ms/MiB is 500 MiB/s, a SATA SSD's transfer rate (a 2 MiB read at 1.9 ms "
		"is fast, a 4 KiB read at 1.9 ms slow)" },
	[TH_WRITE_WAIT_HIGH] = { "write_wait_high", 0.2, "fraction",
		"write_wait is HIGH when the training loop waits on its writes (its own "
		"saves, or a saver it waits for) at least this share of its time, as "
		"input_bound is for data (stall_high)" },
	[TH_WRITE_WAIT_WARN] = { "write_wait_warn", 0.05, "fraction",
		"write_wait is WARN from this share; below it the saves cost the loop "
		"little (goodput accounting counts every second of it)" },
	[TH_SAVE_BYTES] = { "save_bytes", 1048576, "bytes",
		"write_wait: a data file written with at least this many bytes is a save "
		"(a checkpoint, a shard of one); smaller ones are logs and metadata" },
};

_Static_assert(TH__MAX <= THRESHOLDS_MAX, "raise THRESHOLDS_MAX");

void thresholds__defaults(struct thresholds *t)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < TH__MAX; i++)
		t->v[i] = th_defs[i].def;
}

static int th_find(const char *name, size_t len)
{
	for (int i = 0; i < TH__MAX; i++)
		if (strlen(th_defs[i].name) == len && !strncmp(th_defs[i].name, name, len))
			return i;
	return -1;
}

/* "256M" for bytes, "25%" for fractions, a plain number for any. */
static int th_parse(const struct th_def *d, const char *s, double *out)
{
	static const char suffixes[] = "KMGT";
	bool bytes = !strcmp(d->unit, "bytes"), frac = !strcmp(d->unit, "fraction");
	const char *sfx;
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v < 0)
		return -EINVAL;
	if (bytes && *end && (sfx = strchr(suffixes, *end))) {
		v *= pow(1024, sfx - suffixes + 1);
		end++;
	} else if (frac && *end == '%') {
		v /= 100;
		end++;
	}
	if (*end || (frac && v > 1))
		return -EINVAL;
	*out = v;
	return 0;
}

int thresholds__set(struct thresholds *t, const char *assignment)
{
	const char *eq = strchr(assignment, '=');
	const struct th_def *d;
	int i;

	if (!eq) {
		pr_err("threshold '%s' needs a value: NAME=VALUE",
			assignment);
		return -EINVAL;
	}
	i = th_find(assignment, eq - assignment);
	if (i < 0) {
		pr_err("unknown threshold '%.*s': see docs/findings.md",
			(int)(eq - assignment), assignment);
		return -EINVAL;
	}
	d = &th_defs[i];
	if (th_parse(d, eq + 1, &t->v[i])) {
		pr_err("bad value '%s' for threshold '%s': want %s",
			eq + 1, d->name,
			!strcmp(d->unit, "fraction") ? "a fraction from 0 to 1, or 0% to 100%" :
			!strcmp(d->unit, "bytes") ? "bytes, with an optional K, M, G or T suffix" :
			"a number, 0 or more");
		return -EINVAL;
	}
	return 0;
}

void thresholds__print(FILE *out)
{
	char nv[64];

	for (int i = 0; i < TH__MAX; i++) {
		snprintf(nv, sizeof(nv), "%s=%.10g", th_defs[i].name, th_defs[i].def);
		fprintf(out, "  %-28s %s (%s)\n", nv, th_defs[i].why, th_defs[i].unit);
	}
}

const char *thresholds__name(int i)
{
	return i >= 0 && i < TH__MAX ? th_defs[i].name : NULL;
}

const char *thresholds__unit(int i)
{
	return i >= 0 && i < TH__MAX ? th_defs[i].unit : NULL;
}

double thresholds__get(const struct thresholds *t, const char *name)
{
	int i = th_find(name, strlen(name));

	return i < 0 ? -1 : t->v[i];
}
