/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Receiving data from other threads: the CPU a training loop spends taking
 * a batch from its loader, which its own clock around next() counts as
 * waiting and the scheduler sees as computing. A PyTorch loop reads the
 * batch's message from a pipe, then per tensor shakes hands with the
 * worker over a unix socket, takes a shared memory fd (SCM_RIGHTS) and
 * maps it: a burst of syscalls on pipes, sockets and tmpfs files, each
 * within RECV_GAP_NS of the one before, then the step's compute.
 *
 * A burst starts at the entry of a read of a pipe or socket that returns
 * data, goes on with each such read and each close or mmap of a pipe, a
 * socket or a tmpfs file that comes within RECV_GAP_NS of the last (the
 * time preempted between them apart: a loop short of CPU is still taking
 * its batch), and ends at the first that comes later (or never: a
 * thread's last burst is not counted). Its time asleep is the sleeps' (loader wait), not its own;
 * its time runnable is kept apart. Of that sleep, the part in its socket
 * reads after the first is kept apart too (shake_ns): the round trips of
 * the handshakes, the sender answering a request, where the first read's
 * sleep (and a later pipe read's, a next batch's message) waits for the
 * data to be made. sched.bpf.c adds every stretch off CPU
 * to the pending figures; a read that may start a burst zeroes them at its
 * entry, and each syscall of a burst takes them in.
 * Per thread, for its life, in recv_threads (its entry deleted at the
 * drain after its exit, collect/drain.c); model/stall_split.c counts a
 * loop's as data wait.
 */
#ifndef RECV_BPF_H
#define RECV_BPF_H

#include "maps.bpf.h"
#include "path.bpf.h"

#define RECV_GAP_NS	1000000ULL	/* Python's work between two syscalls of one batch: < 0.1 ms */
#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC	0x01021994
#endif

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct recv_thread);
} recv_threads SEC(".maps") __weak;	/* weak: vfs_compat.bpf.c shares it */

/*
 * File's type if it is a pipe or a socket, or (not for a read) a shared
 * memory file (S_IFREG); else 0.
 */
static __always_inline __u32 recv_file(__u64 file, bool read)
{
	struct file *f = BTF_CAST(struct file, file);
	__u32 mode;

	if (!file)
		return 0;
	mode = file_mode(f);
	if (mode == S_IFIFO || mode == S_IFSOCK)
		return mode;
	return !read && mode == S_IFREG &&
	       KREAD(f, f_inode, i_sb, s_magic) == TMPFS_MAGIC ? mode : 0;
}

/* The burst r of thread tid is over: its time on CPU and runnable to recv_threads. */
static __noinline void recv_flush(__u32 tid, struct recv_state *r)
{
	struct recv_thread zero = {}, *rt;
	__u64 wall = r->last - r->start, off = r->sleep_ns + r->runq_ns;

	rt = map_lookup_or_init(&recv_threads, &tid, &zero);
	if (!rt) {
		count_lost(L_RECV_FULL);
		return;
	}
	rt->bursts++;		/* one writer: the thread itself */
	rt->cpu_ns += wall > off ? wall - off : 0;
	rt->runq_ns += r->runq_ns;
	rt->shake_ns += r->shake_ns;
}

/*
 * A traced syscall of kind on file (0: none) entered at enter returned ret
 * at now: start, extend or end the thread's burst.
 */
static __always_inline void recv_note(struct task_state *st, __u32 tid, __u8 kind,
				      __u64 file, long ret, __u64 enter, __u64 now)
{
	struct recv_state *r = &st->recv;
	bool read = kind == SK_READ || kind == SK_PREAD;
	__u32 mode;

	if (!(read && ret > 0) && kind != SK_CLOSE && kind != SK_MMAP)
		return;
	mode = recv_file(file, read);
	if (!mode)
		return;
	if (r->start && enter - r->last > RECV_GAP_NS + r->runq_pend) {
		recv_flush(tid, r);
		r->start = 0;
		if (read) {		/* pending since the old burst: from this exit on */
			r->start = now;
			r->sleep_ns = r->runq_ns = r->shake_ns = 0;
		}
	} else if (!r->start) {
		if (!read)
			return;		/* a burst starts with data */
		r->start = enter;	/* pending since this read's entry */
		r->sleep_ns = r->sleep_pend;
		r->runq_ns = r->runq_pend;
		r->shake_ns = 0;
	} else {
		r->sleep_ns += r->sleep_pend;
		r->runq_ns += r->runq_pend;
		if (read && mode == S_IFSOCK)
			r->shake_ns += r->sleep_pend;
	}
	r->sleep_pend = r->runq_pend = 0;
	r->last = now;
}

/* A read may start a burst: its time off CPU counts from its entry. */
static __always_inline void recv_enter(struct task_state *st, __u8 kind)
{
	if ((kind == SK_READ || kind == SK_PREAD) && !st->recv.start)
		st->recv.sleep_pend = st->recv.runq_pend = 0;
}

#endif /* RECV_BPF_H */
