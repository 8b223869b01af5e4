// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * iostorm diff: two reports of one workload side by side, and a CI gate on
 * the figures that say whether a data-loader change makes the job touch
 * storage more: counts per file compare exactly, timings with wide
 * tolerances (CI machines are noisy), findings by id and severity.
 *
 * load (skim) -> figures -> same workload? -> check limits -> print.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "diff.h"

#define SMALL_READ	(256 * 1024)	/* small_read_share: as the verdict's evidence */
#define COMM_LEN	15		/* bytes of a thread name (TASK_COMM_LEN - 1) */
#define OTHER_FILES	0.5		/* files differ by more than this share of BASE's */
#define EPS		1e-9		/* +10% from 1.0 to 1.1 is not "more than 10%" */

static const struct metric {
	const char *name;
	enum diff_kind kind;
	const char *limit;	/* the default limit, or NULL */
	const char *samples;	/* percentiles: what one sample is */
	const char *what;	/* --help: what it is, and from which key */
} metrics[DM__MAX] = {
	[DM_FILES] = { "files", DK_COUNT, NULL, NULL, "distinct regular files (vfs.files)" },
	[DM_OPENS] = { "opens", DK_COUNT, NULL, NULL, "successful opens (vfs.opens)" },
	[DM_READS] = { "reads", DK_COUNT, NULL, NULL, "read-family calls (vfs.reads)" },
	[DM_READ_BYTES] = { "read_bytes", DK_BYTES, NULL, NULL, "bytes read (vfs.read_bytes)" },
	[DM_STATS] = { "stats", DK_COUNT, NULL, NULL, "stat-family calls (vfs.stats)" },
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
	[DM_DURATION] = { "duration", DK_TIME, NULL, NULL, "traced wall time (duration_s)" },
};

/* Findings no --fail-on names are gated on this: a new HIGH fails. */
#define DEFAULT_FINDING_LIMIT	"finding:*>=HIGH"

static const char *const sev_names[] = { "OK", "INFO", "WARN", "HIGH" };

static const char *sev_name(int sev)
{
	return sev >= DIFF_SEV_OK && sev <= DIFF_SEV_HIGH ? sev_names[sev] : "-";
}

static int sev_parse(const char *s)
{
	for (int i = DIFF_SEV_OK; s && i <= DIFF_SEV_HIGH; i++)
		if (!strcasecmp(s, sev_names[i]))
			return i;
	return DIFF_SEV_NONE;
}

const char *diff__metric_name(int m)
{
	return m >= 0 && m < DM__MAX ? metrics[m].name : NULL;
}

/* snprintf at the end of what buf holds; never overflows, always ends. */
static void append(char *buf, size_t len, const char *fmt, ...)
{
	size_t off = strnlen(buf, len);
	va_list ap;

	if (off + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + off, len - off, fmt, ap);
	va_end(ap);
}

/* ---- loading: a streaming filter drops the per-file lists unparsed ---- */

/*
 * jansson holds ~3.5 KiB per parsed file record, so a 1M-file report
 * (~400 MB) would take ~4 GB; nothing here needs "files" or "dirs". The
 * filter passes everything but the value of those two top-level keys,
 * which it turns into "[" + the newlines it held + "]" (line numbers of
 * parse errors stay right). It tracks strings and nesting only: a value
 * that does not balance runs to the end and fails to parse.
 */
struct skim {
	FILE *f;
	int err;		/* errno of a failed read */
	unsigned char buf[65536];
	size_t len, pos;
	int depth;
	bool in_str, esc;
	bool want_key;		/* at depth 1, the next string is a key */
	bool in_key;		/* reading a top-level key */
	bool key_done;		/* a top-level key ended, its ':' is due */
	bool value_due;		/* ':' of a skipped key seen, its value is next */
	bool skipping;		/* inside a skipped value */
	char key[8];
	size_t key_len;
};

static bool skipped_key(const struct skim *s)
{
	return (s->key_len == 5 && !memcmp(s->key, "files", 5)) ||
	       (s->key_len == 4 && !memcmp(s->key, "dirs", 4));
}

static void skim_string_byte(struct skim *s, int c)
{
	if (s->esc) {
		s->esc = false;
	} else if (c == '\\') {
		s->esc = true;
	} else if (c == '"') {
		s->in_str = false;
		if (s->in_key) {
			s->in_key = false;
			s->key_done = true;
		}
		return;
	}
	if (s->in_key && s->key_len < sizeof(s->key))
		s->key[s->key_len++] = c;
	else if (s->in_key)
		s->key_len = sizeof(s->key) + 1;	/* too long for a skipped key */
}

/* The byte to pass on for input byte c, or -1 for none. */
static int skim_byte(struct skim *s, int c)
{
	bool hidden = s->skipping;

	if (s->in_str) {
		skim_string_byte(s, c);
		return hidden ? (c == '\n' ? c : -1) : c;
	}
	if (s->value_due && !isspace(c)) {
		s->value_due = false;
		if (c == '[' || c == '{') {
			s->depth++;
			s->skipping = true;
			return '[';
		}
	}
	switch (c) {
	case '"':
		s->in_str = true;
		if (s->depth == 1 && s->want_key && !s->skipping) {
			s->in_key = true;
			s->key_len = 0;
			s->want_key = false;
		}
		break;
	case '{':
	case '[':
		s->depth++;
		s->want_key = s->depth == 1 && c == '{';
		break;
	case '}':
	case ']':
		s->depth--;
		if (s->skipping && s->depth == 1) {
			s->skipping = false;
			return ']';
		}
		break;
	case ',':
		s->want_key = s->depth == 1;
		break;
	case ':':
		if (s->depth == 1 && s->key_done && !s->skipping)
			s->value_due = skipped_key(s);
		break;
	}
	if (!isspace(c))
		s->key_done = false;
	return hidden ? (c == '\n' ? c : -1) : c;
}

