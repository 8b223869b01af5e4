// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Command line parsing; --help is the first manual a user reads. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "iostorm.h"
#include "findings/findings.h"
#include "lib/caps.h"
#include "lib/log.h"
#include "lib/netaddr.h"
#include "prom/prom.h"
#include "run/options.h"


static const char usage[] =
"usage: iostorm [options] -p PID[,PID...]\n"
"       iostorm [options] -- COMMAND [ARGS...]\n"
"       iostorm [options] -a | --cgroup PATH\n"
"       iostorm diff [options] BASE.json NEW.json   (see 'iostorm diff --help')\n"
"       iostorm html [options] REPORT.json          (see 'iostorm html --help')\n"
"       iostorm check                               what this kernel gives, no tracing\n"
"       iostorm help [COMMAND]                      this text, or a command's\n"
"\n"
"Trace a training job's file and storage I/O from kernel tracepoints and\n"
"report, on exit, whether its training loop waits for data and how much,\n"
"and which files, directories and threads the I/O time goes to: opens,\n"
"stats, reads, bytes, latency histograms, access patterns.\n"
"\n"
"What to trace (one of):\n"
"  -p, --pid PID[,PID...]  running processes: all their threads, and every\n"
"                          process they fork (DataLoader workers), existing\n"
"                          children included (never iostorm); a thread id\n"
"                          traces its process; a zombie is refused; takes\n"
"                          what pgrep prints (one pid a line), -p repeats\n"
"  -- COMMAND [ARGS...]    run COMMAND, traced from its first instruction;\n"
"                          iostorm exits with COMMAND's exit status; if\n"
"                          iostorm dies first, COMMAND never runs\n"
"  -a, --all               every process on the system but iostorm\n"
"      --cgroup PATH       the processes of a cgroup v2 directory and of every\n"
"                          cgroup below it (a pod and its containers), those\n"
"                          that move in included\n"
"\n"
"When to stop (the report is printed in every case):\n"
"  -d, --duration SECONDS  after SECONDS\n"
"  Ctrl-C or SIGTERM       at once\n"
"  the target exits        when its last process is gone\n"
"\n"
"Output:\n"
"  -j, --json FILE         also write the report as JSON to FILE ('-' for\n"
"                          stdout: then stdout holds it alone, and the text\n"
"                          report and COMMAND's output go to stderr);\n"
"                          written to a temporary file and renamed,\n"
"                          so FILE is complete or untouched; through a\n"
"                          symlink; in place on a device or FIFO. Every\n"
"                          output path is checked before tracing starts\n"
"      --html FILE         also write the HTML report to FILE ('-' for stdout):\n"
"                          one self-contained page (charts over time, heat\n"
"                          map, histograms, findings) to open in a browser;\n"
"                          the same as 'iostorm html' of the JSON report\n"
"  -i, --interval SECONDS  while tracing, print a line every SECONDS for the\n"
"                          target: files/s (opens of regular files), opens/s,\n"
"                          reads/s, MiB/s, read() p50 and p99 (ms), block\n"
"                          reads/s, r_await (ms), %util of its busiest device,\n"
"                          %stall (the training loop's wait for data);\n"
"                          to stderr when the JSON goes to stdout\n"
"  -T, --top N             rows in the file, directory and thread tables (10)\n"
"  -F, --full              every table of the text report (histograms, mounts,\n"
"                          devices, directories, threads, cgroups); by default\n"
"                          it is one screen: at most 50 lines of 100 columns\n"
"  -q, --quiet             no text report (useful with --json -)\n"
"  -v, --verbose           show libbpf's messages, and the full text report\n"
"\n"
"Diagnosis:\n"
"      --consumer TID|COMM[,...]  the training loop's thread, when iostorm's\n"
"                          choice is wrong (the report says how it chose: by\n"
"                          default every process main thread the loader\n"
"                          feeds, one loop per data-parallel rank);\n"
"                          repeatable, or comma-separated for several ranks\n"
"      --threshold NAME=VALUE  change a threshold of the findings (repeatable);\n"
"                          '--threshold list' lists them with their rationale\n"
"\n"
"Prometheus:\n"
"      --listen ADDR:PORT|unix:PATH  serve /metrics while tracing, on a\n"
"                          loopback address (127.0.0.1:9436) or a Unix socket,\n"
"                          for an authenticating proxy (docs/deploy/)\n"
"      --listen-insecure   allow --listen on any other address (0.0.0.0:9436):\n"
"                          every tenant's names, without TLS or authentication\n"
"      --max-series N      labelled series per /metrics page at most; those\n"
"                          beyond are counted in iostorm_series_dropped_total\n"
"                          (20000; 0: no bound)\n"
"      --prom-file PATH    write the metrics to PATH every drain, atomically,\n"
"                          for node_exporter's textfile collector\n"
"      --job NAME          a training_job=\"NAME\" label on every metric (<= 128 bytes)\n"
"\n"
"Tuning:\n"
"      --drain SECONDS     how often kernel maps are drained into iostorm's\n"
"                          memory (1)\n"
"      --map-files N       files the kernel holds between two drains (32768;\n"
"                          two halves of N x 552 bytes, allocated at start);\n"
"                          iostorm drains early when one is half full, and\n"
"                          files beyond N in one drain are counted as lost\n"
"      --keep-caps CAP[,...]  capabilities kept once the programs are attached\n"
"                          (by default none with --listen, else CAP_SYS_PTRACE;\n"
"                          CAP_BPF where the kernel needs it to read maps;\n"
"                          'all' drops none, 'none' keeps none); docs/usage.md\n"
"      --store-files N     files iostorm keeps, the least recently used dropped\n"
"                          beyond (0: all; default all, 65536 when serving\n"
"                          metrics with no --json or --html: memory stays flat)\n"
"\n"
"Exit status, the same for every subcommand: 0 success; 1 cannot trace here\n"
"(privileges, BTF, the kernel; diff: a regression); 2 a bad command line;\n"
"3 what to trace or read is not there (no such pid, a zombie, no such cgroup;\n"
"diff and html: a report missing or unusable); 4 a report could not be\n"
"written (every output path is checked before COMMAND runs); with COMMAND,\n"
"COMMAND's own status (128+N when killed by signal N, 127 not found, 126\n"
"not runnable).\n"
"\n"
"Needs root (or CAP_BPF and CAP_PERFMON) and Linux 5.15 or later with BTF\n"
"(/sys/kernel/btf/vmlinux); tp_btf tracepoints only: no kprobes, no tracefs.\n"
"A layer this kernel lacks (FUSE, mapped-file faults before 6.12) is said in\n"
"the report; 'iostorm check' says what this node gives, without tracing.\n"
"\n"
"Examples:\n"
"  iostorm -p \"$(pgrep -f train.py)\" -d 60     one minute of a running job and its workers\n"
"  iostorm --json run.json -- python train.py  a whole run, report as JSON\n"
"  iostorm --html run.html -d 600 -p PID       ten minutes, as a page to open\n"
"  iostorm -q --json - -- python load.py | jq .verdict   the verdict alone\n"
"  iostorm -a --listen 127.0.0.1:9436          the node, as Prometheus metrics\n"
"  iostorm diff base.json new.json             a CI gate on a loader change\n"
"  iostorm check                               what this kernel gives\n";

