// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * io_uring: the reads a target submits to its rings (IORING_OP_READ, READV,
 * READ_FIXED, READV_FIXED), its writes (WRITE, WRITEV, WRITE_FIXED,
 * WRITEV_FIXED) and syncs (FSYNC, SYNC_FILE_RANGE) of regular files, and
 * its opens, statx and closes, counted per file as the syscalls are
 * (file_ops.bpf.h, write.bpf.h), from io_uring_submit_req to
 * io_uring_complete (async.bpf.h). One submit may be performed by an io-wq
 * worker, and the ring may be fed by its SQPOLL thread: the owner of a
 * request is the thread that submits it, or for a submit by one of the
 * kernel's io threads of the process, the thread that created the ring.
 *
 * The file a read is counted on comes from the request at its completion:
 * the kernel assigns it when it issues the request (fixed files included),
 * after the submit; the offset from the read's kiocb at the submit
 * (prepared by then). Its file's queue depth needs the file at the submit:
 * it is looked up there as the kernel will, from the SQE's fd (uring_file()).
 *
 * Variants, chosen before the load (collect/features.c): the submit is
 * io_uring_submit_req from 6.0 (io_uring_submit_sqe before), and the
 * completion passes the CQE from 6.15 (its fields before). A kernel whose
 * completion gives no request (before 5.19) does not measure io_uring.
 *
 * A second object with bpf_rdonly_cast() fails bpftool's link: this one
 * is the CO-RE build, its global functions named as vfs_compat.bpf.c's
 * (core_read.h).
 */
#include "core_read.h"

#include "async.bpf.h"

#define PF_IO_WORKER	0x00000010	/* io-wq workers and SQPOLL threads */

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* The thread that created a ring of the target, to own its SQPOLL thread's submits. */
struct ring_owner {
	__u32 tid;
	__u32 tgid;
	__u64 cgid;
	char comm[COMM_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct ring_owner);
} ring_owners SEC(".maps");

static __always_inline int op_kind(__u8 opcode)
{
	switch (opcode) {
	case IORING_OP_READV:
	case IORING_OP_READ_FIXED:
	case IORING_OP_READ:
	case IORING_OP_READV_FIXED:
		return AOP_READ;
	case IORING_OP_OPENAT:
	case IORING_OP_OPENAT2:
		return AOP_OPEN;
	case IORING_OP_STATX:
		return AOP_STATX;
	case IORING_OP_CLOSE:
		return AOP_CLOSE;
	case IORING_OP_WRITEV:
	case IORING_OP_WRITE_FIXED:
	case IORING_OP_WRITE:
	case IORING_OP_WRITEV_FIXED:
		return AOP_WRITE;
	case IORING_OP_FSYNC:
	case IORING_OP_SYNC_FILE_RANGE:
		return AOP_FSYNC;
	}
	return -1;
}

SEC("tp_btf/io_uring_create")
int BPF_PROG(handle_uring_create, int fd, void *ring_ctx)
{
	struct task_struct *task;
	struct ring_owner o = {};
	struct task_state *st;
	struct thread_stats *ts;
	__u64 ring = (__u64)ring_ctx;

	if (!is_target())
		return 0;
	task = bpf_get_current_task_btf();
	st = task_state_of(task, true);
	if (!st)
		return 0;
	ts = thread_of(st, task);
	o.tid = task->pid;
	o.tgid = ts->tgid;
	o.cgid = ts->cgid;
	__builtin_memcpy(o.comm, ts->comm, COMM_LEN);
	bpf_map_update_elem(&ring_owners, &ring, &o, BPF_ANY);
	return 0;
}

/*
 * The fixed-file table up to 6.12: ctx->file_table.files[i].file_ptr,
 * bounded by ctx->nr_user_files. 6.13 gave each fixed file a resource
 * node of its own: ctx->file_table.data.nodes[i]->file_ptr, bounded by
 * data.nr (struct io_rsrc_data), the layout vmlinux.h has. The two are
 * told apart by the fields the kernel's BTF has, never by its version.
 */
/*
 * files[] is struct io_fixed_file { unsigned long file_ptr; }, read as its
 * one word: a relocation against io_fixed_file, which 6.13 removed, sends
 * libbpf to the modules' BTF, which it may not list without CAP_SYS_ADMIN
 * (libbpf 1.1: the load fails with EPERM under CAP_BPF and CAP_PERFMON).
 */
struct io_file_table___files {
	unsigned long *files;
} __attribute__((preserve_access_index));

struct io_ring_ctx___files {
	struct io_file_table___files file_table;
	unsigned int nr_user_files;
} __attribute__((preserve_access_index));

/* A fixed file's slot holds flags (FFS_NOWAIT, FFS_ISREG, FFS_SCM) in its low 3 bits. */
#define FFS_FLAGS	7UL

