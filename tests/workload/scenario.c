/* scenario: a fixed mix of every call a tracer must handle, on DIR/s. */
#include "workload.h"

#include <sys/mman.h>
#include <sys/uio.h>

enum { S_PRE, S_A, S_B, S_C, S_D, S_M, S_N };

static const struct {
	const char *name;
	u64 size;
} sfiles[S_N] = {
	[S_PRE] = { "pre.bin", 20000 },
	[S_A] = { "a.bin", 100000 },
	[S_B] = { "b.bin", 50000 },
	[S_C] = { "sub/c.bin", 30000 },
	[S_D] = { "d.bin", 8192 },
	[S_M] = { "m.bin", 40960 },
};

static char sbuf[32768], tbuf[3][32768], cwd[PATH_MAX];
static char *sdir, *subdir, *missing;
static int prefd, sdirfd;
static volatile unsigned int sink;

/* pre.bin was opened before the gate: reads and a close, no open. */
static int sc_preopened(void)
{
	ssize_t n;

	while ((n = tread(S_PRE, read(prefd, sbuf, 4096), "read")) > 0)
		;
	return n < 0 ? -1 : tclose(S_PRE, prefd);
}

/* openat() relative to a directory fd, readv() of 2 x 8192 until EOF. */
static int sc_openat_readv(void)
{
	struct iovec iov[2] = { { sbuf, 8192 }, { sbuf + 8192, 8192 } };
	int fd = topen(S_A, openat(sdirfd, "a.bin", O_RDONLY));
	ssize_t n;

	if (fd < 0)
		return -1;
	while ((n = tread(S_A, readv(fd, iov, 2), "readv")) > 0)
		;
	return n < 0 ? -1 : tclose(S_A, fd);
}

/* open() relative to the cwd, pread64() of 10000 until EOF. */
static int sc_cwd_pread(void)
{
	off_t off = 0;
	ssize_t n;
	int fd;

	if (chdir(subdir) < 0)
		return fail("chdir to", subdir);
	fd = topen(S_C, open("c.bin", O_RDONLY));
	if (fd < 0)
		return -1;
	while ((n = tread(S_C, pread(fd, sbuf, 10000, off), "pread")) > 0)
		off += n;
	if (n < 0 || tclose(S_C, fd))
		return -1;
	return chdir(cwd) < 0 ? fail("chdir to", cwd) : 0;
}

static int sc_preadv(void)
{
	struct iovec iov = { sbuf, 16384 };
	int fd = topen(S_B, open(paths[S_B], O_RDONLY));

	if (fd < 0 || tread(S_B, preadv(fd, &iov, 1, 0), "preadv") < 0)
		return -1;
	/* preadv left the file position at 0: offset -1 reads from 0 again */
	if (tread(S_B, preadv2(fd, &iov, 1, -1, 0), "preadv2") < 0 ||
	    tread(S_B, preadv2(fd, &iov, 1, 40000, 0), "preadv2") < 0)
		return -1;
	return tclose(S_B, fd);
}

/* stat, lstat, statx, open, fstat, read 8192 until EOF, close. */
static int sc_stats(void)
{
	const char *p = paths[S_D];
	struct statx stx;
	struct stat st;
	ssize_t n;
	int fd;

	if (tstat(S_D, stat(p, &st), "stat") ||
	    tstat(S_D, lstat(p, &st), "lstat") ||
	    tstat(S_D, statx(AT_FDCWD, p, 0, STATX_BASIC_STATS, &stx), "statx"))
		return -1;
	fd = topen(S_D, open(p, O_RDONLY));
	if (fd < 0 || tstat(S_D, fstat(fd, &st), "fstat"))
		return -1;
	while ((n = tread(S_D, read(fd, sbuf, 8192), "read")) > 0)
		;
	return n < 0 ? -1 : tclose(S_D, fd);
}

/* mmap the whole file, touch a byte per 4096-byte page, munmap, close. */
static int sc_mmap(void)
{
	size_t len = sfiles[S_M].size, off;
	int fd = topen(S_M, open(paths[S_M], O_RDONLY));
	unsigned int sum = 0;
	unsigned char *m;

	if (fd < 0)
		return -1;
	m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return fail("mmap", paths[S_M]);
	add(&tally->file[S_M].mmaps, 1);
	for (off = 0; off < len; off += 4096)
		sum += m[off];
	sink = sum;
	if (munmap(m, len) < 0)
		return fail("munmap", paths[S_M]);
	return tclose(S_M, fd);
}

static int sc_enoent(void)
{
	if (open(missing, O_RDONLY) >= 0 || errno != ENOENT) {
		fprintf(stderr, PROG ": '%s' should not open: %m\n", missing);
		return -1;
	}
	add(&tally->open_errors, 1);
	return 0;
}

/*
 * Threads each read a.bin whole with read() of 32768, one after another:
 * interleaved reads of one file would be classified in whatever order they
 * ran, and the test expects each thread's reads to follow each other.
 */
static void *sc_thread(void *arg)
{
	static pthread_mutex_t one_reader = PTHREAD_MUTEX_INITIALIZER;
	int err;

	pthread_mutex_lock(&one_reader);
	err = read_whole(S_A, tbuf[(size_t)arg], 32768);
	pthread_mutex_unlock(&one_reader);
	return err ? (void *)1 : NULL;
}

/* Children each read b.bin whole with read() of 10000. */
static int sc_child(size_t k)
{
	(void)k;
	return read_whole(S_B, sbuf, 10000);
}

static int sc_setup(const char *dir)
{
	char *root;
	int i;

	if (mkdir_p(dir))
		return -1;
	root = realpath(dir, NULL);
	if (!root)
		return fail("open", dir);
	sdir = join(root, "s");
	free(root);
	subdir = join(sdir, "sub");
	missing = join(sdir, "does-not-exist");
	if (mkdir_p(subdir))
		return -1;
	paths = xalloc(calloc(S_N, sizeof(*paths)));
	rnd_seed(1);
	for (i = 0; i < S_N; i++) {
		paths[i] = join(sdir, sfiles[i].name);
		if (write_file(paths[i], sfiles[i].size))
			return -1;
	}
	if (unlink(missing) < 0 && errno != ENOENT)
		return fail("remove", missing);
	if (!getcwd(cwd, sizeof(cwd)))
		return fail("get", "current directory");
	prefd = open(paths[S_PRE], O_RDONLY);
	if (prefd < 0)
		return fail("open", paths[S_PRE]);
	sdirfd = open(sdir, O_RDONLY | O_DIRECTORY);
	return sdirfd < 0 ? fail("open", sdir) : 0;
}

int cmd_scenario(const char *dir)
{
	if (sc_setup(dir))
		return 1;
	tally_alloc(S_N);
	if (open_tally_and_gate())
		return 1;
	if (sc_preopened() || sc_openat_readv() || sc_cwd_pread() ||
	    sc_preadv() || sc_stats() || sc_mmap() || sc_enoent() ||
	    in_threads(3, sc_thread) || in_children(2, sc_child))
		return 1;
	return print_tally(S_N, 1) ? 1 : 0;
}