static const struct option long_opts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "all", no_argument, NULL, 'a' },
	{ "cgroup", required_argument, NULL, 'C' },
	{ "duration", required_argument, NULL, 'd' },
	{ "interval", required_argument, NULL, 'i' },
	{ "json", required_argument, NULL, 'j' },
	{ "html", required_argument, NULL, 'W' },
	{ "top", required_argument, NULL, 'T' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "full", no_argument, NULL, 'F' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "drain", required_argument, NULL, 'D' },
	{ "map-files", required_argument, NULL, 'M' },
	{ "store-files", required_argument, NULL, 'S' },
	{ "threshold", required_argument, NULL, 'H' },
	{ "consumer", required_argument, NULL, 'c' },
	{ "listen", required_argument, NULL, 'L' },
	{ "listen-insecure", no_argument, NULL, 'I' },
	{ "max-series", required_argument, NULL, 'N' },
	{ "keep-caps", required_argument, NULL, 'K' },
	{ "prom-file", required_argument, NULL, 'P' },
	{ "job", required_argument, NULL, 'J' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{}
};

static int bad_value(const char *opt, const char *arg, const char *want)
{
	pr_err("invalid value '%s' for %s: %s", arg, opt, want);
	return -EINVAL;
}

/* --keep-caps CAP[,CAP...] (CAP_SYS_PTRACE, sys_ptrace), 'all' or 'none'. */
static int parse_caps(struct options *o, const char *arg)
{
	char name[32];
	const char *p = arg;
	size_t n;
	int cap;

	o->keep_caps_set = true;
	if (!strcmp(arg, "all")) {
		o->keep_caps = ~0ULL;
		return 0;
	}
	o->keep_caps = 0;
	if (!strcmp(arg, "none"))
		return 0;
	do {
		n = strcspn(p, ",");
		if (!n || n >= sizeof(name))
			return bad_value("--keep-caps", arg, "expected CAP[,CAP...], 'all' or 'none'");
		memcpy(name, p, n);
		name[n] = '\0';
		cap = caps__parse_one(name);
		if (cap < 0)
			return bad_value("--keep-caps", arg, "no such capability (see capabilities(7))");
		o->keep_caps |= CAPS_BIT(cap);
		p += n;
	} while (*p++ == ',');
	return 0;
}

