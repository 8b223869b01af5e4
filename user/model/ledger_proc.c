// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A loop's process as /proc tells it: its start and its cgroups (ledger.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "model/ledger.h"

#define PROC_TEXT	8192	/* of /proc/PID/cgroup read at most (v1: a line a hierarchy) */

int ledger__parse_stat(const char *text, __u64 *start)
{
	/* comm, field 2, may hold spaces and parentheses: count after the last ')'. */
	const char *p = strrchr(text, ')');
	unsigned long long v;

	if (!p)
		return -EINVAL;
	if (p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'))
		return -ESRCH;	/* a zombie: exited, not reaped yet */
	/* The space before field f, from field 3 (state) to 22 (starttime). */
	for (int f = 3; f <= 22; f++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return -EINVAL;
	}
	if (sscanf(p + 1, "%llu", &v) != 1)
		return -EINVAL;
	*start = v;
	return 0;
}

void ledger__parse_cgroup(const char *text, struct loop_proc *out)
{
	const char *line = text;

	out->cgroup[0] = out->slurm[0] = '\0';
	while (line && *line) {
		const char *end = strchr(line, '\n'), *path, *c1, *c2 = NULL;
		size_t n = end ? (size_t)(end - line) : strlen(line);

		/* "ID:CONTROLLERS:PATH"; v2 is "0::PATH". */
		c1 = memchr(line, ':', n);
		if (c1)
			c2 = memchr(c1 + 1, ':', n - (c1 + 1 - line));

		if (c2) {
			path = c2 + 1;
			n -= path - line;
			if (!strncmp(line, "0::", 3))
				snprintf(out->cgroup, sizeof(out->cgroup), "%.*s", (int)n, path);
			else if (!out->slurm[0] && memmem(path, n, "/job_", 5))
				snprintf(out->slurm, sizeof(out->slurm), "%.*s", (int)n, path);
		}
		line = end ? end + 1 : NULL;
	}
}

/* Read path into buf (NUL-terminated, truncated to len - 1). 0 or -errno. */
static int read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		err = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return err;
}

int ledger__proc(__u32 pid, struct loop_proc *out, void *ctx)
{
	char path[64], *buf = malloc(PROC_TEXT);
	int err = -ENOMEM;

	(void)ctx;
	if (!buf)
		return err;
	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	err = read_text(path, buf, PROC_TEXT) ?: ledger__parse_stat(buf, &out->start);
	if (err) {
		err = -ENOENT;	/* gone, or a zombie's unreadable stat: exited */
		goto out_free;
	}
	snprintf(path, sizeof(path), "/proc/%u/cgroup", pid);
	if (read_text(path, buf, PROC_TEXT))
		buf[0] = '\0';
	ledger__parse_cgroup(buf, out);
out_free:
	free(buf);
	return err;
}
