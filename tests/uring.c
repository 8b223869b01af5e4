/*
 * iostorm-uring: reads every regular file of a directory through io_uring
 * alone, as an io_uring data loader does, and tallies what it asked for,
 * so a test can check iostorm's io_uring counts against its own:
 *
 *   iostorm-uring DIR... [--chunk BYTES] [--depth N] [--cpu-us N] [--direct] --tally FILE
 *
 * For each file of each DIR, in readdir order: IORING_OP_STATX of its path, then
 * IORING_OP_OPENAT, then its bytes in chunks of BYTES (default 16384) by
 * IORING_OP_READ at explicit offsets, up to N (default 8) in flight, then
 * IORING_OP_CLOSE; then, with --cpu-us, it computes N us (a training step
 * on the file). With --direct, the file is opened into slot 0 of the
 * ring's fixed-file table (registered empty) and read from that slot
 * (IOSQE_FIXED_FILE), its first READ linked to the OPENAT and submitted
 * with it, so that the slot is still empty when that READ is submitted;
 * the others are submitted once the open completed; the CLOSE closes the
 * slot. The tally file has one "name count" per line: opens,
 * stats, reads (completions with a result > 0), read_bytes, closes; and
 * a line "loop wait_share=S": the share of its wall time it waited in
 * io_uring_enter for completions, by its own clock, as a training loop
 * times its wait for data. Exits 1 on any error, which it prints.
 */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <liburing.h>

#define PROG "iostorm-uring"

#define OPEN_TAG	1	/* user_data of a --direct OPENAT */

static struct io_uring ring;
static unsigned long long opens, stats, reads, read_bytes, closes, wait_ns;
static unsigned long long last_data;	/* user_data of one()'s completion */
static bool direct;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Compute us microseconds, as a decoder does. */
static void spin(unsigned long us)
{
	unsigned long long end = now_ns() + us * 1000ULL;

	while (now_ns() < end)
		;
}

