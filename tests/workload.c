/*
 * iostorm-workload: a file-reading workload whose syscalls are known
 * exactly, so tests can check the tracer's counts against its own tally.
 *
 *   gen DIR --files N ...	write a dataset of pseudo-random files
 *   read DIR ...		read every file like an ML input pipeline
 *   scenario DIR ...		a fixed mix of every path a tracer must handle
 *   pipeline DIR ...		tf.data-like: readers -> decoders -> a training
 *				loop that times its own wait for the next batch
 *   thread FILE ...		a thread that is not the leader reads FILE
 *   churn DIR ...		a node's churn: short threads and processes,
 *				new small files written and read
 *
 * All that is not measured happens before the gate: listing the dataset
 * (opendir/readdir/stat), buffers, the shared tally and the tally file.
 * After it, only the tallied calls touch dataset files, each a libc wrapper
 * that is exactly one syscall (no stdio, no readdir). Processes count into
 * one MAP_SHARED|MAP_ANONYMOUS tally made before the gate. The tally file
 * (or stdout) is written with write(); like scenario's directory fd it is
 * never closed explicitly, so it adds no close to the trace.
 *
 * Tally, one line, then with --tally-files (always in scenario) one per file:
 *   total opens=N open_errors=N reads=N read_bytes=N stats=N closes=N mmaps=N files=N readers=N
 *   file opens=N reads=N read_bytes=N stats=N closes=N mmaps=N path=/abs/path
 * opens counts successful opens; reads counts every read-family call, the
 * 0-byte EOF one included; stats counts stat, lstat, fstat, fstatat and
 * statx calls; files counts the files with any tallied call; readers counts
 * read's threads that took a file (one started late may find none left).
 * The path is absolute and last, as it may contain spaces.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROG		"iostorm-workload"
#define MAX_THREADS	1024

typedef unsigned long long u64;

struct count {
	u64 opens, reads, read_bytes, stats, closes, mmaps;
};

/* Shared by all processes of a run: a MAP_SHARED anonymous mapping. */
struct tally {
	u64 open_errors;
	u64 readers;		/* read's threads that took at least one file */
	struct count file[];
};

enum style { STYLE_POSIX, STYLE_TF, STYLE_TORCH, STYLE_N };

static struct {
	u64 files, dirs, min_size, max_size, seed;
	u64 threads, procs, bufsize, limit, cpu_us, shard_size;
	u64 readers, decoders, batch, step_ms, queue, pages, times, epochs;
	u64 seconds, rate, file_rate;
	int tally_files;
	const char *order, *style_name, *gate, *tally, *out, *names, *disk_stat;
	enum style style;
} opt = {
	.files = ~0ULL, .min_size = 40960, .max_size = 122880, .seed = 1,
	.threads = 1, .bufsize = 65536, .limit = ~0ULL,
	.order = "random", .style_name = "posix", .shard_size = 256 << 20,
	.readers = 2, .decoders = 2, .batch = 8, .step_ms = 1, .queue = 16, .epochs = 1,
	.times = 5, .seconds = 10, .rate = 200, .file_rate = 50,
};

