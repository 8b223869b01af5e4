// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `iostorm [options] TARGET`, in named stages:
 *
 *   parse -> open (check, target, load, metrics server) -> run (seed,
 *   attach, window, release, loop, finish) -> reap -> report (judge once,
 *   then text, JSON, metrics) -> close -> exit code
 *
 * See --help and README.md.
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include "collect/collect.h"
#include "findings/findings.h"
#include "html/html.h"
#include "lib/atomic_file.h"
#include "lib/caps.h"
#include "lib/log.h"
#include "model/diskstats.h"
#include "model/facts.h"
#include "model/mapfiles.h"
#include "model/trace.h"
#include "prom/prom.h"
#include "report/report.h"
#include "run/interval.h"
#include "run/loops.h"
#include "run/options.h"
#include "run/run.h"

#define TICK_NS		(50 * 1000 * 1000)	/* the loop's longest sleep */
#define START_DRAIN_NS	(100 * 1000 * 1000)	/* until data is read: drain_ns() */
#define START_S		30

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static int setup_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
		return -errno;
	/* A closed stdout must be an error we report, not a silent death. */
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* CLOCK_MONOTONIC in ns: the clock of bpf_ktime_get_ns(). */
static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct session {
	const struct options *o;
	struct collector *c;
	struct launch launch;
	struct trace *trace;
	struct findings *findings;	/* judged once the trace is over */
	struct interval iv;
	struct live live;	/* the loops' causes, judged at each drain (exporting) */
	struct prom_server *prom;	/* --listen or --prom-file, else NULL */
	bool launched;
	bool exec_failed;	/* COMMAND never ran: exit with its 126/127 */
	int fail;		/* EXIT_INPUT or EXIT_OUTPUT for such a failure, else 0 */
	bool storm;		/* drained early since the last scheduled drain */
	__u64 caps_needed;	/* by the drains once attached: collector__caps_needed() */
};

/*
 * Files kept in user space: all of them for a report, STORE_FILES_EXPORTER
 * (about 17 MiB) for an exporter that writes none, running for days.
 */
#define STORE_FILES_EXPORTER	65536
#define STORE_THREADS_EXPORTER	16384	/* 2 MiB of thread records */

static size_t store_files_max(const struct options *o)
{
	if (o->store_files >= 0)
		return o->store_files;
	if ((o->listen || o->prom_file) && !o->json && !o->html)
		return STORE_FILES_EXPORTER;
	return 0;
}

/*
 * The timeline is drawn in the JSON and HTML reports only: an exporter
 * that writes neither keeps none (up to 6.2 MiB, see model/timeline.h).
 */
static bool wants_timeline(const struct options *o)
{
	return o->json || o->html;
}

/*
 * A launched command's program and the script a shell runs are code: an
 * interpreter reads its script as it reads data (a wrapper.sh that execs
 * python is no dataset file), and a binary exec maps is faulted in like a
 * mapped dataset, under no name if it exits before a drain reads its maps.
 */
static int add_program_files(struct session *s)
{
	struct store *store = &s->trace->store;
	char *paths[2];
	int n = target__program_files(s->o->cmd, paths), err = 0;
	struct stat st;

	for (int i = 0; i < n; i++) {
		if (!err)
			err = store__add_code_path(store, paths[i]);
		if (!err && !stat(paths[i], &st))
			err = mapfiles__add(store, major(st.st_dev) << 20 | minor(st.st_dev),
					    st.st_ino, paths[i], true);
		free(paths[i]);
	}
	if (err)
		pr_err("out of memory");
	return err;
}

/* Resolve the target before loading: a bad pid or cgroup fails early. */
static int prepare_target(struct session *s, struct probe_config *pc)
{
	const struct options *o = s->o;
	int err = 0;

	if (o->nr_pids)
		err = target__check_pids(o->pids, o->nr_pids);
	if (err)
		return err;
	target__describe(s->trace->target, sizeof(s->trace->target), o->mode,
			 o->pids, o->nr_pids, o->cgroup, o->cmd);
	if (o->mode == TARGET_CGROUP)
		return target__cgroup_id(o->cgroup, &pc->cgid, &pc->cg_level);
	if (o->cmd) {
		err = add_program_files(s);
		if (err)
			return err;
		err = target__launch(o->cmd, options__report_on_stdout(o), &s->launch);
		if (err)
			pr_err("cannot start '%s': %s", o->cmd[0], strerror(-err));
		s->launched = !err;
	}
	return err;
}

