// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The run over time: "timeline", one object per point with its counts
 * (which sum to the report's totals) and the rates, percentiles and
 * shares charts draw, plus the read-latency log2 rows of the heat map.
 * JSON only: the text report is one screen.
 */
#include <math.h>
#include "lib/json.h"
#include "report/report_int.h"

#define POINT_LINES_DEPTH	3	/* a line per point, not per figure */

static const char *const count_keys[TL__MAX] = {
	[TL_FILES] = "files",
	[TL_OPENS] = "opens",
	[TL_READS] = "reads",
	[TL_READ_BYTES] = "read_bytes",
	[TL_READ_NS] = "read_ns",
	[TL_CACHE_PAGES] = "cache_pages",
	[TL_BLK_READS] = "blk_reads",
	[TL_BLK_READ_NS] = "blk_read_ns",
	[TL_BLK_READ_BYTES] = "blk_read_bytes",
	[TL_BUSY_NS] = "busy_ns",
	[TL_CPU_NS] = "loader_cpu_ns",
	[TL_IO_WAIT_NS] = "loader_io_wait_ns",
	[TL_RUNQ_NS] = "loader_runq_ns",
	[TL_SLEEP_NS] = "loader_sleep_ns",
	[TL_STALL_DATA_NS] = "stall_data_wait_ns",
	[TL_STALL_WALL_NS] = "stall_wall_ns",
	[TL_WRITES] = "writes",
	[TL_WRITE_BYTES] = "write_bytes",
	[TL_WRITE_NS] = "write_ns",
	[TL_STALL_WRITE_NS] = "stall_write_wait_ns",
};

static double per(double v, double by)
{
	return by > 0 ? v / by : 0;
}

/* A share of the loader threads' time; null without loader threads. */
static double loader_share(const struct tl_point *p, int which)
{
	double all = 0;

	for (int i = TL_CPU_NS; i <= TL_SLEEP_NS; i++)
		all += p->n[i];
	return all > 0 ? p->n[which] / all : NAN;
}

static void point_rates(struct json *j, const struct tl_point *p)
{
	double secs = p->dur_ns / 1e9, util = per(p->n[TL_BUSY_NS], p->dur_ns) * 100;

	json__kv_double(j, "files_per_s", per(p->n[TL_FILES], secs));
	json__kv_double(j, "opens_per_s", per(p->n[TL_OPENS], secs));
	json__kv_double(j, "reads_per_s", per(p->n[TL_READS], secs));
	json__kv_double(j, "read_bytes_per_s", per(p->n[TL_READ_BYTES], secs));
	json__kv_u64(j, "read_p50_ns", tl_point__quantile(p, 0.5));
	json__kv_u64(j, "read_p99_ns", tl_point__quantile(p, 0.99));
	json__kv_double(j, "read_mean_ns", per(p->n[TL_READ_NS], p->n[TL_READS]));
	json__kv_double(j, "blk_r_per_s", per(p->n[TL_BLK_READS], secs));
	json__kv_double(j, "blk_r_await_ms", per(p->n[TL_BLK_READ_NS] / 1e6, p->n[TL_BLK_READS]));
	json__kv_double(j, "blk_util_pct", util > 100 ? 100 : util);
	json__kv_double(j, "cache_misses_per_s", per(p->n[TL_CACHE_PAGES], secs));
	json__kv_double(j, "loader_cpu_share", loader_share(p, TL_CPU_NS));
	json__kv_double(j, "loader_io_wait_share", loader_share(p, TL_IO_WAIT_NS));
	json__kv_double(j, "stall_share", p->n[TL_STALL_WALL_NS] ?
			(double)p->n[TL_STALL_DATA_NS] / p->n[TL_STALL_WALL_NS] : NAN);
	json__kv_double(j, "writes_per_s", per(p->n[TL_WRITES], secs));
	json__kv_double(j, "write_bytes_per_s", per(p->n[TL_WRITE_BYTES], secs));
	json__kv_double(j, "write_share", p->n[TL_STALL_WALL_NS] ?
			(double)p->n[TL_STALL_WRITE_NS] / p->n[TL_STALL_WALL_NS] : NAN);
}

static void point_json(struct json *j, const struct tl_point *p)
{
	__u64 rows[TL_LAT_ROWS];

	json__begin_object(j);
	json__kv_double(j, "t_s", p->t_ns / 1e9);
	json__kv_double(j, "dur_s", p->dur_ns / 1e9);
	json__kv_u64(j, "intervals", p->intervals);
	for (int i = 0; i < TL__MAX; i++)
		json__kv_u64(j, count_keys[i], p->n[i]);
	point_rates(j, p);
	tl_point__log2_rows(p, rows);
	json__key(j, "read_lat_log2");
	json__begin_array(j);
	for (int r = 0; r < TL_LAT_ROWS; r++)
		json__u64(j, rows[r]);
	json__end_array(j);
	json__end_object(j);
}

void report_timeline__json(struct json *j, const struct report *r)
{
	const struct timeline *tl = &r->t->timeline;
	int depth = j->pretty_depth;

	json__key(j, "timeline");
	json__begin_object(j);
	json__kv_double(j, "step_s", tl->drain_ns * tl->per_point / 1e9);
	json__kv_u64(j, "intervals_per_point", tl->per_point);
	json__kv_u64(j, "max_points", TL_MAX_POINTS);
	json__kv_u64(j, "read_lat_log2_from_ns", 1ULL << TL_LAT_MIN_LOG2);
	json__kv_u64(j, "bytes", timeline__bytes(tl));
	json__key(j, "points");
	/* A line per point: jq and diff(1) read a long run point by point. */
	j->pretty_depth = POINT_LINES_DEPTH;
	json__begin_array(j);
	for (size_t i = 0; i < tl->nr; i++)
		point_json(j, &tl->points[i]);
	json__end_array(j);
	j->pretty_depth = depth;
	json__end_object(j);
}