static struct tally *tally;
static char **paths;		/* paths[i] is counted in tally->file[i] */
static int ofd = 1;		/* tally output */
static u64 rng;
static pthread_t tids[MAX_THREADS];

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " gen DIR --files N [--dirs D] [--min-size BYTES]\n"
"           [--max-size BYTES] [--seed S]\n"
"       " PROG " read DIR [--threads T] [--procs P] [--order random|sorted]\n"
"           [--seed S] [--bufsize BYTES] [--style posix|tf|torch] [--limit N]\n"
"           [--gate FIFO] [--tally FILE] [--tally-files] [--cpu-us N]\n"
"       " PROG " scenario DIR [--gate FIFO] [--tally FILE]\n"
"       " PROG " pack DIR --out SHARDDIR [--shard-size BYTES]\n"
"       " PROG " pipeline DIR [--readers N] [--decoders M] [--cpu-us X]\n"
"           [--batch B] [--step-ms Y] [--queue Q] [--order ...] [--seed S]\n"
"           [--limit N] [--names LIST] [--epochs E] [--disk-stat FILE]\n"
"           [--gate FIFO] [--tally FILE]\n"
"       " PROG " mapread FILE --pages N [--threads T] [--gate FIFO] [--tally FILE]\n"
"       " PROG " thread FILE [--times N] [--gate FIFO] [--tally FILE]\n"
"       " PROG " churn DIR [--seconds S] [--rate R] [--file-rate F] [--tally FILE]\n"
"\n"
"gen writes DIR/dNNNN/fNNNNNNN.jpg (default D = N/100, sizes 40960..122880).\n"
"read lists and shuffles the files, waits at the gate, then reads them in P\n"
"processes of T threads. posix: open, read to EOF, close; tf: stat, open,\n"
"pread64 to EOF, close; torch: posix in P (default 4) forked workers.\n"
"--cpu-us N spins N microseconds of CPU after each file (decode-like work).\n"
"scenario runs a fixed mix of every call a tracer must handle on DIR/s.\n"
"pipeline reads the files like tf.data: N reader threads (default 2) read\n"
"whole files into a queue of Q (16), M decoder threads (2) spin X us each\n"
"(--cpu-us, default 0) into a queue of Q, and the main thread, the training\n"
"loop, takes B (8) samples a step and spins Y ms (1). It times its own wait\n"
"for each batch and adds a line to the tally:\n"
"  loop steps=N wait_ns=N wall_ns=N wait_share=F\n"
"--names A,B,... names the decoder threads, in order (as prctl(PR_SET_NAME)).\n"
"--epochs E reads the files E times, in the same order; the loop adds a line\n"
"  epoch N end_ns=T (CLOCK_MONOTONIC) when it has taken epoch N's last sample.\n"
"--disk-stat FILE (a /sys/block/DEV/stat) adds read_sectors=N, the device's\n"
"  own count at that moment, to the epoch lines and the loop line.\n"
"pack concatenates DIR's files, in path order, into SHARDDIR/shard-NNNNN.bin\n"
"of at most --shard-size bytes (default 256 MiB), as TFRecord or tar shards do.\n"
"mapread maps FILE (as LMDB or np.memmap do), madvise(MADV_RANDOM) so no page\n"
"is read ahead, waits at the gate, then T threads touch N distinct pages in a\n"
"scattered order (no page follows the one before it) and it adds a line:\n"
"  mapped pages=N resident=N (mincore, at the end)\n"
"thread starts a second thread, which waits at the gate, then opens FILE and\n"
"reads it to EOF N (5) times, while the main thread (the leader) waits for it.\n"
"churn starts R (200) short threads a second for S (10) seconds, one in ten\n"
"a process instead; F (50) of them a second write a new 1 KiB file in DIR\n"
"and read it back; each sleeps 1 ms and ends. It adds a line to the tally:\n"
"  churn threads=N procs=N files=N\n"
"--gate FIFO waits for one byte from FIFO; --tally FILE writes the tally\n"
"there instead of stdout, as (--tally-files adds the file lines):\n"
"  total opens=N open_errors=N reads=N read_bytes=N stats=N closes=N mmaps=N files=N\n"
"        readers=N (read's threads that took a file)\n"
"  file opens=N reads=N read_bytes=N stats=N closes=N mmaps=N path=PATH\n");
}

static void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
	exit(2);
}

static void *xalloc(void *p)
{
	if (!p) {
		fprintf(stderr, PROG ": out of memory\n");
		exit(1);
	}
	return p;
}

/* Report a failed call on path, errno intact; returns -1. */
static int fail(const char *what, const char *path)
{
	fprintf(stderr, PROG ": cannot %s '%s': %m\n", what, path);
	return -1;
}

static void add(u64 *c, u64 v)
{
	__atomic_fetch_add(c, v, __ATOMIC_RELAXED);
}

/* ---- tallied calls on file i, given what the syscall returned */

static int topen(size_t i, int fd)
{
	if (fd < 0) {
		add(&tally->open_errors, 1);
		return fail("open", paths[i]);
	}
	add(&tally->file[i].opens, 1);
	return fd;
}

static ssize_t tread(size_t i, ssize_t n, const char *what)
{
	if (n < 0)
		return fail(what, paths[i]);
	add(&tally->file[i].reads, 1);
	add(&tally->file[i].read_bytes, n);
	return n;
}

static int tstat(size_t i, int ret, const char *what)
{
	if (ret < 0)
		return fail(what, paths[i]);
	add(&tally->file[i].stats, 1);
	return 0;
}

static int tclose(size_t i, int fd)
{
	if (close(fd) < 0)
		return fail("close", paths[i]);
	add(&tally->file[i].closes, 1);
	return 0;
}

/* open(path) ; read() bufsize at a time until it returns 0 ; close. */
static int read_whole(size_t i, char *buf, size_t bufsize)
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
static int pread_whole(size_t i, char *buf, size_t bufsize)
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

