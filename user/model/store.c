// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The user-space store, see store.h. Files: open addressing with linear
 * probing on a power-of-two table of record pointers, doubled at 70% load;
 * records are never removed (but for store__bound() and
 * store__join_aliases()). The threads are model/threads.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "model/counters.h"
#include "model/cut.h"
#include "model/hash.h"
#include "model/kind.h"
#include "model/mount.h"
#include "model/path.h"
#include "model/view.h"
#include "model/store.h"

#define FILES_CAP_MIN	1024
#define ELLIPSIS	"\xe2\x80\xa6"	/* U+2026: the path lost its head */
#define ELLIPSIS_LEN	3
#define PATH_BITS	(FILE_F_PATH | FILE_F_TRUNC | FILE_F_RELPATH | FILE_F_JOBONLY)

static size_t file_hash(__u32 dev, __u64 ino)
{
	return hash__mix64(ino ^ hash__mix64(dev));
}

int store__init(struct store *s)
{
	memset(s, 0, sizeof(*s));
	s->files = calloc(FILES_CAP_MIN, sizeof(*s->files));
	if (!s->files)
		return -ENOMEM;
	s->files_cap = FILES_CAP_MIN;
	return 0;
}

void store__free(struct store *s)
{
	for (size_t i = 0; i < s->files_cap; i++) {
		if (!s->files[i])
			continue;
		free(s->files[i]->path);
		free(s->files[i]->job_path);
		free(s->files[i]->async);
		free(s->files[i]);
	}
	free(s->files);
	threads__free(&s->threads);
	for (size_t i = 0; i < s->nr_mapped; i++)
		free(s->mapped[i].path);
	free(s->mapped);
	for (size_t i = 0; i < s->nr_code_paths; i++)
		free(s->code_paths[i]);
	memset(s, 0, sizeof(*s));
}

/*
 * The slot holding (dev, ino, gen), or the empty slot where it would go.
 * The hash leaves gen out: an inode number's lives lie on one probe run,
 * so a record's gen can change in place (store__merge_file()), and
 * store__find_latest() finds them all before the first empty slot.
 */
static size_t file_slot(struct file_rec **tab, size_t cap, __u32 dev, __u64 ino, __u32 gen)
{
	size_t mask = cap - 1, i = file_hash(dev, ino) & mask;

	while (tab[i] && !(tab[i]->ino == ino && tab[i]->dev == dev && tab[i]->gen == gen))
		i = (i + 1) & mask;
	return i;
}

struct file_rec *store__find(const struct store *s, __u32 dev, __u64 ino, __u32 gen)
{
	if (!s->files_cap)
		return NULL;
	return s->files[file_slot(s->files, s->files_cap, dev, ino, gen)];
}

struct file_rec *store__find_latest(const struct store *s, __u32 dev, __u64 ino)
{
	size_t mask = s->files_cap - 1, i;
	struct file_rec *best = NULL, *f;

	if (!s->files_cap)
		return NULL;
	for (i = file_hash(dev, ino) & mask; (f = s->files[i]); i = (i + 1) & mask)
		if (f->ino == ino && f->dev == dev && (!best || f->first_ts > best->first_ts))
			best = f;
	return best;
}

static int files_grow(struct store *s)
{
	size_t cap = s->files_cap ? s->files_cap * 2 : FILES_CAP_MIN;
	struct file_rec **tab;

	tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	for (size_t i = 0; i < s->files_cap; i++) {
		struct file_rec *f = s->files[i];

		if (f)
			tab[file_slot(tab, cap, f->dev, f->ino, f->gen)] = f;
	}
	free(s->files);
	s->files = tab;
	s->files_cap = cap;
	return 0;
}

/* A new, zeroed record for (dev, ino, gen), which must not be in the table. */
static struct file_rec *file_insert(struct store *s, __u32 dev, __u64 ino, __u32 gen)
{
	struct file_rec *f;

