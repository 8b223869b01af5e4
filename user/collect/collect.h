/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel side, seen from the tracing command: check the kernel, load
 * and attach the BPF programs, follow the target, and bring what they
 * counted into a struct trace. The only folder that talks to libbpf: the
 * rest of iostorm never sees a map or the skeleton.
 *
 * The public header of collect/: other folders include only this one.
 */
#ifndef COLLECT_COLLECT_H
#define COLLECT_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include "iostorm.h"

struct trace;
struct kernel_reach;

/* ---- the target (target.c) ---- */

struct launch {
	pid_t pid;		/* the command, waiting at the gate */
	int gate_fd;		/* write end: closing it lets the command run */
	int err_fd;		/* read end: exec's errno, or EOF on success */
};

/*
 * Fail with a clear message unless every pid is a live process (not
 * iostorm, not a zombie); a thread id is replaced by its process id, said.
 */
int target__check_pids(pid_t *pids, int n);
/*
 * Fork COMMAND, held before exec until target__release(); its stdout goes
 * to iostorm's stderr when out_to_err is set (a report on stdout: the
 * job's output must not break it).
 */
int target__launch(char **argv, bool out_to_err, struct launch *l);
/* Let the command exec; fails (-errno) if exec did. */
int target__release(struct launch *l, const char *cmd);
/*
 * The files a launched command runs that no exec maps: its program as
 * execvp() finds it (a script is read by its interpreter, like data) and,
 * for a shell (sh, bash, dash, zsh, ksh, mksh, ash), the script named by
 * its first argument when that is no option. Real paths, malloc()'d, into
 * paths; returns how many (0 to 2).
 */
int target__program_files(char **argv, char *paths[2]);
/*
 * The id (inode number) and level (0: the root) of a cgroup v2 directory;
 * -ENOTDIR or -EMEDIUMTYPE, said on stderr, for anything else.
 */
int target__cgroup_id(const char *path, __u64 *id, __u32 *level);
/* "pid 1234 (python3)" and so on, for the report header. */
void target__describe(char *buf, size_t len, enum target_mode mode, const pid_t *pids,
		      int n, const char *cgroup, char **cmd);


/* ---- the collector (collector.c) ---- */

struct probe_config {
	enum target_mode mode;
	__u64 cgid;		/* TARGET_CGROUP: the cgroup v2 id */
	__u32 cg_level;		/* and its level, 0 for the root */
	unsigned int map_files;
	bool verbose;
};

/* What collector__refresh() reads. */
enum refresh_what {
	REFRESH_FILES = 1,	/* drain the per-file maps */
	REFRESH_GLOBALS = 2,	/* counters, lost, errnos, histograms, block counts,
				   and drain the per-thread maps */
	REFRESH_BLOCK_HISTS = 4,	/* the block histograms too */
};

struct collector;

/* Can this process and this kernel trace at all? Prints the fix if not. */
int load__check_env(void);
/* A program that loaded, and the instructions the verifier went through for it. */
struct prog_verified {
	char name[32];
	__u32 insns;
};

/*
 * What this kernel gives, into k, and whether the programs it takes load
 * (verified, not attached): 0, or the -errno of the load, said on stderr.
 * The programs that loaded go to progs, max at most; *n says how many;
 * *caps_after, the capabilities a trace would keep once attached (as
 * collector__caps_needed()).
 */
int collector__check(struct kernel_reach *k, bool verbose, struct prog_verified *progs,
		     int max, int *n, __u64 *caps_after);
/*
 * Learn what this kernel gives into k, then load the programs it takes and
 * set up draining; prints what failed. 0 or -errno.
 */
int collector__open(struct collector **c, const struct probe_config *pc,
		    struct kernel_reach *k);
/* Kernel memory of the BPF maps (their fdinfo "memlock"), in bytes; 0 if unknown. */
__u64 collector__maps_bytes(const struct collector *c);
/* Add processes (and their descendants) to the target. 0 or -errno. */
int collector__seed(struct collector *c, const pid_t *pids, int n);
/*
 * The parents of the target's processes as they are now, into t->procs:
 * workers forked before the attach are known as such (model/stall.h).
 * Those forked later come from the programs. 0 or -ENOMEM.
 */
int collector__parents(struct collector *c, struct trace *t);
/* Attach every program. 0 or -errno, said on stderr. */
int collector__attach(struct collector *c);
/*
 * The capabilities (a CAPS_BIT() mask, lib/caps.h) the drains still need
 * once attached: 0 where held fds read without any, else CAP_BPF's. Forks a
 * child to find out: call after collector__open() and before the attach
 * (the child is then no event) and before any thread starts.
 */
__u64 collector__caps_needed(struct collector *c);
/* The window opens: block requests from now_ns (CLOCK_MONOTONIC) on are tracked. */
void collector__start(struct collector *c, __u64 now_ns);
/* Is a process of a TARGET_PIDS target still alive? */
bool collector__targets_left(struct collector *c);
/*
 * Will the files map being filled reach half its size before a look after
 * this one could drain it, at the rate it fills? Then refresh the files now.
 */
bool collector__filling(struct collector *c, __u64 now_ns);
/*
 * How long the caller may sleep before it asks collector__filling() again
 * (ns, at most max_ns): shorter the faster and the smaller the map fills.
 */
__u64 collector__next_look_ns(const struct collector *c, __u64 max_ns);
/* Bring what the kernel counted into t (what: enum refresh_what). 0 or -errno. */
int collector__refresh(struct collector *c, struct trace *t, unsigned int what,
		       __u64 now_ns);
/* Detach, then drain and read every map into t, once and for all. 0 or -errno. */
int collector__finish(struct collector *c, struct trace *t, __u64 now_ns);
/* Detach if attached, and free everything; NULL is fine. */
void collector__close(struct collector *c);

/* ---- libbpf (version.c) ---- */

/* "1.1": the libbpf iostorm runs with, and the headers' if those differ. */
void collector__libbpf_version(char *buf, size_t len);

#endif /* COLLECT_COLLECT_H */