static int write_all(int fd, const char *buf, size_t len, const char *name)
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
static int print_tally(size_t n, int per_file)
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

static void tally_alloc(size_t n)
{
	size_t len = sizeof(*tally) + n * sizeof(struct count);

	tally = mmap(NULL, len, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	xalloc(tally == MAP_FAILED ? NULL : tally);
}

/* Open the tally file, then wait at the gate: open FIFO, read a byte. */
static int open_tally_and_gate(void)
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

static char *join(const char *dir, const char *name)
{
	char *p;

	if (asprintf(&p, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", name) < 0)
		p = NULL;
	return xalloc(p);
}

static int mkdir_p(const char *path)
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

static u64 rnd(void)			/* splitmix64 */
{
	u64 z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int write_file(const char *path, u64 size)
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

/* ---- threads and processes */

/* Run fn((void *)k) in n threads, inline if n is 1; nonzero if one failed. */
static int in_threads(size_t n, void *(*fn)(void *))
{
	size_t k, started;
	void *ret;
	int err = 0;

	if (n == 1)
		return fn((void *)0) != NULL;
	for (started = 0; started < n; started++) {
		err = pthread_create(&tids[started], NULL, fn, (void *)started);
		if (err) {
			errno = err;
			err = fail("create", "thread");
			break;
		}
	}
	for (k = 0; k < started; k++) {
		pthread_join(tids[k], &ret);
		err |= ret != NULL;
	}
	return err;
}

/* Run fn(k) in n forked children and wait for them; nonzero if one failed. */
static int in_children(size_t n, int (*fn)(size_t))
{
	int status, err = 0;
	pid_t pid;
	size_t k;

	for (k = 0; k < n; k++) {
		pid = fork();
		if (pid < 0) {
			err = fail("fork", "child");
			break;
		}
		if (pid == 0)
			_exit(fn(k) ? 1 : 0);
	}
	while ((pid = wait(&status)) > 0) {
		if (WIFSIGNALED(status))
			fprintf(stderr, PROG ": child %d killed by signal %d\n",
				pid, WTERMSIG(status));
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			err = 1;
	}
	return err;
}

/* ---- gen */

static int cmd_gen(const char *dir)
{
	u64 i, size, bytes = 0, span = opt.max_size - opt.min_size + 1;
	u64 ndirs = opt.dirs ? opt.dirs : opt.files / 100 ? opt.files / 100 : 1;
	char path[PATH_MAX + 32];

	if (mkdir_p(dir))
		return 1;
	for (i = 0; i < ndirs; i++) {
		snprintf(path, sizeof(path), "%s/d%04llu", dir, i);
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			fail("create directory", path);
			return 1;
		}
	}
	rng = opt.seed;
	for (i = 0; i < opt.files; i++) {
		size = opt.min_size + (span ? rnd() % span : rnd());
		snprintf(path, sizeof(path), "%s/d%04llu/f%07llu.jpg",
			 dir, i % ndirs, i);
		if (write_file(path, size))
			return 1;
		bytes += size;
	}
	printf("generated %llu files, %llu bytes in %llu directories\n",
	       opt.files, bytes, ndirs);
	return 0;
}

/* ---- read */

static size_t nlist, nread;
static volatile unsigned int sink_u;
static char *bufs[MAX_THREADS];
static size_t proc_id, nprocs = 1;	/* this process reads proc_id + k * nprocs */
static size_t next_k;			/* next k, shared by its threads */

/* List the regular files under dir; symlinks are not followed. */
static int walk(const char *dir)
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

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void shuffle(void)
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

/* Decode-like CPU work: spin for us microseconds over the file's bytes. */
static void spin_us(u64 us, const char *buf)
{
	struct timespec t0, t;
	unsigned int h = 0;

	if (!us)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);	/* vDSO: no syscall */
	do {
		for (int k = 0; k < 4096; k++)
			h = h * 31 + (unsigned char)buf[k & 1023];
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000LL + t.tv_nsec - t0.tv_nsec <
		 (long long)us * 1000);
	sink_u += h;
}

static void *read_thread(void *arg)
{
	char *buf = bufs[(size_t)arg];
	size_t i, took = 0;
	int err;

	for (;; took++) {
		i = proc_id + nprocs *
		    __atomic_fetch_add(&next_k, 1, __ATOMIC_RELAXED);
		if (i >= nread) {
			if (took)
				add(&tally->readers, 1);
			return NULL;
		}
		if (opt.style == STYLE_TF)
			err = pread_whole(i, buf, opt.bufsize);
		else
			err = read_whole(i, buf, opt.bufsize);
		if (err)
			return (void *)1;
		spin_us(opt.cpu_us, buf);
	}
}

static int read_proc(size_t p)
{
	proc_id = p;
	return in_threads(opt.threads, read_thread);
}

/* List dir's files in --order, at most --limit of them, and size the tally. */
static int list_dataset(const char *dir)
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
	nread = opt.limit < nlist ? opt.limit : nlist;
	tally_alloc(nread);
	return 0;
}

static int cmd_read(const char *dir)
{
	size_t t;

	if (list_dataset(dir))
		return 1;
	for (t = 0; t < opt.threads; t++)
		bufs[t] = xalloc(malloc(opt.bufsize));
	if (open_tally_and_gate())
		return 1;
	if (opt.procs == 1 && opt.style != STYLE_TORCH) {
		if (read_proc(0))
			return 1;
	} else {
		nprocs = opt.procs;
		if (in_children(opt.procs, read_proc))
			return 1;
	}
	return print_tally(nread, opt.tally_files) ? 1 : 0;
}

/* ---- scenario */

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
	rng = 1;
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

static int cmd_scenario(const char *dir)
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

/* ---- pipeline: readers -> decoders -> the training loop */

/* A bounded queue of file indexes: a mutex and two condition variables. */
struct queue {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	size_t *v, cap, head, len;
	size_t closed_by;	/* producers that are done */
	size_t producers;
};

static struct queue raw_q, ready_q;

static void queue_init(struct queue *q, size_t cap, size_t producers)
{
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->not_empty, NULL);
	pthread_cond_init(&q->not_full, NULL);
	q->v = xalloc(calloc(cap, sizeof(*q->v)));
	q->cap = cap;
	q->producers = producers;
}

