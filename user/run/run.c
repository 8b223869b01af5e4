// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * iostorm: is a training job starving on storage, and why?
 *
 * parse -> check -> target -> load -> attach -> release -> loop -> drain
 * -> report -> cleanup. See --help and README.md.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>
#include "iostorm.h"
#include "iostorm.skel.h"
#include "model/diskstats.h"
#include "collect/drain.h"
#include "run/interval.h"
#include "run/options.h"
#include "collect/probe.h"
#include "prom/prom.h"
#include "report/report_int.h"
#include "report/json.h"
#include "report/report.h"
#include "collect/target.h"
#include "model/trace.h"
#include "lib/log.h"

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

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CLOCK_MONOTONIC in ns: the clock of bpf_ktime_get_ns(). */
static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct session {
	struct options opts;
	struct iostorm_bpf *skel;
	struct drain drain;
	struct launch launch;
	struct trace *trace;
	struct interval iv;
	struct prom_server *prom;	/* --listen or --prom-file, else NULL */
	bool launched;
	bool exec_failed;	/* COMMAND never ran: exit with its 126/127 */
};

/* Resolve the target before loading: a bad pid or cgroup fails early. */
static int prepare_target(struct session *s, __u64 *cgid)
{
	struct options *o = &s->opts;

	target__describe(s->trace->target, sizeof(s->trace->target), o->mode,
			 o->pids, o->nr_pids, o->cgroup, o->cmd);
	if (o->mode == SCOPE_CGROUP)
		return target__cgroup_id(o->cgroup, cgid);
	if (o->cmd) {
		int err = target__launch(o->cmd, &s->launch);

		if (err)
			pr_err("cannot start '%s': %s", o->cmd[0],
				strerror(-err));
		s->launched = !err;
		return err;
	}
	if (o->nr_pids)
		return target__check_pids(o->pids, o->nr_pids);
	return 0;
}

/*
 * The window starts once every probe is attached: /proc/diskstats is read
 * (without it the report lacks the kernel's own counts, nothing more) and
 * the first interval snapshot is taken.
 */
static int start_window(struct session *s)
{
	bool json_on_stdout = s->opts.json && !strcmp(s->opts.json, "-");
	__u64 now = now_ns();
	int err;

	s->skel->bss->blk_attach_ns = now;	/* requests from now on are tracked */
	err = block__start(&s->trace->block, now);
	if (err)
		pr_err("cannot read '%s': %s", DISKSTATS_PATH,
			strerror(-err));
	/* Interval lines must not break a JSON report written to stdout. */
	err = interval__start(&s->iv, json_on_stdout ? stderr : stdout, s->opts.interval,
			      &s->drain, s->skel, s->trace, now);
	if (err)
		pr_err("cannot read the BPF maps: %s", strerror(-err));
	return err;
}

/*
 * Seed the target, attach, then seed again: a child forked between the
 * first scan and the attach is found by the second.
 */
