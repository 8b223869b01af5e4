// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * iostorm diff: the limit parser, figures from small synthetic reports
 * (json_pack), limit checks, the same-workload rule, the loader that skips
 * the per-file lists, and the exit codes of the whole command.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include <jansson.h>
#include "diff/diff.h"
#include "unit.h"

static struct diff_limit limit(const char *s)
{
	struct diff_limit l;
	char err[192];

	if (diff__parse_limit(s, &l, err, sizeof(err)))
		unit__fail(__FILE__, __LINE__, "limit '%s': %s", s, err);
	return l;
}

TEST(diff_parse_limit)
{
	struct diff_limit l;

	l = limit("opens_per_file>+10%");
	CHECK_EQ_INT(l.metric, DM_OPENS_PER_FILE);
	CHECK_EQ_INT(l.op, '>');
	CHECK(l.delta && l.relative);
	CHECK_REL(l.value, 0.1);
	CHECK_STR(l.text, "opens_per_file>+10%");

	l = limit("read_p99>+50%");
	CHECK_EQ_INT(l.metric, DM_READ_P99);
	CHECK(l.delta && l.relative);
	CHECK_REL(l.value, 0.5);

	l = limit("reads>+0");
	CHECK_EQ_INT(l.metric, DM_READS);
	CHECK(l.delta && !l.relative);
	CHECK_REL(l.value, 0);

	l = limit("read_p99>+2ms");
	CHECK(l.delta && !l.relative);
	CHECK_REL(l.value, 2e6);
	CHECK_REL(limit("blk_p50>+250us").value, 250e3);
	CHECK_REL(limit("read_p50>+1.5µs").value, 1500);
	CHECK_REL(limit("read_p50>+0").value, 0);		/* 0 needs no unit */

	l = limit("io_wait_share>50%");		/* a bound on NEW, not a change */
	CHECK(!l.delta && !l.relative);
	CHECK_REL(l.value, 0.5);
	CHECK_REL(limit("io_wait_share>0.25").value, 0.25);

	l = limit("random_share>+5pp");
	CHECK(l.delta && !l.relative);
	CHECK_REL(l.value, 0.05);

	l = limit("read_bytes<-1M");
	CHECK_EQ_INT(l.op, '<');
	CHECK(l.delta && !l.relative);
	CHECK_REL(l.value, 1048576);

	l = limit("duration<10s");
	CHECK(!l.delta);
	CHECK_REL(l.value, 10e9);

	l = limit("finding:small_file_storm");
	CHECK_EQ_INT(l.metric, -1);
	CHECK_STR(l.finding, "small_file_storm");
	CHECK_EQ_INT(l.min_sev, DIFF_SEV_INFO);

	l = limit("finding:*>=high");
	CHECK_STR(l.finding, "*");
	CHECK_EQ_INT(l.min_sev, DIFF_SEV_HIGH);
}

TEST(diff_parse_limit_errors)
{
	static const char *const bad[] = {
		"", "opens_per_file", "opens_per_file+10%", "nope>+1%", ">+1%",
		"reads>-1", "reads<+1", "reads>+", "reads>+x", "reads>+1x", "reads>10%",
		"reads>+-1", "reads>+0x", "read_p99>+0x", "reads>+inf", "reads>=1",
		"read_p99>+5", "read_p99>+5h",
		"io_wait_share>1.5", "opens_per_file>+10pp", "read_bytes>+1Q",
		"finding:", "finding:Bad", "finding:a b", "finding:x>=SEVERE",
		"finding:x>HIGH", "finding:**",
	};
	struct diff_limit l;
	char err[192];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		if (diff__parse_limit(bad[i], &l, err, sizeof(err)) != -EINVAL)
			unit__fail(__FILE__, __LINE__, "'%s' accepted", bad[i]);
		else if (!err[0])
			unit__fail(__FILE__, __LINE__, "'%s': no reason given", bad[i]);
	}
	diff__parse_limit("nope>+1%", &l, err, sizeof(err));
	CHECK_HAS(err, "unknown metric 'nope'");
	diff__parse_limit("opens_per_file", &l, err, sizeof(err));
	CHECK_HAS(err, "quote the limit");
}