static void queue_push(struct queue *q, size_t i)
{
	pthread_mutex_lock(&q->lock);
	while (q->len == q->cap)
		pthread_cond_wait(&q->not_full, &q->lock);
	q->v[(q->head + q->len++) % q->cap] = i;
	pthread_cond_signal(&q->not_empty);
	pthread_mutex_unlock(&q->lock);
}

/* A producer is done: when all are, pops of an empty queue return 0. */
static void queue_close(struct queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed_by++;
	pthread_cond_broadcast(&q->not_empty);
	pthread_mutex_unlock(&q->lock);
}

static int queue_pop(struct queue *q, size_t *i)
{
	pthread_mutex_lock(&q->lock);
	while (!q->len && q->closed_by < q->producers)
		pthread_cond_wait(&q->not_empty, &q->lock);
	if (!q->len) {
		pthread_mutex_unlock(&q->lock);
		return 0;
	}
	*i = q->v[q->head];
	q->head = (q->head + 1) % q->cap;
	q->len--;
	pthread_cond_signal(&q->not_full);
	pthread_mutex_unlock(&q->lock);
	return 1;
}

static void *pipe_reader(void *arg)
{
	char *buf = bufs[(size_t)arg];
	size_t i;
	int err = 0;

	while (!err && (i = __atomic_fetch_add(&next_k, 1, __ATOMIC_RELAXED)) <
		       nread * opt.epochs) {
		i %= nread;
		err = read_whole(i, buf, opt.bufsize);
		if (!err)
			queue_push(&raw_q, i);
	}
	queue_close(&raw_q);
	return err ? (void *)1 : NULL;
}

/* Name the calling thread the k-th of --names, if there is one. */
static void name_thread(size_t k)
{
	const char *p = opt.names;
	char name[16];
	size_t n;

	for (; p && k; k--)
		p = (p = strchr(p, ',')) ? p + 1 : NULL;
	if (!p || !*p)
		return;
	n = strcspn(p, ",");
	snprintf(name, sizeof(name), "%.*s", (int)n, p);
	prctl(PR_SET_NAME, name);
}

static void *pipe_decoder(void *arg)
{
	char *buf = bufs[opt.readers + (size_t)arg];
	size_t i;

	name_thread((size_t)arg);

	while (queue_pop(&raw_q, &i)) {
		spin_us(opt.cpu_us, buf);
		queue_push(&ready_q, i);
	}
	queue_close(&ready_q);
	return NULL;
}

static u64 mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

static int disk_stat_fd = -1;

/*
 * " read_sectors=N" from --disk-stat (the third field of a block device's
 * stat file), or "" without it.
 */