static size_t skim_read(void *buffer, size_t buflen, void *data)
{
	struct skim *s = data;
	char *out = buffer;
	size_t n = 0;

	while (n < buflen) {
		int c;

		if (s->pos == s->len) {
			s->pos = 0;
			s->len = fread(s->buf, 1, sizeof(s->buf), s->f);
			if (!s->len) {
				if (ferror(s->f)) {
					s->err = errno ? errno : EIO;
					return (size_t)-1;
				}
				break;
			}
		}
		c = skim_byte(s, s->buf[s->pos++]);
		if (c >= 0)
			out[n++] = c;
	}
	return n;
}

static int unusable(const char *path, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "iostorm: '%s' is not an iostorm report (", path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ")\n");
	return DIFF_EXIT_UNUSABLE;
}

static int check_schema(const char *path, const json_t *root)
{
	const char *schema;

	if (!json_is_object(root))
		return unusable(path, "not a JSON object");
	schema = json_string_value(json_object_get(root, "schema"));
	if (!schema)
		return unusable(path, "no schema, expected '%s'", DIFF_SCHEMA);
	if (strcmp(schema, DIFF_SCHEMA))
		return unusable(path, "schema '%s', expected '%s'", schema, DIFF_SCHEMA);
	if (!json_is_object(json_object_get(root, "vfs")))
		return unusable(path, "no 'vfs' section");
	return 0;
}

int diff__load(const char *path, json_t **root)
{
	struct skim *s;
	json_error_t jerr;
	int err = 0;

	*root = NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		fprintf(stderr, "iostorm: out of memory\n");
		return DIFF_EXIT_UNUSABLE;
	}
	s->f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	if (!s->f) {
		fprintf(stderr, "iostorm: cannot read '%s': %s\n", path, strerror(errno));
		err = DIFF_EXIT_UNUSABLE;
		goto out_free_skim;
	}
	*root = json_load_callback(skim_read, s, 0, &jerr);
	if (s->err) {
		fprintf(stderr, "iostorm: cannot read '%s': %s\n", path, strerror(s->err));
		err = DIFF_EXIT_UNUSABLE;
	} else if (!*root) {
		fprintf(stderr, "iostorm: '%s' is not JSON: %s (line %d, column %d)\n",
			path, jerr.text, jerr.line, jerr.column);
		err = DIFF_EXIT_UNUSABLE;
	} else {
		err = check_schema(path, *root);
	}
	if (err) {
		json_decref(*root);
		*root = NULL;
	}
	if (s->f != stdin)
		fclose(s->f);
out_free_skim:
	free(s);
	return err;
}

/* ---- figures: what a report says, tolerant of absent keys ---- */

/* The number at a dotted path ("vfs.opens"); false when absent. */
static bool get_num(const json_t *o, const char *path, double *out)
{
	char key[32];
	const char *dot;

	while ((dot = strchr(path, '.'))) {
		size_t n = dot - path;

		if (n >= sizeof(key))
			return false;
		memcpy(key, path, n);
		key[n] = 0;
		o = json_object_get(o, key);
		path = dot + 1;
	}
	o = json_object_get(o, path);
	if (!json_is_number(o))
		return false;
	*out = json_number_value(o);
	return true;
}

static void set(struct diff_figures *f, int m, double v)
{
	f->v[m] = v;
	f->have[m] = true;
}

static void ratio(struct diff_figures *f, int m, int num, int den)
{
	if (f->have[num] && f->have[den] && f->v[den] > 0)
		set(f, m, f->v[num] / f->v[den]);
}

static void vfs_figures(const json_t *r, struct diff_figures *f)
{
	static const struct { int m; const char *path; } keys[] = {
		{ DM_FILES, "vfs.files" }, { DM_OPENS, "vfs.opens" },
		{ DM_READS, "vfs.reads" }, { DM_READ_BYTES, "vfs.read_bytes" },
		{ DM_STATS, "vfs.stats" }, { DM_DURATION, "duration_s" },
	};
	double rnd, seq, meta, rd;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		f->have[keys[i].m] = get_num(r, keys[i].path, &f->v[keys[i].m]);
	f->v[DM_DURATION] *= 1e9;
	ratio(f, DM_OPENS_PER_FILE, DM_OPENS, DM_FILES);
	ratio(f, DM_READS_PER_FILE, DM_READS, DM_FILES);
	ratio(f, DM_STATS_PER_FILE, DM_STATS, DM_FILES);
	ratio(f, DM_BYTES_PER_READ, DM_READ_BYTES, DM_READS);
	/* The read classes cover the per-file records: their sum is the base. */
	if (get_num(r, "vfs.reads_random", &rnd)) {
		if (!get_num(r, "vfs.reads_sequential", &seq))
			seq = f->have[DM_READS] ? f->v[DM_READS] - rnd : 0;
		if (rnd + seq > 0)
			set(f, DM_RANDOM_SHARE, rnd / (rnd + seq));
	}
	if (get_num(r, "vfs.meta_ns", &meta) && get_num(r, "vfs.read_ns", &rd) && meta + rd > 0)
		set(f, DM_META_SHARE, meta / (meta + rd));
}