/* The file in slot i of ring ctx's fixed-file table, or 0. */
static __always_inline __u64 fixed_file(struct io_ring_ctx *ctx, __u32 i)
{
	struct io_ring_ctx___files *old = (void *)ctx;
	struct io_rsrc_node *node = NULL, **nodes;
	unsigned long *files;
	unsigned long ptr = 0;

	if (bpf_core_field_exists(struct io_file_table, data)) {
		if (i >= BPF_CORE_READ(ctx, file_table.data.nr))
			return 0;
		nodes = BPF_CORE_READ(ctx, file_table.data.nodes);
		if (!nodes || bpf_core_read(&node, sizeof(node), &nodes[i]) || !node)
			return 0;
		ptr = BPF_CORE_READ(node, file_ptr);
	} else if (bpf_core_field_exists(struct io_file_table___files, files)) {
		if (i >= BPF_CORE_READ(old, nr_user_files))
			return 0;
		files = BPF_CORE_READ(old, file_table.files);
		if (!files || bpf_core_read(&ptr, sizeof(ptr), &files[i]))
			return 0;
	}
	return ptr & ~FFS_FLAGS;
}

/* REQ_F_FIXED_FILE: IOSQE_FIXED_FILE, bit 0 of the SQE's flags (uapi) and of req->flags. */
#define REQ_FIXED_FILE	1ULL

/*
 * The file a read request will read, at its submit, as the kernel will
 * assign it at the issue (io_file_get_normal(), io_file_get_fixed()): the
 * SQE's fd, from the submitting task's table (an io-wq worker's or the
 * SQPOLL thread's is its process's: they share it), or with
 * IOSQE_FIXED_FILE an index into the ring's table. 0 when not there yet
 * (the completion takes it then). req->flags is an unsigned int in 6.1
 * and a 64-bit io_req_flags_t in 6.12 (io_uring ran out of 32 request
 * flags): read at the size the kernel's BTF gives.
 */
static __noinline __u64 uring_file(struct io_kiocb *req)
{
	__u64 flags = 0;
	int fd = BPF_CORE_READ(req, cqe.fd);

	bpf_core_read(&flags, bpf_core_field_size(req->flags), &req->flags);
	if (flags & REQ_FIXED_FILE)
		return fixed_file(BPF_CORE_READ(req, ctx), fd);
	return fd_file_addr(fd);
}

/* What a close closes, taken at its submit: at the completion the file is gone. */
static __always_inline bool close_key(struct io_kiocb *req, struct async_rec *rec)
{
	struct io_close *c = (void *)req;
	struct file *file;

	if (BPF_CORE_READ(c, file_slot))
		return false;		/* a fixed file's slot: no fd */
	file = fd_file(BPF_CORE_READ(c, fd));
	if (!file || !reg_or_dir(file_mode(file)))
		return false;
	file_key_of(file, &rec->key);
	return true;
}

static __always_inline int uring_submit(struct io_kiocb *req)
{
	struct async_key key = { .req = (__u64)req };
	struct task_struct *task;
	struct async_rec rec = {};
	struct ring_owner *o;
	struct task_state *st;
	__u64 file;
	int op;

	if (!is_target())
		return 0;
	op = op_kind(BPF_CORE_READ(req, opcode));
	if (op < 0)
		return 0;
	key.ring = (__u64)BPF_CORE_READ(req, ctx);
	task = bpf_get_current_task_btf();
	o = task->flags & PF_IO_WORKER ? bpf_map_lookup_elem(&ring_owners, &key.ring) : NULL;
	if (o) {
		rec.owner = o->tid;
		rec.tgid = o->tgid;
		rec.cgid = o->cgid;
		__builtin_memcpy(rec.comm, o->comm, COMM_LEN);
	} else {
		st = task_state_of(task, true);
		if (!st) {
			count_lost(L_INFLIGHT);
			return 0;
		}
		rec_owner(&rec, task->pid, thread_of(st, task));
	}
	rec.iface = ASYNC_URING;
	rec.op = op;
	if (op == AOP_READ) {
		rec.off = BPF_CORE_READ((struct io_rw *)req, kiocb.ki_pos);
		rec.depth = depth_up(key.ring);
		file = uring_file(req);
		if (file && file_mode(BTF_CAST(struct file, file)) != S_IFREG)
			file = 0;	/* a pipe's, a socket's: not counted at the completion */
		async_file_submit(&rec, file);
	} else if (op == AOP_CLOSE && !close_key(req, &rec)) {
		return 0;
	} else if (op == AOP_WRITE || op == AOP_FSYNC) {
		file = uring_file(req);
		if (file && !write_file(file))
			return 0;	/* a socket's, shared memory's: not a file's write */
	}
	rec.start_ns = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&async_reqs, &key, &rec, BPF_ANY)) {
		if (op == AOP_READ) {
			depth_down(key.ring);
			async_file_out(&rec);
		}
		count_lost(L_ASYNC_FULL);
	}
	return 0;
}

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(handle_uring_submit, struct io_kiocb *req)
{
	return uring_submit(req);
}

