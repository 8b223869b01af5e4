// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * VFS/syscall layer: opens, reads, stats, closes, getdents and mmaps of the
 * target, counted per file (dev, ino), per thread and in total. Copies
 * (sendfile, copy_file_range, splice) count as reads of their source.
 * Writes, syncs and commits of regular files too (write.bpf.h).
 *
 * One program on sys_enter and one on sys_exit. The syscalls map turns a
 * syscall number into a kind, so untraced syscalls cost one array lookup.
 * Entry state (time, fd's file, offset, user pointers) waits in task
 * storage until the exit, where the result is known; the thread's counters
 * are in the same slot (thread.bpf.h).
 */
#include "maps.bpf.h"
#include "target.bpf.h"
#include "entry.bpf.h"
#include "thread.bpf.h"
#include "path.bpf.h"
#include "hist.bpf.h"
#include "file_ops.bpf.h"
#include "write.bpf.h"
#include "aio.bpf.h"
#include "recv.bpf.h"

#define AT_EMPTY_PATH	0x1000
#define MAX_ERRNO	4095
#define MAP_ANONYMOUS	0x20
#define PROT_EXEC	0x4

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* syscall number -> enum sys_kind, filled by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SYSCALL_SLOTS);
	__type(key, __u32);
	__type(value, __u8);
} syscalls SEC(".maps") __weak;	/* weak: vfs_compat.bpf.c shares it */

/*
 * The source of a copy, counted as a read of it: copy_file_range and
 * splice(fd_in, off_in *, ...), sendfile(out_fd, in_fd, offset *, ...).
 * With an offset pointer the copy starts there (the file position stays);
 * with NULL, at the file position.
 */
static __always_inline void record_copy(struct inflight *in, struct pt_regs *regs)
{
	bool sf = in->kind == SK_SENDFILE;
	struct file *file;
	__u64 uoff;
	__s64 pos = 0;

	file = fd_file(sf ? PT_REGS_PARM2_SYSCALL(regs) : PT_REGS_PARM1_SYSCALL(regs));
	uoff = sf ? PT_REGS_PARM3_SYSCALL(regs) : PT_REGS_PARM2_SYSCALL(regs);
	in->file = (__u64)file;
	if (!uoff || bpf_probe_read_user(&pos, sizeof(pos), (void *)uoff))
		pos = file ? KREAD(file, f_pos) : 0;
	in->off = pos;
}

/* bpf_find_vma()'s callback: the file mapped by the area found, 0 when anonymous. */
static long vma_file(struct task_struct *task, struct vm_area_struct *vma, void *ctx)
{
	*(__u64 *)ctx = (__u64)BPF_CORE_READ(vma, vm_file) ?: 1;
	return 0;
}

/*
 * A write or a sync of fd (SK_MSYNC: of the file mapped at addr) is traced
 * only on a regular file out of shared memory (write_file()): anything
 * else, in->kind SK_NONE, as if untraced.
 * A file not found stays traced, its exit counted lost. bpf_find_vma()
 * came in 5.17: without it an msync stays untraced.
 */
static __always_inline void record_write(struct inflight *in, struct pt_regs *regs)
{
	__u64 file = 0;

	if (in->kind != SK_MSYNC) {
		file = (__u64)fd_file(PT_REGS_PARM1_SYSCALL(regs));
	} else if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_find_vma)) {
		if (bpf_find_vma(bpf_get_current_task_btf(), PT_REGS_PARM1_SYSCALL(regs),
				 vma_file, &file, 0))
			file = 0;	/* not found: counted lost if the call succeeds */
		else if (file == 1)
			file = 2;	/* anonymous: not traced */
	} else {
		file = 2;
	}
	in->file = file > 2 ? file : 0;
	if (file == 2 || (in->file && !write_file(in->file)))
		in->kind = SK_NONE;
}