/* From the size histogram's buckets [lower, upper, count]: bounds are exact at 256 KiB. */
static void small_reads(const json_t *r, struct diff_figures *f)
{
	const json_t *b = json_object_get(json_object_get(json_object_get(r, "sizes"), "read"),
					  "buckets");
	double small = 0, data = 0;
	json_t *row;
	size_t i;

	if (!json_is_array(b))
		return;
	json_array_foreach(b, i, row) {
		double lo = json_number_value(json_array_get(row, 0));
		double n = json_number_value(json_array_get(row, 2));

		if (lo < 1)
			continue;	/* end-of-file reads */
		data += n;
		if (lo < SMALL_READ)
			small += n;
	}
	if (data > 0)
		set(f, DM_SMALL_READ_SHARE, small / data);
}

/* p50 and p99 of a {count, p50, p99} object; m50 < 0 skips the median. */
static bool percentiles(const json_t *h, struct diff_figures *f, int m50, int m99)
{
	double n, p;

	if (!get_num(h, "count", &n) || n <= 0)
		return false;
	if (m50 >= 0 && get_num(h, "p50", &p)) {
		set(f, m50, p);
		f->samples[m50] = n;
	}
	if (get_num(h, "p99", &p)) {
		set(f, m99, p);
		f->samples[m99] = n;
	}
	return true;
}

static const json_t *path_get(const json_t *o, const char *const *keys)
{
	for (; *keys && o; keys++)
		o = json_object_get(o, *keys);
	return o;
}

static void block_figures(const json_t *r, struct diff_figures *f)
{
	static const char *const read_target[] = { "ops", "read", "target", NULL };
	static const char *const total[] = { "latency", "total", NULL };
	const json_t *devs = json_object_get(json_object_get(r, "block"), "devices");
	double reads = 0, seq = 0, n, s;
	json_t *d;
	size_t i;

	if (!json_is_array(devs))
		return;
	json_array_foreach(devs, i, d) {
		const json_t *t = path_get(d, read_target);

		/* Without ops (older reports) "sequential" counts writes too. */
		if (get_num(t, "reqs", &n) || get_num(d, "reads", &n)) {
			reads += n;
			if (get_num(t, "sequential", &s) || get_num(d, "sequential", &s))
				seq += s < n ? s : n;
		}
	}
	set(f, DM_BLK_READS, reads);
	if (reads > 0)
		set(f, DM_BLK_RANDOM_SHARE, (reads - seq) / reads);
	/* Percentiles of several devices do not merge: then layers only. */
	if (!percentiles(json_object_get(json_object_get(r, "layers"), "block_total"), f,
			 DM_BLK_P50, DM_BLK_P99) && json_array_size(devs) == 1)
		percentiles(path_get(path_get(json_array_get(devs, 0), read_target), total),
			    f, DM_BLK_P50, DM_BLK_P99);
}

static void thread_figures(const json_t *r, struct diff_figures *f)
{
	static const char *const others[] = { "cpu_ns", "runq_ns", "sleep_ns" };
	const json_t *threads = json_object_get(r, "threads");
	double io = 0, all = 0, v;
	bool any = false;
	json_t *t;
	size_t i;

	json_array_foreach(threads, i, t) {
		if (!get_num(t, "io_wait_ns", &v))
			continue;
		any = true;
		io += v;
		all += v;
		for (int k = 0; k < 3; k++)
			if (get_num(t, others[k], &v))
				all += v;
	}
	if (any && all > 0)
		set(f, DM_IO_WAIT_SHARE, io / all);
}

static void finding_figures(const json_t *r, struct diff_figures *f)
{
	json_t *x;
	size_t i;

	json_array_foreach(json_object_get(r, "findings"), i, x) {
		const char *id = json_string_value(json_object_get(x, "id"));
		int sev = sev_parse(json_string_value(json_object_get(x, "severity")));
		int k;

		if (!id || sev == DIFF_SEV_NONE)
			continue;
		for (k = 0; k < f->nr_findings; k++)
			if (!strcmp(f->findings[k].id, id))
				break;
		if (k == f->nr_findings) {
			if (k == DIFF_MAX_FINDINGS)
				continue;
			snprintf(f->findings[k].id, sizeof(f->findings[k].id), "%s", id);
			f->findings[k].sev = DIFF_SEV_NONE;
			f->nr_findings++;
		}
		if (sev > f->findings[k].sev)
			f->findings[k].sev = sev;
	}
}

void diff__figures(const json_t *r, struct diff_figures *f)
{
	const json_t *lat = json_object_get(r, "latency");

	memset(f, 0, sizeof(*f));
	snprintf(f->target, sizeof(f->target), "%s",
		 json_string_value(json_object_get(r, "target")) ?: "");
	vfs_figures(r, f);
	small_reads(r, f);
	if (!percentiles(json_object_get(lat, "read"), f, DM_READ_P50, DM_READ_P99))
		percentiles(json_object_get(json_object_get(r, "layers"), "read"), f,
			    DM_READ_P50, DM_READ_P99);
	percentiles(json_object_get(lat, "open"), f, -1, DM_OPEN_P99);
	block_figures(r, f);
	thread_figures(r, f);
	finding_figures(r, f);
}

int diff__finding_sev(const struct diff_figures *f, const char *id)
{
	for (int i = 0; i < f->nr_findings; i++)
		if (!strcmp(f->findings[i].id, id))
			return f->findings[i].sev;
	return DIFF_SEV_NONE;
}

/* ---- the same workload? ---- */

