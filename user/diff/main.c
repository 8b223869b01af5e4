// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * iostorm diff: two reports of one workload side by side, and a CI gate on
 * the figures that say whether a data-loader change makes the job touch
 * storage more: counts per file compare exactly, timings with wide
 * tolerances (CI machines are noisy), findings by id and severity.
 *
 * load (skim) -> figures -> same workload? -> check limits -> print.
 *
 * This file is the command line; the parts are load.c (reading a report),
 * figures.c (its figures, same workload?), limit.c (parsing limits),
 * check.c (checking them), print.c (text and JSON), metric.c (the metric
 * table and units).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diff/diff_int.h"
#include "lib/log.h"

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
		const char *lim = diff_metrics[m].limit;

		fprintf(out, "  %-16s %-8s %s\n", diff_metrics[m].name,
			lim ? lim + strlen(diff_metrics[m].name) : "", diff_metrics[m].what);
	}
	fprintf(out, usage_tail, DIFF_DEFAULT_FINDING_LIMIT + strlen("finding:"), IOSTORM_REPORT_SCHEMA);
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
			pr_err("more than %d limits", DIFF_MAX_LIMITS);
			rc = -E2BIG;
		} else if (diff__parse_limit(tok, &r->limits[r->nr_limits], err, sizeof(err))) {
			pr_err("invalid limit '%s': %s", tok, err);
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
			pr_err("option '%s' needs a value", argv[optind - 1]);
			return try_help();
		default:
			if (optopt)
				pr_err("unknown option '-%c'", optopt);
			else
				pr_err("unknown option '%s'", argv[optind - 1]);
			return try_help();
		}
	}
	if (argc - optind != 2) {
		pr_err("diff needs two reports, BASE.json and NEW.json");
		return try_help();
	}
	r->path[0] = argv[optind];
	r->path[1] = argv[optind + 1];
	if (!strcmp(r->path[0], "-") && !strcmp(r->path[1], "-")) {
		pr_err("only one report can come from stdin ('-')");
		return try_help();
	}
	if (!r->no_defaults)
		add_defaults(r);
	return 0;
}

/* Load BASE and NEW and their figures; two different workloads only with --force. */
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
		pr_err("'%s' and '%s' trace different workloads (%s); "
		       "use --force to compare them anyway", r->path[0], r->path[1], why);
		return DIFF_EXIT_UNUSABLE;
	}
	return 0;
}

/* Check every limit; count the failed and the unchecked. */
static void check_all(struct diff_run *r)
{
	for (int i = 0; i < r->nr_limits; i++) {
		r->status[i] = diff__check(&r->limits[i], &r->fig[0], &r->fig[1], r->why[i],
					   sizeof(r->why[i]));
		r->failed += r->status[i] == DIFF_FAIL;
		r->unchecked += r->status[i] == DIFF_UNCHECKED;
	}
}

int diff__main(int argc, char **argv)
{
	struct diff_run *r = calloc(1, sizeof(*r));
	int rc;

	if (!r) {
		pr_err("out of memory");
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
		rc = diff__print_json(stdout, r);
	else
		diff__print_text(stdout, r);
	if (rc) {	/* stdout itself is checked once, by main() */
		pr_err("cannot write the comparison: %s", strerror(-rc));
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