	if (!s->files_cap || hash__over_load(s->nr_files + 1, s->files_cap)) {
		if (files_grow(s))
			return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->dev = dev;
	f->ino = ino;
	f->gen = gen;
	s->files[file_slot(s->files, s->files_cap, dev, ino, gen)] = f;
	s->nr_files++;
	return f;
}

/*
 * How good a path is: the host's beats the job's only, open's beats
 * stat's, whole beats truncated, any beats none.
 */
static int path_rank(__u32 flags)
{
	if (!(flags & FILE_F_PATH))
		return 0;
	return !(flags & FILE_F_JOBONLY) * 8 + 1 + !(flags & FILE_F_RELPATH) * 2 +
	       !(flags & FILE_F_TRUNC);
}

/*
 * The kernel's path as the store keeps it, malloc'd: a stat's path joined
 * by the kernel is normalized here, a truncated tail gets "…" in front.
 */
static char *path_build(const struct file_stats *fs)
{
	char buf[ELLIPSIS_LEN + PATH_LEN];
	char *body = buf;
	size_t len = strnlen(fs->path, PATH_LEN - 1);

	if (fs->path_len && fs->path_len < len)
		len = fs->path_len;
	if (fs->flags & FILE_F_TRUNC) {
		memcpy(buf, ELLIPSIS, ELLIPSIS_LEN);
		body += ELLIPSIS_LEN;
	}
	memcpy(body, fs->path, len);
	body[len] = '\0';
	if (fs->flags & FILE_F_RELPATH)
		path__normalize(body);
	return strdup(buf);
}

static size_t path_size(const char *path)
{
	return path ? strlen(path) + 1 : 0;
}

int store__add_code_path(struct store *s, const char *path)
{
	if (s->nr_code_paths == STORE_CODE_PATHS)
		return -ENOSPC;
	s->code_paths[s->nr_code_paths] = strdup(path);
	if (!s->code_paths[s->nr_code_paths])
		return -ENOMEM;
	s->nr_code_paths++;
	return 0;
}

static bool is_code_path(const struct store *s, const char *path)
{
	for (size_t i = 0; path && i < s->nr_code_paths; i++)
		if (!strcmp(path, s->code_paths[i]))
			return true;
	return false;
}

/*
 * Code or data, and why (model/kind.h), by f's path and the mount it is
 * on: the mount table is the job's, so its mount point says something of
 * the host's path only where the two views agree (kind__why checks that
 * the path lies below it).
 */
static __u8 kind_of(const struct store *s, const struct file_rec *f)
{
	const struct mount_rec *m = s->mounts ? mounts__find(s->mounts, f->dev) : NULL;

	if (is_code_path(s, f->path))
		return KIND_SCRIPT;
	return kind__why(f->path, f->flags, m ? m->point : NULL, m ? m->fstype : NULL);
}

/* Give f the paths p (taken over), described by flags. */
static void path_set(struct store *s, struct file_rec *f, struct file_paths *p,
		     __u32 flags)
{
	s->path_bytes -= path_size(f->path) + path_size(f->job_path);
	free(f->path);
	free(f->job_path);
	f->path = p->host;
	f->job_path = p->job;
	f->view = p->view;
	s->path_bytes += path_size(f->path) + path_size(f->job_path);
	if (!p->host)
		flags |= FILE_F_JOBONLY;
	f->flags = (f->flags & ~PATH_BITS) | (flags & PATH_BITS);
	f->code = kind_of(s, f);
}

/*
 * The paths of fs's file in both views, when they may beat f's: 1 with *p
 * set, 0 when f keeps its own, -ENOMEM.
 */
static int paths_build(struct store *s, const struct file_key *key,
		       const struct file_stats *fs, const struct file_rec *f,
		       struct file_paths *p)
{
	int old = path_rank(f ? f->flags : 0);
	char *job;

	if (!fs->path[0] || path_rank(fs->flags) <= old)
		return 0;
	job = path_build(fs);
	if (!job)
		return -ENOMEM;
	if (!s->views) {
		*p = (struct file_paths){ .host = job };
	} else if (views__place(s->views, key, fs, job, p)) {
		return -ENOMEM;
	}
	if (path_rank(fs->flags | (p->host ? 0 : FILE_F_JOBONLY)) > old)
		return 1;
	free(p->host);
	free(p->job);
	return 0;
}

/*
 * Darshan's read classes for the interval's first read, which the kernel
 * could not classify: against the previous interval's last read, or, for
 * the file's first read ever, against offset 0. Call before flags merge.
 */
static void file_classify(struct file_rec *f, const struct file_stats *fs)
{
	if (!(fs->flags & FILE_F_READ))
		return;
	if (f->flags & FILE_F_READ) {
		if (fs->first_off >= f->last_end)
			f->c.reads_seq++;
		if (fs->first_off == f->last_end)
			f->c.reads_consec++;
	} else if (fs->first_off == 0) {
		f->c.reads_seq++;
		f->c.reads_consec++;
	}
	f->last_end = fs->last_end;
}

static void file_sum(struct file_rec *f, const struct file_stats *fs)
{
	file_counters__add(&f->c, &fs->c);
	if (fs->read_ns_max > f->read_ns_max)
		f->read_ns_max = fs->read_ns_max;
	if (fs->max_end > f->max_end)
		f->max_end = fs->max_end;
	if (fs->size)
		f->size = fs->size;
	if (fs->first_ts && (!f->first_ts || fs->first_ts < f->first_ts))
		f->first_ts = fs->first_ts;
	if (fs->last_ts > f->last_ts)
		f->last_ts = fs->last_ts;
	if ((fs->flags & FILE_F_READ) && fs->read_ts && (!f->read_ts || fs->read_ts < f->read_ts))
		f->read_ts = fs->read_ts;
	f->flags |= fs->flags & ~(PATH_BITS | FILE_F_CLAIM);	/* CLAIM: BPF's own */
	if (fs->flags & FILE_F_EXEC)
		f->code = KIND_EXEC;
}

/*
 * The record key's entry merges into, if any (see store.h): its own; for
 * gen 0 the inode number's latest life; for a generation, else a record
 * of stats by name (gen 0), which becomes that life's (in place: the hash
 * leaves gen out).
 */
static struct file_rec *file_of_key(struct store *s, const struct file_key *key)
{
	struct file_rec *f = store__find(s, key->dev, key->ino, key->gen);