/* Every output path, before anything runs: a bad one fails now, not after the trace. */
static int check_outputs(const struct options *o)
{
	const char *paths[] = { o->json, o->html, o->prom_file };
	int err;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		if (!paths[i])
			continue;
		err = atomic_file__check(paths[i]);
		if (err) {
			pr_err("cannot write '%s': %s", paths[i], strerror(-err));
			return err;
		}
	}
	return 0;
}

/* Check, resolve the target, load, and serve metrics: all before attaching. */
static int session__open(struct session *s)
{
	const struct options *o = s->o;
	struct probe_config pc = {
		.mode = o->mode, .map_files = o->map_files, .verbose = o->verbose,
	};
	int err;

	err = check_outputs(o);
	if (err)
		s->fail = EXIT_OUTPUT;
	if (!err)
		err = load__check_env();
	if (err)
		return err;
	s->trace = calloc(1, sizeof(*s->trace));
	s->findings = calloc(1, sizeof(*s->findings));
	if (!s->trace || !s->findings || store__init(&s->trace->store)) {
		pr_err("out of memory");
		return -ENOMEM;
	}
	s->trace->exit_status = -1;
	trace__machine(s->trace);
	s->trace->store.files_max = store_files_max(o);
	/* Threads too, where no timeline holds their places in threads[]. */
	if (!wants_timeline(o) && (o->listen || o->prom_file))
		s->trace->store.threads.max = STORE_THREADS_EXPORTER;
	/*
	 * Blocks of 64 KiB and more (metrics pages, batches, sort arrays) come
	 * from mmap() and go back at free(). glibc would raise this threshold
	 * past each one freed, then carve them from the heap among long-lived
	 * records, which an exporter running for days would see as growth.
	 */
	mallopt(M_MMAP_THRESHOLD, 64 << 10);
	/* A file's mount says whether a system tree's name makes it code. */
	s->trace->store.mounts = &s->trace->mounts;
	/* Without the host's mounts, paths stay as the jobs saw them. */
	if (!views__init(&s->trace->views, "/proc"))
		s->trace->store.views = &s->trace->views;
	err = setup_signals();
	if (!err) {
		err = prepare_target(s, &pc);
		if (err && !s->launched)
			s->fail = EXIT_INPUT;
	}
	if (!err)
		err = collector__open(&s->c, &pc, &s->trace->kernel);
	if (err)
		return err;
	/* Probed before the attach: the probe's child is no process to trace. */
	s->caps_needed = collector__caps_needed(s->c);
	s->trace->maps_bytes = collector__maps_bytes(s->c);	/* again at the end */
	if (o->listen || o->prom_file)
		err = prom__serve(&s->prom, o->listen, o->job);
	if (s->prom)
		prom__limit(s->prom, o->max_series);
	return err;
}

/*
 * The training loops' wait for data, from the trace as last refreshed,
 * and the ledger of loops by identity the metrics label (model/ledger.h);
 * final: the trace is over, the loops that ended in it keep their entries.
 */
static int measure_stall(struct session *s, bool final)
{
	const struct options *o = s->o;
	struct stall_opts so = {
		.given = o->consumers,
		.nr_given = o->nr_consumers,
		.root_tgid = o->cmd ? s->launch.pid : o->nr_pids ? o->pids[0] : 0,
		.launched = s->launched,
		.min_cpu_share = o->thresholds->v[TH_CONSUMER_CPU],
		.min_wakeups = o->thresholds->v[TH_CONSUMER_WAKES],
		/* The node's jobs: each loop's sides within its own workload. */
		.workloads = o->mode == TARGET_ALL ? &s->trace->cgroups : NULL,
	};

	int err = stall__measure(s->trace, &so);

	return err ?: ledger__update(&s->trace->ledger, s->trace, final ? NULL : ledger__proc,
				     NULL);
}

/*
 * The target's mounts, by device, from its mount namespace (a container's
 * may differ from iostorm's); iostorm's own when the target is gone.
 * Read at the start and at the end, so a mount made in between is known.
 */
static void read_mounts(struct session *s)
{
	const struct options *o = s->o;
	pid_t pid = s->launched ? s->launch.pid : o->nr_pids ? o->pids[0] : 0;
	int err = -ENOENT;

	if (pid > 0)
		err = mounts__read_pid(&s->trace->mounts, pid);
	if (err)
		err = mounts__read_pid(&s->trace->mounts, 0);
	if (err)
		pr_err("cannot read the mounts: %s", strerror(-err));
}

