// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Paths in the host's and the job's views: see view.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "model/mount.h"
#include "model/path.h"
#include "model/view.h"

void mnt_table__free(struct mnt_table *t)
{
	for (size_t i = 0; i < t->nr; i++) {
		free(t->ents[i].root);
		free(t->ents[i].point);
	}
	free(t->ents);
	t->ents = NULL;
	t->nr = 0;
}

/* Keep a mount's device, root and mount point. */
static int mnt_table_add(void *ctx, struct mount_rec *r)
{
	struct mnt_table *t = ctx;
	struct mnt_ent *v;

	v = realloc(t->ents, (t->nr + 1) * sizeof(*v));
	if (!v) {
		mounts__rec_free(r);
		return -ENOMEM;
	}
	t->ents = v;
	t->ents[t->nr++] = (struct mnt_ent){ .dev = r->dev, .root = r->root, .point = r->point };
	free(r->fstype);
	free(r->source);
	free(r->options);
	return 0;
}

int mnt_table__read(struct mnt_table *t, const char *path)
{
	struct mnt_table fresh = { 0 };
	int err = mounts__each(path, mnt_table_add, &fresh);

	if (err) {
		mnt_table__free(&fresh);
		return err;
	}
	mnt_table__free(t);
	*t = fresh;
	return 0;
}

/* Is path root itself or below it, component-wise? Returns the rest's offset or -1. */
static int below(const char *root, const char *path)
{
	size_t n = strlen(root);

	if (!strcmp(root, "/"))
		return 0;
	if (strncmp(root, path, n) || (path[n] && path[n] != '/'))
		return -1;
	return n;
}

char *mnt__join(const char *point, const char *root, const char *path)
{
	int rest = below(root, path);
	char *out;

	if (rest < 0)
		return NULL;
	if (asprintf(&out, "%s%s", strcmp(point, "/") ? point : "", path + rest) < 0)
		return NULL;
	if (!*out) {
		free(out);
		out = strdup("/");
	}
	return out;
}

/*
 * The host is pid 1's view; iostorm's own when pid 1's namespace cannot
 * be read (no CAP_SYS_PTRACE over it): iostorm runs on the host's.
 */
int views__init(struct views *vw, const char *proc)
{
	char path[128];
	struct stat st;

	memset(vw, 0, sizeof(*vw));
	snprintf(vw->proc, sizeof(vw->proc), "%s", proc);
	snprintf(vw->host_dir, sizeof(vw->host_dir), "%s/1", proc);
	snprintf(path, sizeof(path), "%s/ns/mnt", vw->host_dir);
	if (stat(path, &st)) {
		snprintf(vw->host_dir, sizeof(vw->host_dir), "%s/self", proc);
		snprintf(path, sizeof(path), "%s/ns/mnt", vw->host_dir);
		if (stat(path, &st))
			return -errno;
	}
	vw->host_ns = st.st_ino;
	snprintf(path, sizeof(path), "%s/mountinfo", vw->host_dir);
	vw->host_fresh = true;
	return mnt_table__read(&vw->host, path);
}

void views__free(struct views *vw)
{
	mnt_table__free(&vw->host);
	for (size_t i = 0; i < vw->nr_anchors; i++)
		free(vw->anchors[i].path);
	free(vw->anchors);
	for (size_t i = 0; i < vw->nr; i++) {
		free(vw->v[i].root_host);
		mnt_table__free(&vw->v[i].mounts);
		for (size_t k = 0; k < vw->v[i].nr_xl; k++) {
			free(vw->v[i].xl[k].job);
			free(vw->v[i].xl[k].host);
		}
		free(vw->v[i].xl);
	}
	free(vw->v);
	memset(vw, 0, sizeof(*vw));
}

void views__refresh(struct views *vw)
{
	vw->host_fresh = false;
}

static struct anchor_rec *anchor_find(const struct views *vw, __u64 addr)
{
	for (size_t i = 0; i < vw->nr_anchors; i++)
		if (vw->anchors[i].addr == addr)
			return &vw->anchors[i];
	return NULL;
}

int views__anchor(struct views *vw, __u64 addr, __u32 dev, const char *path)
{
	struct anchor_rec *a = anchor_find(vw, addr), *v;
	char *copy;

	if (a && a->dev == dev && !strcmp(a->path, path))
		return 0;		/* known: the usual case */
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	if (!a && vw->nr_anchors < ANCHORS_MAX) {
		v = realloc(vw->anchors, (vw->nr_anchors + 1) * sizeof(*v));
		if (!v) {
			free(copy);
			return -ENOMEM;
		}
		vw->anchors = v;
		a = &vw->anchors[vw->nr_anchors++];
		a->path = NULL;
	} else if (!a) {		/* full: replace in turn */
		a = &vw->anchors[vw->next_anchor++ % ANCHORS_MAX];
	}
	free(a->path);
	a->addr = addr;
	a->dev = dev;
	a->path = copy;
	return 0;
}