TEST(diff_default_limits)
{
	struct diff_limit l[DIFF_MAX_LIMITS];
	int n = diff__default_limits(l, DIFF_MAX_LIMITS);
	bool opens = false, finding = false, read_p99 = false, write = false;

	REQUIRE(n > 3);
	for (int i = 0; i < n; i++) {
		CHECK(l[i].is_default);
		opens |= !strcmp(l[i].text, "opens_per_file>+10%");
		read_p99 |= !strcmp(l[i].text, "read_p99>+100%");
		write |= !strcmp(l[i].text, "write_share>+10pp");
		finding |= !strcmp(l[i].text, "finding:*>=HIGH");
		/* Counts of raw calls depend on the sample: no default. */
		CHECK(l[i].metric != DM_READS && l[i].metric != DM_OPENS);
	}
	CHECK(opens && read_p99 && finding && write);
}

/* A small report: 100 files, 1 open and 3 reads each. */
static json_t *report(double opens, double reads, double read_p99)
{
	return json_pack(
		"{s:s, s:s, s:f,"
		" s:{s:i, s:f, s:f, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:{s:i, s:i, s:i}},"
		" s:{s:{s:i, s:i, s:f}, s:{s:i, s:i, s:i}},"
		" s:{s:{s:[[i,i,i], [i,i,i], [i,i,i]]}},"
		" s:{s:[{s:i, s:i, s:i, s:{s:{s:{s:i, s:i}}}}]},"
		" s:{s:{s:i, s:i, s:i}},"
		" s:[{s:i, s:i, s:i, s:i}, {s:i}],"
		" s:{s:f, s:f, s:f, s:[{s:f}, {s:f}]}, s:{s:[{s:{s:i, s:i, s:f}}, {s:{s:i, s:i, s:f}}]},"
		" s:{s:[{s:{s:i, s:i, s:f}}, {s:{s:i, s:i, s:f}}]},"
		" s:[{s:s, s:s}, {s:s, s:s}]}",
		"schema", IOSTORM_REPORT_SCHEMA, "target", "command /usr/bin/python3 load.py",
		"duration_s", 2.5,
		"vfs", "files", 100, "opens", opens, "reads", reads, "read_bytes", 3000000,
		"stats", 0, "reads_random", 30, "reads_sequential", 270,
		"meta_ns", 1000, "read_ns", 3000, "writes", 12, "write_bytes", 4000000,
		"mapped", "fault_reads", 500, "fault_reads_sequential", 100,
		"fault_reads_random", 300,
		"latency", "read", "count", 300, "p50", 10000, "p99", read_p99,
		"open", "count", 100, "p50", 5000, "p99", 9000,
		"sizes", "read", "buckets", 0, 0, 100, 4096, 4351, 150, 262144, 278527, 50,
		"block", "devices", "reads", 999, "sequential", 999, "writes", 5,
		"ops", "read", "target", "reqs", 10, "sequential", 2,
		"layers", "block_total", "count", 150, "p50", 200000, "p99", 900000,
		"thread_groups", "io_wait_ns", 3, "cpu_ns", 1, "runq_ns", 0, "sleep_ns", 0,
		"tid", 7,
		"stall", "share", 0.25, "wall_ns", 2e9, "write_share", 0.1, "loops", "write_share", 0.1,
		"write_share", 0.3,
		"fuse", "connections", "layers", "requests", 300, "files_opened", 100,
		"rtt_mean_ns", 2e6, "layers", "requests", 100, "files_opened", 0,
		"rtt_mean_ns", 6e6,
		"nfs", "mounts", "layers", "calls", 410, "files_opened", 100,
		"rtt_mean_ns", 1e6, "layers", "calls", 10, "files_opened", 0,
		"rtt_mean_ns", 5.2e6,
		"findings", "id", "small_file_storm", "severity", "WARN",
		"id", "page_cache", "severity", "INFO");
}

static void figures(json_t *r, struct diff_figures *f)
{
	diff__figures(r, f);
	json_decref(r);
}

