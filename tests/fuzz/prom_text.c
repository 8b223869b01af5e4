// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the Prometheus exposition writer (prom/text.c) with
 * what a node's tenants name: label values and the job (a process name, a
 * cgroup path, a Slurm job), any bytes. The input is its fields separated
 * by NUL bytes: the first byte sets the series bound and how many labels a
 * sample has, then the job, then label values; the rest fills a histogram.
 * Every page must be valid text exposition 0.0.4, which the validator below
 * checks line by line (a crash is a finding): UTF-8 throughout, HELP and
 * TYPE lines, metric and label names, label values with only the escapes
 * \\ \" \n and at most PROM_LABEL_VALUE_MAX bytes, a number after each
 * sample, and no more labelled series than the bound (a histogram whole).
 * Built and run by `make fuzz` (part of `make check`).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prom/prom.h"
#include "prom/prom_int.h"

#define FIELDS_MAX	16
#define SAMPLES		6

/* The validator's verdict: abort() with the line, for libFuzzer to keep the input. */
static void invalid(const char *why, const char *line, size_t len)
{
	fprintf(stderr, "invalid exposition (%s): %.*s\n", why, (int)len, line);
	abort();
}

static bool name_start(char c, bool colon)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
}

static bool name_char(char c, bool colon)
{
	return name_start(c, colon) || (c >= '0' && c <= '9');
}

/* A name at *p (metric names may hold ':'); *p past it. */
static bool eat_name(const char **p, const char *end, bool colon)
{
	const char *s = *p;

	if (s >= end || !name_start(*s, colon))
		return false;
	while (s < end && name_char(*s, colon))
		s++;
	*p = s;
	return true;
}

/* Is [s, end) valid UTF-8 (no NUL: the writer never emits one)? */
static bool utf8_ok(const unsigned char *s, const unsigned char *end)
{
	while (s < end) {
		int n = *s < 0x80 ? 1 : (*s & 0xe0) == 0xc0 ? 2 : (*s & 0xf0) == 0xe0 ? 3 :
			(*s & 0xf8) == 0xf0 ? 4 : 0;
		unsigned int cp;

		if (!n || *s == 0 || s + n > end || (n == 2 && *s < 0xc2))
			return false;
		cp = n == 1 ? *s : *s & (0x7f >> n);
		for (int i = 1; i < n; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i] & 0x3f);
		}
		if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		s += n;
	}
	return true;
}

/* A quoted label value at *p: escapes \\ \" \n only, its unescaped length bounded. */
static bool eat_value(const char **p, const char *end)
{
	const char *s = *p;
	size_t len = 0;

	if (s >= end || *s++ != '"')
		return false;
	while (s < end && *s != '"') {
		if (*s == '\\') {
			if (s + 1 >= end || (s[1] != '\\' && s[1] != '"' && s[1] != 'n'))
				return false;
			s++;
		}
		s++;
		len++;
	}
	if (s >= end || len > PROM_LABEL_VALUE_MAX)
		return false;
	*p = s + 1;
	return true;
}