/*
 * --listen on an address other hosts reach serves every tenant's pod, job
 * and process names to them, unencrypted: only with --listen-insecure.
 */
static int check_listen(const struct options *o)
{
	struct sockaddr_storage sa;
	socklen_t len;

	if (!o->listen || o->listen_insecure ||
	    !strncmp(o->listen, PROM_UNIX_PREFIX, strlen(PROM_UNIX_PREFIX)) ||
	    (!netaddr__parse(o->listen, &sa, &len) && netaddr__is_loopback(&sa)))
		return 0;
	pr_err("--listen '%s' would serve every tenant's names to anyone who reaches it, "
	       "without TLS or authentication: listen on 127.0.0.1:PORT or unix:PATH behind "
	       "an authenticating proxy (docs/deploy/), or add --listen-insecure", o->listen);
	return -EINVAL;
}

/* --consumer TID|COMM[,TID|COMM...]: the training loops, one per rank. */
static int parse_consumers(struct options *o, const char *arg)
{
	const char *p = arg;

	do {
		struct consumer_sel *c = &o->consumers[o->nr_consumers];
		size_t len = strcspn(p, ",");
		char one[COMM_LEN];
		unsigned long v;
		char *end;

		if (!len || len >= COMM_LEN)
			return bad_value("--consumer", arg,
					 "thread ids or names of 1 to 15 characters, comma-separated");
		if (o->nr_consumers == STALL_GIVEN_MAX)
			return bad_value("--consumer", arg, "64 training loops at most");
		memcpy(one, p, len);
		one[len] = '\0';
		memset(c, 0, sizeof(*c));
		if (strspn(one, "0123456789") == len) {
			errno = 0;
			v = strtoul(one, &end, 10);
			if (errno || !v || v > INT_MAX)
				return bad_value("--consumer", arg, "a thread id from 1 to 2147483647");
			c->tid = v;
		} else {
			memcpy(c->comm, one, len + 1);
		}
		o->nr_consumers++;
		p += len;
	} while (*p++ == ',');
	return 0;
}

static int parse_seconds(const char *opt, const char *arg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0) || v > 1e9)
		return bad_value(opt, arg, "expected a positive number of seconds");
	*out = v;
	return 0;
}

static int parse_uint(const char *opt, const char *arg, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max) {
		char want[64];

		snprintf(want, sizeof(want), "expected a whole number from %ld to %ld",
			 min, max);
		return bad_value(opt, arg, want);
	}
	*out = v;
	return 0;
}

