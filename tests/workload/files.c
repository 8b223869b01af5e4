/*
 * Dataset helpers, all used before the gate: paths, directories, the
 * pseudo-random generator, written files, listing and ordering.
 */
#include "workload.h"

#include <dirent.h>

size_t nlist;			/* paths listed by walk() */
static u64 rng;

char *join(const char *dir, const char *name)
{
	char *p;

	if (asprintf(&p, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", name) < 0)
		p = NULL;
	return xalloc(p);
}

int mkdir_p(const char *path)
{
	char *p = xalloc(strdup(path)), *s;
	int ret = 0;

	for (s = p; s && !ret; ) {
		s = *s ? strchr(s + 1, '/') : NULL;
		if (s)
			*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			ret = fail("create directory", p);
		if (s)
			*s = '/';
	}
	free(p);
	return ret;
}

void rnd_seed(u64 seed)
{
	rng = seed;
}

u64 rnd(void)			/* splitmix64 */
{
	u64 z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int write_file(const char *path, u64 size)
{
	static char buf[1 << 20];
	size_t len, i;
	u64 v;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return fail("create", path);
	for (; size; size -= len) {
		len = size < sizeof(buf) ? size : sizeof(buf);
		for (i = 0; i < len; i += 8) {
			v = rnd();
			memcpy(buf + i, &v, len - i < 8 ? len - i : 8);
		}
		if (write_all(fd, buf, len, path)) {
			close(fd);
			return -1;
		}
	}
	return close(fd) < 0 ? fail("close", path) : 0;
}

/* List the regular files under dir; symlinks are not followed. */
int walk(const char *dir)
{
	static size_t cap;
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;
	int type, ret = 0;
	char *p;

	if (!d)
		return fail("open", dir);
	while (!ret && (errno = 0, e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		p = join(dir, e->d_name);
		type = e->d_type;
		if (type == DT_UNKNOWN && lstat(p, &st) < 0)
			ret = fail("stat", p);
		else if (type == DT_UNKNOWN)
			type = S_ISREG(st.st_mode) ? DT_REG :
			       S_ISDIR(st.st_mode) ? DT_DIR : DT_UNKNOWN;
		if (!ret && type == DT_DIR)
			ret = walk(p);
		if (ret || type != DT_REG) {
			free(p);
			continue;
		}
		if (nlist == cap) {
			cap = cap ? 2 * cap : 1024;
			paths = xalloc(realloc(paths, cap * sizeof(*paths)));
		}
		paths[nlist++] = p;
	}
	if (!ret && errno)
		ret = fail("read directory", dir);
	closedir(d);
	return ret;
}

int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void shuffle(void)
{
	size_t i, j;
	char *t;

	rng = opt.seed;
	for (i = nlist; i > 1; i--) {
		j = rnd() % i;
		t = paths[i - 1];
		paths[i - 1] = paths[j];
		paths[j] = t;
	}
}

/* List dir's files in --order, at most --limit of them, and size the tally. */
int list_dataset(const char *dir, size_t *nread)
{
	char *root = realpath(dir, NULL);

	if (!root)
		return fail("open", dir);
	if (walk(root))
		return 1;
	free(root);
	qsort(paths, nlist, sizeof(*paths), cmp_path);
	if (!strcmp(opt.order, "random"))
		shuffle();
	*nread = opt.limit < nlist ? opt.limit : nlist;
	tally_alloc(*nread);
	return 0;
}
