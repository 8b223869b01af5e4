/*
 * shape's asynchronous readers: a file read whole through io_uring or
 * Linux AIO, in batches of up to ASYNC_DEPTH reads in flight, by the raw
 * system calls (no liburing or libaio: the workload needs neither).
 */
#include "shape.h"

#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#define ASYNC_DEPTH	8

struct shape_async {
	int ring_fd;
	void *sq_ring, *cq_ring;
	size_t sq_len, cq_len, sqes_len;
	unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	aio_context_t aio;
};

/* The ring: its two queues and its entries, mapped as the kernel says. */
static int ring_setup(struct shape_async *a)
{
	struct io_uring_params p = { 0 };
	int single;

	a->ring_fd = syscall(__NR_io_uring_setup, ASYNC_DEPTH, &p);
	if (a->ring_fd < 0)
		return fail("set up", "io_uring");
	single = p.features & IORING_FEAT_SINGLE_MMAP;
	a->sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	a->cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (single && a->cq_len > a->sq_len)
		a->sq_len = a->cq_len;
	a->sq_ring = mmap(NULL, a->sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			  a->ring_fd, IORING_OFF_SQ_RING);
	if (a->sq_ring == MAP_FAILED)
		return fail("map", "io_uring's submission queue");
	a->cq_ring = single ? a->sq_ring :
		     mmap(NULL, a->cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			  a->ring_fd, IORING_OFF_CQ_RING);
	if (a->cq_ring == MAP_FAILED)
		return fail("map", "io_uring's completion queue");
	a->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
	a->sqes = mmap(NULL, a->sqes_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		       a->ring_fd, IORING_OFF_SQES);
	if (a->sqes == MAP_FAILED)
		return fail("map", "io_uring's entries");
	a->sq_tail = (unsigned *)((char *)a->sq_ring + p.sq_off.tail);
	a->sq_mask = (unsigned *)((char *)a->sq_ring + p.sq_off.ring_mask);
	a->sq_array = (unsigned *)((char *)a->sq_ring + p.sq_off.array);
	a->cq_head = (unsigned *)((char *)a->cq_ring + p.cq_off.head);
	a->cq_tail = (unsigned *)((char *)a->cq_ring + p.cq_off.tail);
	a->cq_mask = (unsigned *)((char *)a->cq_ring + p.cq_off.ring_mask);
	a->cqes = (struct io_uring_cqe *)((char *)a->cq_ring + p.cq_off.cqes);
	return 0;
}

struct shape_async *shape_async_new(void)
{
	struct shape_async *a = xalloc(calloc(1, sizeof(*a)));

	if (ring_setup(a))
		goto out_free;
	if (syscall(__NR_io_setup, ASYNC_DEPTH, &a->aio) < 0) {
		fail("set up", "Linux AIO");
		goto out_free;
	}
	return a;
out_free:
	shape_async_free(a);
	return NULL;
}

void shape_async_free(struct shape_async *a)
{
	if (!a)
		return;
	if (a->aio)
		syscall(__NR_io_destroy, a->aio);
	if (a->sqes && a->sqes != MAP_FAILED)
		munmap(a->sqes, a->sqes_len);
	if (a->cq_ring && a->cq_ring != MAP_FAILED && a->cq_ring != a->sq_ring)
		munmap(a->cq_ring, a->cq_len);
	if (a->sq_ring && a->sq_ring != MAP_FAILED)
		munmap(a->sq_ring, a->sq_len);
	if (a->ring_fd > 0)
		close(a->ring_fd);
	free(a);
}

/* One read of the batch done: its result counted on life l. */
static int async_done(struct life *l, long long res, const char *what)
{
	if (res < 0) {
		errno = -res;
		return fail(what, l->path);
	}
	add(&l->reads, 1);
	add(&l->read_bytes, res);
	add(&l->async_reads, 1);
	add(&l->async_bytes, res);
	return 0;
}