/*
 * The program a target names, as a thread name would say it:
 * "command /usr/bin/python3 train.py" and "pid 42 (python3)" both give
 * "python3"; "cgroup /job" gives "/job".
 */
static void target_program(const char *target, char *out, size_t len)
{
	const char *p = target, *end, *slash;

	if (!strncmp(p, "command ", 8)) {
		p += 8;
		end = p + strcspn(p, " ");
		for (slash = p; (slash = memchr(slash, '/', end - slash)); p = ++slash)
			;
	} else if (!strncmp(p, "pid", 3) && (p = strchr(p, '('))) {
		end = strchr(++p, ')');
		if (!end)
			end = p + strlen(p);
	} else {
		p = !strncmp(target, "cgroup ", 7) ? target + 7 : target;
		end = p + strlen(p);
	}
	if (end - p > COMM_LEN)
		end = p + COMM_LEN;
	snprintf(out, len, "%.*s", (int)(end - p), p);
}

bool diff__other_workload(const struct diff_figures *b, const struct diff_figures *n,
			  char *why, size_t len)
{
	char pb[64], pn[64];

	why[0] = 0;
	if (!b->have[DM_FILES] || !n->have[DM_FILES] || !b->target[0] || !n->target[0])
		return false;
	if (fabs(n->v[DM_FILES] - b->v[DM_FILES]) <= OTHER_FILES * b->v[DM_FILES])
		return false;
	target_program(b->target, pb, sizeof(pb));
	target_program(n->target, pn, sizeof(pn));
	if (!strcmp(pb, pn))
		return false;
	snprintf(why, len, "%.0f files by '%s' vs %.0f files by '%s'",
		 b->v[DM_FILES], pb, n->v[DM_FILES], pn);
	return true;
}

/* ---- limits ---- */

