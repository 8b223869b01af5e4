// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * iostorm html REPORT.json [-o FILE]: the page of a report written earlier
 * (a CI artifact); and the write that --html shares with it (with the load
 * and its schema check, html/load.c), so both write the same bytes.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "html/html_int.h"
#include "lib/atomic_file.h"
#include "lib/log.h"

static const char usage_text[] =
"usage: iostorm html [options] REPORT.json\n"
"\n"
"Draw the HTML report of an iostorm JSON report (--json): one self-contained\n"
"page, inline SVG and CSS, no script, nothing fetched; open it in a browser or\n"
"print it. The same page as --html FILE while tracing, byte for byte.\n"
"'-' reads the report from stdin.\n"
"\n"
"Options:\n"
"  -o, --output FILE   write the page to FILE ('-': stdout); default REPORT\n"
"                      with .json replaced by .html\n"
"  -T, --top N         rows in the directory, file and thread tables (default %d)\n"
"  -h, --help          this text\n"
"\n"
"Exit status: 0 written, 2 a bad command line, 3 a report missing, not JSON or\n"
"not of schema %s, 4 the page could not be written.\n";

struct page_args {
	const json_t *root;
	int top;
};

static int fill_page(FILE *out, const void *arg)
{
	const struct page_args *a = arg;

	return html__render(out, a->root, a->top);
}

int html__write(const char *path, const json_t *root, int top)
{
	struct page_args a = { root, top };

	return atomic_file__output(path, fill_page, &a);
}

/* REPORT.json -> REPORT.html; another name gains ".html". */
static char *default_output(const char *in)
{
	size_t n = strlen(in);
	char *out;

	if (n > 5 && !strcmp(in + n - 5, ".json"))
		n -= 5;
	if (asprintf(&out, "%.*s.html", (int)n, in) < 0)
		return NULL;
	return out;
}

struct html_args {
	const char *in;
	const char *out;
	int top;
};

static int parse(int argc, char **argv, struct html_args *a)
{
	static const struct option longs[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "top", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	char *end;
	int c;

	a->top = HTML_TOP_DEFAULT;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:T:h", longs, NULL)) != -1) {
		switch (c) {
		case 'o':
			a->out = optarg;
			break;
		case 'T':
			a->top = strtol(optarg, &end, 10);
			if (*end || a->top < 1 || a->top > 100000) {
				pr_err("invalid --top '%s': a number of rows from 1", optarg);
				return HTML_EXIT_USAGE;
			}
			break;
		case 'h':
			printf(usage_text, HTML_TOP_DEFAULT, IOSTORM_REPORT_SCHEMA);
			return -1;
		default:
			fprintf(stderr, "Try 'iostorm html --help'.\n");
			return HTML_EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		pr_err("html needs one report: iostorm html REPORT.json [-o FILE]");
		return HTML_EXIT_USAGE;
	}
	a->in = argv[optind];
	return 0;
}

static int load_path(const char *path, int top, json_t **root)
{
	FILE *in = strcmp(path, "-") ? fopen(path, "re") : stdin;
	int err;

	if (!in) {
		pr_err("cannot read '%s': %s", path, strerror(errno));
		return HTML_EXIT_UNUSABLE;
	}
	err = html__load(in, path, top, root);
	if (in != stdin)
		fclose(in);
	return err;
}

int html__main(int argc, char **argv)
{
	struct html_args a = {};
	char *out = NULL;
	json_t *root;
	int rc = parse(argc, argv, &a), err;

	if (rc)
		return rc < 0 ? HTML_EXIT_OK : rc;
	if (!a.out)
		a.out = out = strcmp(a.in, "-") ? default_output(a.in) : strdup("-");
	if (!a.out) {
		pr_err("out of memory");
		return HTML_EXIT_WRITE;
	}
	rc = load_path(a.in, a.top, &root);
	if (rc)
		goto out_free_name;
	err = html__write(a.out, root, a.top);
	if (err) {
		pr_err("cannot write '%s': %s", a.out, strerror(-err));
		rc = HTML_EXIT_WRITE;
	}
	json_decref(root);
out_free_name:
	free(out);
	return rc;
}