TEST(diff_figures_full)
{
	struct diff_figures f;

	figures(report(100, 300, 40000), &f);
	CHECK_STR(f.target, "command /usr/bin/python3 load.py");
	CHECK_REL(f.v[DM_FILES], 100);
	CHECK_REL(f.v[DM_OPENS_PER_FILE], 1);
	CHECK_REL(f.v[DM_READS_PER_FILE], 3);
	CHECK_REL(f.v[DM_STATS_PER_FILE], 0);
	CHECK_REL(f.v[DM_BYTES_PER_READ], 10000);
	CHECK_REL(f.v[DM_RANDOM_SHARE], 0.1);
	CHECK_REL(f.v[DM_META_SHARE], 0.25);
	/* 500 faults over 100 files; 300 of the 400 with a predecessor random. */
	CHECK_REL(f.v[DM_FAULT_READS_PER_FILE], 5);
	CHECK_REL(f.v[DM_FAULT_RANDOM_SHARE], 0.75);
	/* EOF reads (bucket 0) are not in the base; 256 KiB is not small. */
	CHECK_REL(f.v[DM_SMALL_READ_SHARE], 0.75);
	CHECK_REL(f.v[DM_READ_P50], 10000);
	CHECK_REL(f.v[DM_READ_P99], 40000);
	CHECK_REL(f.samples[DM_READ_P99], 300);
	CHECK_REL(f.v[DM_OPEN_P99], 9000);
	/* ops.read.target wins over the device's reads and sequential. */
	CHECK_REL(f.v[DM_BLK_READS], 10);
	CHECK_REL(f.v[DM_BLK_RANDOM_SHARE], 0.8);
	CHECK_REL(f.v[DM_BLK_P99], 900000);
	CHECK_REL(f.samples[DM_BLK_P50], 150);
	/* The thread without sched times is left out. */
	CHECK_REL(f.v[DM_IO_WAIT_SHARE], 0.75);
	CHECK_REL(f.v[DM_STALL_SHARE], 0.25);
	CHECK_REL(f.v[DM_LOOP_TIME], 2e9);
	CHECK_REL(f.v[DM_WRITE_SHARE], 0.3);		/* the loop that waits most on writes */
	CHECK_REL(f.v[DM_WRITES], 12);
	CHECK_REL(f.v[DM_WRITE_BYTES], 4000000);
	CHECK_REL(f.v[DM_FUSE_REQS_PER_FILE], 4);	/* 400 requests, 100 files */
	CHECK_REL(f.v[DM_FUSE_RTT], 3e6);		/* weighted by requests */
	CHECK_REL(f.v[DM_NFS_CALLS_PER_FILE], 4.2);	/* 420 calls, 100 files */
	CHECK_REL(f.v[DM_NFS_RTT], 1.1e6);		/* weighted by calls */
	CHECK_REL(f.v[DM_DURATION], 2.5e9);
	for (int m = 0; m < DM__MAX; m++)
		if (!f.have[m])
			unit__fail(__FILE__, __LINE__, "%s missing", diff__metric_name(m));
	CHECK_EQ_INT(f.nr_findings, 2);
	CHECK_EQ_INT(diff__finding_sev(&f, "small_file_storm"), DIFF_SEV_WARN);
	CHECK_EQ_INT(diff__finding_sev(&f, "page_cache"), DIFF_SEV_INFO);
	CHECK_EQ_INT(diff__finding_sev(&f, "random_access"), DIFF_SEV_NONE);
}

/* An older or simpler report: what is absent is "not measured", not 0. */
TEST(diff_figures_sparse)
{
	struct diff_figures f;

	figures(json_pack("{s:s, s:{s:i, s:i, s:i}, s:{s:{s:i, s:i, s:i}}}",
			  "schema", IOSTORM_REPORT_SCHEMA, "vfs", "files", 0, "opens", 4, "reads", 9,
			  "latency", "read", "count", 0, "p50", 0, "p99", 0), &f);
	CHECK(f.have[DM_OPENS] && f.have[DM_READS] && f.have[DM_FILES]);
	CHECK(!f.have[DM_OPENS_PER_FILE]);	/* no files: no per-file figure */
	CHECK(!f.have[DM_STATS] && !f.have[DM_READ_BYTES]);
	CHECK(!f.have[DM_READ_P50] && !f.have[DM_READ_P99]);	/* count 0 */
	CHECK(!f.have[DM_BLK_READS] && !f.have[DM_BLK_P99]);
	CHECK(!f.have[DM_IO_WAIT_SHARE] && !f.have[DM_SMALL_READ_SHARE]);
	CHECK(!f.have[DM_FAULT_READS_PER_FILE] && !f.have[DM_FAULT_RANDOM_SHARE]);
	CHECK(!f.have[DM_WRITE_SHARE] && !f.have[DM_WRITES]);	/* before writes were measured */
	CHECK_STR(f.target, "");
	CHECK_EQ_INT(f.nr_findings, 0);

	/* layers.read stands in for latency.read; one device for layers. */
	figures(json_pack("{s:s, s:{}, s:{s:{s:i, s:i, s:i}},"
			  " s:{s:[{s:i, s:{s:{s:{s:i, s:i, s:{s:{s:i, s:i, s:i}}}}}}]}}",
			  "schema", IOSTORM_REPORT_SCHEMA, "vfs",
			  "layers", "read", "count", 200, "p50", 7, "p99", 70,
			  "block", "devices", "reads", 5, "ops", "read", "target",
			  "reqs", 5, "sequential", 5, "latency", "total",
			  "count", 5, "p50", 100, "p99", 1000), &f);
	CHECK_REL(f.v[DM_READ_P99], 70);
	CHECK_REL(f.v[DM_BLK_RANDOM_SHARE], 0);
	CHECK_REL(f.v[DM_BLK_P99], 1000);
	CHECK_REL(f.samples[DM_BLK_P99], 5);
}