static int limit_error(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parse_finding_limit(const char *s, struct diff_limit *l, char *err, size_t len)
{
	const char *id = s + strlen("finding:");
	size_t n = strcspn(id, ">");

	l->metric = -1;
	l->min_sev = DIFF_SEV_INFO;
	if (!n || n >= sizeof(l->finding))
		return limit_error(err, len, "expected finding:ID or finding:ID>=SEVERITY");
	for (size_t i = 0; i < n; i++)
		if (!(islower((unsigned char)id[i]) || isdigit((unsigned char)id[i]) ||
		      id[i] == '_') && !(n == 1 && id[i] == '*'))
			return limit_error(err, len, "'%.*s' is not a finding id "
					   "(lower case, digits, '_'; '*' for any)", (int)n, id);
	memcpy(l->finding, id, n);
	if (!id[n])
		return 0;
	if (strncmp(id + n, ">=", 2))
		return limit_error(err, len, "expected '>=' after the finding id");
	l->min_sev = sev_parse(id + n + 2);
	if (l->min_sev == DIFF_SEV_NONE)
		return limit_error(err, len, "unknown severity '%s': OK, INFO, WARN or HIGH",
				   id + n + 2);
	return 0;
}

/*
 * The multiplier of a value's unit suffix for kind k; 0 if not allowed
 * (a time without a unit included).
 */
static double unit_scale(enum diff_kind k, const char *u, bool delta, bool *relative)
{
	static const struct { const char *u; double x; } times[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "µs", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	}, bytes[] = {
		{ "K", 1024.0 }, { "M", 1048576.0 }, { "G", 1073741824.0 },
		{ "T", 1099511627776.0 },
	};

	*relative = false;
	if (!strcmp(u, "%") && (delta || k == DK_SHARE)) {
		*relative = delta;
		return 0.01;
	}
	if (!strcmp(u, "pp") && k == DK_SHARE)
		return 0.01;
	if (!*u)
		return k == DK_TIME ? 0 : 1;
	for (size_t i = 0; k == DK_TIME && i < sizeof(times) / sizeof(times[0]); i++)
		if (!strcmp(u, times[i].u))
			return times[i].x;
	for (size_t i = 0; k == DK_BYTES && i < sizeof(bytes) / sizeof(bytes[0]); i++)
		if (!strcmp(u, bytes[i].u))
			return bytes[i].x;
	return 0;
}

static const char *const unit_help[] = {
	[DK_COUNT] = "a count, '+N%' or '+N'",
	[DK_BYTES] = "bytes with K, M, G, T (1024s), or '+N%'",
	[DK_RATIO] = "a number, or '+N%'",
	[DK_SHARE] = "a fraction (0.2), a share (20%), points of change (+5pp), or '+N%'",
	[DK_TIME] = "a time with ns, us, ms or s, or '+N%'",
};

int diff__parse_limit(const char *s, struct diff_limit *l, char *err, size_t len)
{
	const char *op, *p;
	char *end;
	double scale;
	int m;

	memset(l, 0, sizeof(*l));
	err[0] = 0;
	if (snprintf(l->text, sizeof(l->text), "%s", s) >= (int)sizeof(l->text))
		return limit_error(err, len, "too long");
	if (!strncmp(s, "finding:", 8))
		return parse_finding_limit(s, l, err, len);
	op = strpbrk(s, "<>");
	if (!op)
		return limit_error(err, len, "no '>' or '<' (quote the limit: the shell "
				   "takes '>' for a redirection)");
	for (m = 0; m < DM__MAX; m++)
		if (strlen(metrics[m].name) == (size_t)(op - s) &&
		    !strncmp(s, metrics[m].name, op - s))
			break;
	if (m == DM__MAX)
		return limit_error(err, len, "unknown metric '%.*s' (see 'iostorm diff --help')",
				   (int)(op - s), s);
	l->metric = m;
	l->op = *op;
	p = op + 1;
	if (*p == '+' || *p == '-') {
		if ((*p == '+') != (l->op == '>'))
			return limit_error(err, len,
					   "'>' takes an increase (+N), '<' a decrease (-N)");
		l->delta = true;
		p++;
	}
	if (!isdigit((unsigned char)*p) && *p != '.')
		return limit_error(err, len, "expected %s after '%c'",
				   unit_help[metrics[m].kind], l->op);
	errno = 0;
	l->value = strtod(p, &end);
	scale = unit_scale(metrics[m].kind, end, l->delta, &l->relative);
	/* A time needs a unit, but for 0. */
	if (errno || end == p || (!scale && (*end || l->value)))
		return limit_error(err, len, "bad value '%s' for %s: expected %s", p,
				   metrics[m].name, unit_help[metrics[m].kind]);
	l->value *= scale;
	if (metrics[m].kind == DK_SHARE && !l->relative && l->value > 1)
		return limit_error(err, len, "a share is at most 1 (100%%)");
	return 0;
}

int diff__default_limits(struct diff_limit *out, int max)
{
	char err[160];
	int n = 0;

	for (int m = 0; m <= DM__MAX && n < max; m++) {
		const char *s = m < DM__MAX ? metrics[m].limit : DEFAULT_FINDING_LIMIT;

		if (s && !diff__parse_limit(s, &out[n], err, sizeof(err)))
			out[n++].is_default = true;
	}
	return n;
}

/* ---- checking ---- */

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

static const char *fmt_value(char *buf, size_t len, int m, double v)
{
	static const char *const times[] = { "ns", "µs", "ms", "s" };
	static const char *const bytes[] = { " B", " KiB", " MiB", " GiB", " TiB" };

	switch (metrics[m].kind) {
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
static const char *fmt_change(char *buf, size_t len, int m, double b, double n)
{
	double x;

	if (n == b)
		return "=";
	if (metrics[m].kind == DK_SHARE) {
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

static enum diff_status check_finding(const struct diff_limit *l, const struct diff_figures *b,
				      const struct diff_figures *n, char *why, size_t len)
{
	enum diff_status st = DIFF_PASS;

	for (int i = 0; i < n->nr_findings; i++) {
		const char *id = n->findings[i].id;
		int sev = n->findings[i].sev, was;

		if (strcmp(l->finding, "*") && strcmp(l->finding, id))
			continue;
		was = diff__finding_sev(b, id);
		if (sev < l->min_sev || sev <= was)
			continue;
		append(why, len, "%s%s %s (was %s)", st == DIFF_FAIL ? ", " : "finding ",
		       id, sev_name(sev), was == DIFF_SEV_NONE ? "absent" : sev_name(was));
		st = DIFF_FAIL;
	}
	return st;
}

static bool too_few(const struct diff_figures *f, int m, const char *which, char *why,
		    size_t len)
{
	if (!metrics[m].samples || f->samples[m] >= DIFF_MIN_SAMPLES)
		return false;
	snprintf(why, len, "only %.0f %s in %s, fewer than %d", f->samples[m],
		 metrics[m].samples, which, DIFF_MIN_SAMPLES);
	return true;
}

enum diff_status diff__check(const struct diff_limit *l, const struct diff_figures *b,
			     const struct diff_figures *n, char *why, size_t len)
{
	char none[1], vb[32], vn[32], ch[32];
	int m = l->metric;
	double x, bv, nv;
	bool fail;

	if (!why) {
		why = none;
		len = sizeof(none);
	}
	why[0] = 0;
	if (m < 0)
		return check_finding(l, b, n, why, len);
	if (!n->have[m] || (l->delta && !b->have[m])) {
		snprintf(why, len, "%s not in %s", metrics[m].name, n->have[m] ? "BASE" : "NEW");
		return DIFF_UNCHECKED;
	}
	if (too_few(n, m, "NEW", why, len) || (l->delta && too_few(b, m, "BASE", why, len)))
		return DIFF_UNCHECKED;
	bv = b->v[m];
	nv = n->v[m];
	if (!l->delta)
		x = nv;
	else if (!l->relative)
		x = nv - bv;
	else if (bv > 0)
		x = (nv - bv) / bv;
	else
		x = nv > bv ? INFINITY : nv < bv ? -INFINITY : 0;
	if (l->op == '>')
		fail = x - l->value > EPS * fmax(1, fabs(l->value));
	else
		fail = (l->delta ? -l->value : l->value) - x > EPS * fmax(1, fabs(l->value));
	if (l->delta && b->have[m])
		snprintf(why, len, "%s %s -> %s (%s)", metrics[m].name,
			 fmt_value(vb, sizeof(vb), m, bv), fmt_value(vn, sizeof(vn), m, nv),
			 fmt_change(ch, sizeof(ch), m, bv, nv));
	else
		snprintf(why, len, "%s %s", metrics[m].name, fmt_value(vn, sizeof(vn), m, nv));
	return fail ? DIFF_FAIL : DIFF_PASS;
}

/* ---- one run: options, reports, results ---- */

struct diff_run {
	const char *path[2];		/* BASE, NEW */
	json_t *root[2];
	struct diff_figures fig[2];
	struct diff_limit limits[DIFF_MAX_LIMITS];
	enum diff_status status[DIFF_MAX_LIMITS];
	char why[DIFF_MAX_LIMITS][192];
	int nr_limits;
	int failed, unchecked;
	bool json, force, no_defaults;
};

static void check_all(struct diff_run *r)
{
	for (int i = 0; i < r->nr_limits; i++) {
		r->status[i] = diff__check(&r->limits[i], &r->fig[0], &r->fig[1], r->why[i],
					   sizeof(r->why[i]));
		r->failed += r->status[i] == DIFF_FAIL;
		r->unchecked += r->status[i] == DIFF_UNCHECKED;
	}
}

static const char *const status_names[] = {
	[DIFF_PASS] = "ok", [DIFF_FAIL] = "REGRESSED", [DIFF_UNCHECKED] = "not checked",
};

/* Terminal columns of UTF-8 text: one per character. */
static int cols(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void put_col(FILE *out, const char *s, int width)
{
	fprintf(out, "%*s%s", width > cols(s) ? width - cols(s) : 0, "", s);
}

static void print_metric(FILE *out, const struct diff_run *r, int m)
{
	const struct diff_figures *b = &r->fig[0], *n = &r->fig[1];
	char vb[32], vn[32], ch[32];
	bool first = true;

	fprintf(out, "%-17s", metrics[m].name);
	put_col(out, b->have[m] ? fmt_value(vb, sizeof(vb), m, b->v[m]) : "-", 12);
	put_col(out, n->have[m] ? fmt_value(vn, sizeof(vn), m, n->v[m]) : "-", 12);
	put_col(out, b->have[m] && n->have[m] ?
		fmt_change(ch, sizeof(ch), m, b->v[m], n->v[m]) : "-", 10);
	for (int i = 0; i < r->nr_limits; i++) {
		const struct diff_limit *l = &r->limits[i];

		if (l->metric != m)
			continue;
		if (!first)
			fprintf(out, "\n%-17s%34s", "", "");
		fprintf(out, "  %-9s %s", l->text + strlen(metrics[m].name),
			status_names[r->status[i]]);
		first = false;
	}
	fputc('\n', out);
}

static void print_findings(FILE *out, const struct diff_run *r)
{
	const struct diff_figures *b = &r->fig[0], *n = &r->fig[1];
	int same = 0, shown = 0;

	fprintf(out, "\nfindings (BASE -> NEW):\n");
	for (int k = 0; k < 2; k++) {
		const struct diff_figures *f = k ? b : n;

		for (int i = 0; i < f->nr_findings; i++) {
			const char *id = f->findings[i].id;
			int sb = diff__finding_sev(b, id), sn = diff__finding_sev(n, id);

			if (k && sn != DIFF_SEV_NONE)
				continue;	/* listed with NEW's */
			if (sb == sn) {
				same++;
				continue;
			}
			fprintf(out, "  %-22s %-6s -> %-6s %s\n", id, sev_name(sb), sev_name(sn),
				sb == DIFF_SEV_NONE ? "gained" : sn == DIFF_SEV_NONE ? "lost" :
				sn > sb ? "worse" : "better");
			shown++;
		}
	}
	if (!b->nr_findings && !n->nr_findings)
		fprintf(out, "  none in either report\n");
	else if (!shown)
		fprintf(out, "  no change (%d the same)\n", same);
	else if (same)
		fprintf(out, "  %d more the same\n", same);
	for (int i = 0; i < r->nr_limits; i++)
		if (r->limits[i].metric < 0)
			fprintf(out, "  %-38s %s\n", r->limits[i].text, status_names[r->status[i]]);
}

static void print_text(FILE *out, const struct diff_run *r)
{
	for (int k = 0; k < 2; k++) {
		const struct diff_figures *f = &r->fig[k];
		char d[32];

		fprintf(out, "%s '%s': %s, %s\n", k ? "NEW: " : "BASE:", r->path[k],
			f->target[0] ? f->target : "unknown target", f->have[DM_DURATION] ?
			fmt_value(d, sizeof(d), DM_DURATION, f->v[DM_DURATION]) : "-");
	}
	fprintf(out, "\n%-17s%12s%12s%10s  %s\n", "metric", "BASE", "NEW", "change",
		"limit     result");
	for (int m = 0; m < DM__MAX; m++)
		print_metric(out, r, m);
	print_findings(out, r);
	fputc('\n', out);
	for (int i = 0; i < r->nr_limits; i++)
		if (r->status[i] == DIFF_FAIL ||
		    (r->status[i] == DIFF_UNCHECKED && !r->limits[i].is_default))
			fprintf(out, "%s: %s: %s\n", r->status[i] == DIFF_FAIL ? "REGRESSED" :
				"not checked", r->limits[i].text, r->why[i]);
	if (r->failed)
		fprintf(out, "iostorm diff: REGRESSION: %d of %d limits failed\n", r->failed,
			r->nr_limits);
	else
		fprintf(out, "iostorm diff: no regression: %d limits ok, %d not checked\n",
			r->nr_limits - r->unchecked, r->unchecked);
}

static json_t *json_num(int m, bool have, double v)
{
	if (!have || !isfinite(v))
		return json_null();
	if (metrics[m].kind != DK_RATIO && metrics[m].kind != DK_SHARE &&
	    v == floor(v) && fabs(v) < 9007199254740992.0)
		return json_integer((json_int_t)v);
	return json_real(v);
}

static json_t *json_metrics(const struct diff_run *r)
{
	static const char *const units[] = {
		[DK_COUNT] = "count", [DK_BYTES] = "bytes", [DK_RATIO] = "ratio",
		[DK_SHARE] = "fraction", [DK_TIME] = "ns",
	};
	const struct diff_figures *b = &r->fig[0], *n = &r->fig[1];
	json_t *a = json_array();

	for (int m = 0; m < DM__MAX; m++) {
		bool both = b->have[m] && n->have[m];

		json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:o, s:o, s:o}",
			"name", metrics[m].name, "unit", units[metrics[m].kind],
			"base", json_num(m, b->have[m], b->v[m]),
			"new", json_num(m, n->have[m], n->v[m]),
			"delta", json_num(m, both, n->v[m] - b->v[m]),
			"change", both && b->v[m] > 0 ?
				json_real((n->v[m] - b->v[m]) / b->v[m]) : json_null()));
	}
	return a;
}

static json_t *json_sev(int sev)
{
	return sev == DIFF_SEV_NONE ? json_null() : json_string(sev_name(sev));
}

static json_t *json_findings(const struct diff_run *r)
{
	const struct diff_figures *b = &r->fig[0], *n = &r->fig[1];
	json_t *a = json_array();

	for (int k = 0; k < 2; k++) {
		const struct diff_figures *f = k ? b : n;

		for (int i = 0; i < f->nr_findings; i++) {
			const char *id = f->findings[i].id;
			int sb = diff__finding_sev(b, id), sn = diff__finding_sev(n, id);

			if (k && sn != DIFF_SEV_NONE)
				continue;
			json_array_append_new(a, json_pack("{s:s, s:o, s:o, s:s}", "id", id,
				"base", json_sev(sb), "new", json_sev(sn), "change",
				sb == sn ? "same" : sb == DIFF_SEV_NONE ? "gained" :
				sn == DIFF_SEV_NONE ? "lost" : sn > sb ? "worse" : "better"));
		}
	}
	return a;
}

static json_t *json_limits(const struct diff_run *r)
{
	static const char *const results[] = {
		[DIFF_PASS] = "ok", [DIFF_FAIL] = "regressed", [DIFF_UNCHECKED] = "unchecked",
	};
	json_t *a = json_array();

	for (int i = 0; i < r->nr_limits; i++)
		json_array_append_new(a, json_pack("{s:s, s:b, s:s, s:s}",
			"limit", r->limits[i].text, "default", r->limits[i].is_default,
			"result", results[r->status[i]], "detail", r->why[i]));
	return a;
}

static int print_json(FILE *out, const struct diff_run *r)
{
	json_t *doc;
	int err;

	doc = json_pack("{s:s, s:{s:s, s:o}, s:{s:s, s:o}, s:o, s:o, s:o, s:i, s:s}",
		"schema", DIFF_OUT_SCHEMA,
		"base", "path", r->path[0], "target",
			r->fig[0].target[0] ? json_string(r->fig[0].target) : json_null(),
		"new", "path", r->path[1], "target",
			r->fig[1].target[0] ? json_string(r->fig[1].target) : json_null(),
		"metrics", json_metrics(r), "findings", json_findings(r),
		"limits", json_limits(r), "regressions", r->failed,
		"result", r->failed ? "regressed" : "ok");
	if (!doc)
		return -ENOMEM;
	err = json_dumpf(doc, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	fputc('\n', out);
	json_decref(doc);
	return err ? -EIO : 0;
}

/* ---- the command line ---- */

static const char usage_head[] =
"usage: iostorm diff [options] BASE.json NEW.json\n"
"\n"
"Compare two iostorm JSON reports of the same workload, BASE before a\n"
"change (a new data loader, a new dataset layout) and NEW after it: print\n"
"the figures that matter side by side, and exit 1 when NEW regresses past\n"
"a limit, so that a CI job can gate on it. '-' reads one report from stdin.\n"
"\n"
"Options:\n"
"      --fail-on LIMIT      fail when NEW passes LIMIT (repeatable, or a\n"
"                           comma-separated list); replaces the default\n"
"                           limits of its metric. Quote it: '>' is a\n"
"                           shell redirection\n"
"      --no-default-limits  check the --fail-on limits only\n"
"      --force              compare reports of different workloads\n"
"      --json               print the comparison as JSON (iostorm.diff/1)\n"
"  -h, --help               this text\n"
"\n"
"LIMIT:\n"
"  METRIC>+N%%      NEW above BASE by more than N%%    'opens_per_file>+10%%'\n"
"  METRIC>+N       NEW above BASE by more than N     'reads>+0', 'read_p99>+2ms'\n"
"  METRIC>N        NEW above N                       'io_wait_share>50%%'\n"
"  METRIC<-N%%, METRIC<-N, METRIC<N: the same for a decrease or a floor\n"
"  finding:ID      NEW has finding ID at INFO or worse, and BASE had it less\n"
"                  severe or not at all (ID '*': any finding)\n"
"  finding:ID>=SEVERITY   the same from SEVERITY: OK, INFO, WARN or HIGH\n"
"Times take ns, us, ms, s; bytes K, M, G, T; shares are fractions (0.2)\n"
"or percentages (20%%), their changes in points (+5pp). Counts compare\n"
"exactly; percentiles from fewer than %d calls are not checked.\n"
"\n"
"Metrics            default  what\n";

static const char usage_tail[] =
"  findings         %-8s findings gained or worse, by id and severity\n"
"\n"
"Exit status: 0 no regression, 1 a regression, 2 a bad command line or\n"
"limit, 3 a report missing, not JSON, not of schema %s, or of\n"
"another workload (its files differ by more than 50%% and so does its\n"
"program; --force compares anyway), 4 the output could not be written.\n"
"\n"
"Example: a CI gate on the data loader (docs/diff.md, scripts/ci-gate.sh)\n"
"  iostorm -q --json new.json -- python load_sample.py  # the loader on a sample\n"
"  iostorm diff baseline.json new.json                  # exit 1: regression\n"
"  cp new.json baseline.json    # after a deliberate change; commit it\n";

static void usage(FILE *out)
{
	fprintf(out, usage_head, DIFF_MIN_SAMPLES);
	for (int m = 0; m < DM__MAX; m++) {
		const char *lim = metrics[m].limit;

		fprintf(out, "  %-16s %-8s %s\n", metrics[m].name,
			lim ? lim + strlen(metrics[m].name) : "", metrics[m].what);
	}
	fprintf(out, usage_tail, DEFAULT_FINDING_LIMIT + strlen("finding:"), DIFF_SCHEMA);
}

static int try_help(void)
{
	fprintf(stderr, "Try 'iostorm diff --help' for more information.\n");
	return -EINVAL;
}

static int add_limits(struct diff_run *r, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL, err[192];
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		if (r->nr_limits == DIFF_MAX_LIMITS) {
			fprintf(stderr, "iostorm: more than %d limits\n", DIFF_MAX_LIMITS);
			rc = -E2BIG;
		} else if (diff__parse_limit(tok, &r->limits[r->nr_limits], err, sizeof(err))) {
			fprintf(stderr, "iostorm: invalid limit '%s': %s\n", tok, err);
			rc = -EINVAL;
		} else {
			r->nr_limits++;
		}
	}
	free(copy);
	return rc;
}

/* The defaults of every metric (and finding:*) no --fail-on names. */
static void add_defaults(struct diff_run *r)
{
	struct diff_limit def[DIFF_MAX_LIMITS];
	int n = diff__default_limits(def, DIFF_MAX_LIMITS), given = r->nr_limits;

	for (int i = 0; i < n && r->nr_limits < DIFF_MAX_LIMITS; i++) {
		bool named = false;

		for (int k = 0; k < given; k++) {
			const struct diff_limit *u = &r->limits[k];

			named |= def[i].metric >= 0 ? u->metric == def[i].metric :
				 u->metric < 0 && !strcmp(u->finding, def[i].finding);
		}
		if (!named)
			r->limits[r->nr_limits++] = def[i];
	}
}

/* 0 to go on, 1 when --help was printed, or -errno after saying why. */
static int parse_args(struct diff_run *r, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fail-on", required_argument, NULL, 'f' },
		{ "no-default-limits", no_argument, NULL, 'N' },
		{ "force", no_argument, NULL, 'F' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c, rc;

	optind = 0;	/* glibc: start afresh, whatever parsed argv before */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			rc = add_limits(r, optarg);
			if (rc)
				return rc;
			break;
		case 'N':
			r->no_defaults = true;
			break;
		case 'F':
			r->force = true;
			break;
		case 'j':
			r->json = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case ':':
			fprintf(stderr, "iostorm: option '%s' needs a value\n", argv[optind - 1]);
			return try_help();
		default:
			if (optopt)
				fprintf(stderr, "iostorm: unknown option '-%c'\n", optopt);
			else
				fprintf(stderr, "iostorm: unknown option '%s'\n", argv[optind - 1]);
			return try_help();
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "iostorm: diff needs two reports, BASE.json and NEW.json\n");
		return try_help();
	}
	r->path[0] = argv[optind];
	r->path[1] = argv[optind + 1];
	if (!strcmp(r->path[0], "-") && !strcmp(r->path[1], "-")) {
		fprintf(stderr, "iostorm: only one report can come from stdin ('-')\n");
		return try_help();
	}
	if (!r->no_defaults)
		add_defaults(r);
	return 0;
}

static int load_both(struct diff_run *r)
{
	char why[160];
	int err;

	for (int k = 0; k < 2; k++) {
		err = diff__load(r->path[k], &r->root[k]);
		if (err)
			return err;
		diff__figures(r->root[k], &r->fig[k]);
	}
	if (!r->force && diff__other_workload(&r->fig[0], &r->fig[1], why, sizeof(why))) {
		fprintf(stderr, "iostorm: '%s' and '%s' trace different workloads (%s); "
			"use --force to compare them anyway\n", r->path[0], r->path[1], why);
		return DIFF_EXIT_UNUSABLE;
	}
	return 0;
}

int diff__main(int argc, char **argv)
{
	struct diff_run *r = calloc(1, sizeof(*r));
	int rc;

	if (!r) {
		fprintf(stderr, "iostorm: out of memory\n");
		return DIFF_EXIT_UNUSABLE;
	}
	rc = parse_args(r, argc, argv);
	if (rc) {
		rc = rc > 0 ? DIFF_EXIT_OK : DIFF_EXIT_USAGE;
		goto out_free_run;
	}
	rc = load_both(r);
	if (rc)
		goto out_put_roots;
	check_all(r);
	if (r->json)
		rc = print_json(stdout, r);
	else
		print_text(stdout, r);
	if (rc || fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "iostorm: cannot write the comparison: %s\n",
			strerror(rc ? -rc : errno));
		rc = DIFF_EXIT_WRITE;
		goto out_put_roots;
	}
	rc = r->failed ? DIFF_EXIT_REGRESSED : DIFF_EXIT_OK;
out_put_roots:
	json_decref(r->root[1]);
	json_decref(r->root[0]);
out_free_run:
	free(r);
	return rc;
}