static __always_inline void record_entry(struct inflight *in, struct pt_regs *regs)
{
	struct file *file;
	__s64 pos;
	long nr;

	switch (in->kind) {
	case SK_READ:
		file = fd_file(PT_REGS_PARM1_SYSCALL(regs));
		in->file = (__u64)file;
		in->off = file ? KREAD(file, f_pos) : 0;
		break;
	case SK_PREAD:
		in->file = (__u64)fd_file(PT_REGS_PARM1_SYSCALL(regs));
		in->off = PT_REGS_PARM4_SYSCALL(regs);
		break;
	case SK_PREADV2:
		file = fd_file(PT_REGS_PARM1_SYSCALL(regs));
		in->file = (__u64)file;
		pos = PT_REGS_PARM4_SYSCALL(regs);
		if (pos == -1)
			pos = file ? KREAD(file, f_pos) : 0;
		in->off = pos;
		break;
	case SK_STAT:
		in->fd = AT_FDCWD;
		in->path = PT_REGS_PARM1_SYSCALL(regs);
		in->buf = PT_REGS_PARM2_SYSCALL(regs);
		break;
	case SK_FSTATAT:
		in->fd = PT_REGS_PARM1_SYSCALL(regs);
		in->path = PT_REGS_PARM2_SYSCALL(regs);
		in->buf = PT_REGS_PARM3_SYSCALL(regs);
		in->flags = PT_REGS_PARM4_SYSCALL(regs);
		break;
	case SK_STATX:
		in->fd = PT_REGS_PARM1_SYSCALL(regs);
		in->path = PT_REGS_PARM2_SYSCALL(regs);
		in->flags = PT_REGS_PARM3_SYSCALL(regs);
		in->buf = PT_REGS_PARM5_SYSCALL(regs);
		break;
	case SK_FSTAT:
		in->fd = PT_REGS_PARM1_SYSCALL(regs);
		in->buf = PT_REGS_PARM2_SYSCALL(regs);
		break;
	case SK_CLOSE:
	case SK_GETDENTS:
		in->file = (__u64)fd_file(PT_REGS_PARM1_SYSCALL(regs));
		break;
	case SK_MMAP:
		if (!(PT_REGS_PARM4_SYSCALL(regs) & MAP_ANONYMOUS))
			in->file = (__u64)fd_file(PT_REGS_PARM5_SYSCALL(regs));
		in->flags = PT_REGS_PARM3_SYSCALL(regs);	/* prot */
		break;
	case SK_COPY:
	case SK_SENDFILE:
		record_copy(in, regs);
		break;
	case SK_AIO_SUBMIT:
		in->path = PT_REGS_PARM1_SYSCALL(regs);		/* the context */
		nr = PT_REGS_PARM2_SYSCALL(regs);
		in->flags = nr < 0 ? 0 : nr > AIO_BATCH ? AIO_BATCH : nr;
		in->buf = PT_REGS_PARM3_SYSCALL(regs);		/* struct iocb *[] */
		break;
	case SK_AIO_GETEVENTS:
		in->path = PT_REGS_PARM1_SYSCALL(regs);
		in->buf = PT_REGS_PARM4_SYSCALL(regs);		/* struct io_event [] */
		break;
	case SK_WRITE:
	case SK_FSYNC:
	case SK_MSYNC:
		record_write(in, regs);
		break;
	}
}

/*
 * A traced syscall's entry, recorded for its exit. The second chance
 * (second: second_sys_enter, see sys_exit_run()) records only an entry
 * the main program's skipped run left unrecorded.
 */
