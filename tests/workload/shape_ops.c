/*
 * shape's operations: one drawn from its worker's stream, on a file the
 * draw picks among the worker's own and the read-only root's, and
 * counted on that file's life. A file is opened and closed within one
 * operation: none is renamed or unlinked while open.
 */
#include "shape.h"

#include <libgen.h>
#include <sys/mman.h>
#include <sys/uio.h>

enum shape_op {
	OP_CREATE, OP_READ, OP_PREAD, OP_READV, OP_MMAP, OP_URING, OP_AIO,
	OP_WRITE, OP_RENAME, OP_UNLINK, OP_RECREATE, OP_MKDIR, OP_RMDIR, OP_SYNCFS,
	OP_N,
	OP_FIRST_READ = OP_READ, OP_LAST_READ = OP_AIO,
};

/* How often each is drawn, in parts of the sum. */
static const unsigned op_weight[OP_N] = {
	[OP_CREATE] = 14, [OP_READ] = 10, [OP_PREAD] = 6, [OP_READV] = 5,
	[OP_MMAP] = 5, [OP_URING] = 4, [OP_AIO] = 4, [OP_WRITE] = 10,
	[OP_RENAME] = 5, [OP_UNLINK] = 3, [OP_RECREATE] = 8, [OP_MKDIR] = 3,
	[OP_RMDIR] = 2, [OP_SYNCFS] = 1,
};

/* A file: its life, and where it is (root; dir and slot for a worker's own). */
struct target {
	long life;
	size_t root, dir, slot;
	char path[SHAPE_PATH];
};

static void hist(struct life *l, const struct shape_root *root, char c)
{
	size_t n = strlen(l->hist);

	if (!root->ro && n + 1 < sizeof(l->hist))	/* a shared file's order is the timing's */
		l->hist[n] = c;
}

/* Time spent in a call that writes, on the worker's clock. */
#define TIMED_WRITE(w, call) ({						\
	u64 __t = shape_now_ns();					\
	__typeof__(call) __r = (call);					\
	add(&(w)->clock->write_ns, shape_now_ns() - __t);		\
	__r;								\
})

static u64 draw_size(struct shape_rng *r)
{
	u64 c = shape_range(r, 0, 99);

	if (c < 3)
		return 0;
	if (c < 25)
		return shape_range(r, 1, 4096);
	if (c < 85)
		return shape_range(r, 16384, 102400);		/* an image: ~80 KB */
	if (c < 96)
		return shape_range(r, 200 << 10, 600 << 10);
	return shape_range(r, 1 << 20, 3 << 20);
}

static u64 draw_of(struct shape_rng *r, const u64 *v, size_t n)
{
	return v[shape_rnd(r) % n];
}

/* ---- picking a file */

enum { OWN = 1, SHARED = 2 };

/*
 * The index-th file alive among the worker's own (which & OWN, on writable
 * roots) and the read-only roots' (which & SHARED); their count when
 * index is -1.
 */
static long pick(struct shape_worker *w, long index, int which, struct target *t)
{
	long n = 0;
	size_t r, d, s, f;

	for (r = 0; r < shape_nroots; r++) {
		if (shape_roots[r].ro) {
			for (f = 0; (which & SHARED) && f < shape_roots[r].nfiles; f++, n++)
				if (n == index) {
					t->life = shape_roots[r].first_life + f;
					t->root = r;
					snprintf(t->path, sizeof(t->path), "%s", shape_lives[t->life].path);
					return 0;
				}
			continue;
		}
		for (d = 0; d < SHAPE_DIRS && (which & OWN); d++)
			for (s = 0; s < SHAPE_SLOTS; s++) {
				if (w->slot[r][d][s] < 0 || n++ != index)
					continue;
				*t = (struct target){ w->slot[r][d][s], r, d, s, "" };
				shape_path(t->path, w, r, d, s);
				return 0;
			}
	}
	return n;
}

/*
 * A file drawn: one of the worker's own, or with shared one in four times
 * (or when it has none) a read-only root's; 1 when there is none.
 */
static int draw_file(struct shape_worker *w, int shared, struct target *t)
{
	int which = OWN;
	long n;

	if (shared && (shape_rnd(&w->r) % 4 == 0 || !pick(w, -1, OWN, t)))
		which = SHARED;
	n = pick(w, -1, which, t);
	return n ? pick(w, shape_rnd(&w->r) % n, which, t) : 1;
}

