// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The cgroups that did I/O, bounded, and the containers they name: see cgroup.h. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <sys/stat.h>
#include "model/cgroup.h"
#include "model/counters.h"
#include "model/mount.h"

void cgroups__free(struct cgroups *c)
{
	for (size_t i = 0; i < c->nr; i++)
		free(c->recs[i].path);
	free(c->recs);
	free(c->seen);
	memset(c, 0, sizeof(*c));
}

struct cgroup_rec *cgroups__find(const struct cgroups *c, __u64 cgid)
{
	for (size_t i = 0; i < c->nr; i++)
		if (c->recs[i].cgid == cgid)
			return &c->recs[i];
	return NULL;
}

static size_t cgroups_max(const struct cgroups *c)
{
	return c->max ? c->max : CGROUPS_MAX;
}

/* A new record for cgid at the end; NULL on -ENOMEM. */
static struct cgroup_rec *rec_new(struct cgroups *c, __u64 cgid)
{
	struct cgroup_rec *v = realloc(c->recs, (c->nr + 1) * sizeof(*v));
	__u64 *seen;

	if (!v)
		return NULL;
	c->recs = v;
	seen = realloc(c->seen, (c->nr + 1) * sizeof(*seen));
	if (!seen)
		return NULL;
	c->seen = seen;
	memset(&v[c->nr], 0, sizeof(*v));
	v[c->nr].cgid = cgid;
	seen[c->nr] = c->gen;
	return &v[c->nr++];
}

static void rec_sum(struct cgroup_rec *to, const struct cgroup_rec *r)
{
	to->threads += r->threads;
	io_counters__add(&to->io, &r->io);
}

/* The overflow record, made when first needed; NULL on -ENOMEM. */
static struct cgroup_rec *other_of(struct cgroups *c)
{
	struct cgroup_rec *o = cgroups__find(c, CGROUP_OTHER);

	return o ? o : rec_new(c, CGROUP_OTHER);
}

/* The record idle longest, or -1 when every one was added to this interval. */
static ssize_t idle_rec(const struct cgroups *c)
{
	ssize_t best = -1;

	for (size_t i = 0; i < c->nr; i++) {
		if (c->recs[i].cgid == CGROUP_OTHER || c->seen[i] >= c->gen)
			continue;
		if (best < 0 || c->seen[i] < c->seen[best])
			best = i;
	}
	return best;
}

/* Make room for a new id, or say where its sums go instead. */
static struct cgroup_rec *rec_make(struct cgroups *c, __u64 cgid)
{
	size_t own = c->nr - !!cgroups__find(c, CGROUP_OTHER);
	struct cgroup_rec *o;
	ssize_t idle;
	__u64 *slot;

	if (own < cgroups_max(c))
		return rec_new(c, cgid);
	o = other_of(c);
	if (!o)
		return NULL;
	idle = idle_rec(c);
	if (idle >= 0) {
		rec_sum(o, &c->recs[idle]);
		free(c->recs[idle].path);
		memset(&c->recs[idle], 0, sizeof(c->recs[idle]));
		c->recs[idle].cgid = cgid;
		c->seen[idle] = c->gen;
		c->folded++;
		return &c->recs[idle];
	}
	slot = &c->fold_ids[cgid % CGROUP_FOLD_SLOTS];
	if (*slot != cgid + 1) {
		*slot = cgid + 1;
		c->folded++;
	}
	return o;
}

int cgroups__add(struct cgroups *c, const struct thread_stats *ts)
{
	struct cgroup_rec *r = cgroups__find(c, ts->cgid);

	if (!r)
		r = rec_make(c, ts->cgid);
	if (!r)
		return -ENOMEM;
	if (r->cgid == ts->cgid)
		c->seen[r - c->recs] = c->gen;
	r->threads++;
	io_counters__add(&r->io, &ts->io);
	return 0;
}

void cgroups__tick(struct cgroups *c)
{
	c->gen++;
}

