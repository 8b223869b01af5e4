// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Prometheus metrics of a small trace whose every number is known: names,
 * HELP and TYPE lines, cumulative buckets folded at slot bounds, sums in
 * seconds, label escaping; addresses; the textfile; the HTTP server on
 * loopback (before and after a publish, a port already taken).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include "facts_test.h"
#include "findings/findings.h"
#include "model/hist.h"
#include "model/trace.h"
#include "prom/prom.h"
#include "unit.h"

#define DEV_VDA		(253 << 20 | 0)
#define TWO_37_NS	(1ULL << 37)	/* above the last `le`: only in +Inf */

struct sample_trace {
	struct trace *t;
	__u64 read_ns;			/* exact sum of the read latencies */
};

static void add_file(struct trace *t, __u64 ino, __u32 flags)
{
	struct file_key k = { .dev = DEV_VDA, .ino = ino };
	struct file_stats fs = { .flags = flags, .opens = 1 };

	CHECK(!store__merge_file(&t->store, &k, &fs));
}

static void add_block(struct trace *t)
{
	struct blk_dev *d = calloc(1, sizeof(*d));
	struct hist *lat = calloc(1, sizeof(*lat)), *size = calloc(1, sizeof(*size));
	struct blk_stats *r;

	if (!d || !lat || !size) {
		free(d);
		free(lat);
		free(size);
		return;
	}
	d->dev = DEV_VDA;
	snprintf(d->name, sizeof(d->name), "vda");
	r = &d->st[BLK_READ][WHO_TARGET];
	*r = (struct blk_stats){ .reqs = 2, .bytes = 8192 + 131072, .total_ns = 3000000,
				 .queue_ns = 1000000, .device_ns = 2000000 };
	d->st[BLK_WRITE][WHO_KTHREAD] = (struct blk_stats){ .reqs = 5, .bytes = 20480 };
	d->busy_ns[BLK_SCOPE_TARGET] = 2500000;
	d->busy_ns[BLK_SCOPE_DEVICE] = 4000000000ULL;
	hist__add(lat, 1000000, 1);
	hist__add(lat, 2000000, 1);
	hist__add(size, 8192, 1);
	hist__add(size, 131072, 1);
	d->hists[BLK_READ][H_BLK_TOTAL_LAT - H_BLK_QUEUE_LAT][BLK_SCOPE_TARGET] = lat;
	d->hists[BLK_READ][H_BLK_SIZE - H_BLK_QUEUE_LAT][BLK_SCOPE_TARGET] = size;
	t->block.devs = d;
	t->block.nr_devs = 1;
}

/*
 * Reads of 1023 ns (exactly on a bound), 1024 ns (just past it), 5 ms and
 * 2^37 ns; reads returning 0, 4095 and 4096 bytes; two opens; a target
 * description that needs every escape.
 */
static struct sample_trace trace_sample(void)
{
	static const __u64 lat[] = { 1023, 1024, 5000000, TWO_37_NS };
	struct sample_trace s = {};
	struct trace *t = calloc(1, sizeof(*t));
	struct thread_stats ts = { .tgid = 42, .cpu_ns = 1500000000ULL, .io_wait_ns = 250,
				   .runq_ns = 3, .sleep_ns = 0 };

	if (!t || store__init(&t->store)) {
		free(t);
		return s;
	}
	trace__machine(t);
	snprintf(t->target, sizeof(t->target), "cmd \"a\\b\"\nnext \xff …");
	t->duration_s = 2.5;
	t->counters[C_OPENS] = 2;
	t->counters[C_OPEN_ERRORS] = 1;
	t->counters[C_READS] = 4;
	t->counters[C_READ_BYTES] = 8191;
	t->counters[C_CACHE_PAGES] = 3;
	t->counters[C_META_NS] = 1500;
	for (size_t i = 0; i < sizeof(lat) / sizeof(lat[0]); i++) {
		hist__add(&t->hists[H_READ_LAT], lat[i], 1);
		s.read_ns += lat[i];
	}
	t->counters[C_READ_NS] = s.read_ns;
	hist__add(&t->hists[H_READ_SIZE], 0, 1);
	hist__add(&t->hists[H_READ_SIZE], 4095, 1);
	hist__add(&t->hists[H_READ_SIZE], 4096, 2);
	hist__add(&t->hists[H_OPEN_LAT], 700, 1);
	hist__add(&t->hists[H_OPEN_LAT], 800, 1);
	t->lost[L_FILES_FULL] = 7;
	t->prog_misses = 2;
	add_file(t, 1, FILE_F_REG);
	add_file(t, 2, FILE_F_REG);
	add_file(t, 3, FILE_F_DIR);
	CHECK(!threads__merge(&t->store.threads, 100, &ts));
	ts.cpu_ns = 500000000ULL;
	CHECK(!threads__merge(&t->store.threads, 101, &ts));
	add_block(t);
	s.t = t;
	return s;
}

