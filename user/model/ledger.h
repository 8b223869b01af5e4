/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The loops of a node, each with one identity for its life: the ledger a
 * fleet's series are drawn from. stall__measure() finds the loops anew at
 * every drain and ranks them by data wait, so a rank changes owner; the
 * ledger keys each loop by its process (pid and the start time /proc
 * gives it, so a reused pid is a new loop), labels it once by its workload
 * (its cgroup's path, and what the path says: container, pod, Slurm job)
 * and keeps its latest figures until its process exits, when its entry
 * goes (its series end, never reset to zero).
 *
 * Bounded: max entries (LEDGER_MAX by default); a loop found while all are
 * taken has none, and the last update's such loops are counted (over).
 */
#ifndef MODEL_LEDGER_H
#define MODEL_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "model/cgroup.h"
#include "model/stall.h"

#define LEDGER_MAX	64	/* loops with series, by default */
#define LEDGER_PATH_LEN	512	/* a cgroup path kept, at most */

struct trace;

/* A loop's states as its counters export them (iostorm_loop_seconds_total). */
enum loop_state {
	LOOP_DATA_WAIT, LOOP_WRITE_WAIT, LOOP_ON_CPU, LOOP_RANK_WAIT, LOOP_OTHER_WAIT,
	LOOP_RUNNABLE, LOOP_STATES,
};

/* The state's name in a label ("data_wait"). */
const char *loop_state__name(enum loop_state s);

/* What /proc says of a process: when it started, and its cgroups. */
struct loop_proc {
	__u64 start;			/* /proc/PID/stat starttime, clock ticks after boot */
	char cgroup[LEDGER_PATH_LEN];	/* its cgroup v2 path ("0::"); "" unknown */
	char slurm[LEDGER_PATH_LEN];	/* a cgroup v1 path naming a Slurm job; "" none */
};

/* Read process pid: 0, or -ENOENT when it is gone. */
typedef int (*ledger_proc_fn)(__u32 pid, struct loop_proc *out, void *ctx);

struct ledger_entry {
	__u32 pid;		/* the loop's process */
	__u64 start;		/* its start (struct loop_proc): pid and start are its identity */
	__u32 tid;		/* the loop's thread */
	char comm[COMM_LEN];
	char cgroup[LEDGER_PATH_LEN];	/* the cgroup label: its path, "id:N", or "" */
	struct cgroup_name name;	/* parsed from it: container, pod, Slurm job */
	bool found;		/* a loop at the last update (else its figures are the last) */
	struct stall st;	/* its latest split */
	__u64 counted[LOOP_STATES];	/* ns by state as counters: each the most it has
					 * been (a split moves time between states while
					 * the sides settle; a counter never goes down) */
	const char *cause;	/* its cause at the last judgement (run/), NULL: none yet */
	struct stall judged;	/* its split when last judged: the window starts there */
	__u64 judged_ns;	/* when (CLOCK_MONOTONIC); 0: never */
};

struct ledger {
	struct ledger_entry *v;	/* in the order first seen */
	size_t nr;
	size_t max;		/* 0: LEDGER_MAX */
	__u64 over;		/* loops of the last update with no entry: over the bound */
	__u64 gone;		/* entries removed, their processes exited */
};

/*
 * Take t->loops into l: each loop's entry found by its process's identity
 * (read with proc), made if new and there is room, given its latest split;
 * entries whose process has exited (proc says gone, or a new start) are
 * removed. The cgroup is /proc's (its path now), else t->cgroups' path
 * for the loop's cgroup id where resolved. proc NULL: the trace is over, every entry stays
 * (a loop whose process exited in the last drain keeps its figures for
 * the final outputs) and a loop with none gets one if there is room. 0 or
 * -ENOMEM.
 */
int ledger__update(struct ledger *l, const struct trace *t, ledger_proc_fn proc, void *ctx);
/* The entry of process pid, or NULL. */
const struct ledger_entry *ledger__find(const struct ledger *l, __u32 pid);
void ledger__free(struct ledger *l);
/*
 * Loop e's split over the window since it was last judged (all of it the
 * first time), into w: its times, and its loader's, less those judged
 * then (a time that shrank, as sides settle, counts 0).
 */
void ledger__window(const struct ledger_entry *e, struct stall *w);
/* Loop e judged at now_ns with cause: the next window starts here. */
void ledger__judge(struct ledger_entry *e, const char *cause, __u64 now_ns);
/* Reads /proc/PID/stat and /proc/PID/cgroup (ledger_proc.c). */
int ledger__proc(__u32 pid, struct loop_proc *out, void *ctx);
/* Parse /proc/PID/stat's text: its starttime (field 22). 0, -ESRCH (a zombie) or -EINVAL. */
int ledger__parse_stat(const char *text, __u64 *start);
/* Parse /proc/PID/cgroup's text into out's cgroup and slurm paths. */
void ledger__parse_cgroup(const char *text, struct loop_proc *out);

#endif /* MODEL_LEDGER_H */
