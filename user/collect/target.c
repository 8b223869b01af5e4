// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Finding, launching and describing the processes to trace. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/types.h>
#include <bpf/bpf.h>
#include <linux/types.h>
#include "iostorm.h"
#include "collect/collect_int.h"
#include "lib/log.h"

/* A held command's exit status when it was never let run (as 128 + SIGKILL). */
#define LAUNCH_ABANDONED	137

/*
 * A process's state letter and parent from /proc/PID/stat: 0, or -ESRCH
 * when it is gone. comm may hold spaces and parentheses: parse after the
 * last ')'.
 */
static int proc_stat(pid_t pid, char *state, pid_t *ppid)
{
	char path[64], buf[512], *p;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return -ESRCH;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		n = sscanf(p + 1, " %c %d", state, ppid);
	fclose(f);
	return n == 2 ? 0 : -ESRCH;
}

/* The thread group and thread count of a task, from /proc/TID/status: 0 or -ESRCH. */
static int proc_status(pid_t tid, pid_t *tgid, int *threads)
{
	char path[64], line[128];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return -ESRCH;
	while (found < 2 && fgets(line, sizeof(line), f))
		found += sscanf(line, "Tgid: %d", tgid) + sscanf(line, "Threads: %d", threads);
	fclose(f);
	return found == 2 ? 0 : -ESRCH;
}

/*
 * Has the process exited (a zombie its parent has not reaped, or dead)?
 * Then no exit event will come. A leader that called pthread_exit() is a
 * zombie too, but its other threads still run: Threads counts them.
 */
static bool proc_exited(pid_t pid, char state)
{
	pid_t tgid;
	int threads;

	if (state != 'Z' && state != 'X' && state != 'x')
		return false;
	return proc_status(pid, &tgid, &threads) || threads <= 1;
}

/* One -p pid: a live process, or a thread whose process is traced instead. */
static int check_pid(pid_t *pid)
{
	pid_t tgid = -1, ppid;
	int threads;
	char state;

	if (*pid == getpid()) {
		pr_err("cannot attach to pid %d: it is iostorm itself", *pid);
		return -EINVAL;
	}
	if (proc_stat(*pid, &state, &ppid)) {
		pr_err("cannot attach to pid %d: no such process", *pid);
		return -ESRCH;
	}
	if (proc_exited(*pid, state)) {
		pr_err("cannot attach to pid %d: it has exited (a zombie its parent %d "
		       "has not reaped)", *pid, ppid);
		return -ESRCH;
	}
	if (!proc_status(*pid, &tgid, &threads) && tgid > 0 && tgid != *pid) {
		pr_err("pid %d is a thread of process %d: tracing process %d, "
		       "all its threads", *pid, tgid, tgid);
		*pid = tgid;
	}
	return 0;
}

int target__check_pids(pid_t *pids, int n)
{
	int err;

	for (int i = 0; i < n; i++) {
		err = check_pid(&pids[i]);
		if (err)
			return err;
	}
	return 0;
}

/* Parent pid of a live process, or -1 when it is gone or has exited. */
static pid_t parent_of(pid_t pid)
{
	pid_t ppid;
	char state;

	if (proc_stat(pid, &state, &ppid) || proc_exited(pid, state))
		return -1;
	return ppid;
}

/*
 * The targets map is a bitmap, a bit per tgid (iostorm.h), mapped into
 * iostorm once (target__map()): seeding and the "any target left?" check
 * of every tick are loads and stores, not a syscall per pid. The fork and
 * exit programs flip bits concurrently, so writes here are atomic too.
 */
#define TARGET_BYTES	(TARGET_WORDS * sizeof(__u64))