static void trace_free(struct trace *t)
{
	if (!t)
		return;
	block__free(&t->block);
	store__free(&t->store);
	free(t);
}

static const struct thresholds *defaults(void)
{
	static struct thresholds th;

	thresholds__defaults(&th);
	return &th;
}

/* t judged by the default thresholds, as the live path judges it. */
static const struct findings *judged(const struct trace *t)
{
	static struct findings f;

	CHECK_EQ_INT(trace_judged(&f, t, defaults()), 0);
	return &f;
}

static char *render(const struct trace *t, const char *job)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	CHECK_EQ_INT(prom__render(f, t, judged(t), job), 0);
	fclose(f);
	return text;
}

/* The value of the sample whose name and labels are exactly series; NULL if absent. */
static const char *value_of(const char *text, const char *series)
{
	size_t n = strlen(series);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, series, n) && p[n] == ' ')
			return p + n + 1;
	return NULL;
}

static void check_value(const char *text, const char *series, const char *want)
{
	const char *v = value_of(text, series);
	size_t n = strlen(want);

	if (!v || strncmp(v, want, n) || v[n] != '\n')
		unit__fail(__FILE__, __LINE__, "%s: got '%.*s', expected '%s'", series,
			   v ? (int)strcspn(v, "\n") : 6, v ? v : "(none)", want);
}

/* Lines that start with prefix and end with suffix. */
static int count_lines(const char *text, const char *prefix, const char *suffix)
{
	size_t np = strlen(prefix), ns = strlen(suffix);
	int n = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		size_t len = strcspn(p, "\n");

		n += len >= np + ns && !strncmp(p, prefix, np) &&
		     !strncmp(p + len - ns, suffix, ns);
	}
	return n;
}

/* The name of a sample line: up to '{' or ' '. */
static size_t name_len(const char *line)
{
	return strcspn(line, "{ \n");
}

/* Is the sample name line[0..n) the family's, or its histogram parts'? */
static bool in_family(const char *line, size_t n, const char *family)
{
	static const char *const parts[] = { "", "_bucket", "_sum", "_count" };
	size_t f = strlen(family);

	if (n < f || strncmp(line, family, f))
		return false;
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (n - f == strlen(parts[i]) && !strncmp(line + f, parts[i], n - f))
			return true;
	return false;
}

/*
 * Every sample belongs to the family of the last TYPE line (a histogram's
 * _bucket, _sum and _count too), every TYPE comes right after its HELP, and
 * no family is declared twice.
 */
TEST(prom_families)
{
	struct sample_trace s = trace_sample();
	char *text, *line, *save = NULL, family[128] = "", seen[8192] = " ";
	int samples = 0;
	bool help = false;

	REQUIRE(s.t);
	text = render(s.t, NULL);
	REQUIRE(text);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[128], type[16];
		size_t n;

		if (!strncmp(line, "# HELP ", 7)) {
			CHECK(!help);
			help = true;
			continue;
		}
		if (sscanf(line, "# TYPE %127s %15s", name, type) == 2) {
			char key[132];

			CHECK(help);
			help = false;
			CHECK(!strncmp(name, "iostorm_", 8));
			snprintf(key, sizeof(key), " %s ", name);
			CHECK(!strstr(seen, key));
			strncat(seen, key + 1, sizeof(seen) - strlen(seen) - 1);
			snprintf(family, sizeof(family), "%s", name);
			if (!strcmp(type, "counter"))
				CHECK(strlen(name) > 6 &&
				      !strcmp(name + strlen(name) - 6, "_total"));
			continue;
		}
		n = name_len(line);
		samples++;
		if (!in_family(line, n, family))
			unit__fail(__FILE__, __LINE__, "'%s' outside its family '%s'", line,
				   family);
	}
	CHECK(samples > 100);
	free(text);
	trace_free(s.t);
}