/*
 * The window starts once every probe is attached: /proc/diskstats is read
 * (without it the report lacks the kernel's own counts, nothing more) and
 * the first interval snapshot is taken.
 */
static int start_window(struct session *s)
{
	const struct options *o = s->o;
	bool json_on_stdout = options__report_on_stdout(o);
	__u64 now = now_ns();
	int err = 0;

	collector__start(s->c, now);	/* requests from now on are tracked */
	read_mounts(s);
	err = block__start(&s->trace->block, now);
	if (err)
		pr_err("cannot read '%s': %s", DISKSTATS_PATH, strerror(-err));
	err = timeline__init(&s->trace->timeline, now, (__u64)(o->drain * 1e9));
	if (err) {
		pr_err("out of memory");
		return err;
	}
	if (o->interval > 0)
		err = collector__refresh(s->c, s->trace, REFRESH_FILES | REFRESH_GLOBALS, now);
	if (!err && o->interval > 0)
		err = measure_stall(s, false);
	/* Interval lines must not break a JSON or HTML report written to stdout. */
	if (!err)
		err = interval__start(&s->iv, json_on_stdout ? stderr : stdout, o->interval,
				      s->trace, now);
	if (err)
		pr_err("cannot read the BPF maps: %s", strerror(-err));
	return err;
}

/*
 * The drains run at DRAIN_NICE: a job whose threads keep every CPU busy
 * (4 readers on 2 CPUs, ~150k new files/s) would otherwise delay a drain
 * past the time the files table's other half takes to fill, and files
 * would be lost (counted, but lost). The CPU a drain takes is the same;
 * it only runs sooner. Set after the launched command is forked, so the
 * command keeps the nice value it was given; failing to (no CAP_SYS_NICE)
 * costs nothing but that margin.
 */
#define DRAIN_NICE	-10

static void raise_priority(const struct session *s)
{
	if (setpriority(PRIO_PROCESS, 0, DRAIN_NICE) && s->o->verbose)
		pr_err("cannot raise the drains' priority to nice %d: %s", DRAIN_NICE,
		       strerror(errno));
}

/*
 * The capabilities kept by choice: --keep-caps; else, for a report (no
 * --listen), CAP_SYS_PTRACE where held: /proc/PID/maps of a process that
 * holds capabilities iostorm does not (a root job) needs it, and without
 * it a data set mapped after the start has no name. An exporter serves
 * HTTP for days: it keeps none, and says what that costs (docs/usage.md).
 */
static __u64 caps_chosen(const struct options *o)
{
	if (o->keep_caps_set)
		return o->keep_caps;
	return o->listen ? 0 : CAPS_BIT(CAP_SYS_PTRACE);
}

/*
 * Everything that needs a privilege is done: the programs are loaded and
 * attached, the maps open, the socket bound, the drains' priority raised,
 * the launched command forked (it keeps what it was given). Keep only what
 * the drains still need (s->caps_needed: none, or CAP_BPF before 5.19) and
 * caps_chosen(), before any other thread starts (capset() is per
 * thread), and say what is held while serving. docs/usage.md, "Privileges".
 */
static int drop_privileges(struct session *s)
{
	const struct options *o = s->o;
	__u64 keep = caps_chosen(o);
	char names[256];
	int err = 0;

	if (keep != ~0ULL) {
		keep |= s->caps_needed;
		err = caps__drop_all_but(keep);
	}
	if (err) {
		pr_err("cannot drop capabilities: %s", strerror(-err));
		return err;
	}
	caps__names(caps__effective(), names, sizeof(names));
	pr_err("capabilities held while tracing: %s", names);
	return 0;
}

/* Serve /metrics from now on; say when anyone who reaches the node may read it. */
static int start_serving(struct session *s)
{
	const struct options *o = s->o;
	int err = prom__start(s->prom);

	if (!err && o->listen && o->listen_insecure)
		pr_err("serving /metrics on '%s' to anyone who reaches it, without TLS or "
		       "authentication (--listen-insecure)", o->listen);
	return err;
}

/*
 * Seed the target, attach, then seed again: a child forked between the
 * first scan and the attach is found by the second.
 */