static const char *disk_read_sectors(void)
{
	static char out[48];
	unsigned long long r[3];
	char buf[256];
	ssize_t n;

	out[0] = 0;
	if (disk_stat_fd < 0)
		return out;
	n = pread(disk_stat_fd, buf, sizeof(buf) - 1, 0);
	if (n < 0) {
		fail("read", opt.disk_stat);
		exit(1);
	}
	buf[n] = 0;
	if (sscanf(buf, "%llu %llu %llu", &r[0], &r[1], &r[2]) != 3) {
		fprintf(stderr, PROG ": '%s' is not a block device's stat\n", opt.disk_stat);
		exit(1);
	}
	snprintf(out, sizeof(out), " read_sectors=%llu", r[2]);
	return out;
}

/*
 * The training loop: a step takes a batch, then computes; its wait is
 * timed. With --epochs it marks the end of each epoch (the sample that
 * completes it taken) on its own clock: "epoch N end_ns=T", CLOCK_MONOTONIC.
 */
static int pipe_loop(void)
{
	u64 t0 = mono_ns(), t, wait = 0, steps = 0, wall, samples = 0;
	char line[200], buf[1024] = "";
	size_t i, got = 1;
	int n;

	while (got) {
		t = mono_ns();
		for (got = 0; got < opt.batch && queue_pop(&ready_q, &i); got++) {
			if (++samples % nread || samples / nread >= opt.epochs)
				continue;
			n = snprintf(line, sizeof(line), "epoch %llu end_ns=%llu%s\n",
				     samples / nread, mono_ns(), disk_read_sectors());
			if (write_all(ofd, line, n, "tally"))
				return 1;
		}
		wait += mono_ns() - t;
		if (!got)
			break;
		steps++;
		spin_us(opt.step_ms * 1000, buf);
	}
	wall = mono_ns() - t0;
	n = snprintf(line, sizeof(line), "loop steps=%llu wait_ns=%llu wall_ns=%llu "
		     "wait_share=%.4f%s\n", steps, wait, wall, wall ? (double)wait / wall : 0,
		     disk_read_sectors());
	return write_all(ofd, line, n, "tally");
}

static int cmd_pipeline(const char *dir)
{
	pthread_t th[2 * MAX_THREADS];
	size_t nth = 0, k;
	int err = 0;
	void *ret;

	if (opt.readers + opt.decoders > MAX_THREADS)
		usage_error("--readers + --decoders is above %d", MAX_THREADS);
	if (list_dataset(dir))
		return 1;
	for (k = 0; k < opt.readers + opt.decoders; k++)
		bufs[k] = xalloc(malloc(opt.bufsize > 1024 ? opt.bufsize : 1024));
	queue_init(&raw_q, opt.queue, opt.readers);
	queue_init(&ready_q, opt.queue, opt.decoders);
	if (opt.disk_stat &&
	    (disk_stat_fd = open(opt.disk_stat, O_RDONLY | O_CLOEXEC)) < 0)
		return fail("open", opt.disk_stat);
	if (open_tally_and_gate())
		return 1;
	for (k = 0; k < opt.readers; k++)
		err |= pthread_create(&th[nth++], NULL, pipe_reader, (void *)k);
	for (k = 0; k < opt.decoders; k++)
		err |= pthread_create(&th[nth++], NULL, pipe_decoder, (void *)k);
	if (err) {
		errno = err;
		return fail("create", "thread");
	}
	err = pipe_loop();
	for (k = 0; k < nth; k++) {
		pthread_join(th[k], &ret);
		err |= ret != NULL;
	}
	return err || print_tally(nread, opt.tally_files) ? 1 : 0;
}

/* ---- options */

enum { GEN = 1, READ = 2, SCEN = 4, PACK = 8, PIPE = 16, MAPR = 32, THRD = 64, CHRN = 128 };

