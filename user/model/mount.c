// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Mounts by device, from mountinfo, and what was done on each: see mount.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/mount.h"

void mounts__rec_free(struct mount_rec *r)
{
	free(r->point);
	free(r->fstype);
	free(r->source);
	free(r->root);
	free(r->options);
}

/* A bind mount of a subtree, not of its file system's root. */
static bool subtree(const struct mount_rec *r)
{
	return strcmp(r->root, "/") != 0;
}

void mounts__free(struct mounts *m)
{
	for (size_t i = 0; i < m->nr; i++)
		mounts__rec_free(&m->recs[i]);
	free(m->recs);
	m->recs = NULL;
	m->nr = 0;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
char *mounts__unescape(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	if (!out)
		return NULL;
	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0');
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return out;
}

/*
 * "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw":
 * id, parent, major:minor, root, mount point, options, optional fields up
 * to "-", then fs type, source, super options (proc_pid_mountinfo(5)).
 */
int mounts__parse_line(const char *line, struct mount_rec *r)
{
	char root[4096], point[4096], fstype[256], source[4096], options[4096] = "";
	unsigned int major, minor;
	const char *sep;

	memset(r, 0, sizeof(*r));
	if (sscanf(line, "%*u %*u %u:%u %4095s %4095s", &major, &minor, root, point) != 4)
		return -EINVAL;
	sep = strstr(line, " - ");
	if (!sep || sscanf(sep + 3, "%255s %4095s %4095s", fstype, source, options) < 2)
		return -EINVAL;
	r->dev = major << 20 | minor;
	r->root = mounts__unescape(root);
	r->point = mounts__unescape(point);
	r->fstype = mounts__unescape(fstype);
	r->source = mounts__unescape(source);
	r->options = mounts__unescape(options);
	if (!r->root || !r->point || !r->fstype || !r->source || !r->options) {
		mounts__rec_free(r);
		return -ENOMEM;
	}
	return 0;
}

static struct mount_rec *find_rec(const struct mounts *m, __u32 dev)
{
	for (size_t i = 0; i < m->nr; i++)
		if (m->recs[i].dev == dev)
			return &m->recs[i];
	return NULL;
}

const struct mount_rec *mounts__find(const struct mounts *m, __u32 dev)
{
	return find_rec(m, dev);
}

/* Keep r in m unless its device is known (by a mount of its root); r is taken over or freed. */
static int mounts_add(struct mounts *m, struct mount_rec *r)
{
	struct mount_rec *old = find_rec(m, r->dev), *v;

	if (old && (subtree(r) || !subtree(old))) {
		mounts__rec_free(r);
		return 0;
	}
	if (old) {
		mounts__rec_free(old);
		*old = *r;
		return 0;
	}
	v = realloc(m->recs, (m->nr + 1) * sizeof(*v));
	if (!v) {
		mounts__rec_free(r);
		return -ENOMEM;
	}
	m->recs = v;
	m->recs[m->nr++] = *r;
	return 0;
}

int mounts__each(const char *path, int (*take)(void *ctx, struct mount_rec *r), void *ctx)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	int err = 0;

	if (!f)
		return -errno;
	while (!err && getline(&line, &cap, f) > 0) {
		struct mount_rec r;
		int e = mounts__parse_line(line, &r);

		if (e == -ENOMEM)
			err = e;
		else if (!e)
			err = take(ctx, &r);
	}
	free(line);
	fclose(f);
	return err;
}

static int take_rec(void *m, struct mount_rec *r)
{
	return mounts_add(m, r);
}

int mounts__read(struct mounts *m, const char *path)
{
	return mounts__each(path, take_rec, m);
}

int mounts__read_pid(struct mounts *m, pid_t pid)
{
	char path[64];

	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/mountinfo");
	return mounts__read(m, path);
}

bool mount__is_fuse(const struct mount_rec *r)
{
	return r && (!strcmp(r->fstype, "fuse") || !strncmp(r->fstype, "fuse.", 5) ||
		     !strcmp(r->fstype, "fuseblk"));
}

bool mount__is_network(const struct mount_rec *r)
{
	static const char *const net[] = { "nfs", "nfs4", "cifs", "smb3", "ceph",
					   "9p", "afs", "glusterfs", "lustre" };

	if (!r)
		return false;
	for (size_t i = 0; i < sizeof(net) / sizeof(net[0]); i++)
		if (!strcmp(r->fstype, net[i]))
			return true;
	return false;
}

bool mount__is_nfs(const struct mount_rec *r)
{
	return r && (!strcmp(r->fstype, "nfs") || !strcmp(r->fstype, "nfs4"));
}

const char *mount__option(const struct mount_rec *r, const char *name, char *buf, size_t len)
{
	size_t n = strlen(name);

	for (const char *p = r && r->options ? r->options : ""; *p;) {
		size_t l = strcspn(p, ",");

		if (l >= n && !strncmp(p, name, n) && (l == n || p[n] == '=')) {
			size_t v = l > n ? l - n - 1 : 0;

			if (v >= len)
				v = len ? len - 1 : 0;
			if (len) {
				memcpy(buf, p + n + (l > n), v);
				buf[v] = '\0';
			}
			return buf;
		}
		p += l + (p[l] == ',');
	}
	return NULL;
}