static int start_tracing(struct session *s)
{
	const struct options *o = s->o;
	pid_t child = s->launched ? s->launch.pid : 0;
	const pid_t *pids = s->launched ? &child : o->pids;
	int n = s->launched ? 1 : o->nr_pids, err = 0;

	if (o->mode == TARGET_PIDS)
		err = collector__seed(s->c, pids, n);
	if (!err)
		err = collector__attach(s->c);
	if (!err && o->mode == TARGET_PIDS)
		err = collector__seed(s->c, pids, n) ?: collector__parents(s->c, s->trace);
	/* Files mapped before the attach: their faults carry no path. */
	for (int i = 0; !err && o->mode == TARGET_PIDS && i < n; i++)
		err = mapfiles__scan(&s->trace->store, pids[i], NULL) < 0 ? -ENOMEM : 0;
	if (!err)
		err = start_window(s);
	if (err)
		return err;
	raise_priority(s);
	err = drop_privileges(s) ?: start_serving(s);
	if (err)
		return err;
	pr_err("tracing %s; Ctrl-C to stop", s->trace->target);
	if (s->launched) {
		err = target__release(&s->launch, o->cmd[0]);
		s->exec_failed = err != 0;
	}
	return err;
}

/*
 * Metrics while tracing, from a refreshed trace, with the findings judged
 * live (run/loops.h: not again in a storm, since a sort of every file,
 * 0.3 s for 300k, leaves no drain room to run): best effort, the trace
 * goes on.
 */
static void publish_metrics(struct session *s)
{
	int err;

	if (!s->prom)
		return;
	err = prom__publish(s->prom, s->trace, live__findings(&s->live));
	if (err) {
		pr_err("cannot publish metrics: %s", strerror(-err));
		return;
	}
	err = s->o->prom_file ? prom__save(s->prom, s->o->prom_file) : 0;
	if (err)
		pr_err("cannot write '%s': %s", s->o->prom_file, strerror(-err));
}

/* Why tracing stops now, or -1 to go on. */
static int stop_reason(struct session *s, __u64 now, __u64 start)
{
	const struct options *o = s->o;

	if (stop_signal)
		return STOP_SIGNAL;
	if (o->duration && (now - start) / 1e9 >= o->duration)
		return STOP_DURATION;
	if (o->mode == TARGET_PIDS && !collector__targets_left(s->c))
		return STOP_TARGET_EXIT;
	return -1;
}

/*
 * The time to the next drain: --drain, but every 0.1 s in a launched job's
 * first 30 s until it reads data, so that its training loop's start is
 * known to a tenth of a second and its imports are left out of it
 * (model/stall_setup.c: stall_setup__keep()). A job that reads no data pays 300 drains.
 */
static __u64 drain_ns(const struct session *s, __u64 now, __u64 start)
{
	__u64 ns = (__u64)(s->o->drain * 1e9);

	if (s->launched && !s->trace->data_seen && now - start < START_S * 1000000000ULL &&
	    ns > START_DRAIN_NS)
		return START_DRAIN_NS;
	return ns;
}

/*
 * One tick: when a drain or an interval line is due, refresh the trace
 * once (the globals too: the timeline takes a point at every drain), then
 * let each read it; else drain early if a storm fills the files map
 * (metrics stay on schedule).
 */
static int tick(struct session *s, __u64 now, __u64 start, __u64 *next_drain)
{
	bool line = interval__due(&s->iv, now);
	unsigned int what = REFRESH_FILES | REFRESH_GLOBALS;
	int err;

	if (now < *next_drain && !line) {
		if (!collector__filling(s->c, now))
			return 0;
		s->storm = true;
		return collector__refresh(s->c, s->trace, REFRESH_FILES, now);
	}
	if (s->prom)
		what |= REFRESH_BLOCK_HISTS;
	err = collector__refresh(s->c, s->trace, what, now);
	if (!err && what & REFRESH_GLOBALS)
		err = measure_stall(s, false);
	if (!err && line)
		err = interval__tick(&s->iv, s->trace, now);
	if (!err && wants_timeline(s->o))
		err = timeline__take(&s->trace->timeline, s->trace, now);
	if (err)
		return err;
	s->trace->duration_s = (now - start) / 1e9;
	if (s->prom)
		err = live__judge(&s->live, s->trace, s->o->thresholds, now, s->storm);
	if (err)
		return err;
	/* The refresh took tens of ms: a storm may need a drain before the rest. */
	if (collector__filling(s->c, now_ns()))
		err = collector__refresh(s->c, s->trace, REFRESH_FILES, now);
	if (err)
		return err;
	publish_metrics(s);
	s->storm = false;
	*next_drain = now + drain_ns(s, now, start);
	return 0;
}

/*
 * Trace until the duration ends, a signal comes, or the target is gone.
 * The loop wakes every TICK_NS, or sooner when the files map fills fast
 * or is small (collector__next_look_ns()).
 */