TEST(prom_counters_and_gauges)
{
	struct sample_trace s = trace_sample();
	char *text, want[32];

	REQUIRE(s.t);
	text = render(s.t, NULL);
	REQUIRE(text);
	check_value(text, "iostorm_vfs_opens_total", "2");
	check_value(text, "iostorm_vfs_open_errors_total", "1");
	check_value(text, "iostorm_vfs_reads_total", "4");
	check_value(text, "iostorm_vfs_read_bytes_total", "8191");
	check_value(text, "iostorm_vfs_stats_total", "0");
	check_value(text, "iostorm_vfs_closes_total", "0");
	check_value(text, "iostorm_vfs_metadata_seconds_total", "0.0000015");
	check_value(text, "iostorm_vfs_files", "2");
	check_value(text, "iostorm_vfs_dirs", "1");
	snprintf(want, sizeof(want), "%ld", 3 * sysconf(_SC_PAGESIZE));
	check_value(text, "iostorm_page_cache_added_bytes_total", want);
	check_value(text, "iostorm_trace_duration_seconds", "2.5");
	check_value(text, "iostorm_thread_seconds_total{state=\"cpu\"}", "2");
	check_value(text, "iostorm_thread_seconds_total{state=\"io_wait\"}", "0.0000005");
	check_value(text, "iostorm_thread_seconds_total{state=\"runq\"}", "0.000000006");
	check_value(text, "iostorm_thread_seconds_total{state=\"sleep\"}", "0");
	check_value(text, "iostorm_threads", "2");
	check_value(text, "iostorm_lost_events_total{reason=\"files_map_full\"}", "7");
	check_value(text, "iostorm_lost_events_total{reason=\"threads_map_full\"}", "0");
	check_value(text, "iostorm_lost_events_total{reason=\"prog_misses\"}", "2");
	check_value(text, "iostorm_store_files", "3");
	CHECK(value_of(text, "iostorm_store_bytes"));
	/* Fewer than 100 reads: little_io, INFO, is the only finding. */
	check_value(text, "iostorm_finding_severity{finding=\"little_io\"}", "1");
	check_value(text, "iostorm_verdict_severity", "1");
	/* 137 s in read() against 3 ms of block reads: above the block layer. */
	check_value(text, "iostorm_layer_verdict{verdict=\"above_block\"}", "1");
	check_value(text, "iostorm_layer_verdict{verdict=\"page_cache\"}", "0");
	check_value(text, "iostorm_layer_verdict{verdict=\"none\"}", "0");
	CHECK_EQ_INT(count_lines(text, "iostorm_layer_verdict{", ""), LAYER__MAX);
	CHECK_EQ_INT(count_lines(text, "iostorm_layer_verdict{", "} 1"), 1);
	free(text);
	trace_free(s.t);
}

TEST(prom_block)
{
	struct sample_trace s = trace_sample();
	char *text;

	REQUIRE(s.t);
	text = render(s.t, NULL);
	REQUIRE(text);
	check_value(text, "iostorm_block_requests_total{device=\"vda\",op=\"read\",who=\"target\"}",
		    "2");
	check_value(text, "iostorm_block_bytes_total{device=\"vda\",op=\"read\",who=\"target\"}",
		    "139264");
	check_value(text, "iostorm_block_requests_total{device=\"vda\",op=\"write\","
		    "who=\"kthread\"}", "5");
	check_value(text, "iostorm_block_requests_total{device=\"vda\",op=\"write\","
		    "who=\"target\"}", "0");
	/* No flush was seen: no flush series. */
	CHECK(!strstr(text, "op=\"flush\""));
	check_value(text, "iostorm_block_busy_seconds_total{device=\"vda\",scope=\"all\"}", "4");
	check_value(text, "iostorm_block_busy_seconds_total{device=\"vda\",scope=\"target\"}",
		    "0.0025");
	check_value(text, "iostorm_block_latency_seconds_count{device=\"vda\",op=\"read\","
		    "layer=\"total\"}", "2");
	check_value(text, "iostorm_block_latency_seconds_sum{device=\"vda\",op=\"read\","
		    "layer=\"total\"}", "0.003");
	check_value(text, "iostorm_block_latency_seconds_sum{device=\"vda\",op=\"read\","
		    "layer=\"queue\"}", "0.001");
	/* 1 ms and 2 ms: both within 2^21 - 1 ns, one within 2^20 - 1 ns. */
	check_value(text, "iostorm_block_latency_seconds_bucket{device=\"vda\",op=\"read\","
		    "layer=\"total\",le=\"0.001048575\"}", "1");
	check_value(text, "iostorm_block_latency_seconds_bucket{device=\"vda\",op=\"read\","
		    "layer=\"total\",le=\"0.002097151\"}", "2");
	check_value(text, "iostorm_block_request_size_bytes_bucket{device=\"vda\",op=\"read\","
		    "le=\"8191\"}", "0");
	check_value(text, "iostorm_block_request_size_bytes_bucket{device=\"vda\",op=\"read\","
		    "le=\"16383\"}", "1");
	check_value(text, "iostorm_block_request_size_bytes_sum{device=\"vda\",op=\"read\"}",
		    "139264");
	/* The target wrote nothing: no write histograms. */
	CHECK(!strstr(text, "iostorm_block_latency_seconds_count{device=\"vda\",op=\"write\""));
	free(text);
	trace_free(s.t);
}