/* Copy [s, s + n) into dst of size len, if it fits. */
static void put(char *dst, size_t len, const char *s, size_t n)
{
	if (n >= len)
		n = len - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

static bool has_prefix(const char *s, size_t n, const char *p)
{
	size_t k = strlen(p);

	return n >= k && !strncmp(s, p, k);
}

static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return n >= 12;
}

/* "kubepods-burstable-pod12_34.slice" or cgroupfs "pod12-34": the uid. */
static void parse_pod(const char *c, size_t n, struct cgroup_name *out)
{
	static const char *const qos[] = { "burstable", "besteffort", "guaranteed" };
	const char *p;
	size_t k;

	for (size_t i = 0; i < 3; i++) {
		k = strlen(qos[i]);
		for (p = c; p + k <= c + n; p++)
			if (!strncmp(p, qos[i], k) && (p == c || p[-1] == '-'))
				put(out->qos, sizeof(out->qos), qos[i], k);
	}
	if (has_prefix(c, n, "pod") && n > 3)
		p = c + 3;
	else if (has_prefix(c, n, "kubepods") && (p = strstr(c, "-pod")) && p < c + n)
		p += 4;
	else
		return;
	k = c + n - p;
	if (k > 6 && !strncmp(c + n - 6, ".slice", 6))
		k -= 6;
	put(out->pod_uid, sizeof(out->pod_uid), p, k);
	for (char *u = out->pod_uid; *u; u++)
		if (*u == '_')
			*u = '-';	/* systemd escapes the uid's dashes */
}

/* "cri-containerd-<id>.scope" and the like: the runtime and the id. */
static bool parse_scope(const char *c, size_t n, struct cgroup_name *out)
{
	static const struct { const char *prefix, *runtime; } rt[] = {
		{ "cri-containerd-", "containerd" }, { "crio-", "crio" },
		{ "docker-", "docker" }, { "libpod-", "podman" },
		{ "containerd-", "containerd" },
	};
	size_t k;

	if (n > 6 && !strncmp(c + n - 6, ".scope", 6))
		n -= 6;
	for (size_t i = 0; i < sizeof(rt) / sizeof(rt[0]); i++) {
		k = strlen(rt[i].prefix);
		if (!has_prefix(c, n, rt[i].prefix) || !all_hex(c + k, n - k))
			continue;
		put(out->runtime, sizeof(out->runtime), rt[i].runtime, strlen(rt[i].runtime));
		put(out->container_id, sizeof(out->container_id), c + k, n - k);
		return true;
	}
	return false;
}

/* A run of digits, or a word for Slurm's named steps ("batch", "extern"). */
static bool slurm_id(const char *s, size_t n, bool step)
{
	static const char *const named[] = { "batch", "extern", "interactive" };

	for (size_t i = 0; step && i < sizeof(named) / sizeof(named[0]); i++)
		if (n == strlen(named[i]) && !strncmp(s, named[i], n))
			return true;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return n > 0;
}

/*
 * Slurm's "job_<J>" followed by "step_<S>" (cgroup v1 under /slurm/uid_<U>,
 * v2 under slurmstepd.scope), or a job's own "job_<J>" at the path's end:
 * the job and step ids. next is the component after c ("" at the end).
 */
static void parse_slurm(const char *c, size_t n, const char *next, size_t next_n,
			struct cgroup_name *out)
{
	if (!has_prefix(c, n, "job_") || !slurm_id(c + 4, n - 4, false))
		return;
	if (next_n && !(has_prefix(next, next_n, "step_") &&
			slurm_id(next + 5, next_n - 5, true)))
		return;
	put(out->slurm_job, sizeof(out->slurm_job), c + 4, n - 4);
	if (next_n)
		put(out->slurm_step, sizeof(out->slurm_step), next + 5, next_n - 5);
}