static int trace_loop(struct session *s)
{
	__u64 start = now_ns(), next_drain = start + drain_ns(s, start, start), now;
	struct timespec period = { 0, 0 };
	int why, err;

	for (;;) {
		period.tv_nsec = collector__next_look_ns(s->c, TICK_NS);
		nanosleep(&period, NULL);
		now = now_ns();
		why = stop_reason(s, now, start);
		if (why >= 0)
			break;
		err = tick(s, now, start, &next_drain);
		if (err) {
			pr_err("cannot drain the BPF maps: %s", strerror(-err));
			return err;
		}
	}
	s->trace->stopped_by = why;
	s->trace->duration_s = (now_ns() - start) / 1e9;
	return 0;
}

/* The window ends: diskstats first, then detach, drain and read every map. */
static int finish_tracing(struct session *s)
{
	__u64 end = now_ns();
	int err;

	err = block__stop(&s->trace->block, end);
	if (err)
		pr_err("cannot read '%s': %s", DISKSTATS_PATH, strerror(-err));
	err = collector__finish(s->c, s->trace, end);
	if (err) {
		pr_err("cannot read the BPF maps: %s", strerror(-err));
		return err;
	}
	/* The last point: the timeline then sums to the trace's totals. */
	err = wants_timeline(s->o) ? timeline__take(&s->trace->timeline, s->trace, end) : 0;
	if (!err)
		err = timeline__finish(&s->trace->timeline);
	if (err) {
		pr_err("out of memory");
		return err;
	}
	read_mounts(s);
	if (store__join_aliases(&s->trace->store) < 0) {
		pr_err("cannot join the records of files seen under two devices: %s",
		       strerror(ENOMEM));
		return -ENOMEM;
	}
	err = measure_stall(s, true);
	if (err)
		pr_err("cannot measure the training loop's wait: %s", strerror(-err));
	return err;
}

static int session__run(struct session *s)
{
	int err = start_tracing(s);

	if (!err)
		err = trace_loop(s);
	if (!err)
		err = finish_tracing(s);
	return err;
}

/*
 * A launched command's exit status (stopped first if tracing ended before
 * it), or -1. A child whose exec failed is exiting on its own with exec's
 * 126 or 127: a SIGTERM would race that exit and make it 143.
 */
