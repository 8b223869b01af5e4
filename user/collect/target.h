/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The traced target: processes given by pid (and their descendants), a
 * command iostorm launches held at a gate until the probes are attached,
 * or a cgroup.
 */
#ifndef TARGET_H
#define TARGET_H

#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

struct launch {
	pid_t pid;		/* the command, waiting at the gate */
	int gate_fd;		/* write end: closing it lets the command run */
	int err_fd;		/* read end: exec's errno, or EOF on success */
};

/* Fail with a clear message unless every pid exists. */
int target__check_pids(const pid_t *pids, int n);
/* Add every pid and all its current descendants to the targets map. */
int target__seed(int map_fd, const pid_t *pids, int n);
/* Processes still in the targets map. */
int target__count(int map_fd);
/* Fork COMMAND, held before exec until target__release(). */
int target__launch(char **argv, struct launch *l);
/* Let the command exec; fails (-errno) if exec did. */
int target__release(struct launch *l, const char *cmd);
/* The cgroup v2 id of a cgroup directory (its inode number). */
int target__cgroup_id(const char *path, __u64 *id);
/* "pid 1234 (python3)" and so on, for the report header. */
void target__describe(char *buf, size_t len, int mode, const pid_t *pids,
		      int n, const char *cgroup, char **cmd);

#endif /* TARGET_H */