/*
 * The dataset, not the job's code: a report's vfs.code (imports, shared
 * libraries) is taken out of the counts and of the metadata share, so a
 * loader run that imports more modules compares equal.
 */
TEST(diff_figures_code_apart)
{
	struct diff_figures f;

	figures(json_pack("{s:s, s:{s:i, s:i, s:i, s:i, s:i, s:i, s:i,"
			  " s:{s:i, s:i, s:i, s:i, s:i, s:i, s:i}}}",
			  "schema", IOSTORM_REPORT_SCHEMA, "vfs", "files", 1100, "opens", 1300,
			  "reads", 2400, "read_bytes", 9000000, "stats", 1500,
			  "meta_ns", 3000, "read_ns", 9000,
			  "code", "files", 1000, "opens", 1100, "reads", 2000,
			  "read_bytes", 1000000, "stats", 1400, "meta_ns", 2000,
			  "read_ns", 1000), &f);
	CHECK_REL(f.v[DM_FILES], 100);
	CHECK_REL(f.v[DM_OPENS], 200);
	CHECK_REL(f.v[DM_READS], 400);
	CHECK_REL(f.v[DM_READ_BYTES], 8000000);
	CHECK_REL(f.v[DM_STATS], 100);
	CHECK_REL(f.v[DM_OPENS_PER_FILE], 2);
	CHECK_REL(f.v[DM_READS_PER_FILE], 4);
	CHECK_REL(f.v[DM_BYTES_PER_READ], 20000);
	CHECK_REL(f.v[DM_META_SHARE], 1.0 / 9);	/* 1,000 of 9,000 ns */
}

static enum diff_status check(const char *lim, const struct diff_figures *b,
			      const struct diff_figures *n, char *why)
{
	struct diff_limit l = limit(lim);

	return diff__check(&l, b, n, why, 192);
}