static int session__reap(struct session *s)
{
	int status;

	if (!s->launched)
		return -1;
	if (s->launch.gate_fd >= 0) {
		close(s->launch.gate_fd);	/* never let run: it exits at EOF */
		s->launch.gate_fd = -1;
	} else if (s->trace->stopped_by != STOP_TARGET_EXIT && !s->exec_failed) {
		kill(s->launch.pid, SIGTERM);
	}
	while (waitpid(s->launch.pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	s->launched = false;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* Say that writing path failed; keep the first error. */
static void output_failed(int *err, const char *path, int e)
{
	pr_err("cannot write '%s': %s", path, strerror(-e));
	if (!*err)
		*err = e;
}

/*
 * The JSON report --json just wrote, open for reading: a regular file
 * holds the whole document once renamed into place. NULL for stdout, a
 * FIFO or a device, which cannot be read back.
 */
static FILE *json_written(const char *path)
{
	struct stat st;
	FILE *in;

	/*
	 * stat() before opening: opening a FIFO to read would wait for a new
	 * writer, and /dev/stdout on a pipe would read the pipe's own bytes.
	 */
	if (!strcmp(path, "-") || stat(path, &st) || !S_ISREG(st.st_mode))
		return NULL;
	in = fopen(path, "r");
	if (in && (fstat(fileno(in), &st) || !S_ISREG(st.st_mode))) {
		fclose(in);
		in = NULL;
	}
	return in;
}

/*
 * The page is drawn from the JSON report, as `iostorm html` draws it, so
 * both write the same bytes. The JSON is the one --json wrote when it can
 * be read back, so it is generated once; else it goes to an unnamed
 * temporary file (a million-file report is hundreds of MB) and is read back.
 */
static int write_html(const char *path, const struct report *r, const char *json, int top)
{
	FILE *in = json ? json_written(json) : NULL;
	json_t *root = NULL;
	int err = 0;

	if (!in) {
		in = tmpfile();
		if (!in)
			return -errno;
		err = report__print_json(in, r);
		if (!err && (fflush(in) || fseek(in, 0, SEEK_SET)))
			err = -errno;
	}
	if (!err && html__load(in, "the JSON report", top, &root))
		err = -EINVAL;
	if (!err)
		err = html__write(path, root, top);
	json_decref(root);
	fclose(in);
	return err;
}

/* The text, JSON and HTML reports of r; 0 or the first -errno. */
static int print_reports(const struct options *o, const struct report *r)
{
	struct report_opts ro = { .top = o->top, .full = o->full };
	bool json_ok = false;
	int err = 0, e;

	if (!o->quiet) {
		/* stdout holds the JSON or HTML report alone when it goes there. */
		e = report__print_text(options__report_on_stdout(o) ? stderr : stdout, r, &ro);
		if (e) {
			pr_err("cannot write the report: %s", strerror(-e));
			err = e;
		}
	}
	if (o->json) {
		e = report__write_json(o->json, r);
		if (e)
			output_failed(&err, o->json, e);
		json_ok = !e;
	}
	if (o->html) {
		e = write_html(o->html, r, json_ok ? o->json : NULL, o->top);
		if (e)
			output_failed(&err, o->html, e);
	}
	return err;
}

/*
 * Measure the trace's facts once, judge it and build its report once on
 * them, then every output; 0 or the first -errno.
 */
static int session__report(struct session *s)
{
	const struct options *o = s->o;
	const struct findings *f = s->findings;
	struct report *r;
	struct facts fa;
	int err, e;

	err = facts__measure(&fa, s->trace);
	if (err) {
		pr_err("cannot measure the trace: %s", strerror(-err));
		return err;
	}
	e = findings__judge(s->findings, s->trace, &fa, o->thresholds);
	if (e) {
		pr_err("cannot judge the trace: %s", strerror(-e));
		f = NULL;	/* the report still says what was measured */
	}
	if (f)
		live__judge_run(s->trace, f, o->thresholds);
	err = report__build(&r, s->trace, &fa, f);
	if (err) {
		pr_err("cannot build the report: %s", strerror(-err));
	} else {
		err = print_reports(o, r);
		report__free(r);
		if (err)
			s->fail = EXIT_OUTPUT;
	}
	facts__free(&fa);
	/* The last page, bounded by --max-series as every other: served, and the final file. */
	e = s->prom && f ? prom__publish(s->prom, s->trace, f) : 0;
	if (o->prom_file && f) {
		e = e ?: prom__save(s->prom, o->prom_file);
		if (e) {
			output_failed(&err, o->prom_file, e);
			s->fail = EXIT_OUTPUT;
		}
	}
	return err;
}

/* Stop serving, detach, and never leave a launched command waiting at its gate. */
static void session__close(struct session *s)
{
	prom__stop(s->prom);
	interval__free(&s->iv);
	collector__close(s->c);
	if (s->launched) {
		kill(s->launch.pid, SIGKILL);
		waitpid(s->launch.pid, NULL, 0);
	}
	if (s->trace) {
		block__free(&s->trace->block);
		fuse_layer__free(&s->trace->fuse);
		nfs_layer__free(&s->trace->nfs);
		mounts__free(&s->trace->mounts);
		cgroups__free(&s->trace->cgroups);
		ledger__free(&s->trace->ledger);
		live__free(&s->live);
		store__free(&s->trace->store);
		views__free(&s->trace->views);
		wakes__free(&s->trace->wakes);
		procs__free(&s->trace->procs);
		free(s->trace->loops);
		stall__starts_free(s->trace);
		timeline__free(&s->trace->timeline);
	}
	free(s->trace);
	free(s->findings);
}

/*
 * The one place where an error, a launched command's status and a failed
 * exec meet: the man page's table of exit statuses (EXIT STATUS).
 */
static int exit_code(int err, int child, bool exec_failed, int fail)
{
	if (exec_failed)
		return child;		/* 127 not found, 126 not runnable */
	if (err < 0)
		return fail ? fail : EXIT_ERROR;
	return child >= 0 ? child : EXIT_OK;
}

int run__main(int argc, char **argv)
{
	struct session s = { .launch = { .gate_fd = -1, .err_fd = -1 } };
	struct options o;
	int err, child;

	err = options__parse(&o, argc, argv);
	if (err) {
		if (err > 0 && o.version)
			run__print_version();
		options__free(&o);
		return options__exit_code(err);
	}
	s.o = &o;
	err = session__open(&s);
	if (!err)
		err = session__run(&s);
	child = session__reap(&s);
	if (s.trace)
		s.trace->exit_status = child;
	if (!err)
		err = session__report(&s);
	session__close(&s);
	options__free(&o);
	return exit_code(err, child, s.exec_failed, s.fail);
}
