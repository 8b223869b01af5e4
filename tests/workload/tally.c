/*
 * The tally: counting wrappers of the measured calls, the shared counts,
 * their output, and the gate.
 */
#include "workload.h"

#include <sys/mman.h>

struct tally *tally;
char **paths;		/* paths[i] is counted in tally->file[i] */
int ofd = 1;		/* tally output */

void *xalloc(void *p)
{
	if (!p) {
		fprintf(stderr, PROG ": out of memory\n");
		exit(1);
	}
	return p;
}

/* Report a failed call on path, errno intact; returns -1. */
int fail(const char *what, const char *path)
{
	fprintf(stderr, PROG ": cannot %s '%s': %m\n", what, path);
	return -1;
}

/* ---- tallied calls on file i, given what the syscall returned */

int topen(size_t i, int fd)
{
	if (fd < 0) {
		add(&tally->open_errors, 1);
		return fail("open", paths[i]);
	}
	add(&tally->file[i].opens, 1);
	return fd;
}

ssize_t tread(size_t i, ssize_t n, const char *what)
{
	if (n < 0)
		return fail(what, paths[i]);
	add(&tally->file[i].reads, 1);
	add(&tally->file[i].read_bytes, n);
	return n;
}

int tstat(size_t i, int ret, const char *what)
{
	if (ret < 0)
		return fail(what, paths[i]);
	add(&tally->file[i].stats, 1);
	return 0;
}

int tclose(size_t i, int fd)
{
	if (close(fd) < 0)
		return fail("close", paths[i]);
	add(&tally->file[i].closes, 1);
	return 0;
}

/* open(path) ; read() bufsize at a time until it returns 0 ; close. */
int read_whole(size_t i, char *buf, size_t bufsize)
{
	int fd = topen(i, open(paths[i], O_RDONLY));
	ssize_t n;

	if (fd < 0)
		return -1;
	while ((n = tread(i, read(fd, buf, bufsize), "read")) > 0)
		;
	return n < 0 ? -1 : tclose(i, fd);
}

/* TensorFlow: stat ; open ; pread64 at growing offsets until 0 ; close. */
int pread_whole(size_t i, char *buf, size_t bufsize)
{
	struct stat st;
	off_t off = 0;
	ssize_t n;
	int fd;

	if (tstat(i, fstatat(AT_FDCWD, paths[i], &st, 0), "stat"))
		return -1;
	fd = topen(i, open(paths[i], O_RDONLY));
	if (fd < 0)
		return -1;
	while ((n = tread(i, pread(fd, buf, bufsize, off), "pread")) > 0)
		off += n;
	return n < 0 ? -1 : tclose(i, fd);
}

/* ---- output */

int write_all(int fd, const char *buf, size_t len, const char *name)
{
	ssize_t n;

	for (; len; buf += n, len -= n) {
		n = write(fd, buf, len);
		if (n <= 0) {
			errno = n ? errno : EIO;
			return fail("write", name);
		}
	}
	return 0;
}

static int active(const struct count *c)
{
	return c->opens || c->reads || c->stats || c->closes || c->mmaps;
}

/* Built in memory, then written with write(): no stdio on the tally fd. */
int print_tally(size_t n, int per_file)
{
	struct count t = { 0 }, *c;
	size_t i, len, files = 0;
	char *buf;
	FILE *m = xalloc(open_memstream(&buf, &len));
	int ret;

	for (i = 0; i < n; i++) {
		c = &tally->file[i];
		t.opens += c->opens;
		t.reads += c->reads;
		t.read_bytes += c->read_bytes;
		t.stats += c->stats;
		t.closes += c->closes;
		t.mmaps += c->mmaps;
		files += active(c);
	}
	fprintf(m, "total opens=%llu open_errors=%llu reads=%llu read_bytes=%llu stats=%llu closes=%llu mmaps=%llu files=%zu readers=%llu\n",
		t.opens, tally->open_errors, t.reads, t.read_bytes, t.stats,
		t.closes, t.mmaps, files, tally->readers);
	for (i = 0; per_file && i < n; i++) {
		c = &tally->file[i];
		if (active(c))
			fprintf(m, "file opens=%llu reads=%llu read_bytes=%llu stats=%llu closes=%llu mmaps=%llu path=%s\n",
				c->opens, c->reads, c->read_bytes, c->stats,
				c->closes, c->mmaps, paths[i]);
	}
	xalloc(fclose(m) ? NULL : buf);
	ret = write_all(ofd, buf, len, opt.tally ? opt.tally : "stdout");
	free(buf);
	return ret;
}

/* ---- setup, all before the gate */

void tally_alloc(size_t n)
{
	size_t len = sizeof(*tally) + n * sizeof(struct count);

	tally = mmap(NULL, len, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	xalloc(tally == MAP_FAILED ? NULL : tally);
}

/* Open the tally file, then wait at the gate: open FIFO, read a byte. */
int open_tally_and_gate(void)
{
	char c;
	int fd;

	if (opt.tally) {
		ofd = open(opt.tally, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			   0644);
		if (ofd < 0)
			return fail("open", opt.tally);
	}
	if (!opt.gate)
		return 0;
	fd = open(opt.gate, O_RDONLY);
	if (fd < 0)
		return fail("open", opt.gate);
	if (read(fd, &c, 1) < 0)
		return fail("read", opt.gate);
	close(fd);
	return 0;
}