static __u32 kdev(dev_t d)
{
	return major(d) << 20 | minor(d);
}

/* Does path on the host name the file (ino on dev or alt_dev)? */
static bool same_file(const char *path, __u64 ino, __u32 dev, __u32 alt_dev)
{
	struct stat st;

	if (stat(path, &st))
		return false;
	return st.st_ino == ino && (kdev(st.st_dev) == dev || kdev(st.st_dev) == alt_dev);
}

/*
 * The host's path of fspath, a path inside the file system on dev: the
 * host mount of dev whose root holds fspath most closely and shows the
 * file (ino; 0 for a directory, checked by device only).
 */
static char *host_lookup(const struct views *vw, __u32 dev, const char *fspath,
			 __u64 ino, __u32 key_dev)
{
	char *best = NULL;
	size_t best_root = 0;
	struct stat st;

	for (size_t i = 0; i < vw->host.nr; i++) {
		const struct mnt_ent *m = &vw->host.ents[i];
		size_t n = strlen(m->root);
		char *p;
		bool ok;

		if (m->dev != dev || (best && n <= best_root))
			continue;
		p = mnt__join(m->point, m->root, fspath);
		if (!p)
			continue;
		if (ino)
			ok = same_file(p, ino, key_dev, dev);
		else
			ok = !stat(p, &st) && S_ISDIR(st.st_mode) && kdev(st.st_dev) == dev;
		if (!ok) {
			free(p);
			continue;
		}
		free(best);
		best = p;
		best_root = n;
	}
	return best;
}

/* host_lookup(), reading the host's mountinfo again (once a drain) on a miss. */
static char *host_find(struct views *vw, __u32 dev, const char *fspath, __u64 ino,
		       __u32 key_dev)
{
	char path[128], *p = host_lookup(vw, dev, fspath, ino, key_dev);

	if (p || vw->host_fresh)
		return p;
	vw->host_fresh = true;
	snprintf(path, sizeof(path), "%s/mountinfo", vw->host_dir);
	if (mnt_table__read(&vw->host, path))
		return NULL;
	return host_lookup(vw, dev, fspath, ino, key_dev);
}

/* The view's mountinfo, read once, from a process seen in it. */
static void view_mounts(const struct views *vw, struct view_rec *v)
{
	char path[128];

	if (v->mounts_tried)
		return;
	snprintf(path, sizeof(path), "%s/%u/mountinfo", vw->proc, v->tgid);
	v->mounts_tried = !mnt_table__read(&v->mounts, path);
}

/* The view of fs's resolver, added when new; 0 when none is left. */
static __u32 view_of(struct views *vw, const struct file_stats *fs)
{
	struct view_rec *v;
	struct anchor_rec *a;

	for (size_t i = 0; i < vw->nr; i++) {
		v = &vw->v[i];
		if (v->mnt_ns == fs->mnt_ns && v->root == fs->root) {
			v->tgid = fs->tgid;
			return i + 1;
		}
	}
	if (vw->nr >= VIEWS_MAX)
		return 0;
	v = realloc(vw->v, (vw->nr + 1) * sizeof(*v));
	if (!v)
		return 0;
	vw->v = v;
	v = &vw->v[vw->nr];
	memset(v, 0, sizeof(*v));
	v->mnt_ns = fs->mnt_ns;
	v->root = fs->root;
	v->root_dev = fs->root_dev;
	v->tgid = fs->tgid;
	a = anchor_find(vw, fs->root);
	if (a)
		v->root_host = host_find(vw, a->dev, a->path, 0, a->dev);
	v->host = v->mnt_ns == vw->host_ns && v->root_host && !strcmp(v->root_host, "/");
	if (!v->host)
		view_mounts(vw, v);	/* now, while a process of it is likeliest alive */
	return ++vw->nr;
}

/* The host's path through the anchor the kernel recorded. */
static char *by_anchor(struct views *vw, const struct file_key *key,
		       const struct file_stats *fs, const char *job)
{
	struct anchor_rec *a;
	size_t len = strlen(job);
	char *fspath, *host;

	if (!(fs->flags & FILE_F_ANCHOR) || (fs->flags & FILE_F_TRUNC) ||
	    fs->anchor_len > len || !(a = anchor_find(vw, fs->anchor)))
		return NULL;
	if (asprintf(&fspath, "%s/%s", a->path, job + len - fs->anchor_len) < 0)
		return NULL;
	path__normalize(fspath);
	host = host_find(vw, a->dev, fspath, key->ino, key->dev);
	free(fspath);
	return host;
}