/* The buckets of one series (name, labels without le), in order. */
static int buckets(const char *text, const char *name, const char *labels,
		   double *le, __u64 *count, int max)
{
	char prefix[256];
	const char *p = text;
	int n = 0;

	snprintf(prefix, sizeof(prefix), "%s_bucket{%s%sle=\"", name, labels,
		 *labels ? "," : "");
	while ((p = strstr(p, prefix)) && n < max) {
		char *end;

		p += strlen(prefix);
		le[n] = strncmp(p, "+Inf", 4) ? strtod(p, &end) : INFINITY;
		p = strchr(p, ' ');
		if (!p)
			break;
		count[n++] = strtoull(p + 1, &end, 10);
	}
	return n;
}

/* Bounds ascend, counts are cumulative, the last is +Inf and equals _count. */
static void check_hist(const char *text, const char *name, const char *labels)
{
	double le[64];
	__u64 count[64];
	char series[256];
	const char *c;
	int n = buckets(text, name, labels, le, count, 64);

	REQUIRE(n > 2);
	for (int i = 1; i < n; i++) {
		CHECK(le[i] > le[i - 1]);
		CHECK(count[i] >= count[i - 1]);
	}
	CHECK(isinf(le[n - 1]));
	snprintf(series, sizeof(series), "%s_count%s%s%s", name, *labels ? "{" : "", labels,
		 *labels ? "}" : "");
	c = value_of(text, series);
	REQUIRE(c);
	CHECK_EQ_U64(strtoull(c, NULL, 10), count[n - 1]);
}

TEST(prom_histograms)
{
	struct sample_trace s = trace_sample();
	const char *v;
	char *text, want[32];

	REQUIRE(s.t);
	text = render(s.t, NULL);
	REQUIRE(text);
	check_hist(text, "iostorm_vfs_read_latency_seconds", "");
	check_hist(text, "iostorm_vfs_read_size_bytes", "");
	check_hist(text, "iostorm_vfs_open_latency_seconds", "");
	check_hist(text, "iostorm_vfs_stat_latency_seconds", "");
	check_hist(text, "iostorm_block_latency_seconds",
		   "device=\"vda\",op=\"read\",layer=\"device\"");
	/* 1023 ns is exactly the first bound: in it; 1024 ns is in the next. */
	check_value(text, "iostorm_vfs_read_latency_seconds_bucket{le=\"0.000001023\"}", "1");
	check_value(text, "iostorm_vfs_read_latency_seconds_bucket{le=\"0.000002047\"}", "2");
	check_value(text, "iostorm_vfs_read_latency_seconds_bucket{le=\"0.008388607\"}", "3");
	/* 2^37 ns is past the last bound (2^37 - 1 ns): only in +Inf. */
	check_value(text, "iostorm_vfs_read_latency_seconds_bucket{le=\"137.438953471\"}", "3");
	check_value(text, "iostorm_vfs_read_latency_seconds_bucket{le=\"+Inf\"}", "4");
	check_value(text, "iostorm_vfs_read_latency_seconds_count", "4");
	/* The exact sum, in seconds: 1023 + 1024 + 5e6 + 2^37 ns. */
	snprintf(want, sizeof(want), "%llu.%09llu", s.read_ns / 1000000000ULL,
		 s.read_ns % 1000000000ULL);
	check_value(text, "iostorm_vfs_read_latency_seconds_sum", want);
	/* Sizes: 0 (EOF) has a bucket of its own; 4096 is past 4095. */
	check_value(text, "iostorm_vfs_read_size_bytes_bucket{le=\"0\"}", "1");
	check_value(text, "iostorm_vfs_read_size_bytes_bucket{le=\"511\"}", "1");
	check_value(text, "iostorm_vfs_read_size_bytes_bucket{le=\"4095\"}", "2");
	check_value(text, "iostorm_vfs_read_size_bytes_bucket{le=\"8191\"}", "4");
	check_value(text, "iostorm_vfs_read_size_bytes_sum", "8191");
	/* Open latency has no exact sum: estimated within 1/32 of 1500 ns. */
	v = value_of(text, "iostorm_vfs_open_latency_seconds_sum");
	REQUIRE(v);
	CHECK(fabs(strtod(v, NULL) - 1500e-9) <= 1500e-9 / 32);
	check_value(text, "iostorm_vfs_stat_latency_seconds_count", "0");
	check_value(text, "iostorm_vfs_stat_latency_seconds_sum", "0");
	free(text);
	trace_free(s.t);
}