	if (f)
		return f;
	if (!key->gen)
		return store__find_latest(s, key->dev, key->ino);
	f = store__find(s, key->dev, key->ino, 0);
	if (f)
		f->gen = key->gen;
	return f;
}

int store__merge_file(struct store *s, const struct file_key *key,
		      const struct file_stats *fs)
{
	struct file_rec *f = file_of_key(s, key);
	struct file_paths p;
	int better;

	/* Everything that can fail comes first: a failed merge changes nothing. */
	better = paths_build(s, key, fs, f, &p);
	if (better < 0)
		return better;
	if (!f) {
		f = file_insert(s, key->dev, key->ino, key->gen);
		if (!f) {
			if (better) {
				free(p.host);
				free(p.job);
			}
			return -ENOMEM;
		}
	}
	if (better)
		path_set(s, f, &p, fs->flags);
	file_classify(f, fs);
	file_sum(f, fs);
	if (!f->path && fs->faults)
		s->unnamed_faults = true;
	if (fs->flags & FILE_F_REG)
		s->reg_opens += fs->opens;
	return 0;
}

/*
 * Name f from a path a target process gave (its /proc/PID/maps): the
 * host's when stat() here finds that very file, else the job's only.
 */
int store__set_path(struct store *s, struct file_rec *f, const char *path)
{
	struct file_paths p = { .view = f->view };
	struct stat st;
	char *dup = strdup(path);

	if (!dup)
		return -ENOMEM;
	if (!stat(path, &st) && st.st_ino == f->ino &&
	    (major(st.st_dev) << 20 | minor(st.st_dev)) == f->dev)
		p.host = dup;
	else
		p.job = dup;
	path_set(s, f, &p, FILE_F_PATH);
	return 0;
}

int store__add_async(struct store *s, struct file_rec *f, const struct async_file *a)
{
	struct async_file *k = f->async;

	if (!k) {
		k = calloc(1, sizeof(*k));
		if (!k)
			return -ENOMEM;
		f->async = k;
		s->nr_async++;
	}
	k->reads += a->reads;
	k->depth += a->depth;
	k->late += a->late;
	k->inflight += a->inflight;
	if (a->depth_max > k->depth_max)
		k->depth_max = a->depth_max;
	return 0;
}

static void file_free(struct store *s, struct file_rec *f)
{
	s->path_bytes -= path_size(f->path) + path_size(f->job_path);
	s->nr_async -= !!f->async;
	free(f->path);
	free(f->job_path);
	free(f->async);
	free(f);
}

/*
 * Empty slot i of the table, moving back the records after it that probed
 * past it (deletion in linear probing, Knuth's algorithm R): no rehash, no
 * new table.
 */
static void slot_delete(struct store *s, size_t i)
{
	size_t mask = s->files_cap - 1, j = i, k;

	s->files[i] = NULL;
	for (;;) {
		j = (j + 1) & mask;
		if (!s->files[j])
			return;
		k = file_hash(s->files[j]->dev, s->files[j]->ino) & mask;
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;	/* at or after its home: stays */
		s->files[i] = s->files[j];
		s->files[j] = NULL;
		i = j;
	}
}

int store__bound(struct store *s)
{
	struct cut c = { .lo = ~0ULL };
	size_t i = 0, dropped = 0;
	__u64 cut;

	threads__bound(&s->threads);
	if (!s->files_max || s->nr_files <= s->files_max)
		return 0;
	for (i = 0; i < s->files_cap; i++)
		if (s->files[i])
			cut__range(&c, s->files[i]->last_ts);
	for (i = 0; i < s->files_cap; i++)
		if (s->files[i])
			cut__count(&c, s->files[i]->last_ts);
	cut = cut__at(&c, s->files_max - s->files_max / 4);
	i = 0;
	while (i < s->files_cap) {
		struct file_rec *f = s->files[i];

		if (f && f->last_ts < cut) {
			slot_delete(s, i);	/* slot i may now hold another: look again */
			file_free(s, f);
			dropped++;
			continue;
		}
		i++;
	}
	s->nr_files -= dropped;
	s->files_evicted += dropped;
	return dropped;
}

int store__rehost(struct store *s)
{
	struct file_paths p;
	int n = 0;

	for (size_t i = 0; s->views && i < s->files_cap; i++) {
		struct file_rec *f = s->files[i];

		if (!f || !(f->flags & FILE_F_JOBONLY) || !f->job_path)
			continue;
		p.host = views__rehost(s->views, f->view, f->job_path, f->ino, f->dev);
		if (!p.host)
			continue;
		p.job = f->job_path;
		p.view = f->view;
		f->job_path = NULL;	/* handed to path_set() through p */
		s->path_bytes -= path_size(p.job);
		path_set(s, f, &p, f->flags & ~FILE_F_JOBONLY);
		n++;
	}
	return n;
}

/* Inode, then path (none last), then the best path first. */
static int by_ino_path(const void *a, const void *b)
{
	const struct file_rec *x = *(struct file_rec *const *)a;
	const struct file_rec *y = *(struct file_rec *const *)b;
	int c;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (!x->path || !y->path)
		return !x->path - !y->path;
	c = strcmp(x->path, y->path);
	return c ? c : path_rank(y->flags) - path_rank(x->flags);
}

/* Add o's async reads to k's: k takes o's record when it has none. */
static void async_join(struct store *s, struct file_rec *k, struct file_rec *o)
{
	struct async_file *b = o->async;

	if (!b)
		return;
	if (!k->async) {
		k->async = b;
		o->async = NULL;
		return;
	}
	store__add_async(s, k, b);	/* k has its record: no allocation */
	free(b);
	o->async = NULL;
	s->nr_async--;
}

/* Add record o's counts to k's, as file_sum() adds an interval's. */
static void rec_join(struct file_rec *k, const struct file_rec *o)
{
	if (!(k->flags & FILE_F_READ) && (o->flags & FILE_F_READ))
		k->last_end = o->last_end;
	file_counters__add(&k->c, &o->c);
	if (o->read_ns_max > k->read_ns_max)
		k->read_ns_max = o->read_ns_max;
	if (o->max_end > k->max_end)
		k->max_end = o->max_end;
	if (o->size > k->size)
		k->size = o->size;
	if (o->first_ts && (!k->first_ts || o->first_ts < k->first_ts))
		k->first_ts = o->first_ts;
	if (o->last_ts > k->last_ts)
		k->last_ts = o->last_ts;
	if (o->read_ts && (!k->read_ts || o->read_ts < k->read_ts))
		k->read_ts = o->read_ts;
	k->flags |= o->flags & ~PATH_BITS;
	if (o->flags & FILE_F_EXEC)
		k->code = KIND_EXEC;
}

int store__join_aliases(struct store *s)
{
	struct file_rec **v;
	size_t n, i, j;
	int joined = 0;

	v = store__files(s, &n);
	if (!v)
		return -ENOMEM;
	qsort(v, n, sizeof(*v), by_ino_path);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && v[i]->path && v[j]->ino == v[i]->ino &&
		     v[j]->path && !strcmp(v[j]->path, v[i]->path); j++) {
			if ((v[i]->dev >> 20 && v[j]->dev >> 20) || v[i]->dev == v[j]->dev)
				continue;	/* two real devices, or two lives: two files */
			rec_join(v[i], v[j]);
			async_join(s, v[i], v[j]);
			s->path_bytes -= path_size(v[j]->path) + path_size(v[j]->job_path);
			free(v[j]->path);
			free(v[j]->job_path);
			free(v[j]);
			v[j] = NULL;
			joined++;
		}
	}
	if (joined) {
		memset(s->files, 0, s->files_cap * sizeof(*s->files));
		for (i = 0; i < n; i++)
			if (v[i])
				s->files[file_slot(s->files, s->files_cap, v[i]->dev, v[i]->ino,
						   v[i]->gen)] = v[i];
		s->nr_files -= joined;
	}
	free(v);
	return joined;
}

struct file_rec **store__files(const struct store *s, size_t *n)
{
	struct file_rec **v;
	size_t k = 0;

	v = malloc((s->nr_files ? s->nr_files : 1) * sizeof(*v));
	if (!v) {
		*n = 0;
		return NULL;
	}
	for (size_t i = 0; i < s->files_cap; i++)
		if (s->files[i])
			v[k++] = s->files[i];
	*n = k;
	return v;
}

size_t store__bytes(const struct store *s)
{
	return s->files_cap * sizeof(*s->files) +
	       s->nr_files * sizeof(struct file_rec) + s->path_bytes +
	       s->nr_async * sizeof(struct async_file) +
	       threads__bytes(&s->threads);
}