SEC("tp_btf/io_uring_submit_sqe")
int BPF_PROG(compat_uring_submit, struct io_kiocb *req)
{
	return uring_submit(req);
}

/* An open's fd is in the owner's table when a thread of its process completes it. */
static __always_inline bool same_process(struct async_rec *rec)
{
	return (bpf_get_current_pid_tgid() >> 32) == rec->tgid;
}

static __always_inline void open_complete(struct io_kiocb *req, struct async_rec *rec,
					  long res, __u64 now)
{
	struct io_open *o = (void *)req;
	struct thread_stats *ts = owner_stats(rec);
	bool has_fd = !BPF_CORE_READ(o, file_slot) && same_process(rec);

	if (!ts)
		return;
	count(C_URING_OPENS, 1);
	open_done(ts, res, has_fd, now - rec->start_ns, now, false);
}

/*
 * 7.x keeps a statx's name as a struct delayed_filename, gone by the
 * completion, and its struct filename has no user pointer (uptr). User
 * space finds the type in the kernel's BTF: a CO-RE test of a type vmlinux
 * lacks would make libbpf read every module's BTF (CAP_SYS_ADMIN).
 */
const volatile bool targ_statx_delayed = false;

static __always_inline void statx_complete(struct io_kiocb *req, struct async_rec *rec,
					   long res, __u64 now)
{
	struct thread_stats *ts = owner_stats(rec);
	struct io_statx *sx = (void *)req;
	__u64 lat = now - rec->start_ns, size = 0, name;
	struct file_stats *fs;
	struct file_key key;
	__u32 mode = 0;
	bool need_path;

	if (!stat_done(ts, res, lat, false))
		return;
	count(C_URING_STATS, 1);
	if (!same_process(rec) || statx_key(BPF_CORE_READ(sx, buffer), &key, &mode, &size)) {
		count_lost(L_STATBUF);
		return;
	}
	fs = stat_file(&key, mode, size, lat, now, &need_path);
	if (!fs || !need_path)
		return;
	if (targ_statx_delayed) {
		/* No name to resolve: the file's next open or read resolves it. */
		__sync_fetch_and_and(&fs->flags, ~FILE_F_CLAIM);
	} else {
		name = (__u64)BPF_CORE_READ(sx, filename, uptr);
		entry_path(fs, 0, BPF_CORE_READ(sx, dfd), name, now);
	}
}

static __always_inline void close_complete(struct async_rec *rec, long res, __u64 now)
{
	struct thread_stats *ts;
	struct file_stats *fs;
	__u64 lat = now - rec->start_ns;
	bool need_path;

	hist_add(H_CLOSE_LAT, lat);
	if (res < 0)
		return;
	ts = owner_stats(rec);
	if (!ts)
		return;
	count(C_URING_CLOSES, 1);
	fs = file_entry(&rec->key, now, false, &need_path);
	close_done(ts, fs, lat, now, false, false);
}

static __always_inline int uring_complete(void *ring, struct io_kiocb *req, long res)
{
	struct async_key key = { .ring = (__u64)ring, .req = (__u64)req };
	struct async_rec *rec;
	__u64 now, file, off;

	rec = bpf_map_lookup_elem(&async_reqs, &key);
	if (!rec) {
		if (is_target() && op_kind(BPF_CORE_READ(req, opcode)) == AOP_READ)
			count_lost(L_ASYNC_UNTRACKED);
		return 0;
	}
	now = bpf_ktime_get_ns();
	switch (rec->op) {
	case AOP_READ:
		file = (__u64)BPF_CORE_READ(req, file);
		off = rec->off;
		if (off == ASYNC_POS_FILE && file && res > 0)
			off = BPF_CORE_READ((struct file *)file, f_pos) - res;
		async_read_done(rec, file, off, res, now, true);
		depth_down(key.ring);
		async_file_out(rec);
		break;
	case AOP_OPEN:
		open_complete(req, rec, res, now);
		break;
	case AOP_STATX:
		statx_complete(req, rec, res, now);
		break;
	case AOP_CLOSE:
		close_complete(rec, res, now);
		break;
	case AOP_WRITE:
	case AOP_FSYNC:
		async_write_done(rec, (__u64)BPF_CORE_READ(req, file), res, now, true);
		break;
	}
	bpf_map_delete_elem(&async_reqs, &key);
	return 0;
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(handle_uring_complete, void *ring, struct io_kiocb *req, struct io_uring_cqe *cqe)
{
	return uring_complete(ring, req, BPF_CORE_READ(cqe, res));
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(compat_uring_complete, void *ring, struct io_kiocb *req, __u64 user_data, int res)
{
	return uring_complete(ring, req, res);
}