/* Every `le` is the upper bound of a slot: buckets never split a slot. */
TEST(prom_bounds_are_slot_bounds)
{
	for (int k = PROM_NS_K_MIN; k <= PROM_NS_K_MAX; k++)
		CHECK_EQ_U64(hist__upper(hist__slot((1ULL << k) - 1)), (1ULL << k) - 1);
	for (int k = PROM_BYTES_K_MIN; k <= PROM_BYTES_K_MAX; k++)
		CHECK_EQ_U64(hist__upper(hist__slot((1ULL << k) - 1)), (1ULL << k) - 1);
	CHECK_EQ_U64(hist__upper(hist__slot(0)), 0);
}

TEST(prom_label_escaping)
{
	struct sample_trace s = trace_sample();
	char *text;

	REQUIRE(s.t);
	text = render(s.t, "resnet \"50\"\\v2");
	REQUIRE(text);
	/* Quote, backslash and newline escaped; a byte that is not UTF-8 -> '?'. */
	check_value(text, "iostorm_target_info{training_job=\"resnet \\\"50\\\"\\\\v2\","
		    "target=\"cmd \\\"a\\\\b\\\"\\nnext ? …\"}", "1");
	check_value(text, "iostorm_vfs_opens_total{training_job=\"resnet \\\"50\\\"\\\\v2\"}",
		    "2");
	check_value(text, "iostorm_vfs_read_size_bytes_bucket{training_job=\"resnet \\\"50\\\""
		    "\\\\v2\",le=\"0\"}", "1");
	CHECK(!strstr(text, "\xff"));
	free(text);
	/* No job, or an empty one: no training_job label at all. */
	text = render(s.t, "");
	REQUIRE(text);
	CHECK(!strstr(text, "training_job"));
	free(text);
	trace_free(s.t);
}

static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r"), *m = open_memstream(&buf, &len);
	int c;

	if (f && m)
		while ((c = fgetc(f)) != EOF)
			fputc(c, m);
	if (f)
		fclose(f);
	if (m)
		fclose(m);
	return buf;
}

TEST(prom_write_file)
{
	struct sample_trace s = trace_sample();
	char dir[] = "/tmp/iostorm-unit.XXXXXX", path[64], tmp[96], *want, *got;
	struct stat st;
	mode_t mask;

	REQUIRE(s.t);
	REQUIRE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/iostorm.prom", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	CHECK_EQ_INT(prom__write_file(path, s.t, judged(s.t), "j"), 0);
	want = render(s.t, "j");
	got = slurp(path);
	CHECK(want && got && !strcmp(want, got));
	mask = umask(0);
	umask(mask);
	CHECK(!stat(path, &st) && (st.st_mode & 0777) == (0644 & ~mask));
	CHECK(access(tmp, F_OK) && errno == ENOENT);
	/* Over an older file; and a failure leaves it and no temporary behind. */
	s.t->counters[C_OPENS] = 99;
	CHECK_EQ_INT(prom__write_file(path, s.t, judged(s.t), "j"), 0);
	free(got);
	got = slurp(path);
	CHECK(got && strstr(got, "iostorm_vfs_opens_total{training_job=\"j\"} 99\n"));
	CHECK(mkdir(tmp, 0700) == 0);	/* the temporary name cannot be a file */
	CHECK(prom__write_file(path, s.t, judged(s.t), "j") < 0);
	rmdir(tmp);
	free(want);
	want = slurp(path);
	CHECK(got && want && !strcmp(got, want));
	CHECK_EQ_INT(prom__write_file("/nonexistent/dir/x.prom", s.t, judged(s.t), NULL), -ENOENT);
	unlink(path);
	rmdir(dir);
	free(want);
	free(got);
	trace_free(s.t);
}