TEST(diff_check_metrics)
{
	struct diff_figures b, n, same, slow, few;
	char why[192];

	figures(report(100, 300, 40000), &b);
	figures(report(100, 300, 40000), &same);
	figures(report(200, 600, 40000), &n);		/* each file opened twice */
	figures(report(100, 300, 100001), &slow);	/* read p99 x2.5 */

	CHECK_EQ_INT(check("opens_per_file>+10%", &b, &same, why), DIFF_PASS);
	CHECK_EQ_INT(check("opens_per_file>+10%", &b, &n, why), DIFF_FAIL);
	CHECK_STR(why, "opens_per_file 1.000 -> 2.000 (+100.0%)");
	CHECK_EQ_INT(check("reads>+0", &b, &same, why), DIFF_PASS);
	CHECK_EQ_INT(check("reads>+0", &b, &n, why), DIFF_FAIL);
	CHECK_EQ_INT(check("reads>+300", &b, &n, why), DIFF_PASS);	/* not more */
	CHECK_EQ_INT(check("reads>+299", &b, &n, why), DIFF_FAIL);
	/* Exactly +10% is not more than 10%, floating point or not. */
	n.v[DM_OPENS_PER_FILE] = 1.1;
	CHECK_EQ_INT(check("opens_per_file>+10%", &b, &n, why), DIFF_PASS);
	n.v[DM_OPENS_PER_FILE] = 1.1000001;
	CHECK_EQ_INT(check("opens_per_file>+10%", &b, &n, why), DIFF_FAIL);

	/* Timings: the default tolerates less than 2x. */
	CHECK_EQ_INT(check("read_p99>+100%", &b, &slow, why), DIFF_FAIL);
	CHECK_HAS(why, "read_p99 40.0µs -> 100µs (+150.0%)");
	slow.v[DM_READ_P99] = 79000;
	CHECK_EQ_INT(check("read_p99>+100%", &b, &slow, why), DIFF_PASS);
	CHECK_EQ_INT(check("read_p99>+39us", &b, &slow, why), DIFF_PASS);
	CHECK_EQ_INT(check("read_p99>+38999ns", &b, &slow, why), DIFF_FAIL);
	/* A percentile of too few calls is not checked. */
	few = slow;
	few.samples[DM_READ_P99] = DIFF_MIN_SAMPLES - 1;
	few.v[DM_READ_P99] = 1e9;
	CHECK_EQ_INT(check("read_p99>+100%", &b, &few, why), DIFF_UNCHECKED);
	CHECK_HAS(why, "only 99 reads in NEW");

	/* Decreases, bounds, shares. */
	CHECK_EQ_INT(check("bytes_per_read<-50%", &n, &b, why), DIFF_PASS);
	n.v[DM_BYTES_PER_READ] = 4000;
	CHECK_EQ_INT(check("bytes_per_read<-50%", &b, &n, why), DIFF_FAIL);
	CHECK_EQ_INT(check("io_wait_share>70%", &b, &n, why), DIFF_FAIL);
	CHECK_HAS(why, "io_wait_share 75.0%");
	CHECK_EQ_INT(check("io_wait_share>80%", &b, &n, why), DIFF_PASS);
	CHECK_EQ_INT(check("duration<3s", &b, &n, why), DIFF_FAIL);
	n.v[DM_RANDOM_SHARE] = 0.19;
	CHECK_EQ_INT(check("random_share>+10pp", &b, &n, why), DIFF_PASS);
	n.v[DM_RANDOM_SHARE] = 0.21;
	CHECK_EQ_INT(check("random_share>+10pp", &b, &n, why), DIFF_FAIL);
	CHECK_HAS(why, "(+11.0pp)");
	/* A checkpoint change that makes the loop wait on writes fails the default gate. */
	n.v[DM_WRITE_SHARE] = 0.4;
	CHECK_EQ_INT(check("write_share>+10pp", &b, &n, why), DIFF_PASS);
	n.v[DM_WRITE_SHARE] = 0.41;
	CHECK_EQ_INT(check("write_share>+10pp", &b, &n, why), DIFF_FAIL);
	CHECK_HAS(why, "write_share 30.0% -> 41.0% (+11.0pp)");

	/* From 0, any relative increase is infinite; 0 to 0 is none. */
	n.v[DM_STATS_PER_FILE] = 0.001;
	CHECK_EQ_INT(check("stats_per_file>+1000%", &b, &n, why), DIFF_FAIL);
	CHECK_EQ_INT(check("stats_per_file>+0.1", &b, &n, why), DIFF_PASS);
	CHECK_EQ_INT(check("stats_per_file>+10%", &b, &same, why), DIFF_PASS);

	/* Absent figures are not checked; a bound needs NEW only. */
	n.have[DM_IO_WAIT_SHARE] = false;
	CHECK_EQ_INT(check("io_wait_share>+1pp", &b, &n, why), DIFF_UNCHECKED);
	CHECK_HAS(why, "not in NEW");
	CHECK_EQ_INT(check("io_wait_share>+1pp", &n, &b, why), DIFF_UNCHECKED);
	CHECK_HAS(why, "not in BASE");
	CHECK_EQ_INT(check("io_wait_share>50%", &n, &b, why), DIFF_FAIL);
}

TEST(diff_check_findings)
{
	struct diff_figures b, n;
	char why[192];

	figures(report(100, 300, 40000), &b);	/* storm WARN, page_cache INFO */
	n = b;
	CHECK_EQ_INT(check("finding:*>=HIGH", &b, &n, why), DIFF_PASS);
	CHECK_EQ_INT(check("finding:*", &b, &n, why), DIFF_PASS);

	n.findings[0].sev = DIFF_SEV_HIGH;		/* storm WARN -> HIGH */
	CHECK_EQ_INT(check("finding:*>=HIGH", &b, &n, why), DIFF_FAIL);
	CHECK_STR(why, "finding small_file_storm HIGH (was WARN)");
	CHECK_EQ_INT(check("finding:small_file_storm", &b, &n, why), DIFF_FAIL);
	CHECK_EQ_INT(check("finding:page_cache", &b, &n, why), DIFF_PASS);
	/* Better is never a regression. */
	CHECK_EQ_INT(check("finding:*", &n, &b, why), DIFF_PASS);

	/* Gained: absent in BASE (a report without findings counts as none). */
	snprintf(n.findings[2].id, sizeof(n.findings[2].id), "random_access");
	n.findings[2].sev = DIFF_SEV_INFO;
	n.nr_findings = 3;
	CHECK_EQ_INT(check("finding:random_access", &b, &n, why), DIFF_FAIL);
	CHECK_STR(why, "finding random_access INFO (was absent)");
	CHECK_EQ_INT(check("finding:random_access>=WARN", &b, &n, why), DIFF_PASS);
	n.findings[2].sev = DIFF_SEV_OK;		/* checked and fine */
	CHECK_EQ_INT(check("finding:random_access", &b, &n, why), DIFF_PASS);
	n.findings[2].sev = DIFF_SEV_HIGH;
	CHECK_EQ_INT(check("finding:*>=HIGH", &b, &n, why), DIFF_FAIL);
	CHECK_STR(why, "finding small_file_storm HIGH (was WARN), random_access HIGH (was absent)");
	b.nr_findings = 0;
	CHECK_EQ_INT(check("finding:page_cache", &b, &n, why), DIFF_FAIL);
}