static __always_inline int sys_enter_run(struct pt_regs *regs, long id, bool second)
{
	struct task_state *st;
	struct inflight *in;
	__u32 nr = id;
	__u8 *kind;

	kind = bpf_map_lookup_elem(&syscalls, &nr);
	if (!kind || *kind == SK_NONE || !is_target())
		return 0;
	st = task_state_of(bpf_get_current_task_btf(), true);
	if (!st) {
		if (!second)
			count_lost(L_INFLIGHT);
		return 0;
	}
	in = &st->in;
	if (second) {
		if (in->kind != SK_NONE && in->nr == nr)
			return 0;		/* recorded by the main program */
		count(C_RESCUED_ENTERS, 1);
	}
	in->kind = *kind;
	in->nr = nr;
	in->file = 0;
	in->path = 0;
	in->buf = 0;
	in->flags = 0;
	in->fd = -1;
	record_entry(in, regs);
	recv_enter(st, in->kind);
	in->ts = bpf_ktime_get_ns();
	if (in->kind == SK_AIO_SUBMIT)
		aio_submit_enter(in);
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(handle_sys_enter, struct pt_regs *regs, long id)
{
	return sys_enter_run(regs, id, false);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(second_sys_enter, struct pt_regs *regs, long id)
{
	return sys_enter_run(regs, id, true);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(third_sys_enter, struct pt_regs *regs, long id)
{
	return sys_enter_run(regs, id, true);
}

/* A read-family call's end. True when it read a pipe, a socket or a device. */
static __always_inline bool read_exit(struct inflight *in, struct thread_stats *ts,
				      long ret, __u64 lat, __u64 now)
{
	if (!in->file) {
		if (ret >= 0)
			count_lost(L_FD_UNRESOLVED);
		return false;
	}
	if (file_mode(BTF_CAST(struct file, in->file)) != S_IFREG) {
		count(C_READS_OTHER, 1);
		return true;
	}
	if (ret < 0) {
		count(C_READ_ERRORS, 1);
		return false;
	}
	read_done(ts, in->file, in->off, ret, lat, now, true, true);
	return false;
}

/* Key and mode of a stat result, from the buffer the kernel just filled. */
static __always_inline int stat_key(struct inflight *in, struct file_key *key,
				    __u32 *mode, __u64 *size)
{
	struct stat *st = (void *)in->buf;
	__u64 dev = 0;

	if (in->kind == SK_STATX)
		return statx_key((void *)in->buf, key, mode, size);
	if (bpf_probe_read_user(&key->ino, 8, &st->st_ino) ||
	    bpf_probe_read_user(mode, 4, &st->st_mode) ||
	    bpf_probe_read_user(size, 8, &st->st_size) ||
	    bpf_probe_read_user(&dev, 8, &st->st_dev))
		return -1;
	*mode &= S_IFMT;
	/* st_dev is new_encode_dev(): back to major << 20 | minor */
	key->dev = ((dev >> 8) & 0xfff) << 20 | (dev & 0xff) | ((dev >> 12) & 0xfff00);
	key->gen = 0;		/* not in a stat's result: see struct file_key */
	return 0;
}

/* Did this *stat*() name a path, or an fd (AT_EMPTY_PATH with "")? */
static __always_inline bool stat_by_fd(struct inflight *in)
{
	char c = 1;

	if (in->kind == SK_FSTAT)
		return true;
	if (in->kind == SK_STAT || !(in->flags & AT_EMPTY_PATH))
		return false;
	if (!in->path)
		return true;
	bpf_probe_read_user(&c, 1, (void *)in->path);
	return c == 0;
}

static __always_inline void stat_exit(struct inflight *in, struct thread_stats *ts,
				      long ret, __u64 lat, __u64 now)
{
	struct file_stats *fs;
	struct file_key key;
	__u64 size = 0, addr;
	__u32 mode = 0;
	bool need_path, by_fd;

	if (!stat_done(ts, ret, lat, true))
		return;
	if (stat_key(in, &key, &mode, &size)) {
		count_lost(L_STATBUF);
		return;
	}
	by_fd = stat_by_fd(in);
	addr = by_fd ? fd_file_addr(in->fd) : 0;
	if (addr)	/* the one stat whose inode is known: its generation */
		key.gen = KREAD(BTF_CAST(struct file, addr), f_inode, i_generation);
	fs = stat_file(&key, mode, size, lat, now, &need_path);
	if (!fs || !need_path)
		return;
	if (!by_fd)
		entry_path(fs, 0, in->fd, in->path, now);
	else if (addr)
		entry_path(fs, addr, 0, 0, now);
}

/*
 * A close: metadata time, but the close of the file its thread wrote last
 * commits a save (write.bpf.h): its time is write time.
 */
static __always_inline void close_exit(struct inflight *in, struct thread_stats *ts,
				       __u32 tid, long ret, __u64 lat, __u64 now)
{
	struct file_stats *fs;
	bool commits;

	hist_add(H_CLOSE_LAT, lat);
	if (!in->file || ret < 0 || !reg_or_dir(file_mode(BTF_CAST(struct file, in->file))))
		return;
	fs = entry_of_file(in->file, now, true);
	commits = close_commits(tid, in->file);
	close_done(ts, fs, lat, now, true, commits);
	if (commits)
		commit_done(tid, fs, false, lat, now);
}

/* A write or a sync of a regular file (record_write()). */
static __always_inline void write_exit(struct inflight *in, __u32 tid, long ret, __u64 lat,
				       __u64 now)
{
	if (!in->file) {
		if (ret >= 0)
			count_lost(L_FD_UNRESOLVED);
		return;
	}
	if (in->kind == SK_WRITE)
		write_done(tid, in->file, ret, lat, now, true, true);
	else
		fsync_done(tid, in->file, ret, lat, now, true, true);
}

static __always_inline void getdents_exit(struct inflight *in, struct thread_stats *ts,
					  long ret, __u64 lat, __u64 now)
{
	struct file_stats *fs;

	hist_add(H_GETDENTS_LAT, lat);
	if (!in->file || ret < 0 || !reg_or_dir(file_mode(BTF_CAST(struct file, in->file))))
		return;
	fs = entry_of_file(in->file, now, true);
	count(C_GETDENTS, 1);
	meta_done(ts, lat, true);
	if (fs) {
		__sync_fetch_and_add(&fs->getdents, 1);
		note_meta(fs, lat, now);
	}
}

/*
 * A file mapping: counted, but no metadata time (the call only maps). One
 * mapped executable is code (a shared library), not data.
 */
static __always_inline void mmap_exit(struct inflight *in, long ret, __u64 now)
{
	struct file_stats *fs;

	if (!in->file || (ret < 0 && ret >= -MAX_ERRNO))
		return;		/* anonymous, or failed */
	if (!reg_or_dir(file_mode(BTF_CAST(struct file, in->file))))
		return;
	fs = entry_of_file(in->file, now, true);
	count(C_MMAPS, 1);
	if (!fs)
		return;
	__sync_fetch_and_add(&fs->mmaps, 1);
	if (in->flags & PROT_EXEC)
		set_flag(fs, FILE_F_EXEC);
}

/*
 * A traced syscall's end, counted. On a kernel whose tracepoints run their
 * programs preemptibly (7.x) the kernel skips a run of handle_sys_exit on
 * a CPU while another is preempted there; second_sys_exit, a copy attached
 * after it (with its own recursion guard, its own private stack and its
 * own scratch: docs/kernels.md), runs for the same event and finds the
 * entry still in flight only where that run was skipped: it counts the
 * call instead, once, and the rescue (C_RESCUED_EXITS).
 */
static __always_inline int sys_exit_run(struct pt_regs *regs, long ret, bool second)
{
	struct task_struct *task;
	struct thread_stats *ts;
	struct task_state *st;
	struct inflight *in;
	bool other = false;
	__u64 now, lat;

	/*
	 * A process outside the target pays a bit test (its syscalls never
	 * left anything in flight); a target's task that entered a traced
	 * call has a slot.
	 */
	if (targ_mode == TARGET_PIDS && !tgid_in_targets(bpf_get_current_pid_tgid() >> 32))
		return 0;
	task = bpf_get_current_task_btf();
	st = task_state_of(task, false);
	if (!st || st->in.kind == SK_NONE)
		return 0;
	in = &st->in;
	/*
	 * Another syscall's exit: this one's entry was recorded, its exit not
	 * (a run the kernel skipped, counted as such). Its entry is dropped, never
	 * taken for this call's.
	 */
	if (in->nr != SYSCALL_NR(regs)) {
		in->kind = SK_NONE;
		return 0;
	}
	if (second)
		count(C_RESCUED_EXITS, 1);	/* the main program's run was skipped */
	now = bpf_ktime_get_ns();
	lat = now - in->ts;
	ts = thread_of(st, task);

	switch (in->kind) {
	case SK_OPEN:
	case SK_OPENAT:
		open_done(ts, ret, true, lat, now, true);
		break;
	case SK_READ:
	case SK_PREAD:
	case SK_PREADV2:
	case SK_COPY:
	case SK_SENDFILE:
		other = read_exit(in, ts, ret, lat, now);
		break;
	case SK_STAT:
	case SK_FSTATAT:
	case SK_FSTAT:
	case SK_STATX:
		stat_exit(in, ts, ret, lat, now);
		break;
	case SK_CLOSE:
		close_exit(in, ts, task->pid, ret, lat, now);
		break;
	case SK_WRITE:
	case SK_FSYNC:
	case SK_MSYNC:
		write_exit(in, task->pid, ret, lat, now);
		break;
	case SK_RENAME:
		if (!ret)
			commit_done(task->pid, NULL, true, lat, now);
		break;
	case SK_GETDENTS:
		getdents_exit(in, ts, ret, lat, now);
		break;
	case SK_MMAP:
		mmap_exit(in, ret, now);
		break;
	case SK_AIO_SUBMIT:
		aio_submit_exit(in, ret);
		ts->read_ns += lat;	/* a buffered AIO read is done in the call */
		break;
	case SK_AIO_GETEVENTS:
		aio_getevents_exit(in, ret, now);
		ts->read_ns += lat;	/* the wait for the reads */
		break;
	case SK_URING_ENTER:
		ts->read_ns += lat;	/* submitting (reads issued inline) and waiting */
		break;
	}
	/* A regular file's read pays one test; a close or an mmap, one outside a burst. */
	if (other || (st->recv.start && (in->kind == SK_CLOSE || in->kind == SK_MMAP)))
		recv_note(st, task->pid, in->kind, in->file, ret, in->ts, now);
	in->kind = SK_NONE;
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(handle_sys_exit, struct pt_regs *regs, long ret)
{
	return sys_exit_run(regs, ret, false);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(second_sys_exit, struct pt_regs *regs, long ret)
{
	return sys_exit_run(regs, ret, true);
}

/*
 * And a third: a run is lost only where all three were skipped on that
 * CPU (in the 7.2 guest under TCG, where a run is slow and often
 * preempted, two copies still lost some: docs/kernels.md).
 */
SEC("tp_btf/sys_exit")
int BPF_PROG(third_sys_exit, struct pt_regs *regs, long ret)
{
	return sys_exit_run(regs, ret, true);
}