/* A process id: digits only, 1 to INT_MAX. */
static bool pid_word(const char *w, long *pid)
{
	char *end;

	if (*w < '0' || *w > '9')
		return false;
	errno = 0;
	*pid = strtol(w, &end, 10);
	return !errno && !*end && *pid >= 1 && *pid <= INT_MAX;
}

/*
 * -p takes what pgrep prints: pids separated by commas, spaces or newlines
 * ("$(pgrep -f train.py)" quoted), and -p again adds more.
 */
static int parse_pids(struct options *o, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	long pid;
	int err = 0, n = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ", \t\n", &save); tok; tok = strtok_r(NULL, ", \t\n", &save)) {
		pid_t *p;

		if (!pid_word(tok, &pid)) {
			pr_err("invalid value '%s' for -p: '%s' is not a process id "
			       "(expected PID[,PID...], as pgrep prints them)", arg, tok);
			err = -EINVAL;
			break;
		}
		p = realloc(o->pids, (o->nr_pids + 1) * sizeof(*p));
		if (!p) {
			err = -ENOMEM;
			break;
		}
		o->pids = p;
		o->pids[o->nr_pids++] = pid;
		n++;
	}
	free(copy);
	if (!err && !n) {
		pr_err("invalid value '%s' for -p: no process id in it (is the job running? "
		       "pgrep printed nothing)", arg);
		err = -EINVAL;
	}
	return err;
}

/*
 * --job labels every sample: bounded (PROM_JOB_MAX), printable, and too
 * long a value is not echoed back whole.
 */
static int parse_job(struct options *o, const char *arg)
{
	size_t len = strlen(arg);

	if (len > PROM_JOB_MAX) {
		pr_err("invalid value for --job: %zu bytes, at most %d", len, PROM_JOB_MAX);
		return -EINVAL;
	}
	for (const char *p = arg; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			pr_err("invalid value for --job: a control character at byte %zu",
			       (size_t)(p - arg));
			return -EINVAL;
		}
	}
	o->job = arg;
	return 0;
}

static int parse_one(struct options *o, int c, const char *arg)
{
	long v;
	int err;

	switch (c) {
	case 'p':
		return parse_pids(o, arg);
	case 'a':
		o->all = true;
		return 0;
	case 'C':
		if (o->cgroup)
			return bad_value("--cgroup", arg, "give one cgroup (its subtree is traced)");
		o->cgroup = arg;
		return 0;
	case 'd':
		return parse_seconds("-d", arg, &o->duration);
	case 'i':
		return parse_seconds("-i", arg, &o->interval);
	case 'D':
		return parse_seconds("--drain", arg, &o->drain);
	case 'j':
		o->json = arg;
		return 0;
	case 'c':
		return parse_consumers(o, arg);
	case 'W':
		o->html = arg;
		return 0;
	case 'T':
		err = parse_uint("-T", arg, 0, 1000000, &v);
		o->top = v;
		return err;
	case 'M':
		err = parse_uint("--map-files", arg, 1024, 1 << 22, &v);
		o->map_files = v;
		return err;
	case 'S':
		err = parse_uint("--store-files", arg, 0, INT_MAX, &v);
		o->store_files = v;
		return err;
	case 'q':
		o->quiet = true;
		return 0;
	case 'H':
		if (!strcmp(arg, "list")) {
			thresholds__print(stdout);
			return 1;
		}
		return thresholds__set(o->thresholds, arg);
	case 'L': {
		struct sockaddr_storage sa;
		socklen_t len;

		if (!strncmp(arg, PROM_UNIX_PREFIX, strlen(PROM_UNIX_PREFIX))) {
			if (!arg[strlen(PROM_UNIX_PREFIX)])
				return bad_value("--listen", arg, "expected unix:PATH");
		} else if (netaddr__parse(arg, &sa, &len)) {
			return bad_value("--listen", arg,
					 "expected ADDR:PORT or unix:PATH, e.g. 127.0.0.1:9436");
		}
		o->listen = arg;
		return 0;
	}
	case 'I':
		o->listen_insecure = true;
		return 0;
	case 'N':
		return parse_uint("--max-series", arg, 0, 100000000, &o->max_series);
	case 'K':
		return parse_caps(o, arg);
	case 'P':
		o->prom_file = arg;
		return 0;
	case 'J':
		return parse_job(o, arg);
	case 'F':
		o->full = true;
		return 0;
	case 'v':
		o->verbose = true;
		o->full = true;
		return 0;
	case 'h':
		fputs(usage, stdout);
		return 1;
	case 'V':
		o->version = true;
		return 1;
	default:
		fprintf(stderr, "Try 'iostorm --help' for more information.\n");
		return -EINVAL;
	}
}