static const struct optdef {
	const char *name;
	int cmds;
	char kind;			/* n: number >= min, s: string, f: flag */
	void *val;
	u64 min;
} optdefs[] = {
	{ "files", GEN, 'n', &opt.files, 0 },
	{ "dirs", GEN, 'n', &opt.dirs, 1 },
	{ "min-size", GEN, 'n', &opt.min_size, 0 },
	{ "max-size", GEN, 'n', &opt.max_size, 0 },
	{ "seed", GEN | READ | PIPE, 'n', &opt.seed, 0 },
	{ "threads", READ | MAPR, 'n', &opt.threads, 1 },
	{ "pages", MAPR, 'n', &opt.pages, 1 },
	{ "procs", READ, 'n', &opt.procs, 1 },
	{ "bufsize", READ, 'n', &opt.bufsize, 1 },
	{ "limit", READ | PIPE, 'n', &opt.limit, 0 },
	{ "order", READ | PIPE, 's', &opt.order, 0 },
	{ "style", READ, 's', &opt.style_name, 0 },
	{ "gate", READ | SCEN | PIPE | MAPR | THRD, 's', &opt.gate, 0 },
	{ "tally", READ | SCEN | PIPE | MAPR | THRD | CHRN, 's', &opt.tally, 0 },
	{ "seconds", CHRN, 'n', &opt.seconds, 1 },
	{ "rate", CHRN, 'n', &opt.rate, 1 },
	{ "file-rate", CHRN, 'n', &opt.file_rate, 0 },
	{ "times", THRD, 'n', &opt.times, 1 },
	{ "tally-files", READ | SCEN, 'f', &opt.tally_files, 0 },
	{ "cpu-us", READ | PIPE, 'n', &opt.cpu_us, 0 },
	{ "readers", PIPE, 'n', &opt.readers, 1 },
	{ "decoders", PIPE, 'n', &opt.decoders, 1 },
	{ "batch", PIPE, 'n', &opt.batch, 1 },
	{ "step-ms", PIPE, 'n', &opt.step_ms, 0 },
	{ "epochs", PIPE, 'n', &opt.epochs, 1 },
	{ "queue", PIPE, 'n', &opt.queue, 1 },
	{ "names", PIPE, 's', &opt.names, 0 },
	{ "disk-stat", PIPE, 's', &opt.disk_stat, 0 },
	{ "out", PACK, 's', &opt.out, 0 },
	{ "shard-size", PACK, 'n', &opt.shard_size, 1 },
	{ NULL },
};

static void set_opt(const struct optdef *d, const char *arg)
{
	unsigned long long v;
	char *end;

	if (d->kind == 's') {
		*(const char **)d->val = arg;
		return;
	}
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || *arg == '-' || v < d->min)
		usage_error("invalid --%s '%s'", d->name, arg);
	*(u64 *)d->val = v;
}

/* Parse the options of command cmd (--opt ARG or --opt=ARG); returns DIR. */
static const char *parse(int cmd, char **argv)
{
	const struct optdef *d;
	const char *dir = NULL, *s, *eq;

	for (; *argv; argv++) {
		s = *argv;
		if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
			usage(stdout);
			exit(0);
		}
		if (s[0] != '-' || !s[1]) {
			if (dir)
				usage_error("too many operands");
			dir = s;
			continue;
		}
		eq = strchrnul(s, '=');
		for (d = optdefs; d->name; d++)
			if ((d->cmds & cmd) && s[1] == '-' &&
			    !strncmp(s + 2, d->name, eq - s - 2) &&
			    !d->name[eq - s - 2])
				break;
		if (!d->name)
			usage_error("unknown option '%.*s'", (int)(eq - s), s);
		if (d->kind == 'f' && *eq)
			usage_error("option '--%s' takes no argument", d->name);
		if (d->kind == 'f')
			*(int *)d->val = 1;
		else if (*eq || argv[1])
			set_opt(d, *eq ? eq + 1 : *++argv);
		else
			usage_error("option '--%s' needs an argument", d->name);
	}
	if (!dir)
		usage_error("missing DIR");
	return dir;
}

static void check_read_opts(void)
{
	static const char *const styles[] = { "posix", "tf", "torch" };

	for (opt.style = 0; opt.style < STYLE_N; opt.style++)
		if (!strcmp(opt.style_name, styles[opt.style]))
			break;
	if (opt.style == STYLE_N)
		usage_error("invalid --style '%s'", opt.style_name);
	if (strcmp(opt.order, "random") && strcmp(opt.order, "sorted"))
		usage_error("invalid --order '%s'", opt.order);
	if (opt.threads > MAX_THREADS)
		usage_error("--threads is above %d", MAX_THREADS);
	if (opt.style == STYLE_TORCH && opt.threads > 1)
		usage_error("--style torch workers are single-threaded");
	if (!opt.procs)
		opt.procs = opt.style == STYLE_TORCH ? 4 : 1;
}

/* ---- pack */

/* Append one file to the shard fd; returns bytes copied or -1. */
static long long pack_one(int out, const char *path, char *buf, size_t len)
{
	long long total = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return fail("open", path), -1;
	while ((n = read(fd, buf, len)) > 0) {
		if (write_all(out, buf, n, "shard")) {
			close(fd);
			return -1;
		}
		total += n;
	}
	close(fd);
	if (n < 0)
		return fail("read", path), -1;
	return total;
}