/* A full disk is named as such, not as "Input/output error". */
TEST(prom_render_full)
{
	struct sample_trace s = trace_sample();
	FILE *full = fopen("/dev/full", "w");

	REQUIRE(s.t && full);
	CHECK_EQ_INT(prom__render(full, s.t, judged(s.t), "j"), -ENOSPC);
	fclose(full);
	trace_free(s.t);
}

/* A port free on loopback now (the kernel's pick), as "127.0.0.1:PORT". */
static int free_port(char *buf, size_t len)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &alen))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	snprintf(buf, len, "127.0.0.1:%d", port);
	return port;
}

/* GET url from port on loopback: the whole response, headers included. */
static char *http_get(int port, const char *url)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	char req[128], *buf = NULL, chunk[4096];
	size_t len = 0;
	FILE *m;
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return NULL;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return NULL;
	}
	n = snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\nHost: x\r\n\r\n", url);
	if (write(fd, req, n) != n) {
		close(fd);
		return NULL;
	}
	m = open_memstream(&buf, &len);
	while (m && (n = read(fd, chunk, sizeof(chunk))) > 0)
		fwrite(chunk, 1, n, m);
	if (m)
		fclose(m);
	close(fd);
	return buf;
}

/* "HTTP/1.1 200 OK..." -> 200; -1 without a status line. */
static int status_of(const char *resp)
{
	int code;

	return resp && sscanf(resp, "HTTP/1.%*d %d", &code) == 1 ? code : -1;
}

TEST(prom_server)
{
	struct sample_trace s = trace_sample();
	struct prom_server *srv = NULL, *again = NULL;
	char addr[32], *resp, *want;
	int port, err, saved, null;

	REQUIRE(s.t);
	port = free_port(addr, sizeof(addr));
	REQUIRE(port > 0);
	REQUIRE(prom__serve(&srv, addr, "j") == 0 && prom__start(srv) == 0);
	resp = http_get(port, "/metrics");
	CHECK_EQ_INT(status_of(resp), 503);
	free(resp);
	CHECK_EQ_INT(prom__publish(srv, s.t, judged(s.t)), 0);
	resp = http_get(port, "/metrics");
	want = render(s.t, "j");
	REQUIRE(resp && want);
	CHECK_EQ_INT(status_of(resp), 200);
	CHECK(strstr(resp, "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"));
	CHECK(strstr(resp, "\r\n\r\n") && !strcmp(strstr(resp, "\r\n\r\n") + 4, want));
	free(resp);
	resp = http_get(port, "/nope");
	CHECK_EQ_INT(status_of(resp), 404);
	free(resp);
	/* The port is taken: -EADDRINUSE, said on stderr (silenced here). */
	fflush(stderr);
	saved = dup(2);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	dup2(null, 2);
	err = prom__serve(&again, addr, NULL);
	dup2(saved, 2);
	close(saved);
	close(null);
	CHECK_EQ_INT(err, -EADDRINUSE);
	CHECK(!again);
	prom__stop(srv);
	/* Stopped: the port is free again. */
	CHECK_EQ_INT(prom__serve(&again, addr, NULL), 0);
	prom__stop(again);
	prom__stop(NULL);
	free(want);
	trace_free(s.t);
}

/* Without an address: no server, snapshots for the textfile only. */
TEST(prom_save)
{
	struct sample_trace s = trace_sample();
	char dir[] = "/tmp/iostorm-unit.XXXXXX", path[64], *want, *got;
	struct prom_server *srv = NULL;

	REQUIRE(s.t);
	REQUIRE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/iostorm.prom", dir);
	REQUIRE(prom__serve(&srv, NULL, "j") == 0);
	CHECK_EQ_INT(prom__save(srv, path), -ENODATA);
	CHECK(access(path, F_OK) && errno == ENOENT);
	CHECK_EQ_INT(prom__publish(srv, s.t, judged(s.t)), 0);
	CHECK_EQ_INT(prom__save(srv, path), 0);
	want = render(s.t, "j");
	got = slurp(path);
	CHECK(want && got && !strcmp(want, got));
	prom__stop(srv);
	unlink(path);
	rmdir(dir);
	free(want);
	free(got);
	trace_free(s.t);
}
