/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Linux AIO reads (libaio, fio's libaio engine), and writes and syncs of
 * regular files (write.bpf.h): each read-type iocb that
 * io_submit() takes is recorded at the call's entry, before the kernel can
 * complete it (a buffered read completes inside io_submit, and another
 * thread may reap it before the submitter returns), and taken back at the
 * exit if the call did not take it. Its completion is seen when a thread
 * of the target reaps it with io_getevents() or io_pgetevents(): the event
 * names the iocb and holds the result. The latency is submit to reap, what
 * the application waits. A loader that reaps from the ring in user space
 * (fio's userspace_reap) calls neither: its reads stay in flight, and are
 * counted so at the end.
 */
#ifndef AIO_BPF_H
#define AIO_BPF_H

#include "async.bpf.h"

/*
 * The calls below are global functions: each is verified once, not once
 * per iteration of the loops that call them (AIO_BATCH of them), so their
 * arguments are plain values. The compat build renames them.
 */

/*
 * The key of iocb (a user address) of AIO context ring: with the process,
 * as both are user addresses. Its depth counter's: the process in the high
 * bits of the context (a user address, below 2^47).
 */
static __always_inline void aio_key(struct async_key *key, __u64 ring, __u64 iocb)
{
	key->ring = ring;
	key->req = iocb;
	key->tgid = bpf_get_current_pid_tgid() >> 32;
	key->pad = 0;
}

static __always_inline __u64 aio_ring(__u64 ring)
{
	return ring ^ (bpf_get_current_pid_tgid() >> 32 << 47);
}

/* What an iocb's opcode asks: AOP_READ, AOP_WRITE, AOP_FSYNC, or -1: not traced. */
static __always_inline int aio_op(__u16 op)
{
	switch (op) {
	case IOCB_CMD_PREAD:
	case IOCB_CMD_PREADV:
		return AOP_READ;
	case IOCB_CMD_PWRITE:
	case IOCB_CMD_PWRITEV:
		return AOP_WRITE;
	case IOCB_CMD_FSYNC:
	case IOCB_CMD_FDSYNC:
		return AOP_FSYNC;
	}
	return -1;
}

/*
 * Record iocb i of the io_submit() at ring, iocbs, begun at start, if it
 * reads, writes or syncs a regular file: returns that file's address, else 0.
 */
__weak __noinline __u64 aio_track(__u64 ring, __u64 iocbs, __u32 i, __u64 start)
{
	struct async_key key;
	struct task_struct *task = bpf_get_current_task_btf();
	struct async_rec *rec;
	struct async_busy *busy;
	struct task_state *st;
	struct iocb *cb;
	__u32 fd = 0, z = 0;
	int slot;
	__u16 op = 0;
	__s64 off = 0;
	__u64 file;

	__u64 iocb;

	if (i >= AIO_BATCH || bpf_probe_read_user(&iocb, 8, (void *)(iocbs + i * 8)))
		return 0;
	aio_key(&key, ring, iocb);
	cb = (struct iocb *)iocb;
	if (bpf_probe_read_user(&op, 2, &cb->aio_lio_opcode) ||
	    aio_op(op) < 0 ||
	    bpf_probe_read_user(&fd, 4, &cb->aio_fildes) ||
	    bpf_probe_read_user(&off, 8, &cb->aio_offset))
		return 0;
	file = fd_file_addr(fd);	/* 0: unresolved, counted so at the reap */
	if (file && file_mode(BTF_CAST(struct file, file)) != S_IFREG) {
		if (aio_op(op) == AOP_READ)
			count(C_READS_OTHER, 1);	/* a pipe's, a socket's, a device's */
		return 0;
	}
	st = task_state_of(task, false);
	busy = bpf_map_lookup_elem(&async_busy, &z);
	if (!st || !busy)
		return 0;
	slot = slot_claim(busy->held, ASYNC_SLOTS);
	if (slot < 0) {
		count_lost(L_SCRATCH_BUSY);
		return 0;	/* counted untracked at its reap */
	}
	rec = bpf_map_lookup_elem(&async_scratch, &slot);
	if (!rec) {
		file = 0;
		goto out;
	}
	rec->file = file;
	rec->start_ns = start;
	rec->off = off;
	rec->iface = ASYNC_AIO;
	rec->op = aio_op(op);
	rec_owner(rec, task->pid, thread_of(st, task));
	rec->depth = 0;
	rec->fstate = AFILE_NONE;
	if (rec->op == AOP_READ) {
		rec->depth = depth_up(aio_ring(ring));
		async_file_submit(rec, file);
	}
	if (bpf_map_update_elem(&async_reqs, &key, rec, BPF_ANY)) {
		if (rec->op == AOP_READ)
			depth_down(aio_ring(ring));
		async_file_out(rec);
		count_lost(L_ASYNC_FULL);
		file = 0;
	}
out:
	if (slot >= 0 && slot < ASYNC_SLOTS)
		*(volatile __u32 *)&busy->held[slot] = 0;
	return file;
}

/* Take back iocb i, which the io_submit() did not take. */
__weak __noinline int aio_untrack(__u64 ring, __u64 iocbs, __u32 i)
{
	struct async_key key;
	struct async_rec *rec;
	__u64 iocb;
	bool read;

	if (bpf_probe_read_user(&iocb, 8, (void *)(iocbs + i * 8)))
		return 0;
	aio_key(&key, ring, iocb);
	rec = bpf_map_lookup_elem(&async_reqs, &key);
	if (!rec)
		return 0;
	async_file_out(rec);
	read = rec->op == AOP_READ;
	if (!bpf_map_delete_elem(&async_reqs, &key) && read)
		depth_down(aio_ring(ring));
	return 0;
}

/* Event i of an io_getevents() on ring: the read it completes, counted to its owner. */
__weak __noinline int aio_reap(__u64 ring, __u64 events, __u32 i, __u64 now)
{
	struct io_event *ev = (void *)(events + i * sizeof(*ev));
	struct async_key key;
	struct async_rec *rec;
	__u64 iocb = 0;
	__s64 res = 0;
	__u16 op = 0;

	if (bpf_probe_read_user(&iocb, 8, &ev->obj) ||
	    bpf_probe_read_user(&res, 8, &ev->res))
		return 0;
	aio_key(&key, ring, iocb);
	rec = bpf_map_lookup_elem(&async_reqs, &key);
	if (!rec) {
		if (!bpf_probe_read_user(&op, 2, &((struct iocb *)iocb)->aio_lio_opcode) &&
		    (op == IOCB_CMD_PREAD || op == IOCB_CMD_PREADV))
			count_lost(L_ASYNC_UNTRACKED);
		return 0;
	}
	if (rec->op == AOP_READ) {
		async_read_done(rec, rec->file, rec->off, res, now, false);
		depth_down(aio_ring(ring));
		async_file_out(rec);
	} else {
		async_write_done(rec, rec->file, res, now, false);
	}
	bpf_map_delete_elem(&async_reqs, &key);
	return 0;
}

/*
 * The loops over a call's iocbs or events: bpf_loop() in the fast build
 * (6.2 and later have it), its step verified once whatever AIO_BATCH is;
 * a bounded loop in the compat build, verified step by step (bpf_loop()
 * came in 5.17). A step takes (i, struct aio_walk *) and returns 0.
 */
struct aio_walk {
	__u64 ring;
	__u64 addr;		/* the iocb pointers, or the events */
	__u64 ns;		/* the call's start (submit) or end (reap) */
	__u32 from;		/* the first index walked */
	__u32 pad;
};

#ifdef IOSTORM_CORE_READ
#define AIO_STEP	static __always_inline long
#define AIO_LOOP(n, step, w)						\
	do {								\
		for (__u32 i_ = 0; i_ < AIO_BATCH && i_ < (n); i_++)	\
			step(i_, (w));					\
	} while (0)
#else
#define AIO_STEP	static long
#define AIO_LOOP(n, step, w)	bpf_loop((n), step, (w), 0)
#endif

/*
 * io_submit(ctx, nr, iocbpp) enters: record its reads (the first
 * AIO_BATCH), and give each file its entry, its path resolved here, in
 * this small frame: the reap's stack has no room for the walk below two
 * global functions. A drain between the two leaves the path in the
 * interval before, where user space finds it.
 */
AIO_STEP submit_step(__u32 i, struct aio_walk *w)
{
	__u64 file = aio_track(w->ring, w->addr, i, w->ns);

	if (file)
		entry_of_file(file, w->ns, true);
	return 0;
}

static __always_inline void aio_submit_enter(struct inflight *in)
{
	struct aio_walk w = { .ring = in->path, .addr = in->buf, .ns = in->ts };

	AIO_LOOP(in->flags, submit_step, &w);	/* flags: at most AIO_BATCH */
}

/* Take back iocb from + i: the io_submit() did not take it. */
AIO_STEP untrack_step(__u32 i, struct aio_walk *w)
{
	aio_untrack(w->ring, w->addr, w->from + i);
	return 0;
}

/* io_submit() returns: it took the first ret iocbs (none on an error). */
static __always_inline void aio_submit_exit(struct inflight *in, long ret)
{
	struct aio_walk w = { .ring = in->path, .addr = in->buf };
	__u32 n = in->flags;

	if (ret > AIO_BATCH)
		count_lost_n(L_AIO_BATCH, ret - AIO_BATCH);
	w.from = ret > 0 ? ret : 0;
	if (w.from < n)
		AIO_LOOP(n - w.from, untrack_step, &w);
}

AIO_STEP reap_step(__u32 i, struct aio_walk *w)
{
	aio_reap(w->ring, w->addr, i, w->ns);
	return 0;
}

/* io_getevents(ctx, min, nr, events, ...) returns ret events. */
static __always_inline void aio_getevents_exit(struct inflight *in, long ret, __u64 now)
{
	struct aio_walk w = { .ring = in->path, .addr = in->buf, .ns = now };

	if (ret <= 0)
		return;
	if (ret > AIO_BATCH)
		count_lost_n(L_AIO_BATCH, ret - AIO_BATCH);
	AIO_LOOP(ret > AIO_BATCH ? AIO_BATCH : (__u32)ret, reap_step, &w);
}

#endif /* AIO_BPF_H */