static int cmd_pack(const char *dir)
{
	char name[PATH_MAX + 32], *buf = xalloc(malloc(1 << 20));
	u64 shard = 0, in_shard = 0;
	long long n;
	int out = -1;

	if (!opt.out)
		usage_error("pack needs --out SHARDDIR");
	if (mkdir_p(opt.out) || walk(dir))
		return 1;
	qsort(paths, nlist, sizeof(*paths), cmp_path);
	for (size_t i = 0; i < nlist; i++) {
		if (out < 0 || in_shard >= opt.shard_size) {
			if (out >= 0)
				close(out);
			snprintf(name, sizeof(name), "%s/shard-%05llu.bin", opt.out, shard++);
			out = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (out < 0)
				return fail("create", name);
			in_shard = 0;
		}
		n = pack_one(out, paths[i], buf, 1 << 20);
		if (n < 0)
			return 1;
		in_shard += n;
	}
	if (out >= 0)
		close(out);
	printf("packed %zu files into %llu shards\n", nlist, shard);
	free(buf);
	return 0;
}

/* ---- mapread: a mapped dataset read in random page order */

static struct {
	volatile const unsigned char *base;
	u64 npages, stride, page;
	volatile unsigned long sum;
} mr;

/*
 * Touch i = lo .. hi-1 of the sequence page(i) = i * stride mod npages:
 * stride and npages coprime give distinct pages; each step jumps by stride
 * (~npages/3) or by stride - npages (backwards), so in one thread no page
 * follows or repeats the one before it.
 */
static void *mapread_thread(void *arg)
{
	u64 t = (u64)(uintptr_t)arg, n = opt.pages / opt.threads;
	u64 lo = t * n, hi = t == opt.threads - 1 ? opt.pages : lo + n;
	unsigned long sum = 0;

	for (u64 i = lo; i < hi; i++)
		sum += mr.base[(i * mr.stride % mr.npages) * mr.page];
	mr.sum += sum;
	return NULL;
}

static u64 gcd(u64 a, u64 b)
{
	while (b) {
		u64 r = a % b;

		a = b;
		b = r;
	}
	return a;
}

static u64 mapread_resident(void)
{
	unsigned char *vec = xalloc(calloc(mr.npages, 1));
	u64 n = 0;

	if (mincore((void *)mr.base, mr.npages * mr.page, vec) < 0)
		return free(vec), ~0ULL;
	for (u64 i = 0; i < mr.npages; i++)
		n += vec[i] & 1;
	free(vec);
	return n;
}

static int cmd_mapread(const char *file)
{
	struct stat st;
	u64 resident;
	int fd, err = 0;

	mr.page = sysconf(_SC_PAGESIZE);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		return fail("open", file);
	mr.npages = st.st_size / mr.page;
	if (opt.pages > mr.npages / 4 || opt.threads > opt.pages)
		usage_error("--pages is above a quarter of %s's %llu pages", file, mr.npages);
	mr.base = mmap(NULL, mr.npages * mr.page, PROT_READ, MAP_SHARED, fd, 0);
	if (mr.base == MAP_FAILED)
		return fail("mmap", file);
	close(fd);
	if (madvise((void *)mr.base, mr.npages * mr.page, MADV_RANDOM) < 0)
		return fail("madvise", file);
	for (mr.stride = mr.npages / 3 + 7; gcd(mr.stride, mr.npages) != 1; mr.stride++)
		;
	if (open_tally_and_gate())
		return 1;
	for (u64 t = 0; t < opt.threads; t++)
		err |= pthread_create(&tids[t], NULL, mapread_thread, (void *)(uintptr_t)t);
	for (u64 t = 0; t < opt.threads && !err; t++)
		pthread_join(tids[t], NULL);
	if (err)
		return fail("create", "thread");
	resident = mapread_resident();
	dprintf(ofd, "mapped pages=%llu resident=%llu\n", opt.pages, resident);
	return resident == ~0ULL ? fail("mincore", file) : 0;
}

/* ---- thread: the measured calls all in a thread that is not the leader */

static void *thread_reader(void *arg)
{
	char *buf = xalloc(malloc(opt.bufsize));
	void *ret = NULL;

	(void)arg;
	if (open_tally_and_gate())
		ret = (void *)1;
	for (u64 k = 0; !ret && k < opt.times; k++)
		if (read_whole(0, buf, opt.bufsize))
			ret = (void *)1;
	free(buf);
	return ret;
}

