// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Name mapped files from /proc/PID/maps, see mapfiles.h. A line reads
 * "start-end perms offset major:minor inode   path", numbers in hex but
 * the inode; anonymous mappings have inode 0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "model/mapfiles.h"
#include "model/store.h"

int mapfiles__parse(const char *line, __u32 *dev, __u64 *ino, const char **path)
{
	unsigned int major, minor;
	unsigned long long inode;
	int n = 0;

	if (sscanf(line, "%*x-%*x %*s %*x %x:%x %llu %n", &major, &minor, &inode, &n) < 3 ||
	    !n || !inode || line[n] != '/')
		return -EINVAL;
	*dev = major << 20 | minor;
	*ino = inode;
	*path = line + n;
	return 0;
}

/* Name f from path, with the file's size when the trace saw none. */
static int name_rec(struct store *s, struct file_rec *f, const char *path)
{
	struct stat st;
	int err = store__set_path(s, f, path);

	if (err)
		return err;
	if (!f->size && !stat(path, &st))
		f->size = st.st_size;
	return 1;
}

/*
 * A file mapped executable is code, whatever its path: the binary exec
 * mapped (no mmap() of the job's own names it), faulted in like data.
 */
static void mark_exec(struct file_rec *f)
{
	f->flags |= FILE_F_EXEC;
	f->code = KIND_EXEC;
}

/* Remember a mapped file the store has no record of yet. */
static int keep(struct store *s, __u32 dev, __u64 ino, const char *path, bool exec)
{
	struct mapped_file *m;

	for (size_t i = 0; i < s->nr_mapped; i++) {
		if (s->mapped[i].dev == dev && s->mapped[i].ino == ino) {
			s->mapped[i].exec |= exec;	/* its text follows its headers */
			return 0;
		}
	}
	if (s->nr_mapped >= MAPFILES_KEEP)
		return 0;
	if (s->nr_mapped == s->mapped_cap) {
		size_t cap = s->mapped_cap ? 2 * s->mapped_cap : 64;

		m = realloc(s->mapped, cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		s->mapped = m;
		s->mapped_cap = cap;
	}
	m = &s->mapped[s->nr_mapped];
	m->path = strdup(path);
	if (!m->path)
		return -ENOMEM;
	m->dev = dev;
	m->ino = ino;
	m->exec = exec;
	s->nr_mapped++;
	return 0;
}

/* " (deleted)" ends the path of an unlinked file: kept, as the kernel says it. */
static int name_from(struct store *s, FILE *maps)
{
	char line[4096 + 128], perms[5];
	const char *path;
	struct file_rec *f;
	__u64 ino;
	__u32 dev;
	int named = 0, err;
	bool exec;

	while (fgets(line, sizeof(line), maps)) {
		line[strcspn(line, "\n")] = '\0';
		if (mapfiles__parse(line, &dev, &ino, &path))
			continue;
		exec = sscanf(line, "%*x-%*x %4s", perms) == 1 && perms[2] == 'x';
		f = store__find_latest(s, dev, ino);
		if (f && exec)
			mark_exec(f);
		err = !f ? keep(s, dev, ino, path, exec) : f->path ? 0 : name_rec(s, f, path);
		if (err < 0)
			return err;
		named += err;
	}
	return named;
}

static bool seen(const __u32 *tgids, size_t n, __u32 tgid)
{
	for (size_t i = 0; i < n; i++)
		if (tgids[i] == tgid)
			return true;
	return false;
}

int mapfiles__scan(struct store *s, __u32 tgid, const char *proc)
{
	char name[256];
	FILE *maps;
	int ret;

	snprintf(name, sizeof(name), "%s/%u/maps", proc ? proc : "/proc", tgid);
	maps = fopen(name, "re");
	if (!maps)
		return 0;	/* exited: its files stay unnamed */
	ret = name_from(s, maps);
	fclose(maps);
	return ret;
}

int mapfiles__add(struct store *s, __u32 dev, __u64 ino, const char *path, bool exec)
{
	struct file_rec *f = store__find_latest(s, dev, ino);

	if (f && exec)
		mark_exec(f);
	if (!f)
		return keep(s, dev, ino, path, exec);
	return f->path ? 0 : name_rec(s, f, path) < 0 ? -ENOMEM : 0;
}

int mapfiles__name(struct store *s, const char *proc)
{
	__u32 tgids[MAPFILES_PROCS];
	struct file_rec *f;
	size_t n = 0;
	int named = 0, ret;

	for (size_t i = 0; i < s->nr_mapped; i++) {
		f = store__find_latest(s, s->mapped[i].dev, s->mapped[i].ino);
		if (f && s->mapped[i].exec)
			mark_exec(f);
		if (f && !f->path) {
			ret = name_rec(s, f, s->mapped[i].path);
			if (ret < 0)
				return ret;
			named += ret;
		}
	}
	for (size_t i = 0; i < s->threads.n && n < MAPFILES_PROCS; i++)
		if (!seen(tgids, n, s->threads.v[i].tgid))
			tgids[n++] = s->threads.v[i].tgid;
	for (size_t i = 0; i < n; i++) {
		ret = mapfiles__scan(s, tgids[i], proc);
		if (ret < 0)
			return ret;
		named += ret;
	}
	return named;
}
