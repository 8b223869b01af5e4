// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Finding, launching and describing the processes to trace. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/types.h>
#include <bpf/bpf.h>
#include <linux/types.h>
#include "iostorm.h"
#include "collect/collect_int.h"
#include "lib/log.h"

int target__check_pids(const pid_t *pids, int n)
{
	char path[64];

	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/stat", pids[i]);
		if (access(path, F_OK) == 0)
			continue;
		pr_err("cannot attach to pid %d: no such process",
			pids[i]);
		return -ESRCH;
	}
	return 0;
}

/* Parent pid of pid from /proc/PID/stat, or -1 when it is gone. */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512], *p;
	pid_t ppid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	/* comm may hold spaces and parentheses: parse after the last ')'. */
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		sscanf(p + 1, " %*c %d", &ppid);
	fclose(f);
	return ppid;
}

static int add_pid(int map_fd, pid_t pid)
{
	__u32 key = pid;
	__u8 one = 1;

	if (bpf_map_update_elem(map_fd, &key, &one, BPF_ANY))
		return -errno;
	return 0;
}

/*
 * Add each process whose ancestor is in the map, repeating until nothing
 * changes, so grandchildren are found whatever the /proc order.
 */
static int add_descendants(int map_fd)
{
	int added, err = 0;

	do {
		struct dirent *de;
		DIR *proc = opendir("/proc");

		if (!proc)
			return -errno;
		added = 0;
		while ((de = readdir(proc))) {
			pid_t pid = atoi(de->d_name), ppid;
			__u32 key = pid, pkey;
			__u8 v;

			if (pid <= 0 || !bpf_map_lookup_elem(map_fd, &key, &v))
				continue;
			ppid = parent_of(pid);
			pkey = ppid;
			if (ppid <= 0 || bpf_map_lookup_elem(map_fd, &pkey, &v))
				continue;
			err = add_pid(map_fd, pid);
			if (err)
				break;
			added++;
		}
		closedir(proc);
	} while (added && !err);
	return err;
}

int target__seed(int map_fd, const pid_t *pids, int n)
{
	int err;

	for (int i = 0; i < n; i++) {
		err = add_pid(map_fd, pids[i]);
		if (err)
			return err;
	}
	return add_descendants(map_fd);
}

int target__count(int map_fd)
{
	__u32 key, next;
	int n = 0;
	void *prev = NULL;

	while (bpf_map_get_next_key(map_fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		n++;
	}
	return n;
}

/* The child: wait at the gate, then exec; report exec's errno on err_fd. */
static void launch_child(char **argv, int gate_rd, int err_wr)
{
	char c;
	int e;

	while (read(gate_rd, &c, 1) < 0 && errno == EINTR)
		;
	close(gate_rd);
	execvp(argv[0], argv);
	e = errno;
	if (write(err_wr, &e, sizeof(e)) < 0)
		_exit(127);
	/* As shells do: 127 for a command not found, 126 for one not runnable. */
	_exit(e == ENOENT ? 127 : 126);
}

int target__launch(char **argv, struct launch *l)
{
	int gate[2], err[2], ret;

	if (pipe2(gate, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
		ret = -errno;
		goto out_close_gate;
	}
	l->pid = fork();
	if (l->pid < 0) {
		ret = -errno;
		goto out_close_err;
	}
	if (l->pid == 0) {
		close(gate[1]);
		close(err[0]);
		launch_child(argv, gate[0], err[1]);
	}
	close(gate[0]);
	close(err[1]);
	l->gate_fd = gate[1];
	l->err_fd = err[0];
	return 0;

out_close_err:
	close(err[0]);
	close(err[1]);
out_close_gate:
	close(gate[0]);
	close(gate[1]);
	return ret;
}

int target__release(struct launch *l, const char *cmd)
{
	ssize_t n;
	int e = 0;

	if (write(l->gate_fd, "g", 1) != 1)
		e = errno;
	close(l->gate_fd);
	l->gate_fd = -1;
	if (!e) {
		do
			n = read(l->err_fd, &e, sizeof(e));
		while (n < 0 && errno == EINTR);
		if (n != sizeof(e))
			e = 0;	/* EOF: exec succeeded and closed the pipe */
	}
	close(l->err_fd);
	l->err_fd = -1;
	if (!e)
		return 0;
	pr_err("cannot run '%s': %s", cmd, strerror(e));
	return -e;
}

#define CGROUP2_MAGIC	0x63677270	/* CGROUP2_SUPER_MAGIC */
#define CGROUP1_MAGIC	0x27e0eb	/* CGROUP_SUPER_MAGIC */

/* Directories above dir on the same cgroup v2 file system: its level. */
static int cgroup_level(const char *dir, dev_t dev, __u32 *level)
{
	char *up = realpath(dir, NULL), *slash;
	struct stat st;

	if (!up)
		return -errno;
	*level = 0;
	while ((slash = strrchr(up, '/')) && slash != up) {
		*slash = '\0';
		if (stat(up, &st) || st.st_dev != dev)
			break;
		(*level)++;
	}
	if (slash == up && !stat("/", &st) && st.st_dev == dev)
		(*level)++;	/* cgroup2 mounted on / itself */
	free(up);
	return 0;
}

/*
 * A cgroup v2 directory's id (its inode number) and level (0 for the
 * root). A plain directory or a cgroup v1 one is refused: traced by id,
 * it would match nothing and trace nothing, silently.
 */
int target__cgroup_id(const char *path, __u64 *id, __u32 *level)
{
	struct statfs sfs;
	struct stat st;
	int err;

	if (stat(path, &st) || statfs(path, &sfs)) {
		err = -errno;
		pr_err("cannot use cgroup '%s': %s", path, strerror(-err));
		return err;
	}
	if (!S_ISDIR(st.st_mode)) {
		pr_err("cannot use cgroup '%s': not a directory", path);
		return -ENOTDIR;
	}
	if (sfs.f_type != CGROUP2_MAGIC) {
		pr_err("cannot use cgroup '%s': not a cgroup v2 directory%s", path,
		       sfs.f_type == CGROUP1_MAGIC ? " (a cgroup v1 hierarchy)" : "");
		fprintf(stderr, "Give a directory under the cgroup2 mount (see 'grep cgroup2 /proc/mounts').\n");
		return -EMEDIUMTYPE;
	}
	err = cgroup_level(path, st.st_dev, level);
	if (err) {
		pr_err("cannot use cgroup '%s': %s", path, strerror(-err));
		return err;
	}
	*id = st.st_ino;
	return 0;
}

static void comm_of(pid_t pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	buf[0] = 0;
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

void target__describe(char *buf, size_t len, enum target_mode mode, const pid_t *pids,
		      int n, const char *cgroup, char **cmd)
{
	char comm[32];
	size_t off;

	if (mode == TARGET_ALL) {
		snprintf(buf, len, "all processes");
		return;
	}
	if (mode == TARGET_CGROUP) {
		snprintf(buf, len, "cgroup %s", cgroup);
		return;
	}
	if (cmd) {
		off = snprintf(buf, len, "command");
		for (int i = 0; cmd[i] && off < len; i++)
			off += snprintf(buf + off, len - off, " %s", cmd[i]);
		return;
	}
	off = snprintf(buf, len, n > 1 ? "pids" : "pid");
	for (int i = 0; i < n && off < len; i++) {
		comm_of(pids[i], comm, sizeof(comm));
		off += snprintf(buf + off, len - off, "%s %d%s%s%s", i ? "," : "",
				pids[i], comm[0] ? " (" : "", comm, comm[0] ? ")" : "");
	}
}