static void die(const char *what, int err)
{
	fprintf(stderr, PROG ": %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static struct io_uring_sqe *sqe(void)
{
	struct io_uring_sqe *s = io_uring_get_sqe(&ring);

	if (!s)
		die("no submission queue entry", EBUSY);
	return s;
}

/* Submit what is queued and take one completion: its result. */
static int one(void)
{
	unsigned long long t0 = now_ns();
	struct io_uring_cqe *c;
	int err, res;

	err = io_uring_submit_and_wait(&ring, 1);
	if (err < 0)
		die("io_uring_submit_and_wait", err);
	err = io_uring_wait_cqe(&ring, &c);
	if (err < 0)
		die("io_uring_wait_cqe", err);
	res = c->res;
	last_data = c->user_data;
	io_uring_cqe_seen(&ring, c);
	wait_ns += now_ns() - t0;
	return res;
}

/* Queue a read of chunk bytes of fd (with --direct: of slot fd) at off. */
static struct io_uring_sqe *prep_read(int fd, char *buf, size_t chunk,
				      unsigned long long off)
{
	struct io_uring_sqe *s = sqe();

	io_uring_prep_read(s, fd, buf, chunk, off);
	io_uring_sqe_set_data64(s, 0);
	if (direct)
		s->flags |= IOSQE_FIXED_FILE;
	return s;
}

/*
 * --direct: queue the open of path into slot 0, and when size > 0 the read
 * of its first chunk linked to it. Returns the slot.
 */
static int open_direct(const char *path, unsigned long long size, char *buf, size_t chunk)
{
	struct io_uring_sqe *s = sqe();

	io_uring_prep_openat_direct(s, AT_FDCWD, path, O_RDONLY, 0, 0);
	io_uring_sqe_set_data64(s, OPEN_TAG);
	if (size) {
		s->flags |= IOSQE_IO_LINK;
		prep_read(0, buf, chunk, 0);
	}
	return 0;
}

static void read_file(const char *path, size_t chunk, unsigned depth, char *buf)
{
	unsigned long long size, off = 0, done = 0;
	unsigned inflight = 0;
	bool opening = false;
	struct statx sx;
	int fd, res;

	io_uring_prep_statx(sqe(), AT_FDCWD, path, 0, STATX_SIZE | STATX_TYPE, &sx);
	res = one();
	if (res < 0)
		die(path, res);
	stats++;
	if (!S_ISREG(sx.stx_mode))
		return;
	size = sx.stx_size;
	if (direct && size) {
		fd = open_direct(path, size, buf, chunk);
		off = chunk;
		inflight = 1;
		opening = true;
	} else {
		if (direct)
			open_direct(path, 0, buf, chunk);
		else
			io_uring_prep_openat(sqe(), AT_FDCWD, path, O_RDONLY, 0);
		fd = one();
		if (fd < 0)
			die(path, fd);
		fd = direct ? 0 : fd;
		opens++;
	}
	while (done < size) {
		while (off < size && inflight < depth && !opening) {
			/* Into one of depth buffers: the data is not looked at. */
			prep_read(fd, buf + (off / chunk % depth) * chunk, chunk, off);
			off += chunk;
			inflight++;
		}
		res = one();
		if (res < 0)
			die(path, res);
		if (last_data == OPEN_TAG) {
			opens++;
			opening = false;
			continue;
		}
		inflight--;
		reads++;
		read_bytes += res;
		done += res;
	}
	if (direct)
		io_uring_prep_close_direct(sqe(), fd);
	else
		io_uring_prep_close(sqe(), fd);
	res = one();
	if (res < 0)
		die(path, res);
	closes++;
}

int main(int argc, char **argv)
{
	const char *dirs[64], *tally = NULL;
	int ndirs = 0;
	size_t chunk = 16384;
	unsigned depth = 8;
	unsigned long cpu_us = 0;
	unsigned long long t0, wall;
	char path[PATH_MAX], *buf;
	struct dirent *d;
	FILE *out;
	DIR *dp;
	int err;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--chunk") && i + 1 < argc)
			chunk = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--depth") && i + 1 < argc)
			depth = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--cpu-us") && i + 1 < argc)
			cpu_us = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--direct"))
			direct = true;
		else if (!strcmp(argv[i], "--tally") && i + 1 < argc)
			tally = argv[++i];
		else if (argv[i][0] != '-' && ndirs < 64)
			dirs[ndirs++] = argv[i];
		else
			ndirs = 0, i = argc;
	}
	if (!ndirs || !tally || !chunk || !depth) {
		fprintf(stderr, "usage: " PROG " DIR... [--chunk BYTES] [--depth N] [--cpu-us N] "
			"[--direct] --tally FILE\n");
		return 2;
	}
	buf = malloc(chunk * depth);
	if (!buf)
		die("malloc", ENOMEM);
	err = io_uring_queue_init(2 * depth, &ring, 0);
	if (err < 0)
		die("io_uring_queue_init", err);
	if (direct) {
		err = io_uring_register_files_sparse(&ring, 1);
		if (err < 0)
			die("io_uring_register_files_sparse", err);
	}
	t0 = now_ns();
	for (int i = 0; i < ndirs; i++) {
		dp = opendir(dirs[i]);
		if (!dp)
			die(dirs[i], errno);
		while ((d = readdir(dp))) {
			if (d->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[i], d->d_name);
			read_file(path, chunk, depth, buf);
			spin(cpu_us);
		}
		closedir(dp);
	}
	wall = now_ns() - t0;
	io_uring_queue_exit(&ring);
	out = fopen(tally, "w");
	if (!out)
		die(tally, errno);
	fprintf(out, "opens %llu\nstats %llu\nreads %llu\nread_bytes %llu\ncloses %llu\n"
		"loop wait_share=%.4f\n", opens, stats, reads, read_bytes, closes,
		wall ? (double)wait_ns / wall : 0.0);
	return fclose(out) ? 1 : 0;
}