/* Exactly one of -p, -a, --cgroup and COMMAND says what to trace. */
static int check_scope(struct options *o)
{
	int n = (o->nr_pids > 0) + o->all + (o->cgroup != NULL) + (o->cmd != NULL);

	if (o->all)
		o->mode = TARGET_ALL;
	else if (o->cgroup)
		o->mode = TARGET_CGROUP;
	if (n == 1)
		return 0;
	if (n)
		pr_err("give only one of -p, -a, --cgroup and a COMMAND");
	else
		pr_err("nothing to trace: give -p PID, -a, --cgroup PATH or -- COMMAND");
	fprintf(stderr, "Try 'iostorm --help' for more information.\n");
	return -EINVAL;
}

int options__parse(struct options *o, int argc, char **argv)
{
	int c, err;

	memset(o, 0, sizeof(*o));
	o->thresholds = calloc(1, sizeof(*o->thresholds));
	if (!o->thresholds)
		return -ENOMEM;
	thresholds__defaults(o->thresholds);
	o->mode = TARGET_PIDS;
	o->top = 10;
	o->drain = 1.0;
	o->map_files = 32768;
	o->store_files = -1;
	o->max_series = PROM_SERIES_MAX;
	optind = 0;	/* glibc: start afresh, so a second parse (a fuzzer's) is a clean one */
	opterr = 1;
	for (;;) {
		/* '+': stop at the first non-option, the start of COMMAND. */
		while ((c = getopt_long(argc, argv, "+p:ad:i:j:T:FqvhV", long_opts, NULL)) != -1) {
			err = parse_one(o, c, optarg);
			if (err)
				return err;
		}
		/*
		 * `-p $(pgrep -f train.py)` unquoted leaves the second pid a word
		 * of its own: after -p, and before any "--", a process id is one
		 * more of them, not a COMMAND.
		 */
		if (optind < argc && o->nr_pids && strcmp(argv[optind - 1], "--") &&
		    pid_word(argv[optind], &(long){ 0 })) {
			err = parse_pids(o, argv[optind++]);
			if (err)
				return err;
			continue;
		}
		break;
	}
	if (optind < argc)
		o->cmd = &argv[optind];
	if (o->json && o->html && !strcmp(o->json, "-") && !strcmp(o->html, "-")) {
		pr_err("--json - and --html - both on stdout: send one of them to a file");
		return -EINVAL;
	}
	if (o->quiet && !o->json && !o->html && !o->listen && !o->prom_file) {
		pr_err("-q without --json, --html, --listen or --prom-file would print nothing");
		return -EINVAL;
	}
	if (o->listen_insecure && !o->listen) {
		pr_err("--listen-insecure without --listen: nothing to allow");
		return -EINVAL;
	}
	return check_listen(o) ?: check_scope(o);
}

bool options__report_on_stdout(const struct options *o)
{
	return (o->json && !strcmp(o->json, "-")) || (o->html && !strcmp(o->html, "-"));
}

int options__exit_code(int err)
{
	if (err > 0)
		return EXIT_OK;
	return err == -EINVAL ? EXIT_USAGE : EXIT_ERROR;
}

void options__free(struct options *o)
{
	free(o->pids);
	o->pids = NULL;
	free(o->thresholds);
	o->thresholds = NULL;
}
