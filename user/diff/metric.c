// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * iostorm diff: what each metric is (name, kind, default limit, --help
 * text), the names of finding severities, and how a value or a change of
 * a metric is written for people.
 */
#include <math.h>
#include <stdio.h>
#include <strings.h>
#include "diff/diff_int.h"

const struct diff_metric_info diff_metrics[DM__MAX] = {
	[DM_FILES] = { "files", DK_COUNT, NULL, NULL, "the dataset's files (vfs.files less vfs.code.files)" },
	[DM_OPENS] = { "opens", DK_COUNT, NULL, NULL, "the dataset's opens (vfs.opens less vfs.code.opens)" },
	[DM_READS] = { "reads", DK_COUNT, NULL, NULL, "the dataset's reads (vfs.reads less vfs.code.reads)" },
	[DM_READ_BYTES] = { "read_bytes", DK_BYTES, NULL, NULL, "the dataset's bytes read (vfs.read_bytes less code's)" },
	[DM_STATS] = { "stats", DK_COUNT, NULL, NULL, "the dataset's stats (vfs.stats less vfs.code.stats)" },
	[DM_OPENS_PER_FILE] = { "opens_per_file", DK_RATIO, "opens_per_file>+10%", NULL,
				"opens / files" },
	[DM_READS_PER_FILE] = { "reads_per_file", DK_RATIO, "reads_per_file>+10%", NULL,
				"reads / files" },
	/* Absolute: most loaders stat almost nothing, so +10% of ~0 is noise. */
	[DM_STATS_PER_FILE] = { "stats_per_file", DK_RATIO, "stats_per_file>+0.1", NULL,
				"stats / files" },
	[DM_BYTES_PER_READ] = { "bytes_per_read", DK_BYTES, NULL, NULL,
				"read_bytes / reads: the mean read size" },
	[DM_SMALL_READ_SHARE] = { "small_read_share", DK_SHARE, "small_read_share>+10pp", NULL,
				  "reads < 256 KiB among reads with data (sizes.read)" },
	[DM_RANDOM_SHARE] = { "random_share", DK_SHARE, "random_share>+10pp", NULL,
			      "reads not at/after the previous read's end (vfs)" },
	/*
	 * Mapped data: faults that read from storage are page-cache misses,
	 * which move with the cache like blk_reads: no default limit.
	 */
	[DM_FAULT_READS_PER_FILE] = { "faults_per_file", DK_RATIO, NULL, NULL,
				      "faults that read mapped data / files (vfs.mapped)" },
	[DM_FAULT_RANDOM_SHARE] = { "fault_random_share", DK_SHARE, NULL, NULL,
				    "those faults not in the previous one's stride" },
	[DM_META_SHARE] = { "meta_share", DK_SHARE, NULL, NULL,
			    "open+stat+close+getdents share of syscall time" },
	[DM_READ_P50] = { "read_p50", DK_TIME, "read_p50>+100%", "reads",
			  "read() latency, median (latency.read)" },
	[DM_READ_P99] = { "read_p99", DK_TIME, "read_p99>+100%", "reads",
			  "read() latency, p99 (latency.read)" },
	[DM_OPEN_P99] = { "open_p99", DK_TIME, NULL, "opens",
			  "open() latency, p99 (latency.open)" },
	[DM_BLK_READS] = { "blk_reads", DK_COUNT, NULL, NULL,
			   "the target's block read requests (block.devices)" },
	[DM_BLK_RANDOM_SHARE] = { "blk_random_share", DK_SHARE, NULL, NULL,
				  "block reads not where the previous one ended" },
	[DM_BLK_P50] = { "blk_p50", DK_TIME, "blk_p50>+100%", "block reads",
			 "block read latency, median (layers.block_total)" },
	[DM_BLK_P99] = { "blk_p99", DK_TIME, "blk_p99>+100%", "block reads",
			 "block read latency, p99 (layers.block_total)" },
	[DM_IO_WAIT_SHARE] = { "io_wait_share", DK_SHARE, NULL, NULL,
			       "I/O threads' time waiting on I/O (threads[])" },
	/* Whether training waits: what a loader change must not make worse. */
	[DM_STALL_SHARE] = { "stall_share", DK_SHARE, "stall_share>+10pp", NULL,
			     "the training loop's wait for data (stall.share)" },
	/* Nor make it wait longer on its saves (a checkpoint change). */
	[DM_WRITE_SHARE] = { "write_share", DK_SHARE, "write_share>+10pp", NULL,
			     "the training loop's wait on its writes (stall.write_share; of "
			     "several loops, the most)" },
	[DM_WRITES] = { "writes", DK_COUNT, NULL, NULL, "writes of regular files (vfs.writes)" },
	[DM_WRITE_BYTES] = { "write_bytes", DK_BYTES, NULL, NULL,
			     "bytes written (vfs.write_bytes)" },
	/* An epoch's time by the loop, its start-up apart: what a fix saves. */
	[DM_LOOP_TIME] = { "loop_time", DK_TIME, NULL, NULL,
			   "the training loop's time, from its data on (stall.wall_ns)" },
	/* Round trips per file are the loader's, like opens per file: exact. */
	[DM_FUSE_REQS_PER_FILE] = { "fuse_requests_per_file", DK_RATIO,
				    "fuse_requests_per_file>+10%", NULL,
				    "the target's FUSE requests / files it opened on FUSE" },
	[DM_FUSE_RTT] = { "fuse_rtt", DK_TIME, NULL, NULL,
			  "mean FUSE round trip of the target (fuse.connections[].layers)" },
	[DM_NFS_CALLS_PER_FILE] = { "nfs_calls_per_file", DK_RATIO,
				    "nfs_calls_per_file>+10%", NULL,
				    "the target's NFS calls / files it opened on NFS "
				    "(nfs.mounts[].layers)" },
	[DM_NFS_RTT] = { "nfs_rtt", DK_TIME, NULL, NULL,
			 "mean NFS round trip of the target's calls (nfs.mounts[].layers)" },
	[DM_DURATION] = { "duration", DK_TIME, NULL, NULL, "traced wall time (duration_s)" },
};