__u64 *target__map(int map_fd)
{
	void *p = mmap(NULL, TARGET_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

void target__unmap(__u64 *bits)
{
	if (bits)
		munmap(bits, TARGET_BYTES);
}

static bool bits_has(const __u64 *bits, pid_t pid)
{
	if (pid <= 0 || (unsigned int)pid >= TARGET_PID_LIMIT)
		return false;
	return __atomic_load_n(&bits[pid >> 6], __ATOMIC_RELAXED) >> (pid & 63) & 1;
}

static int bits_add(__u64 *bits, pid_t pid)
{
	if (pid <= 0 || (unsigned int)pid >= TARGET_PID_LIMIT)
		return -ERANGE;		/* above the kernel's PID_MAX_LIMIT */
	__atomic_fetch_or(&bits[pid >> 6], 1ULL << (pid & 63), __ATOMIC_RELAXED);
	return 0;
}

static void bits_del(__u64 *bits, pid_t pid)
{
	__atomic_fetch_and(&bits[pid >> 6], ~(1ULL << (pid & 63)), __ATOMIC_RELAXED);
}

/*
 * Add each process whose ancestor is in the set, repeating until nothing
 * changes, so grandchildren are found whatever the /proc order. Exited
 * processes (zombies) are left out: their exit event has passed.
 */
static int add_descendants(__u64 *bits)
{
	pid_t self = getpid();
	int added, err = 0;

	do {
		struct dirent *de;
		DIR *proc = opendir("/proc");

		if (!proc)
			return -errno;
		added = 0;
		while ((de = readdir(proc))) {
			pid_t pid = atoi(de->d_name), ppid;

			/* iostorm itself, a child of the target too, counts nothing. */
			if (pid <= 0 || pid == self || bits_has(bits, pid))
				continue;
			ppid = parent_of(pid);
			if (ppid <= 0 || !bits_has(bits, ppid))
				continue;
			err = bits_add(bits, pid);
			if (err)
				break;
			added++;
		}
		closedir(proc);
	} while (added && !err);
	return err;
}

/*
 * Remove the processes that exited before the programs were attached (or
 * between two scans): the exit program never saw them go, and a stale
 * bit would keep tracing "until the target exits" forever.
 */
static void prune_exited(__u64 *bits)
{
	for (__u32 i = 0; i < TARGET_WORDS; i++) {
		__u64 w = __atomic_load_n(&bits[i], __ATOMIC_RELAXED);

		while (w) {
			pid_t pid = i * 64 + __builtin_ctzll(w);

			w &= w - 1;
			if (parent_of(pid) < 0)
				bits_del(bits, pid);
		}
	}
}

int target__parents(const __u64 *bits, struct procs *p)
{
	for (__u32 i = 0; i < TARGET_WORDS; i++) {
		__u64 w = __atomic_load_n(&bits[i], __ATOMIC_RELAXED);

		while (w) {
			pid_t pid = i * 64 + __builtin_ctzll(w), ppid = parent_of(pid);

			w &= w - 1;
			if (ppid > 0 && procs__set(p, pid, ppid))
				return -ENOMEM;
		}
	}
	return 0;
}

int target__seed(__u64 *bits, const pid_t *pids, int n)
{
	int err = 0;

	for (int i = 0; !err && i < n; i++)
		err = bits_add(bits, pids[i]);
	if (!err)
		err = add_descendants(bits);
	if (!err)
		prune_exited(bits);
	return err;
}

bool target__any(const __u64 *bits, __u32 *hint)
{
	if (__atomic_load_n(&bits[*hint % TARGET_WORDS], __ATOMIC_RELAXED))
		return true;
	for (__u32 i = 0; i < TARGET_WORDS; i++) {
		if (__atomic_load_n(&bits[i], __ATOMIC_RELAXED)) {
			*hint = i;
			return true;
		}
	}
	return false;
}

/*
 * The child, before exec: it must never run untraced. It dies with iostorm
 * while held (PR_SET_PDEATHSIG, checked against a parent that died before
 * it was set), and exits when the gate closes without a go (EOF: iostorm
 * died or gave up). The signal dispositions iostorm set (its SIGINT and
 * SIGTERM handlers, SIGPIPE ignored) are reset first: an ignored SIGPIPE
 * would survive exec, and a handler would keep a held child from dying.
 */
static int launch_hold(int gate_rd, pid_t parent)
{
	ssize_t n;
	char c;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		return -ECHILD;
	do
		n = read(gate_rd, &c, 1);
	while (n < 0 && errno == EINTR);
	close(gate_rd);
	if (n != 1)
		return -ECHILD;
	/* Released: from now on COMMAND is the user's job, and outlives iostorm. */
	return prctl(PR_SET_PDEATHSIG, 0) ? -errno : 0;
}

/* The child: wait at the gate, then exec; report exec's errno on err_fd. */
static void launch_child(char **argv, bool out_to_err, int gate_rd, int err_wr, pid_t parent)
{
	int e;

	if (launch_hold(gate_rd, parent))
		_exit(LAUNCH_ABANDONED);
	if (out_to_err && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		_exit(LAUNCH_ABANDONED);
	execvp(argv[0], argv);
	e = errno;
	if (write(err_wr, &e, sizeof(e)) < 0)
		_exit(127);
	/* As shells do: 127 for a command not found, 126 for one not runnable. */
	_exit(e == ENOENT ? 127 : 126);
}

int target__launch(char **argv, bool out_to_err, struct launch *l)
{
	pid_t parent = getpid();
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
		launch_child(argv, out_to_err, gate[0], err[1], parent);
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

/* name as execvp() finds it: a slash means a path, else the first runnable file on PATH. */
static char *find_program(const char *name)
{
	const char *dirs = getenv("PATH"), *p, *end;
	char buf[PATH_MAX];
	struct stat st;

	if (strchr(name, '/'))
		return realpath(name, NULL);
	if (!dirs)
		dirs = "/bin:/usr/bin";		/* glibc's confstr(_CS_PATH) */
	for (p = dirs;; p = end + 1) {
		end = strchrnul(p, ':');
		/* An empty entry is the current directory. */
		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(end - p), p, end > p ? "/" : "", name);
		if (!stat(buf, &st) && S_ISREG(st.st_mode) && !access(buf, X_OK))
			return realpath(buf, NULL);
		if (!*end)
			return NULL;
	}
}

static bool is_shell(const char *prog)
{
	static const char *const shells[] = { "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash" };
	const char *base = strrchr(prog, '/');

	base = base ? base + 1 : prog;
	for (size_t i = 0; i < sizeof(shells) / sizeof(shells[0]); i++)
		if (!strcmp(base, shells[i]))
			return true;
	return false;
}

int target__program_files(char **argv, char *paths[2])
{
	struct stat st;
	int n = 0;

	paths[n] = find_program(argv[0]);
	n += paths[n] != NULL;
	if (argv[1] && argv[1][0] != '-' && is_shell(argv[0]) &&
	    !stat(argv[1], &st) && S_ISREG(st.st_mode)) {
		paths[n] = realpath(argv[1], NULL);
		n += paths[n] != NULL;
	}
	return n;
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