void cgroup__parse(const char *path, struct cgroup_name *out)
{
	const char *c = path, *end, *next, *prev = "";
	size_t n, prev_n = 0;
	bool kube = false;

	memset(out, 0, sizeof(*out));
	while (*c) {
		c += strspn(c, "/");
		end = c + strcspn(c, "/");
		n = end - c;
		if (!n)
			break;
		next = end + strspn(end, "/");
		parse_slurm(c, n, next, strcspn(next, "/"), out);
		if (has_prefix(c, n, "kubepods"))
			kube = true;
		if (kube && (has_prefix(c, n, "pod") || has_prefix(c, n, "kubepods") ||
			     has_prefix(c, n, "burstable") || has_prefix(c, n, "besteffort")))
			parse_pod(c, n, out);
		if (!parse_scope(c, n, out) && all_hex(c, n) &&
		    (out->pod_uid[0] || (prev_n == 6 && !strncmp(prev, "docker", 6)))) {
			put(out->container_id, sizeof(out->container_id), c, n);
			if (!out->pod_uid[0])
				put(out->runtime, sizeof(out->runtime), "docker", 6);
		}
		prev = c;
		prev_n = n;
		c = end;
	}
	if (kube && out->pod_uid[0] && !out->qos[0])
		put(out->qos, sizeof(out->qos), "guaranteed", 10);
}

int cgroup__set_path(struct cgroup_rec *r, const char *path)
{
	char *p = strdup(path);

	if (!p)
		return -ENOMEM;
	free(r->path);
	r->path = p;
	cgroup__parse(p, &r->name);
	return 0;
}

#define FILEID_KERNFS	0xfe	/* include/linux/exportfs.h: a kernfs node's 64-bit id */

/* The cgroup2 mount point of this mount namespace, into buf. */
static int cgroup2_mount(char *buf, size_t len)
{
	struct mounts m = {};
	int err = mounts__read_pid(&m, 0);

	if (err)
		return err;
	err = -ENOENT;
	for (size_t i = 0; i < m.nr; i++) {
		if (strcmp(m.recs[i].fstype, "cgroup2"))
			continue;
		snprintf(buf, len, "%s", m.recs[i].point);
		err = 0;
		break;
	}
	mounts__free(&m);
	return err;
}

/* The path of cgroup id under the mount (mount_fd at mount, mlen its length). */
static int resolve_one(struct cgroup_rec *r, int mount_fd, size_t mlen)
{
	struct {
		struct file_handle fh;
		__u64 id;
	} h = { .fh = { .handle_bytes = sizeof(__u64), .handle_type = FILEID_KERNFS } };
	char link[64], path[PATH_MAX];
	ssize_t n;
	int fd;

	h.id = r->cgid;
	r->tried = true;
	fd = open_by_handle_at(mount_fd, &h.fh, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	path[n] = '\0';
	if ((size_t)n < mlen)
		return -ENOENT;
	return cgroup__set_path(r, path[mlen] ? path + mlen : "/");
}

#define WALK_DEPTH_MAX	32	/* /kubepods.slice/...-pod<uid>.slice/<ctr>.scope is 4 */

/*
 * The records of c still unknown whose id is the inode of a directory
 * under dirfd (path, len bytes, its path below the mount), and below.
 * A cgroup2 directory's inode number is its cgroup id (kernfs, 5.5+).
 * Returns how many remain unknown, or -ENOMEM.
 */
static int walk_tree(struct cgroups *c, int dirfd, char *path, size_t len, int depth,
		     int unknown)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *e;
	struct stat st;
	int sub;

	if (!d) {
		close(dirfd);
		return unknown;
	}
	while (unknown > 0 && (e = readdir(d))) {
		if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    len + 1 + strlen(e->d_name) >= PATH_MAX)
			continue;
		snprintf(path + len, PATH_MAX - len, "/%s", e->d_name);
		for (size_t i = 0; i < c->nr; i++) {
			struct cgroup_rec *r = &c->recs[i];

			if (r->cgid != (__u64)st.st_ino || r->path || r->cgid == CGROUP_OTHER)
				continue;
			if (cgroup__set_path(r, path)) {
				closedir(d);
				return -ENOMEM;
			}
			unknown--;
		}
		if (depth >= WALK_DEPTH_MAX)
			continue;
		sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (sub >= 0)
			unknown = walk_tree(c, sub, path, strlen(path), depth + 1, unknown);
		if (unknown < 0)
			break;
	}
	closedir(d);
	return unknown;
}