static const char *const sev_names[] = { "OK", "INFO", "WARN", "HIGH" };

const char *diff__sev_name(int sev)
{
	return sev >= DIFF_SEV_OK && sev <= DIFF_SEV_HIGH ? sev_names[sev] : "-";
}

int diff__sev_parse(const char *s)
{
	for (int i = DIFF_SEV_OK; s && i <= DIFF_SEV_HIGH; i++)
		if (!strcasecmp(s, sev_names[i]))
			return i;
	return DIFF_SEV_NONE;
}

const char *diff__metric_name(int m)
{
	return m >= 0 && m < DM__MAX ? diff_metrics[m].name : NULL;
}

/* v in the largest unit (each step times the last) that keeps it under step. */
static const char *fmt_scaled(char *buf, size_t len, double v, const char *const *units,
			      double step, int nr_units)
{
	int i = 0;

	while (fabs(v) >= step - 0.5 && i + 1 < nr_units) {
		v /= step;
		i++;
	}
	if (!i)
		snprintf(buf, len, "%.0f%s", v, units[0]);
	else
		snprintf(buf, len, fabs(v) < 9.995 ? "%.2f%s" : fabs(v) < 99.95 ? "%.1f%s" :
			 "%.0f%s", v, units[i]);
	return buf;
}

const char *diff__fmt_value(char *buf, size_t len, int m, double v)
{
	static const char *const times[] = { "ns", "µs", "ms", "s" };
	static const char *const bytes[] = { " B", " KiB", " MiB", " GiB", " TiB" };

	switch (diff_metrics[m].kind) {
	case DK_COUNT:
		snprintf(buf, len, "%.0f", v);
		return buf;
	case DK_BYTES:
		return fmt_scaled(buf, len, v, bytes, 1024, 5);
	case DK_RATIO:
		snprintf(buf, len, "%.3f", v);
		return buf;
	case DK_SHARE:
		snprintf(buf, len, "%.1f%%", v * 100);
		return buf;
	case DK_TIME:
		if (v >= 999.5e6)	/* seconds: 1000s, not 1.00ks */
			snprintf(buf, len, v < 9.995e9 ? "%.2fs" : "%.1fs", v / 1e9);
		else
			fmt_scaled(buf, len, v, times, 1000, 3);
		return buf;
	}
	return "?";
}

/* The change from b to n: relative, or in points for shares. */
const char *diff__fmt_change(char *buf, size_t len, int m, double b, double n)
{
	double x;

	if (n == b)
		return "=";
	if (diff_metrics[m].kind == DK_SHARE) {
		x = (n - b) * 100;
		if (fabs(x) < 0.05)
			snprintf(buf, len, "%s<0.1pp", n > b ? "+" : "-");
		else
			snprintf(buf, len, "%+.1fpp", x);
		return buf;
	}
	if (b == 0)
		return "from 0";
	x = (n - b) / b * 100;
	if (fabs(x) < 0.05)
		snprintf(buf, len, "%s<0.1%%", n > b ? "+" : "-");
	else
		snprintf(buf, len, "%+.1f%%", x);
	return buf;
}