static int start_tracing(struct session *s)
{
	struct options *o = &s->opts;
	int map_fd = bpf_map__fd(s->skel->maps.targets);
	pid_t child = s->launched ? s->launch.pid : 0;
	const pid_t *pids = s->launched ? &child : o->pids;
	int n = s->launched ? 1 : o->nr_pids, err = 0;

	if (o->mode == SCOPE_PIDS)
		err = target__seed(map_fd, pids, n);
	if (!err)
		err = probe__attach(s->skel);
	if (!err && o->mode == SCOPE_PIDS)
		err = target__seed(map_fd, pids, n);
	if (!err)
		err = start_window(s);
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
 * Metrics while tracing: the cumulative maps are read into the trace and
 * the snapshot is served (--listen) and written (--prom-file).
 */
static int publish_metrics(struct session *s, double elapsed)
{
	struct trace *t = s->trace;
	int err;

	if (!s->prom)
		return 0;
	t->duration_s = elapsed;
	err = drain__globals(&s->drain, s->skel, t);
	if (!err)
		err = drain__block(&s->drain, s->skel, &t->block, DRAIN_BLOCK_HISTS, now_ns());
	if (err)
		return err;
	t->prog_misses = probe__misses(s->skel);
	err = prom__publish(s->prom, t);
	if (!err && s->opts.prom_file)
		err = prom__save(s->prom, s->opts.prom_file);
	if (err)
		pr_err("cannot publish metrics: %s", strerror(-err));
	return 0;	/* metrics are best effort; the trace goes on */
}

/* Trace until the duration ends, a signal comes, or the target is gone. */
static int trace_loop(struct session *s)
{
	struct options *o = &s->opts;
	int map_fd = bpf_map__fd(s->skel->maps.targets);
	double start = now_s(), next_drain = start + o->drain, t;
	const struct timespec tick = { 0, 50 * 1000 * 1000 };
	int err = 0;

	for (;;) {
		nanosleep(&tick, NULL);
		t = now_s();
		if (stop_signal) {
			s->trace->stopped_by = STOP_SIGNAL;
			break;
		}
		if (o->duration && t - start >= o->duration) {
			s->trace->stopped_by = STOP_DURATION;
			break;
		}
		if (o->mode == SCOPE_PIDS && target__count(map_fd) == 0) {
			s->trace->stopped_by = STOP_TARGET_EXIT;
			break;
		}
		/* An interval line drains the per-file maps itself. */
		if (t >= next_drain || interval__due(&s->iv, now_ns())) {
			if (interval__due(&s->iv, now_ns()))
				err = interval__tick(&s->iv, &s->drain, s->skel, s->trace,
						     now_ns());
			else
				err = drain__files(&s->drain, s->trace);
			if (!err)
				err = publish_metrics(s, t - start);
			next_drain = t + o->drain;
		} else if (drain__files_filling(&s->drain)) {
			/* A storm fills the files map: drain it, publish on schedule. */
			err = drain__files(&s->drain, s->trace);
		}
		if (err) {
			pr_err("cannot drain the BPF maps: %s", strerror(-err));
			return err;
		}
	}
	s->trace->duration_s = now_s() - start;
	return 0;
}

/* The window ends: diskstats first, then detach, drain and read every map. */
static int finish_tracing(struct session *s)
{
	__u64 end = now_ns();
	int err;

	err = block__stop(&s->trace->block, end);
	if (err)
		pr_err("cannot read '%s': %s", DISKSTATS_PATH,
			strerror(-err));
	probe__detach(s->skel);
	err = drain__final(&s->drain, s->trace);
	if (!err)
		err = drain__globals(&s->drain, s->skel, s->trace);
	if (!err)
		err = drain__block(&s->drain, s->skel, &s->trace->block,
				   DRAIN_BLOCK_HISTS | DRAIN_BLOCK_UNFINISHED, end);
	if (err) {
		pr_err("cannot read the BPF maps: %s", strerror(-err));
		return err;
	}
	s->trace->prog_misses = probe__misses(s->skel);
	s->trace->maps_bytes = probe__maps_bytes(s->skel);
	if (store__join_aliases(&s->trace->store) < 0) {
		pr_err("cannot join the records of files seen under two "
			"devices: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

/* Wait for a launched command; stop it first if tracing ended before it. */
static int reap_command(struct session *s)
{
	int status;

	if (!s->launched)
		return -1;
	if (s->trace->stopped_by != STOP_TARGET_EXIT)
		kill(s->launch.pid, SIGTERM);
	while (waitpid(s->launch.pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	s->launched = false;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static int write_reports(struct session *s)
{
	struct options *o = &s->opts;
	struct report_opts ro = { .top = o->top };
	int err = 0;

	if (!o->quiet) {
		report_text__print(stdout, s->trace, &ro);
		if (fflush(stdout) || ferror(stdout)) {
			pr_err("cannot write the report: %s",
				strerror(errno));
			err = -EIO;
		}
	}
	if (o->json) {
		int e = report_json__write(o->json, s->trace);

		if (e) {
			pr_err("cannot write '%s': %s", o->json,
				strerror(-e));
			err = e;
		}
	}
	if (o->prom_file) {
		int e = prom__write_file(o->prom_file, s->trace, o->job);

		if (e) {
			pr_err("cannot write '%s': %s", o->prom_file,
				strerror(-e));
			err = e;
		}
	}
	if (s->prom)
		prom__publish(s->prom, s->trace);
	return err;
}

/* The findings: evidence from every layer, judged by the thresholds. */
static void diagnose(struct session *s)
{
	int err = diagnosis__run(&s->trace->diag, s->trace, s->opts.thresholds);

	if (err)
		pr_err("cannot judge the trace: %s", strerror(-err));
}

/* Do not leave a launched command waiting at its gate forever. */
static void abandon_command(struct session *s)
{
	if (!s->launched)
		return;
	kill(s->launch.pid, SIGKILL);
	waitpid(s->launch.pid, NULL, 0);
	s->launched = false;
}

int run__main(int argc, char **argv)
{
	struct session s = { .launch = { .gate_fd = -1, .err_fd = -1 } };
	struct probe_config pc = {};
	int err, status;

	err = options__parse(&s.opts, argc, argv);
	if (err) {
		options__free(&s.opts);
		return err > 0 ? EXIT_OK : EXIT_USAGE;
	}
	err = probe__check_env();
	if (err)
		goto out_free_opts;
	s.trace = calloc(1, sizeof(*s.trace));
	if (!s.trace || store__init(&s.trace->store)) {
		err = -ENOMEM;
		pr_err("out of memory");
		goto out_free_trace;
	}
	s.trace->exit_status = -1;
	s.trace->thresholds = s.opts.thresholds;
	err = setup_signals();
	if (!err)
		err = prepare_target(&s, &pc.cgid);
	if (err)
		goto out_free_trace;

	pc.mode = s.opts.mode;
	pc.map_files = s.opts.map_files;
	pc.verbose = s.opts.verbose;
	err = probe__load(&s.skel, &pc);
	if (err)
		goto out_abandon_command;
	s.trace->maps_bytes = probe__maps_bytes(s.skel);	/* again at the end */
	err = drain__init(&s.drain, s.skel);
	if (err) {
		pr_err("cannot set up draining: %s", strerror(-err));
		goto out_free_drain;
	}
	if (s.opts.listen || s.opts.prom_file)
		err = prom__serve(&s.prom, s.opts.listen, s.opts.job);
	if (!err)
		err = start_tracing(&s);
	if (!err)
		err = trace_loop(&s);
	if (!err)
		err = finish_tracing(&s);
	status = reap_command(&s);
	s.trace->exit_status = status;
	if (s.exec_failed)
		err = status;
	if (!err)
		diagnose(&s);
	if (!err)
		err = write_reports(&s);
	if (!err && status >= 0)
		err = status;	/* a positive exit status, passed through */

out_free_drain:
	prom__stop(s.prom);
	interval__free(&s.iv);
	drain__free(&s.drain);
	iostorm_bpf__destroy(s.skel);
out_abandon_command:
	abandon_command(&s);
out_free_trace:
	if (s.trace) {
		block__free(&s.trace->block);
		store__free(&s.trace->store);
	}
	free(s.trace);
out_free_opts:
	options__free(&s.opts);
	if (err < 0)
		return EXIT_ERROR;
	return err;
}
