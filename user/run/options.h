/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Command line: what to trace, for how long, and where the report goes. */
#ifndef OPTIONS_H
#define OPTIONS_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>
#include "iostorm.h"
#include "model/stall.h"

struct thresholds;

/*
 * Exit codes, one table for every subcommand (docs/iostorm.8 EXIT STATUS,
 * --help): diff and html give 2, 3 and 4 the same meanings.
 */
enum exit_code {
	EXIT_OK = 0,
	EXIT_ERROR = 1,		/* could not trace here (privileges, BTF, the kernel) */
	EXIT_USAGE = 2,		/* bad command line */
	EXIT_INPUT = 3,		/* what to trace is not there: no such pid, a zombie, no cgroup */
	EXIT_OUTPUT = 4,	/* a report could not be written */
};

struct options {
	enum target_mode mode;
	pid_t *pids;		/* -p */
	int nr_pids;
	const char *cgroup;	/* --cgroup */
	char **cmd;		/* -- COMMAND [ARGS...] */
	double duration;	/* -d, seconds; 0 = until stopped */
	double interval;	/* -i, seconds between interval lines; 0 = none */
	double drain;		/* seconds between drains of the kernel maps */
	const char *json;	/* --json FILE, "-" for stdout */
	const char *html;	/* --html FILE, "-" for stdout */
	int top;		/* -T rows of the file, directory, thread tables */
	unsigned int map_files;	/* --map-files: per-interval kernel file entries */
	long store_files;	/* --store-files: files kept in user space, 0 all, -1 default */
	bool all;		/* -a given */
	bool quiet;		/* -q: no text report (with --json -) */
	bool verbose;		/* -v: libbpf's messages (and full) */
	bool full;		/* --full, -v: every table of the text report */
	struct thresholds *thresholds;	/* defaults, then --threshold */
	struct consumer_sel consumers[STALL_GIVEN_MAX];	/* --consumer; none: iostorm chooses */
	int nr_consumers;
	const char *listen;	/* --listen ADDR:PORT or unix:PATH: Prometheus /metrics */
	bool listen_insecure;	/* --listen-insecure: a non-loopback --listen allowed */
	long max_series;	/* --max-series: labelled series per page, 0 no bound */
	__u64 keep_caps;	/* --keep-caps: kept after attach (CAPS_BIT()s); ~0 all */
	bool keep_caps_set;	/* --keep-caps given: else run/ chooses (run.c) */
	const char *prom_file;	/* --prom-file PATH: textfile collector */
	const char *job;	/* --job NAME: training_job label */
	bool version;		/* --version: run__print_version() instead */
};

/*
 * Fill o from argv. Returns 0 to go on, 1 after --help (printed) or
 * --version (o->version set: the caller prints it), or -EINVAL after
 * printing what is wrong; never exits, and may be called again
 * (options__free() first). o->cmd points into argv.
 */
int options__parse(struct options *o, int argc, char **argv);
/* The exit status of a parse that stopped: 0 after --help, 2 for -EINVAL, else 1. */
int options__exit_code(int err);
/* Does the JSON or the HTML report go to stdout ("-")? Then nothing else does. */
bool options__report_on_stdout(const struct options *o);
void options__free(struct options *o);

#endif /* OPTIONS_H */