static int cmd_thread(const char *file)
{
	pthread_t th;
	void *ret;
	int err;

	paths = xalloc(calloc(1, sizeof(*paths)));
	paths[0] = xalloc(strdup(file));
	tally_alloc(1);
	err = pthread_create(&th, NULL, thread_reader, NULL);
	if (err) {
		errno = err;
		return fail("create", "thread");
	}
	pthread_join(th, &ret);
	return ret || print_tally(1, 0) ? 1 : 0;
}

/* ---- churn: what a node's agent sees for weeks */

static const char *churn_dir;

/* One short life: maybe a new 1 KiB file written and read back, then 1 ms asleep. */
static int churn_life(unsigned long n, int with_file)
{
	struct timespec nap = { 0, 1000000 };
	char path[PATH_MAX], buf[1024];
	int fd, err = 0;

	if (with_file) {
		snprintf(path, sizeof(path), "%s/c%08lu", churn_dir, n);
		memset(buf, 'c', sizeof(buf));
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf))
			err = 1;
		if (fd >= 0)
			close(fd);
		fd = open(path, O_RDONLY);
		if (fd < 0 || read(fd, buf, sizeof(buf)) != sizeof(buf))
			err = 1;
		if (fd >= 0)
			close(fd);
	}
	nanosleep(&nap, NULL);
	return err;
}

static void *churn_thread(void *arg)
{
	unsigned long n = (unsigned long)arg;

	return churn_life(n >> 1, n & 1) ? (void *)1 : NULL;
}

static int cmd_churn(const char *dir)
{
	u64 lives = opt.seconds * opt.rate, files = 0, procs = 0, threads = 0;
	struct timespec t0, next;
	char line[128];
	int err = 0, len, st;

	churn_dir = dir;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (u64 i = 0; i < lives && !err; i++) {
		/* Life i starts at t0 + i / rate; with a file when the file rate says. */
		int with_file = opt.file_rate && i * opt.file_rate / opt.rate !=
					(i + 1) * opt.file_rate / opt.rate;
		u64 at = i * 1000000000ULL / opt.rate;
		pthread_t th;
		void *ret;
		pid_t pid;

		next.tv_sec = t0.tv_sec + (t0.tv_nsec + at) / 1000000000ULL;
		next.tv_nsec = (t0.tv_nsec + at) % 1000000000ULL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		if (i % 10 == 9) {
			pid = fork();
			if (pid < 0)
				return fail("fork", dir);
			if (!pid)
				_exit(churn_life(i, with_file));
			if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
				err = 1;
			procs++;
		} else {
			if (pthread_create(&th, NULL, churn_thread, (void *)(i << 1 | with_file)))
				return fail("create", "thread");
			pthread_join(th, &ret);
			err = ret != NULL;
			threads++;
		}
		files += with_file;
	}
	len = snprintf(line, sizeof(line), "churn threads=%llu procs=%llu files=%llu\n",
		       (unsigned long long)threads, (unsigned long long)procs,
		       (unsigned long long)files);
	st = opt.tally ? open(opt.tally, O_WRONLY | O_CREAT | O_TRUNC, 0644) : 1;
	if (st < 0 || write_all(st, line, len, "tally"))
		err = 1;
	return err;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "", *dir;

	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "gen")) {
		dir = parse(GEN, argv + 2);
		if (opt.files == ~0ULL)
			usage_error("gen needs --files N");
		if (opt.min_size > opt.max_size)
			usage_error("--min-size is above --max-size");
		return cmd_gen(dir);
	}
	if (!strcmp(cmd, "read")) {
		dir = parse(READ, argv + 2);
		check_read_opts();
		return cmd_read(dir);
	}
	if (!strcmp(cmd, "scenario"))
		return cmd_scenario(parse(SCEN, argv + 2));
	if (!strcmp(cmd, "pack"))
		return cmd_pack(parse(PACK, argv + 2));
	if (!strcmp(cmd, "mapread")) {
		dir = parse(MAPR, argv + 2);
		if (!opt.pages)
			usage_error("mapread needs --pages N");
		return cmd_mapread(dir);
	}
	if (!strcmp(cmd, "thread"))
		return cmd_thread(parse(THRD, argv + 2));
	if (!strcmp(cmd, "churn"))
		return cmd_churn(parse(CHRN, argv + 2));
	if (!strcmp(cmd, "pipeline")) {
		dir = parse(PIPE, argv + 2);
		if (strcmp(opt.order, "random") && strcmp(opt.order, "sorted"))
			usage_error("invalid --order '%s'", opt.order);
		return cmd_pipeline(dir);
	}
	if (!*cmd)
		usage_error("missing command");
	usage_error("unknown command '%s'", cmd);
}