/* The host's path through the view's own mountinfo: the job's mount of job. */
static char *by_mountinfo(struct views *vw, struct view_rec *v,
			  const struct file_key *key, const char *job)
{
	const struct mnt_ent *best = NULL;
	char *fspath, *host;
	int rest;

	view_mounts(vw, v);
	for (size_t i = 0; i < v->mounts.nr; i++) {
		const struct mnt_ent *m = &v->mounts.ents[i];

		if (below(m->point, job) >= 0 &&
		    (!best || strlen(m->point) >= strlen(best->point)))
			best = m;	/* the last of equals: mounted over the others */
	}
	if (!best)
		return NULL;
	rest = below(best->point, job);
	if (asprintf(&fspath, "%s/%s", best->root, job + rest) < 0)
		return NULL;
	path__normalize(fspath);
	host = host_find(vw, best->dev, fspath, key->ino, key->dev);
	free(fspath);
	return host;
}

/*
 * Learn from a file found on the host where its job's directories are:
 * the two paths less their common tail ("/data/c1/x", "/srv/ds/c1/x":
 * "/data" is "/srv/ds"). Nothing to learn when the paths are equal.
 */
static void xlate_learn(struct view_rec *v, const char *job, const char *host)
{
	size_t j = strlen(job), h = strlen(host);
	struct xlate *x;

	while (j && h && job[j - 1] == host[h - 1]) {
		j--;
		h--;
	}
	while (j < strlen(job) && job[j] != '/') {	/* back to a component boundary */
		j++;
		h++;
	}
	if (!j || !h)
		return;
	for (size_t i = 0; i < v->nr_xl; i++)
		if (!strncmp(v->xl[i].job, job, j) && !v->xl[i].job[j])
			return;
	if (v->nr_xl >= XLATE_MAX)
		return;
	x = realloc(v->xl, (v->nr_xl + 1) * sizeof(*x));
	if (!x)
		return;
	v->xl = x;
	x = &v->xl[v->nr_xl];
	x->job = strndup(job, j);
	x->host = strndup(host, h);
	if (!x->job || !x->host) {
		free(x->job);
		free(x->host);
		return;
	}
	v->nr_xl++;
}

char *views__rehost(struct views *vw, __u32 view, const char *job, __u64 ino, __u32 dev)
{
	struct view_rec *v = view && view <= vw->nr ? &vw->v[view - 1] : NULL;
	const struct xlate *best = NULL;
	char *host;
	int rest;

	for (size_t i = 0; v && i < v->nr_xl; i++)
		if (below(v->xl[i].job, job) >= 0 &&
		    (!best || strlen(v->xl[i].job) > strlen(best->job)))
			best = &v->xl[i];
	if (best) {
		rest = below(best->job, job);
		if (asprintf(&host, "%s%s", best->host, job + rest) < 0)
			return NULL;
		if (same_file(host, ino, dev, dev))
			return host;
		free(host);
	}
	/*
	 * iostorm in a container or a chroot (the DaemonSet's pod, kubectl
	 * exec): the host's paths are not in its root, but the file may be, at
	 * the job's path (a job in the same root): its own root's path, when
	 * that names the same file.
	 */
	if (job[0] == '/' && same_file(job, ino, dev, dev))
		return strdup(job);
	return NULL;
}

int views__place(struct views *vw, const struct file_key *key,
		 const struct file_stats *fs, char *job, struct file_paths *out)
{
	struct view_rec *v;

	out->view = fs->mnt_ns ? view_of(vw, fs) : 0;
	out->host = NULL;
	out->job = job;
	if (!fs->mnt_ns || !out->view) {	/* no view recorded: as the kernel saw it */
		out->host = job;
		out->job = NULL;
		out->view = 0;
		return 0;
	}
	v = &vw->v[out->view - 1];
	if (v->host) {
		out->host = job;
		out->job = NULL;
		out->view = 0;
		return 0;
	}
	if (job[0] == '/') {
		out->host = by_anchor(vw, key, fs, job);
		if (!out->host)
			out->host = by_mountinfo(vw, v, key, job);
		if (!out->host)
			out->host = views__rehost(vw, out->view, job, key->ino, key->dev);
	}
	if (out->host)
		xlate_learn(v, job, out->host);
	return 0;
}

const struct view_rec *views__get(const struct views *vw, __u32 view)
{
	return vw && view && view <= vw->nr ? &vw->v[view - 1] : NULL;
}

size_t views__count(const struct views *vw)
{
	return vw ? vw->nr : 0;
}