/* Reads of chunk bytes number n of a file of size: 1 for an empty file. */
static u64 async_count(u64 size, u64 chunk)
{
	return size ? (size + chunk - 1) / chunk : 1;
}

/* io_uring: IORING_OP_READ of each chunk, ASYNC_DEPTH at a time. */
int shape_uring_read(struct shape_async *a, struct life *l, int fd, u64 size, u64 chunk,
		     char *buf)
{
	u64 n = async_count(size, chunk), i, j, batch, got;
	struct io_uring_sqe *s;
	unsigned tail, head;
	int ret;

	for (i = 0; i < n; i += batch) {
		batch = n - i < ASYNC_DEPTH ? n - i : ASYNC_DEPTH;
		tail = *a->sq_tail;
		for (j = 0; j < batch; j++, tail++) {
			s = &a->sqes[tail & *a->sq_mask];
			memset(s, 0, sizeof(*s));
			s->opcode = IORING_OP_READ;
			s->fd = fd;
			s->addr = (u64)(uintptr_t)(buf + j * chunk);
			s->len = chunk;
			s->off = (i + j) * chunk;
			s->user_data = j;
			a->sq_array[tail & *a->sq_mask] = tail & *a->sq_mask;
		}
		__atomic_store_n(a->sq_tail, tail, __ATOMIC_RELEASE);
		ret = syscall(__NR_io_uring_enter, a->ring_fd, batch, batch,
			      IORING_ENTER_GETEVENTS, NULL, 0);
		for (got = 0; got < batch; ) {
			if (ret < 0 && errno != EINTR)
				return fail("read through io_uring", l->path);
			head = *a->cq_head;
			for (; head != __atomic_load_n(a->cq_tail, __ATOMIC_ACQUIRE); head++, got++)
				if (async_done(l, a->cqes[head & *a->cq_mask].res, "read through io_uring"))
					return -1;
			__atomic_store_n(a->cq_head, head, __ATOMIC_RELEASE);
			if (got < batch)
				ret = syscall(__NR_io_uring_enter, a->ring_fd, 0, batch - got,
					      IORING_ENTER_GETEVENTS, NULL, 0);
		}
	}
	return 0;
}

/* Linux AIO: IOCB_CMD_PREAD of each chunk, ASYNC_DEPTH at a time. */
int shape_aio_read(struct shape_async *a, struct life *l, int fd, u64 size, u64 chunk,
		   char *buf)
{
	u64 n = async_count(size, chunk), i, j, batch;
	struct iocb cb[ASYNC_DEPTH], *cbp[ASYNC_DEPTH];
	struct io_event ev[ASYNC_DEPTH];
	long got, r;

	for (i = 0; i < n; i += batch) {
		batch = n - i < ASYNC_DEPTH ? n - i : ASYNC_DEPTH;
		for (j = 0; j < batch; j++) {
			memset(&cb[j], 0, sizeof(cb[j]));
			cb[j].aio_fildes = fd;
			cb[j].aio_lio_opcode = IOCB_CMD_PREAD;
			cb[j].aio_buf = (u64)(uintptr_t)(buf + j * chunk);
			cb[j].aio_nbytes = chunk;
			cb[j].aio_offset = (i + j) * chunk;
			cb[j].aio_data = j;
			cbp[j] = &cb[j];
		}
		if (syscall(__NR_io_submit, a->aio, batch, cbp) != (long)batch)
			return fail("submit Linux AIO reads of", l->path);
		for (got = 0; got < (long)batch; got += r) {
			r = syscall(__NR_io_getevents, a->aio, batch - got, batch - got, ev, NULL);
			if (r < 0 && errno == EINTR)
				r = 0;
			else if (r < 0)
				return fail("reap Linux AIO reads of", l->path);
			for (j = 0; j < (u64)r; j++)
				if (async_done(l, ev[j].res, "read through Linux AIO"))
					return -1;
		}
	}
	return 0;
}