static void set_target(struct diff_figures *f, const char *target)
{
	snprintf(f->target, sizeof(f->target), "%s", target);
}

TEST(diff_other_workload)
{
	struct diff_figures b, n;
	char why[192];

	figures(report(100, 300, 40000), &b);
	n = b;
	CHECK(!diff__other_workload(&b, &n, why, sizeof(why)));
	n.v[DM_FILES] = 151;
	CHECK(!diff__other_workload(&b, &n, why, sizeof(why)));	/* same program */
	set_target(&n, "command /opt/bin/java -jar x");
	CHECK(diff__other_workload(&b, &n, why, sizeof(why)));
	CHECK_STR(why, "100 files by 'python3' vs 151 files by 'java'");
	n.v[DM_FILES] = 49;
	CHECK(diff__other_workload(&b, &n, why, sizeof(why)));
	n.v[DM_FILES] = 150;				/* +50%: not more */
	CHECK(!diff__other_workload(&b, &n, why, sizeof(why)));
	/* A thread name is 15 bytes: an attached pid matches its command. */
	n.v[DM_FILES] = 1000;
	set_target(&n, "pid 4242 (python3)");
	CHECK(!diff__other_workload(&b, &n, why, sizeof(why)));
	set_target(&b, "command ./iostorm-workload read /d");
	set_target(&n, "pids 1 (iostorm-workloa), 2 (iostorm-workloa)");
	CHECK(!diff__other_workload(&b, &n, why, sizeof(why)));
	set_target(&n, "cgroup /job");
	CHECK(diff__other_workload(&b, &n, why, sizeof(why)));
	n.target[0] = 0;				/* unknown: not "different" */
	CHECK(!diff__other_workload(&b, &n, why, sizeof(why)));
}

/* ---- files and the whole command ---- */

static char dir[64];

/* At exit: the files the tests wrote, then their directory. */
static void remove_dir(void)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(dir);
}

/* A path in the tests' own temporary directory. */
static const char *path_of(const char *name)
{
	static char paths[32][128];	/* enough for one test's paths */
	static int i;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/iostorm-unit-diff.XXXXXX");
		if (!mkdtemp(dir))
			unit__fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
		atexit(remove_dir);
	}
	i = (i + 1) % 32;
	snprintf(paths[i], sizeof(paths[i]), "%s/%s", dir, name);
	return paths[i];
}