/* A writable root drawn, or -1 when there is none. */
static long draw_root(struct shape_worker *w)
{
	size_t r, n = 0, k;

	for (r = 0; r < shape_nroots; r++)
		n += !shape_roots[r].ro;
	if (!n)
		return -1;
	k = shape_rnd(&w->r) % n;
	for (r = 0; r < shape_nroots; r++)
		if (!shape_roots[r].ro && !k--)
			return r;
	return -1;
}

/* ---- writes */

/* size bytes at off, in chunks, by write, pwrite64 or writev. */
static int write_chunks(struct shape_worker *w, struct life *l, int fd, u64 off, u64 size,
			int append)
{
	static const u64 chunks[] = { 30, 512, 4096, 65536, SHAPE_BUF };
	u64 chunk = draw_of(&w->r, chunks, 5), style = shape_rnd(&w->r) % 3, len;
	struct iovec iov[2];
	ssize_t n;

	for (; size; size -= len, off += len) {
		len = size < chunk ? size : chunk;
		iov[0] = (struct iovec){ w->buf, len / 2 };
		iov[1] = (struct iovec){ w->buf + len / 2, len - len / 2 };
		if (style == 0 || append)
			n = TIMED_WRITE(w, write(fd, w->buf, len));
		else if (style == 1)
			n = TIMED_WRITE(w, pwrite(fd, w->buf, len, off));
		else
			n = TIMED_WRITE(w, writev(fd, iov, 2));
		if (n != (ssize_t)len)
			return fail("write", l->path);
		add(&l->writes, 1);
		add(&l->write_bytes, n);
	}
	return 0;
}

/* Now and then an fsync or an fdatasync of what was written. */
static int maybe_sync(struct shape_worker *w, struct life *l, int fd)
{
	u64 c = shape_rnd(&w->r) % 4;

	if (c > 1)
		return 0;
	if (TIMED_WRITE(w, c ? fdatasync(fd) : fsync(fd)) < 0)
		return fail("sync", l->path);
	add(&l->fsyncs, 1);
	return 0;
}

static int close_written(struct shape_worker *w, struct life *l, int fd)
{
	return TIMED_WRITE(w, close(fd)) < 0 ? fail("close", l->path) : 0;
}

/*
 * A new life at the target's slot: made, written whole (at least min
 * bytes), perhaps synced.
 */