/* A sample's value: a decimal number (what the writer makes), +Inf, -Inf or NaN. */
static bool value_ok(const char *s, const char *end)
{
	char buf[64], *stop;
	size_t n = end - s;

	if (!n || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (!strcmp(buf, "+Inf") || !strcmp(buf, "-Inf") || !strcmp(buf, "NaN"))
		return true;
	if (!((buf[0] >= '0' && buf[0] <= '9') || buf[0] == '-'))
		return false;
	strtod(buf, &stop);
	return *stop == '\0';
}

/* One sample line; *labelled set when it has labels other than training_job and le. */
static void check_sample(const char *line, const char *end, bool *labelled)
{
	const char *p = line;

	*labelled = false;
	if (!eat_name(&p, end, true))
		invalid("metric name", line, end - line);
	if (p < end && *p == '{') {
		p++;
		while (p < end && *p != '}') {
			const char *name = p;

			if (!eat_name(&p, end, false) || p >= end || *p++ != '=')
				invalid("label name", line, end - line);
			if (!(p - 1 - name == 12 && !strncmp(name, "training_job", 12)) &&
			    !(p - 1 - name == 2 && !strncmp(name, "le", 2)))
				*labelled = true;
			if (!eat_value(&p, end))
				invalid("label value", line, end - line);
			if (p < end && *p == ',')
				p++;
			else if (p >= end || *p != '}')
				invalid("label separator", line, end - line);
		}
		if (p >= end)
			invalid("unclosed labels", line, end - line);
		p++;
	}
	if (p >= end || *p++ != ' ')
		invalid("no space before the value", line, end - line);
	if (!value_ok(p, end))
		invalid("value", line, end - line);
}

/* A comment: HELP (name, escapes \\ and \n only) and TYPE lines checked, others free. */
static void check_comment(const char *line, const char *end)
{
	const char *p;

	if (end - line >= 7 && !strncmp(line, "# HELP ", 7)) {
		p = line + 7;
		if (!eat_name(&p, end, true) || (p < end && *p != ' '))
			invalid("HELP name", line, end - line);
		for (; p < end; p++)
			if (*p == '\\' && (p + 1 >= end || (p[1] != '\\' && p[1] != 'n')))
				invalid("HELP escape", line, end - line);
			else if (*p == '\\')
				p++;
		return;
	}
	if (end - line >= 7 && !strncmp(line, "# TYPE ", 7)) {
		static const char *const types[] = { "counter", "gauge", "histogram", "summary",
						     "untyped" };
		p = line + 7;
		if (!eat_name(&p, end, true) || p >= end || *p++ != ' ')
			invalid("TYPE name", line, end - line);
		for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
			if ((size_t)(end - p) == strlen(types[i]) && !strncmp(p, types[i], end - p))
				return;
		invalid("TYPE", line, end - line);
	}
}

/* Every line of the page, and the labelled series against the bound. */
static void validate(const char *page, size_t len, size_t max_series)
{
	const char *p = page, *end = page + len, *nl;
	size_t labelled = 0;

	if (!utf8_ok((const unsigned char *)page, (const unsigned char *)end))
		invalid("not UTF-8", page, len > 200 ? 200 : len);
	if (len && page[len - 1] != '\n')
		invalid("no newline at the end", page, len);
	for (; p < end; p = nl + 1) {
		bool l;

		nl = memchr(p, '\n', end - p);
		if (nl == p)
			invalid("empty line", p, 0);
		if (*p == '#') {
			check_comment(p, nl);
			continue;
		}
		check_sample(p, nl, &l);
		labelled += l;
	}
	if (max_series && labelled > max_series)
		invalid("more labelled series than the bound", page, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *fields[FIELDS_MAX] = {}, *page = NULL;
	struct label l[FIELDS_MAX];
	struct hist *h;
	size_t nf = 0, len = 0, i;
	struct prom p = {};
	int nl;

	if (size < 1)
		return 0;
	buf = malloc(size);
	h = calloc(1, sizeof(*h));
	if (!buf || !h)
		goto out;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	for (i = 0; i < size - 1 && nf < FIELDS_MAX; i += strlen(buf + i) + 1)
		fields[nf++] = buf + i;
	for (i = 0; i < size - 1; i++)	/* the same bytes as a histogram's counts */
		h->slots[(i * 7) % HIST_SLOTS] += (uint8_t)data[1 + i];
	nl = nf > 1 ? 1 + data[0] % (nf - 1 < 4 ? nf - 1 : 4) : 0;
	for (int j = 0; j < nl; j++) {
		static const char *const names[] = { "cgroup", "pod_uid", "comm", "slurm_job" };

		l[j] = (struct label){ names[j], fields[1 + j] };
	}
	p.max_series = data[0] >> 4;	/* 0: no bound */
	p.job = nf && *fields[0] ? fields[0] : NULL;
	p.out = open_memstream(&page, &len);
	if (!p.out)
		goto out;
	prom__family(&p, "iostorm_fuzz_total", "counter", "Fuzzed \\ labels\nover lines.");
	for (int s = 0; s < SAMPLES; s++)
		prom__sample_u64(&p, "iostorm_fuzz_total", l, nl, (uint64_t)s << (8 * (s % 8)));
	prom__family(&p, "iostorm_fuzz_seconds", "histogram", "A histogram of fuzz.");
	prom__hist_samples(&p, "iostorm_fuzz_seconds", l, nl, h, UNIT_NS, NULL);
	prom__hist_samples(&p, "iostorm_fuzz_bytes", l, nl, h, UNIT_BYTES, &(__u64){ 42 });
	prom__metric_u64(&p, "iostorm_fuzz_unlabelled", "gauge", "Always there.", p.dropped);
	if (fclose(p.out) || p.err)
		goto out;
	validate(page, len, p.max_series);
	if (p.max_series && nl && p.series > p.max_series)
		invalid("series past the bound", page, 0);
out:
	free(page);
	free(h);
	free(buf);
	return 0;
}