static const char *write_file(const char *name, const char *text)
{
	const char *p = path_of(name);
	FILE *f = fopen(p, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		unit__fail(__FILE__, __LINE__, "cannot write %s", p);
	return p;
}

static const char *write_json(const char *name, json_t *r)
{
	const char *p = path_of(name);

	if (json_dump_file(r, p, JSON_INDENT(2)))
		unit__fail(__FILE__, __LINE__, "cannot write %s", p);
	json_decref(r);
	return p;
}

struct captured {
	char out[16384];
	char err[4096];
};

static void slurp(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	buf[n > 0 ? n : 0] = 0;
	close(fd);
}

/* diff__main(argv) with stdout and stderr captured. */
static int run(struct captured *c, const char *const *args)
{
	char *argv[16];
	int argc = 0, rc, out, err, save_out, save_err;

	argv[argc++] = "diff";
	for (; *args && argc < 15; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	out = open(path_of("stdout"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	err = open(path_of("stderr"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	fflush(stdout);
	save_out = dup(1);
	save_err = dup(2);
	dup2(out, 1);
	dup2(err, 2);
	rc = diff__main(argc, argv);
	fflush(stdout);
	dup2(save_out, 1);
	dup2(save_err, 2);
	close(save_out);
	close(save_err);
	slurp(out, c->out, sizeof(c->out));
	slurp(err, c->err, sizeof(c->err));
	return rc;
}

#define RUN(c, ...) run(c, (const char *const[]){ __VA_ARGS__, NULL })

TEST(diff_load_unusable)
{
	const char *missing = path_of("missing.json");
	const char *good = write_json("good.json", report(100, 300, 40000));
	const char *text = write_file("text.json", "hello\n");
	const char *foo = write_file("foo.json", "{\"schema\": \"foo\", \"vfs\": {}}\n");
	const char *v2 = write_file("v2.json", "{\"schema\": \"iostorm.report/2\"}\n");
	struct captured *c = calloc(1, sizeof(*c));
	char want[256];
	json_t *r;

	REQUIRE(c);
	CHECK_EQ_INT(diff__load(good, &r), 0);
	CHECK(r != NULL);
	json_decref(r);

	CHECK_EQ_INT(RUN(c, missing, good), DIFF_EXIT_UNUSABLE);
	snprintf(want, sizeof(want), "iostorm: cannot read '%s': No such file or directory\n",
		 missing);
	CHECK_STR(c->err, want);
	CHECK_STR(c->out, "");
	CHECK_EQ_INT(RUN(c, good, text), DIFF_EXIT_UNUSABLE);
	snprintf(want, sizeof(want), "iostorm: '%s' is not JSON: ", text);
	CHECK(!strncmp(c->err, want, strlen(want)));
	CHECK_EQ_INT(RUN(c, foo, good), DIFF_EXIT_UNUSABLE);
	snprintf(want, sizeof(want), "iostorm: '%s' is not an iostorm report (schema 'foo', "
		 "expected 'iostorm.report/1')\n", foo);
	CHECK_STR(c->err, want);
	CHECK_EQ_INT(RUN(c, good, v2), DIFF_EXIT_UNUSABLE);
	CHECK_HAS(c->err, "schema 'iostorm.report/2'");
	CHECK_EQ_INT(RUN(c, good, dir), DIFF_EXIT_UNUSABLE);
	CHECK_HAS(c->err, "cannot read");
	free(c);
}

TEST(diff_main_exit_codes)
{
	const char *base = write_json("base.json", report(100, 300, 40000));
	const char *same = write_json("same.json", report(100, 300, 40000));
	const char *twice = write_json("twice.json", report(200, 600, 40000));
	struct captured *c = calloc(1, sizeof(*c));
	json_t *j;

	REQUIRE(c);
	CHECK_EQ_INT(RUN(c, base, same), DIFF_EXIT_OK);
	CHECK_HAS(c->out, "no regression");
	CHECK_STR(c->err, "");

	CHECK_EQ_INT(RUN(c, base, twice), DIFF_EXIT_REGRESSED);
	CHECK_HAS(c->out, "REGRESSED: opens_per_file>+10%: opens_per_file 1.000 -> 2.000");
	CHECK_HAS(c->out, "REGRESSED: reads_per_file>+10%");
	/* A limit of the user's replaces the metric's default ... */
	CHECK_EQ_INT(RUN(c, "--fail-on", "opens_per_file>+200%,reads_per_file>+200%",
			 base, twice), DIFF_EXIT_OK);
	/* ... and --no-default-limits leaves only the user's. */
	CHECK_EQ_INT(RUN(c, "--no-default-limits", base, twice), DIFF_EXIT_OK);
	CHECK_EQ_INT(RUN(c, base, twice, "--no-default-limits", "--fail-on=reads>+0"),
		     DIFF_EXIT_REGRESSED);

	CHECK_EQ_INT(RUN(c, "--json", base, twice), DIFF_EXIT_REGRESSED);
	j = json_loads(c->out, 0, NULL);
	REQUIRE(j);
	CHECK_STR(json_string_value(json_object_get(j, "schema")), DIFF_OUT_SCHEMA);
	CHECK_STR(json_string_value(json_object_get(j, "result")), "regressed");
	CHECK_EQ_INT(json_integer_value(json_object_get(j, "regressions")), 2);
	json_decref(j);

	CHECK_EQ_INT(RUN(c, base), DIFF_EXIT_USAGE);
	CHECK_HAS(c->err, "Try 'iostorm diff --help'");
	CHECK_EQ_INT(RUN(c, "--fail-on", "opens_per_file", base, same), DIFF_EXIT_USAGE);
	CHECK_HAS(c->err, "invalid limit 'opens_per_file'");
	CHECK_EQ_INT(RUN(c, "--no-such-option", base, same), DIFF_EXIT_USAGE);
	CHECK_EQ_INT(RUN(c, "--help"), DIFF_EXIT_OK);
	CHECK_HAS(c->out, "usage: iostorm diff");
	free(c);
}

/*
 * The loader skips the top-level "files" and "dirs" values unparsed,
 * whatever their strings hold, and nothing else: keys named "files"
 * deeper down, and every key after them, stay.
 */
TEST(diff_load_skips_file_lists)
{
	const char *p = write_file("lists.json",
		"{\"schema\": \"iostorm.report/1\",\n"
		" \"vfs\": {\"files\": 7, \"dirs\": 2},\n"
		" \"files\": [\n"
		"  {\"path\": \"/d/a]\\\"}[{,\", \"x\": {\"files\": [1, {}]}},\n"
		"  {\"path\": \"\\\\\", \"dirs\": [[[]]]}\n"
		" ],\n"
		" \"dirs\" : [ {\"path\": \"]]]\"} ],\n"
		" \"store\": {\"files\": 9},\n"
		" \"target\": \"files\"}\n");
	const char *bad = write_file("bad.json",
		"{\"schema\": \"iostorm.report/1\", \"vfs\": {},\n"
		" \"files\": [\n{},\n{}\n],\n"
		" \"lost\": {\"total\": 1,}}\n");
	struct captured *c = calloc(1, sizeof(*c));
	json_t *r;

	REQUIRE(c);
	REQUIRE(diff__load(p, &r) == 0);
	CHECK_EQ_INT(json_array_size(json_object_get(r, "files")), 0);
	CHECK(json_is_array(json_object_get(r, "dirs")));
	CHECK_EQ_INT(json_array_size(json_object_get(r, "dirs")), 0);
	CHECK_EQ_INT(json_integer_value(json_object_get(json_object_get(r, "vfs"), "files")), 7);
	CHECK_EQ_INT(json_integer_value(json_object_get(json_object_get(r, "store"), "files")), 9);
	CHECK_STR(json_string_value(json_object_get(r, "target")), "files");
	json_decref(r);

	/* Line numbers of errors after a skipped list stay right. */
	CHECK_EQ_INT(RUN(c, bad, p), DIFF_EXIT_UNUSABLE);
	CHECK_HAS(c->err, "(line 6, column");
	/* An unbalanced list runs to the end: not JSON. */
	p = write_file("open.json", "{\"schema\": \"iostorm.report/1\", \"files\": [{}, \n");
	CHECK_EQ_INT(RUN(c, p, p), DIFF_EXIT_UNUSABLE);
	CHECK_HAS(c->err, "is not JSON");
	free(c);
}

/* threads and timeline are skipped too; fuse (fuse_* figures) and thread_groups are kept. */
TEST(diff_load_skips_record_lists)
{
	const char *p = write_file("records.json",
		"{\"schema\": \"iostorm.report/1\", \"vfs\": {\"opens\": 3},\n"
		" \"threads\": [{\"comm\": \"]\", \"io_wait_ns\": 5}],\n"
		" \"timeline\": {\"points\": [[1, 2], {\"x\": \"}\"}]},\n"
		" \"fuse\": {\"connections\": [{}]},\n"
		" \"thread_groups\": [{\"io_wait_ns\": 1, \"cpu_ns\": 3}],\n"
		" \"threadsx\": [1]}\n");
	struct diff_figures f;
	json_t *r;

	REQUIRE(diff__load(p, &r) == 0);
	CHECK_EQ_INT(json_array_size(json_object_get(r, "threads")), 0);
	CHECK(json_is_array(json_object_get(r, "timeline")));
	CHECK_EQ_INT(json_array_size(json_object_get(r, "timeline")), 0);
	CHECK(json_is_array(json_object_get(json_object_get(r, "fuse"), "connections")));
	CHECK_EQ_INT(json_array_size(json_object_get(r, "thread_groups")), 1);
	CHECK_EQ_INT(json_array_size(json_object_get(r, "threadsx")), 1);
	diff__figures(r, &f);
	CHECK(f.have[DM_IO_WAIT_SHARE]);
	CHECK_REL(f.v[DM_IO_WAIT_SHARE], 0.25);
	json_decref(r);
}