/*
 * The ids the file handles could not open: open_by_handle_at() needs
 * CAP_DAC_READ_SEARCH, which iostorm drops once attached. The tree is
 * walked instead, once for all the ids new at this drain.
 */
static int resolve_by_walk(struct cgroups *c, int mount_fd, int unknown)
{
	char path[PATH_MAX] = "";
	int fd = dup(mount_fd);

	if (fd < 0)
		return unknown;
	for (size_t i = 0; i < c->nr; i++)	/* the root: / */
		if (c->recs[i].cgid != CGROUP_OTHER && !c->recs[i].path) {
			struct stat st;

			if (!fstat(mount_fd, &st) && (__u64)st.st_ino == c->recs[i].cgid &&
			    !cgroup__set_path(&c->recs[i], "/"))
				unknown--;
		}
	return walk_tree(c, fd, path, 0, 0, unknown);
}

int cgroups__resolve(struct cgroups *c, const char *mount)
{
	bool denied = false;
	char buf[PATH_MAX];
	int fd, err = 0, unknown = 0;
	size_t mlen, i;

	for (i = 0; i < c->nr && (c->recs[i].tried || c->recs[i].cgid == CGROUP_OTHER); i++)
		;
	if (i == c->nr)
		return 0;	/* nothing new: no mountinfo read */
	if (!mount) {
		err = cgroup2_mount(buf, sizeof(buf));
		if (err)
			return err;
		mount = buf;
	}
	mlen = strlen(mount);
	while (mlen > 1 && mount[mlen - 1] == '/')
		mlen--;
	fd = open(mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (size_t i = 0; i < c->nr; i++) {
		struct cgroup_rec *r = &c->recs[i];

		if (r->cgid == CGROUP_OTHER || r->path || r->tried)
			continue;
		err = resolve_one(r, fd, mlen == 1 ? 0 : mlen);
		if (err == -ENOMEM)
			break;
		denied |= err == -EPERM;
		err = 0;
		unknown += !r->path;
	}
	if (!err && denied && unknown)
		unknown = resolve_by_walk(c, fd, unknown);
	close(fd);
	return err ? err : unknown;
}

static __u64 rec_io_ns(const struct cgroup_rec *r)
{
	return r->io.read_ns + r->io.meta_ns;
}

static int rec_cmp(const void *pa, const void *pb)
{
	const struct cgroup_rec *a = *(const struct cgroup_rec *const *)pa;
	const struct cgroup_rec *b = *(const struct cgroup_rec *const *)pb;

	if ((a->cgid == CGROUP_OTHER) != (b->cgid == CGROUP_OTHER))
		return a->cgid == CGROUP_OTHER ? 1 : -1;
	if (rec_io_ns(a) != rec_io_ns(b))
		return rec_io_ns(a) > rec_io_ns(b) ? -1 : 1;
	return a->cgid < b->cgid ? -1 : a->cgid > b->cgid;
}

struct cgroup_rec **cgroups__sorted(const struct cgroups *c, size_t *n)
{
	struct cgroup_rec **v = malloc((c->nr ? c->nr : 1) * sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < c->nr; i++)
		if (c->recs[i].io.opens || c->recs[i].io.reads || c->recs[i].io.stats)
			v[(*n)++] = &c->recs[i];
	qsort(v, *n, sizeof(*v), rec_cmp);
	return v;
}