static int op_create(struct shape_worker *w, struct target *t, u64 min)
{
	struct shape_root *root = &shape_roots[t->root];
	long k = w->next_life++;
	struct life *l = &shape_lives[k];
	u64 size = min + draw_size(&w->r);
	int fd;

	if (w->next_life > w->last_life) {
		fprintf(stderr, PROG ": worker %zu made more files than planned\n", w->k);
		return -1;
	}
	shape_path(l->path, w, t->root, t->dir, t->slot);
	snprintf(l->now, sizeof(l->now), "%s", l->path);
	l->root = t->root;
	hist(l, root, 'c');
	fd = open(l->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return fail("create", l->path);
	add(&l->opens, 1);
	if (write_chunks(w, l, fd, 0, size, 0) || maybe_sync(w, l, fd) || close_written(w, l, fd))
		return -1;
	l->size = size;
	w->slot[t->root][t->dir][t->slot] = k;
	return 0;
}

/* Appended to, written over at an offset, or truncated and written again. */
static int op_write(struct shape_worker *w, struct target *t)
{
	struct life *l = &shape_lives[t->life];
	u64 mode = shape_rnd(&w->r) % 3, n = shape_range(&w->r, 1, 4), len, off = 0;
	int fd, flags = O_WRONLY | O_CLOEXEC;

	flags |= mode == 0 ? O_APPEND : mode == 2 ? O_TRUNC : 0;
	fd = open(t->path, flags);
	if (fd < 0)
		return fail("open", t->path);
	add(&l->opens, 1);
	if (mode == 2)
		l->size = 0;
	for (; n; n--) {
		/* half of them a progress file's few bytes */
		len = shape_rnd(&w->r) % 2 ? shape_range(&w->r, 1, 100) :
					      shape_range(&w->r, 1, 65536);
		off = mode == 1 ? shape_range(&w->r, 0, l->size) : l->size;
		/* write() and writev() write at the position (pwrite64 moves none) */
		if (mode != 0 && lseek(fd, off, SEEK_SET) < 0)
			return fail("seek", t->path);
		if (write_chunks(w, l, fd, off, len, mode == 0))
			return -1;
		l->size = off + len > l->size ? off + len : l->size;
	}
	if (maybe_sync(w, l, fd) || close_written(w, l, fd))
		return -1;
	hist(l, &shape_roots[t->root], 'w');
	return 0;
}

/* ---- reads */

static int open_read(struct target *t, struct life *l)
{
	int fd = open(t->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return fail("open", t->path);
	add(&l->opens, 1);
	return fd;
}

static int read_counted(struct life *l, ssize_t n, const char *what)
{
	if (n < 0)
		return fail(what, l->path);
	add(&l->reads, 1);
	add(&l->read_bytes, n);
	return n;
}

/* read() of bufsize, or readv() of two halves, until end of file. */
static int read_to_eof(struct shape_worker *w, struct life *l, int fd, int vec)
{
	static const u64 sizes[] = { 1024, 4096, 16384, 65536, SHAPE_BUF };
	u64 bufsize = draw_of(&w->r, sizes, 5);
	struct iovec iov[2] = { { w->buf, bufsize / 2 }, { w->buf + bufsize / 2, bufsize / 2 } };
	int n;

	do
		n = vec ? read_counted(l, readv(fd, iov, 2), "readv") :
			  read_counted(l, read(fd, w->buf, bufsize), "read");
	while (n > 0);
	return n;
}

/* 1-6 pread64() at offsets drawn up to 8 KiB past the end. */
static int pread_some(struct shape_worker *w, struct life *l, int fd)
{
	u64 n = shape_range(&w->r, 1, 6), off, len;

	for (; n; n--) {
		off = shape_range(&w->r, 0, l->size + 8192);
		len = shape_range(&w->r, 1, 65536);
		if (read_counted(l, pread(fd, w->buf, len, off), "pread") < 0)
			return -1;
	}
	return 0;
}

/* Mapped, a byte of every page touched, unmapped. */
static int touch_mapped(struct shape_worker *w, struct life *l, int fd)
{
	int shared = shape_rnd(&w->r) % 2;
	volatile const unsigned char *m;
	unsigned int sum = 0;
	u64 off;

	m = mmap(NULL, l->size, PROT_READ, shared ? MAP_SHARED : MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return fail("map", l->path);
	add(&l->mmaps, 1);
	for (off = 0; off < l->size; off += 4096)
		sum += m[off];
	w->buf[0] = sum;
	return munmap((void *)m, l->size) < 0 ? fail("unmap", l->path) : 0;
}

/* openat() through a directory fd of the file's directory, readv to EOF. */
static int readv_at(struct shape_worker *w, struct target *t, struct life *l)
{
	char dir[SHAPE_PATH], name[SHAPE_PATH];
	int dfd, fd, ret;

	snprintf(dir, sizeof(dir), "%s", t->path);
	snprintf(name, sizeof(name), "%s", basename(t->path));
	dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return fail("open", dir);
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return fail("open", t->path);
	add(&l->opens, 1);
	ret = read_to_eof(w, l, fd, 1);
	return close(fd) < 0 || ret < 0 ? -1 : 0;
}

static int op_read(struct shape_worker *w, enum shape_op op, struct target *t)
{
	static const u64 chunks[] = { 4096, 16384, SHAPE_BUF / 8 };
	struct life *l = &shape_lives[t->life];
	u64 chunk = draw_of(&w->r, chunks, 3);
	int fd, ret;

	hist(l, &shape_roots[t->root], SHAPE_READS[op - OP_FIRST_READ]);
	if (op == OP_READV)
		return readv_at(w, t, l);
	fd = open_read(t, l);
	if (fd < 0)
		return -1;
	if (op == OP_READ)
		ret = read_to_eof(w, l, fd, 0);
	else if (op == OP_PREAD)
		ret = pread_some(w, l, fd);
	else if (op == OP_MMAP)
		ret = touch_mapped(w, l, fd);
	else if (op == OP_URING)
		ret = shape_uring_read(w->async, l, fd, l->size, chunk, w->buf);
	else
		ret = shape_aio_read(w->async, l, fd, l->size, chunk, w->buf);
	return close(fd) < 0 || ret < 0 ? -1 : 0;
}

/* ---- names and directories */

static void end_life(struct shape_worker *w, size_t r, size_t d, size_t s, char c)
{
	struct life *l = &shape_lives[w->slot[r][d][s]];

	l->now[0] = '\0';
	hist(l, &shape_roots[r], c);
	w->slot[r][d][s] = -1;
}

static int unlink_slot(struct shape_worker *w, size_t r, size_t d, size_t s)
{
	char path[SHAPE_PATH];

	shape_path(path, w, r, d, s);
	if (unlink(path) < 0)
		return fail("unlink", path);
	end_life(w, r, d, s, 'u');
	return 0;
}

static int sync_root(struct shape_worker *w, size_t r)
{
	int fd = open(shape_roots[r].top, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret;

	if (fd < 0)
		return fail("open", shape_roots[r].top);
	ret = syncfs(fd);
	close(fd);
	return ret < 0 ? fail("sync", shape_roots[r].top) : 0;
}

/* To another name in a directory of its root, over the file there if any. */
static int op_rename(struct shape_worker *w, struct target *t)
{
	struct life *l = &shape_lives[t->life];
	size_t d, s, r = t->root;
	char to[SHAPE_PATH];

	do {
		d = shape_rnd(&w->r) % SHAPE_DIRS;
		s = shape_rnd(&w->r) % SHAPE_SLOTS;
	} while (!w->dir_made[r][d] || (d == t->dir && s == t->slot));
	shape_path(to, w, r, d, s);
	if (TIMED_WRITE(w, rename(t->path, to)) < 0)
		return fail("rename", t->path);
	if (w->slot[r][d][s] >= 0)
		end_life(w, r, d, s, 'x');
	w->slot[r][d][s] = t->life;
	w->slot[r][t->dir][t->slot] = -1;
	snprintf(l->now, sizeof(l->now), "%s", to);
	hist(l, &shape_roots[r], 'n');
	return 0;
}

/* Unlinked, then made again at its name: a number just freed (synced: XFS). */
static int op_recreate(struct shape_worker *w, struct target *t)
{
	if (unlink_slot(w, t->root, t->dir, t->slot))
		return -1;
	if ((shape_roots[t->root].fs == FS_XFS || shape_rnd(&w->r) % 2) && sync_root(w, t->root))
		return -1;
	return op_create(w, t, 0);
}

/* A directory made where there is none, or one emptied and removed. */
static int op_dir(struct shape_worker *w, enum shape_op op)
{
	long r = draw_root(w);
	size_t d = 1 + shape_rnd(&w->r) % (SHAPE_DIRS - 1), s;
	char path[SHAPE_PATH];

	if (r < 0 || w->dir_made[r][d] != (op == OP_RMDIR))
		return 1;
	shape_path(path, w, r, d, SHAPE_SLOTS);
	if (op == OP_MKDIR) {
		if (mkdir(path, 0755) < 0)
			return fail("make directory", path);
		w->dir_made[r][d] = 1;
		return 0;
	}
	for (s = 0; s < SHAPE_SLOTS; s++)
		if (w->slot[r][d][s] >= 0 && unlink_slot(w, r, d, s))
			return -1;
	if (rmdir(path) < 0)
		return fail("remove directory", path);
	w->dir_made[r][d] = 0;
	return 0;
}

/* A free name in a directory made on a writable root, or 1 when none. */
static int draw_free(struct shape_worker *w, struct target *t)
{
	long r = draw_root(w);
	size_t d = shape_rnd(&w->r) % SHAPE_DIRS, s = shape_rnd(&w->r) % SHAPE_SLOTS;

	if (r < 0 || !w->dir_made[r][d] || w->slot[r][d][s] >= 0)
		return 1;
	*t = (struct target){ -1, r, d, s, "" };
	return 0;
}

/* ---- the draw */

/*
 * A kind of read drawn, a worker's favorite: its index in SHAPE_READS;
 * mmap twice as often as each other (LMDB, np.memmap: mapped datasets).
 */
int shape_favorite(struct shape_rng *r)
{
	static const int kinds[] = { 0, 1, 2, 3, 3, 4, 5 };

	return kinds[shape_rnd(r) % 7];
}

static enum shape_op draw_op(struct shape_worker *w, int want_read)
{
	unsigned sum = 0, x;
	int op, lo = want_read ? OP_FIRST_READ : 0, hi = want_read ? OP_LAST_READ : OP_N - 1;

	if (want_read && (w->only || shape_rnd(&w->r) % 10 < 7))
		return OP_FIRST_READ + w->favorite;
	for (op = lo; op <= hi; op++)
		sum += op_weight[op];
	x = shape_rnd(&w->r) % sum;
	for (op = lo; x >= op_weight[op]; op++)
		x -= op_weight[op];
	return op;
}

/*
 * Do operation op, drawn; 1 when it cannot be done on this worker's files
 * as they are (nothing to read, no free name, a mapping of an empty file
 * or of a FUSE file opened direct_io): the caller draws again.
 */
static int do_op(struct shape_worker *w, enum shape_op op)
{
	struct target t;

	switch (op) {
	case OP_CREATE:
		return draw_free(w, &t) ?: op_create(w, &t, 0);
	case OP_READ ... OP_AIO:
		if (draw_file(w, 1, &t))
			return 1;
		if (op == OP_MMAP && (!shape_lives[t.life].size ||
				      shape_roots[t.root].fs == FS_FUSE))
			return 1;
		return op_read(w, op, &t);
	case OP_WRITE:
		return draw_file(w, 0, &t) ?: op_write(w, &t);
	case OP_RENAME:
		return draw_file(w, 0, &t) ?: op_rename(w, &t);
	case OP_UNLINK:
		return draw_file(w, 0, &t) ?: unlink_slot(w, t.root, t.dir, t.slot);
	case OP_RECREATE:
		return draw_file(w, 0, &t) ?: op_recreate(w, &t);
	case OP_MKDIR:
	case OP_RMDIR:
		return op_dir(w, op);
	case OP_SYNCFS:
		t.root = draw_root(w);
		return (long)t.root < 0 ? 1 : sync_root(w, t.root);
	default:
		return -1;
	}
}

/*
 * One operation drawn and done (with want_read, a read): 1 when it was a
 * read, 0 when not, -1 on an error. 64 draws that cannot be done (no
 * file at all) do nothing.
 */
int shape_op(struct shape_worker *w, int want_read)
{
	enum shape_op op;
	int tries, ret = 1;

	for (tries = 0; ret == 1 && tries < 64; tries++) {
		op = draw_op(w, want_read);
		ret = do_op(w, op);
	}
	if (ret)
		return ret < 0 ? -1 : 0;
	return op >= OP_FIRST_READ && op <= OP_LAST_READ;
}

/*
 * A loader's progress rewritten: 20-40 bytes at the start of its file,
 * ROOT/TAG/wK/progress on the first writable root, made by the first.
 */
int shape_progress(struct shape_worker *w)
{
	struct life *l;
	size_t r;
	u64 len;
	int fd;

	for (r = 0; r < shape_nroots && shape_roots[r].ro; r++)
		;
	if (r == shape_nroots)
		return 0;
	if (w->progress_life < 0) {
		if (w->next_life == w->last_life) {
			fprintf(stderr, PROG ": worker %zu made more files than planned\n", w->k);
			return -1;
		}
		w->progress_life = w->next_life++;
		l = &shape_lives[w->progress_life];
		snprintf(l->path, sizeof(l->path), "%s/w%zu/progress", shape_roots[r].top, w->k);
		snprintf(l->now, sizeof(l->now), "%s", l->path);
		l->root = r;
		hist(l, &shape_roots[r], 'c');
	}
	l = &shape_lives[w->progress_life];
	fd = open(l->path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return fail("open", l->path);
	add(&l->opens, 1);
	len = shape_range(&w->r, 20, 40);
	if (TIMED_WRITE(w, pwrite(fd, w->buf, len, 0)) != (ssize_t)len)
		return fail("write", l->path);
	add(&l->writes, 1);
	add(&l->write_bytes, len);
	l->size = len > l->size ? len : l->size;
	hist(l, &shape_roots[r], 'w');
	return close_written(w, l, fd);
}

/*
 * The worker's directory d0 on each writable root, and 2-4 files made in
 * them, the first of 16 KiB or more (so that the first read of a loop's
 * worker reads some data).
 */
int shape_setup(struct shape_worker *w)
{
	char path[SHAPE_PATH];
	struct target t;
	size_t r, n = shape_range(&w->r, 2, 4), first = n;

	for (r = 0; r < shape_nroots; r++) {
		if (shape_roots[r].ro)
			continue;
		shape_path(path, w, r, 0, SHAPE_SLOTS);
		if (mkdir_p(path))
			return -1;
		w->dir_made[r][0] = 1;
	}
	while (n && draw_root(w) >= 0) {
		if (draw_free(w, &t))
			continue;
		if (op_create(w, &t, n == first ? 16384 : 0))
			return -1;
		n--;
	}
	return 0;
}
