/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Structures and enums shared by the BPF programs and user space.
 * Fixed-width types only, explicit padding, no includes: both sides see
 * exactly the same layout.
 */
#ifndef IOSTORM_H
#define IOSTORM_H

/* Scope of the trace: which tasks count as the target. */
enum target_mode {
	TARGET_PIDS = 0,	/* tgids in the targets bitmap, followed over fork */
	TARGET_ALL = 1,		/* every task but iostorm itself */
	TARGET_CGROUP = 2,	/* tasks in the cgroup v2 targ_cgid or below it */
};

/*
 * The targets map (TARGET_PIDS) is a bitmap with a bit for every possible
 * tgid: PID_MAX_LIMIT on 64-bit kernels is 4M, so 512 KiB. A bit test is an
 * inlined array load, cheap enough to run first in every program, and a
 * bitmap cannot fill up. Bit (tgid & 63) of word (tgid >> 6).
 */
#define TARGET_PID_LIMIT	(1U << 22)
#define TARGET_WORDS		(TARGET_PID_LIMIT / 64)

/*
 * Linux's struct_group_tagged() (include/linux/stddef.h): the members are
 * named in the enclosing struct as before, and are also one struct TAG
 * called NAME, which user space embeds in its records and sums with one
 * add function (model/counters.h): the counter list is spelled once, here.
 */
#define IOSTORM_GROUP(TAG, NAME, ...)					\
	union {								\
		struct { __VA_ARGS__ };					\
		struct TAG { __VA_ARGS__ } NAME;			\
	}

/*
 * Log-linear histogram: values below 16 get a slot each; above, each power
 * of two is cut into 16 equal sub-buckets, so a value is known to within
 * 1/16 (6.25%) of itself. 64-bit values need (64 - 4 + 1) * 16 slots.
 */
#define HIST_SUB_BITS	4
#define HIST_SUB	(1 << HIST_SUB_BITS)
#define HIST_SLOTS	((64 - HIST_SUB_BITS + 1) * HIST_SUB)

struct hist {
	__u64 slots[HIST_SLOTS];
};

enum hist_id {
	H_READ_LAT = 0,		/* ns, read-family syscalls on regular files */
	H_READ_SIZE,		/* bytes returned per read call */
	H_OPEN_LAT,		/* ns, open/openat/openat2 */
	H_STAT_LAT,		/* ns, stat family */
	H_CLOSE_LAT,		/* ns, close of files */
	H_GETDENTS_LAT,		/* ns, getdents64 */
	H_BLK_QUEUE_LAT,	/* ns, block request insert -> issue */
	H_BLK_DEV_LAT,		/* ns, issue -> complete */
	H_BLK_TOTAL_LAT,	/* ns, start -> complete */
	H_BLK_SIZE,		/* bytes per completed request */
	H_BLK_INFLIGHT,		/* requests in flight at issue */
	H_URING_LAT,		/* ns, io_uring read: submit -> completion */
	H_AIO_LAT,		/* ns, Linux AIO read: io_submit -> reaped by io_getevents */
	H_ASYNC_DEPTH,		/* reads in flight on the ring or AIO context at submit */
	H_WRITE_LAT,		/* ns, write-family calls and async writes of regular files */
	H_FSYNC_LAT,		/* ns, fsync, fdatasync, sync_file_range, msync of a file mapping */
	H__MAX,
};

/*
 * How the BPF side reads a traced syscall's arguments. User space fills the
 * syscalls map (syscall number -> kind) from <sys/syscall.h>, so the BPF
 * object carries no architecture's syscall numbers.
 */
enum sys_kind {
	SK_NONE = 0,
	SK_OPEN,		/* open(path, flags, mode) */
	SK_OPENAT,		/* openat(dfd, path, ...), openat2(dfd, path, ...) */
	SK_READ,		/* read(fd, ...), readv(fd, ...): at the file position */
	SK_PREAD,		/* pread64, preadv(fd, ..., pos) */
	SK_PREADV2,		/* preadv2(fd, iov, n, pos, ...): pos -1 = position */
	SK_STAT,		/* newstat, newlstat(path, buf) */
	SK_FSTATAT,		/* newfstatat(dfd, path, buf, flags) */
	SK_FSTAT,		/* newfstat(fd, buf) */
	SK_STATX,		/* statx(dfd, path, flags, mask, buf) */
	SK_CLOSE,		/* close(fd) */
	SK_GETDENTS,		/* getdents64(fd, ...) */
	SK_MMAP,		/* mmap(addr, len, prot, flags, fd, off) */
	SK_COPY,		/* copy_file_range, splice(fd_in, *off_in, ...): read of fd_in */
	SK_SENDFILE,		/* sendfile(out_fd, in_fd, *offset, count): read of in_fd */
	SK_AIO_SUBMIT,		/* io_submit(ctx, nr, iocb **) */
	SK_AIO_GETEVENTS,	/* io_getevents, io_pgetevents(ctx, min, nr, events *, ...) */
	SK_URING_ENTER,		/* io_uring_enter: only its wait (requests: uring.bpf.c) */
	/*
	 * Writes (write.bpf.h): each traced only when its fd is a regular
	 * file's (a pipe's or a socket's write stays untraced: a sleep in it
	 * is charged to whoever ends it, sched.bpf.c).
	 */
	SK_WRITE,		/* write, writev, pwrite64, pwritev, pwritev2(fd, ...) */
	SK_FSYNC,		/* fsync, fdatasync, sync_file_range(fd, ...) */
	SK_MSYNC,		/* msync(addr, len, flags): of the file mapped at addr */
	SK_RENAME,		/* rename, renameat, renameat2: a save's commit */
	SK__MAX,
};

#define SYSCALL_SLOTS	1024	/* syscall numbers mapped, 0 .. SYSCALL_SLOTS-1 */

/* Global counters, one per-CPU array slot; user space sums the CPUs. */
enum counter {
	C_OPENS = 0,		/* successful opens of anything */
	C_OPEN_ERRORS,
	C_OPENS_OTHER,		/* opens of neither regular file nor directory */
	C_READS,		/* read calls on regular files, EOF reads too */
	C_READ_BYTES,
	C_READ_NS,
	C_READ_ERRORS,
	C_READS_OTHER,		/* reads of pipes, sockets, devices: not counted */
	C_STATS,
	C_STAT_ERRORS,
	C_CLOSES,
	C_GETDENTS,
	C_MMAPS,		/* mmaps of regular files */
	C_FAULTS,		/* page-cache faults on file mappings */
	C_FAULT_READS,		/* of those, faults that read pages from storage */
	C_FAULT_PAGES,		/* pages those faults added to the page cache */
	C_FAULT_NS,		/* D-state wait outside syscalls after a file fault */
	C_CACHE_PAGES,		/* pages added to the page cache by the target */
	C_DEVICE_PAGES,		/* of those, to a block device's own (FILE_KEY_DEVICE) */
	C_META_NS,		/* open + stat + close + getdents time */
	C_FORKS,		/* processes that joined the target by fork */
	C_EXITS,		/* target processes that exited */
	C_FILE_ENTRIES,		/* per-file entries created in the kernel maps */
	/*
	 * Reads through io_uring and Linux AIO, of regular files: in C_READS,
	 * C_READ_BYTES and C_READ_NS too, which they are a part of.
	 */
	C_URING_READS,
	C_URING_READ_BYTES,
	C_AIO_READS,
	C_AIO_READ_BYTES,
	C_ASYNC_SUBMITS,	/* reads submitted through either, tracked to completion */
	C_ASYNC_DEPTH_SUM,	/* their depth at submit (H_ASYNC_DEPTH), summed */
	C_URING_OPENS,		/* IORING_OP_OPENAT(2): in C_OPENS too */
	C_URING_STATS,		/* IORING_OP_STATX: in C_STATS too */
	C_URING_CLOSES,		/* IORING_OP_CLOSE: in C_CLOSES too */
	C_ASYNC_FILE_LATE,	/* async reads whose file was known only at completion:
				 * in their file's async_reads, not in its depth */
	/*
	 * Writes of regular files (write.bpf.h): write-family calls and
	 * io_uring and AIO writes; the syncs that wait for them to reach
	 * storage; the calls that commit a save (renames, a close of the
	 * file its thread wrote last).
	 */
	C_WRITES,
	C_WRITE_BYTES,
	C_WRITE_NS,
	C_WRITE_ERRORS,		/* failed writes and syncs of regular files */
	C_FSYNCS,		/* fsync, fdatasync, sync_file_range, msync of a file mapping */
	C_FSYNC_NS,
	C_COMMITS,		/* closes of a file by the thread that wrote it last */
	C_COMMIT_NS,		/* the commits' and the renames' time */
	C_RENAMES,
	C_URING_WRITES,		/* io_uring writes: in C_WRITES and C_WRITE_BYTES too */
	C_URING_WRITE_BYTES,
	C_AIO_WRITES,		/* Linux AIO writes: likewise */
	C_AIO_WRITE_BYTES,
	C_RESCUED_ENTERS,	/* syscall entries and exits a skipped run left, */
	C_RESCUED_EXITS,	/* counted by their second chance (second_sys_*, vfs.bpf.c) */
	C__MAX,
};

/* Errno values of failed opens, counted per value; larger ones share the last. */
#define ERRNO_SLOTS	136

/* Events that could not be recorded. Each is reported with its count. */
enum lost_reason {
	L_FILES_FULL = 0,	/* per-file map full: the event is in totals only */
	L_THREADS_FULL,		/* per-thread map full */
	L_INFLIGHT,		/* no task storage: a syscall, a switch, pages not counted */
	L_FD_UNRESOLVED,	/* fd -> file walk failed on a traced read */
	L_STATBUF,		/* stat buffer unreadable: stat in totals only */
	L_BLK_REQS_FULL,	/* blk_reqs full: a request not timed */
	L_BLK_STATS_FULL,	/* blk_stats full: a completion not counted */
	L_BLK_HISTS_FULL,	/* blk_hists full: a latency not in its histogram */
	L_BLK_DEVS_FULL,	/* blk_devs full: no busy time, no sequentiality */
	L_BLK_MISSED_FULL,	/* blk_missed full: a missed start or end not counted */
	L_WAKES_FULL,		/* wakes full: a sleep not attributed to its waker */
	L_FUSE_REQS_FULL,	/* fuse_reqs full: a FUSE request not timed */
	L_FUSE_STATS_FULL,	/* fuse_stats full: a FUSE completion not counted */
	L_FUSE_HISTS_FULL,	/* fuse_hists full: a value not in its histogram */
	L_FUSE_CONNS_FULL,	/* fuse_conns full: a request's in-flight count not kept */
	L_FUSE_ENDS_MISSED,	/* a FUSE request that never ended (killed while queued) */
	L_ASYNC_FULL,		/* async_reqs full: an io_uring or AIO request not tracked */
	L_ASYNC_UNTRACKED,	/* a read completed whose submit was not seen (before the attach) */
	L_AIO_BATCH,		/* iocbs of one io_submit beyond the AIO_BATCH read: not tracked */
	L_ASYNC_THREADS_FULL,	/* async_threads full: a thread's async reads not in its figures */
	L_ASYNC_FILES_FULL,	/* async_files full: a file's async read not in its figures */
	L_FORKS_FULL,		/* forks full: a process's parent, exec or exit not kept */
	L_RECV_FULL,		/* recv_threads full: a thread's receive bursts not kept */
	L_NFS_STATS_FULL,	/* nfs_stats full: an NFS call's end not counted */
	L_NFS_HISTS_FULL,	/* nfs_hists full: a value not in its histogram */
	L_NFS_CLNTS_FULL,	/* nfs_clnts full: an RPC client's calls in flight not kept */
	L_WRITE_THREADS_FULL,	/* write_threads full: a thread's writes not in its figures */
	L_ASYNC_FILE_SUMS_FULL,	/* async_file_sums full: a file's async read not in its figures */
	L_SCRATCH_BUSY,		/* every scratch buffer of the CPU held by preempted runs: a path not resolved, an AIO read not tracked */
	L__MAX,
};

/* Block layer. Requests are counted per (device, operation, submitter). */
enum blk_op {
	BLK_READ = 0,
	BLK_WRITE,
	BLK_FLUSH,
	BLK_DISCARD,
	BLK_OTHER,
	BLK__MAX,
};

/* Who submitted a request: taken at block_io_start, in the submitter. */
enum blk_who {
	WHO_TARGET = 0,
	WHO_KTHREAD,		/* writeback, kworkers, loop and md threads */
	WHO_OTHER,		/* any other process */
	WHO__MAX,
};

/*
 * A request between block_io_start and block_io_done, keyed by its
 * address. User space reads those left at the end: still in flight, or
 * whose completion the programs did not see.
 */
struct blk_req {
	__u64 start_ns;
	__u64 issue_ns;
	__u64 bytes;		/* completed so far */
	__u32 dev;
	__u8 op;		/* enum blk_op */
	__u8 who;		/* enum blk_who */
	__u8 seq;
	__u8 issued;
	__u8 idle;		/* no longer in flight: busy time stepped down */
	__u8 pad[7];
};

/* Which event of a request never reached the programs (blk_missed's .who). */
enum blk_miss {
	MISS_START = 0,		/* completed after the attach, start not seen */
	MISS_DONE = 1,		/* its address started anew: completion not seen */
};

struct blk_key {
	__u32 dev;		/* whole disk: major << 20 | minor */
	__u8 op;		/* enum blk_op */
	__u8 who;		/* enum blk_who */
	__u16 pad;
};

/*
 * Per (device, op, who) counts of completed requests. Only requests the
 * kernel accounts in /proc/diskstats (RQF_IO_STAT, not a flush sequence
 * step) are counted, so reqs and bytes match it exactly.
 * queue_ns + device_ns == total_ns for every request.
 */
struct blk_stats {
	__u64 reqs;
	__u64 bytes;		/* completed bytes (diskstats sectors * 512) */
	__u64 total_ns;		/* block_io_start -> block_io_done */
	__u64 queue_ns;		/* block_io_start -> block_rq_issue */
	__u64 device_ns;	/* block_rq_issue -> block_io_done */
	__u64 seq;		/* started where the device's previous issue ended */
	__u64 small;		/* of at most BLK_SMALL bytes */
	__u64 merged;		/* requests merged into another (not in reqs) */
};

#define BLK_SMALL	(128 * 1024)

/* Block latency and size histograms, per (device, op, hist, scope). */
enum blk_scope {
	BLK_SCOPE_DEVICE = 0,	/* every request of the device */
	BLK_SCOPE_TARGET = 1,	/* the target's requests */
};

struct blk_hist_key {
	__u32 dev;
	__u8 op;
	__u8 hist;		/* H_BLK_* */
	__u8 scope;		/* enum blk_scope */
	__u8 pad;
};

/*
 * Per-device state. busy_ns is the time with at least one request in
 * flight (iostat's %util), for the device and for the target's requests.
 */
struct blk_dev_info {
	__u32 lock;		/* struct bpf_spin_lock on the BPF side */
	__u32 inflight[2];	/* enum blk_scope */
	__u32 pad;
	__u64 since[2];		/* when inflight last became non-zero */
	__u64 busy_ns[2];
	__u64 next_sector;	/* where the previous issue ended */
	char name[32];
};

/*
 * FUSE requests, counted per (connection, opcode, who) at
 * fuse_request_end. The requester is taken at fuse_request_send, in its
 * own context; the end runs in the daemon's.
 */
enum fuse_who {
	FUSE_WHO_TARGET = 0,
	FUSE_WHO_BACKGROUND,	/* sent by a kernel thread, or a background
				 * request (readahead, release) sent from
				 * another task's context: requester unknown */
	FUSE_WHO_OTHER,		/* sent by any other process */
	FUSE_WHO_UNTRACKED,	/* ended, send not seen: sent before the attach */
	FUSE_WHO__MAX,
};

/* Connection: the FUSE device number, the s_dev of its mount. */
struct fuse_key {
	__u32 conn;		/* kernel encoding: major << 20 | minor */
	__u16 opcode;		/* FUSE_LOOKUP ... (CUSE_INIT and above: 0xffff) */
	__u8 who;		/* enum fuse_who */
	__u8 pad;
};

#define FUSE_IN_HDR	40	/* struct fuse_in_header */
#define FUSE_OUT_HDR	16	/* struct fuse_out_header */

struct fuse_stats {
	__u64 reqs;		/* ended */
	__u64 in_bytes;		/* request payload, headers not counted */
	__u64 out_bytes;	/* reply payload: for READ, the bytes read */
	__u64 total_ns;		/* send -> end */
	__u64 errors;		/* replies with an error (ENOENT, ENOSYS...) */
	__u64 background;	/* of reqs, background requests (FR_BACKGROUND) */
	__u64 inflight_sum;	/* requests in flight on the connection at send */
};

/* A request between send and end, keyed by (its address, conn). */
struct fuse_req_key {
	__u64 req;		/* the struct fuse_req's address, unique in flight; not its
				   unique id, which some kernels (Debian's 6.12) assign
				   after fuse_request_send has fired, 0 there */
	__u32 conn;
	__u32 pad;
};

struct fuse_req_rec {
	__u64 start_ns;
	__u32 conn;
	__u32 in_bytes;
	__u32 inflight;		/* on the connection at send, this one included */
	__u16 opcode;
	__u8 who;		/* enum fuse_who */
	__u8 background;
};

enum fuse_hist_id {
	FUSE_H_LAT = 0,		/* ns, send -> end */
	FUSE_H_INFLIGHT,	/* requests in flight on the connection at send */
	FUSE_H__MAX,
};

enum fuse_scope {
	FUSE_SCOPE_CONN = 0,	/* every request of the connection */
	FUSE_SCOPE_TARGET = 1,	/* the target's requests */
	FUSE_SCOPE__MAX,
};

struct fuse_hist_key {
	__u32 conn;
	__u16 opcode;
	__u8 hist;		/* enum fuse_hist_id */
	__u8 scope;		/* enum fuse_scope */
};

/*
 * NFS: every call an NFS client (NFSv3, v4.x) makes, per RPC client and
 * procedure, counted where sunrpc counts it for /proc/self/mountstats
 * (rpc_stats_latency, with its queue, round-trip and total times). The
 * requester is taken at rpc_task_begin, in its own context; the call may
 * end in rpciod's.
 */
enum nfs_who {
	NFS_WHO_TARGET = 0,
	NFS_WHO_CLIENT,		/* sent by a kernel thread: the NFS client's own
				 * (rpciod, nfsiod, the NFSv4 state manager,
				 * writeback), requester unknown */
	NFS_WHO_OTHER,		/* sent by any other process */
	NFS_WHO_UNTRACKED,	/* ended, begin not seen: begun before the attach */
	NFS_WHO__MAX,
};

#define NFS_PROGRAM	100003	/* the NFS RPC program; others (mount, lock, ACL) not counted */
#define NFS_PROCS	64	/* procedure indices kept, 0 .. NFS_PROCS-1 (NFSv4.2: ~60) */
#define NFS_PROC_NAME	24

/* An RPC client (struct rpc_clnt): one per NFS mount, and one per server the client talks to. */
struct nfs_key {
	__u32 clid;		/* rpc_clnt.cl_clid */
	__u16 proc;		/* the procedure's p_statidx: its line in mountstats */
	__u8 who;		/* enum nfs_who */
	__u8 pad;
};

/*
 * Per (clid, proc, who), the figures of mountstats' per-op line: ops,
 * trans, timeouts, bytes sent and received, queue, rtt, execute, errors.
 */
struct nfs_stats {
	__u64 calls;		/* ended (mountstats' ops) */
	__u64 trans;		/* transmissions, at least 1 a call (its trans) */
	__u64 timeouts;		/* major timeouts */
	__u64 bytes_sent;	/* request bytes sent, RPC header included */
	__u64 bytes_recv;	/* reply bytes received */
	__u64 queue_ns;		/* begin -> first transmission (its backlog) */
	__u64 rtt_ns;		/* last transmission -> reply */
	__u64 total_ns;		/* begin -> end (its execute) */
	__u64 errors;		/* ended with a negative status */
	__u64 async;		/* sent asynchronously (RPC_TASK_ASYNC): READ for the
				 * page cache and readahead, CLOSE...: the sender
				 * did not wait in the call */
	__u64 inflight_sum;	/* calls in flight on the RPC client at begin */
};

/* A call between rpc_task_begin and its end, keyed by the rpc_task's address. */
struct nfs_call {
	__u32 clid;
	__u32 inflight;		/* on the RPC client at begin, this one included */
	__u16 proc;		/* at begin (the end's may differ: OPEN -> OPEN_NOATTR) */
	__u8 who;		/* enum nfs_who */
	__u8 running;		/* begun, rpc_task_end not seen */
	__u8 async;
	__u8 pad[3];
};

/*
 * What an RPC client is (nfs_clnts, keyed by clid): the program, version
 * and server address from the client itself at its first call; the mount
 * (s_dev) and role from the NFS client's own tracepoints, which reach the
 * mount's superblock.
 */
enum nfs_role {
	NFS_ROLE_UNKNOWN = 0,	/* no NFS event of a mount named it yet */
	NFS_ROLE_MOUNT,		/* a mount's own (nfs_server.client) */
	NFS_ROLE_CLIENT,	/* the NFS client's, shared by the server's mounts
				 * (nfs_client.cl_rpcclient: NFSv4's lease and session calls) */
};

struct nfs_clnt {
	__u64 inflight;		/* calls begun, not ended */
	__u32 dev;		/* the mount's s_dev (NFS_ROLE_MOUNT), else 0 */
	__u32 parent;		/* clid of the client it was cloned from; its own when none */
	__u32 prog;
	__u32 vers;
	__u32 minor;		/* NFSv4 minor version, when a mount named it */
	__u32 nconnect;		/* connections to the server, when known; 0 when not */
	__u8 role;		/* enum nfs_role */
	__u8 pad[3];
	__u32 addrlen;
	__u8 addr[28];		/* the server's sockaddr (sockaddr_in or _in6) */
	__u32 pad2;
};

struct nfs_proc_key {
	__u32 vers;
	__u32 proc;
};

struct nfs_proc_name {
	char name[NFS_PROC_NAME];	/* the kernel's p_name: "READ", "LOOKUP" */
};

enum nfs_hist_id {
	NFS_H_QUEUE = 0,	/* ns, begin -> first transmission */
	NFS_H_RTT,		/* ns, transmission -> reply */
	NFS_H_TOTAL,		/* ns, begin -> end */
	NFS_H_INFLIGHT,		/* calls in flight on the RPC client at begin */
	NFS_H__MAX,
};

enum nfs_scope {
	NFS_SCOPE_CLNT = 0,	/* every call of the RPC client */
	NFS_SCOPE_TARGET = 1,	/* the target's calls */
	NFS_SCOPE__MAX,
};

struct nfs_hist_key {
	__u32 clid;
	__u16 proc;
	__u8 hist;		/* enum nfs_hist_id */
	__u8 scope;		/* enum nfs_scope */
};

#define PATH_LEN	256	/* tail kept when longer: FILE_F_TRUNC set */
#define COMM_LEN	16

/*
 * A file: its inode number, its file system's device, and the inode's
 * generation (i_generation), which ext4, XFS, btrfs and tmpfs set
 * anew each time they allocate an inode: a number freed and used again
 * names another file, with another generation (docs/measurement.md). gen
 * is 0 where the file system keeps none, and where the event names no
 * inode (a stat by name: user space gives it to the inode's life, see
 * store__merge_file()). Device 0, which no file system has, keys a block
 * device's own page cache (FILE_KEY_DEVICE): ino is then the block device
 * (kernel encoding), and the entry counts the pages its file systems read
 * through it (ext4's inode tables, directory and extent blocks) or a raw
 * read of the device added.
 */
struct file_key {
	__u64 ino;
	__u32 dev;		/* kernel encoding: major << 20 | minor */
	__u32 gen;		/* i_generation; 0: none, or not known */
};

#define FILE_KEY_DEVICE	0	/* file_key.dev of a block device's own cache */

enum file_flags {
	FILE_F_PATH = 1,	/* path[] holds an absolute path */
	FILE_F_TRUNC = 2,	/* path[] is the tail of a longer path */
	FILE_F_READ = 4,	/* first_off is valid: a read happened this interval */
	FILE_F_DIR = 8,
	FILE_F_REG = 16,
	FILE_F_RELPATH = 32,	/* path[] came from a stat: may hold "." and ".." */
	FILE_F_CLAIM = 64,	/* a program is resolving the path (BPF only) */
	FILE_F_EXEC = 128,	/* mapped with PROT_EXEC: code (a library, a binary) */
	FILE_F_ANCHOR = 256,	/* anchor and anchor_len are valid */
};

/*
 * Per-file counters for one drain interval. Reads are classified as Darshan
 * does, against the end of the previous read of the same file: consecutive
 * when the read starts where the previous one ended, sequential when it
 * starts at or beyond it (consecutive included), else random. The first read
 * of an interval has no predecessor in the kernel: its offset is kept in
 * first_off and user space classifies it against the previous interval.
 */
struct file_stats {
	/*
	 * The file's key (BPF; see bpf/table.h): key_ino is the file's
	 * ino ^ SLOT_INO_FLIP, key_dev its ~dev, key_gen (below: no room
	 * here) its generation. Written when the entry is taken, before a
	 * slot of the files index points here; key_ino 0 marks an entry taken
	 * and not used (a hole). User space reads the key from here.
	 */
	__u64 key_ino;
	__u32 key_dev;
	__u32 flags;		/* enum file_flags */
	/* What every read writes: with the key, the entry's first 64 bytes. */
	__u64 last_end;		/* offset + bytes of the last read */
	__u64 max_end;		/* highest byte read + 1 */
	__u64 read_ns_max;
	__u64 size;		/* i_size at the last access */
	__u64 last_ts;
	__u64 first_ts;		/* ns, CLOCK_MONOTONIC (bpf_ktime_get_ns) */
	/*
	 * The counts user space sums over intervals (struct file_counters);
	 * the first eight, a read's among them, are the second cache line.
	 */
	IOSTORM_GROUP(file_counters, c,
		__u64 opens;
		__u64 closes;
		__u64 stats;
		__u64 reads;
		__u64 read_bytes;
		__u64 read_ns;
		__u64 reads_consec;	/* of reads after the interval's first */
		__u64 reads_seq;
		__u64 meta_ns;		/* open + stat + close + getdents time */
		__u64 getdents;
		__u64 mmaps;
		__u64 faults;
		__u64 cache_pages;
		/*
		 * Faults that read from storage (major faults), classified as
		 * reads are: sequential when the faulting page lies from the
		 * previous such fault's page to the end of what it brought in,
		 * else random. The interval's first has no predecessor and is
		 * in neither class.
		 */
		__u64 fault_reads;
		__u64 fault_pages;	/* pages they added to the page cache */
		__u64 fault_seq;
		__u64 fault_rand;
		__u64 fault_ns;		/* D-state wait of the faulting threads */
		/* Writes, syncs and commits of the file (see struct write_counters). */
		__u64 writes;
		__u64 write_bytes;
		__u64 write_ns;
		__u64 fsyncs;
		__u64 fsync_ns;
		__u64 commits;		/* closes of it after its thread wrote it (no
					 * renames: a rename names no file a tracepoint sees) */
		__u64 commit_ns;
	);
	/* Cold: written once per file and interval, or by rarer events. */
	__u64 first_off;	/* offset of the interval's first read */
	__u64 first_end;	/* first_off + its bytes */
	__u64 fault_prev;	/* BPF only: the previous major fault's page */
	__u64 fault_end;	/* BPF only: the end of what it brought in; 0 none */
	__u64 read_ts;		/* the interval's first read; 0 without */
	/*
	 * The view path[] is in: the resolving task's root (its chroot or
	 * pivot_root) and mount namespace. Its last anchor_len bytes lie below
	 * the dentry anchor in the file system (struct anchor_path has where
	 * that dentry is), so user space finds the host's path from the host's
	 * mountinfo. tgid is a process of the view, for its own mountinfo.
	 */
	__u64 anchor;		/* dentry address, a key of the anchors map */
	__u64 root;		/* the task's root dentry, a key of anchors too */
	__u32 anchor_len;
	__u32 mnt_ns;		/* inode number of the task's mount namespace */
	__u32 tgid;
	__u32 root_dev;		/* s_dev of the root's file system */
	__u32 path_len;
	__u32 key_gen;		/* the key's gen (struct file_key), as written */
	char path[PATH_LEN];
};

/*
 * Entries are taken in order, one after another (bpf/table.h), not at a
 * hashed place: no padding to whole cache lines, as a slot had, since the
 * next entry is the next one taken.
 */
_Static_assert(sizeof(struct file_stats) == 600, "file_stats: 600 bytes (README Memory)");
_Static_assert(__builtin_offsetof(struct file_stats, c) == 64, "file_stats: counters after 64");

/*
 * A CPU's chunk of entries of the files table (bpf/table.h): word is
 * end << 32 | next, absolute indices into files, handed out by a
 * fetch-and-add on it, so that tasks that preempt one another on the CPU
 * each get their own; gen is the drain generation it was taken in.
 */
struct file_chunk {
	__u64 word;
	__u32 gen;
	__u32 pad;
};

/*
 * Entries of a half of the files table taken so far, the programs' fetch
 * and add (bpf/table.h): one per half, each on a cache line of its own.
 */
struct file_used {
	__u64 n;
	__u64 pad[7];
};

/*
 * A file's key as an entry holds it (bpf/table.h): 0 marks a hole, so
 * the ino is stored with its top bit flipped (an inode number 1 << 63,
 * which no file system hands out, cannot be kept) and the dev inverted
 * (~0 is major 4095 minor 1048575, no device).
 */
#define SLOT_INO_FLIP	(1ULL << 63)

/*
 * Where a dentry is in its own file system: the path from the file
 * system's root, whatever mounts show it. Keyed by the dentry's address.
 */
struct anchor_path {
	__u64 at;		/* bpf_ktime_get_ns() when walked */
	__u32 dev;		/* s_dev of the dentry's super block */
	__u32 len;		/* 0 when the walk gave up (too deep, too long) */
	char path[PATH_LEN];
};

/* Per-thread counters for one drain interval. */
struct thread_stats {
	__u32 tgid;
	__u32 pad;
	char comm[COMM_LEN];
	/* The I/O counters a thread and its cgroup keep (struct io_counters). */
	IOSTORM_GROUP(io_counters, io,
		__u64 opens;
		__u64 reads;
		__u64 read_bytes;
		__u64 read_ns;
		__u64 stats;
		__u64 meta_ns;
		__u64 cache_pages;
		__u64 fault_reads;	/* faults that read from storage */
	);
	/* Where the thread's time went, from sched_switch (see sched.bpf.c). */
	__u64 cpu_ns;		/* on a CPU */
	__u64 io_wait_ns;	/* off CPU inside a file syscall, or in D state */
	__u64 runq_ns;		/* runnable, waiting for a CPU */
	__u64 sleep_ns;		/* off CPU otherwise: queues, locks, timers */
	__u64 cgid;		/* its cgroup v2 id when the interval's set was first used */
};

/*
 * An exited thread's counters in the threads map: one entry per set of
 * counters (bpf/thread.bpf.h), each named by its own cgroup.
 */
struct thread_key {
	__u32 tid;
	__u32 set;		/* 0 or 1 */
};

/*
 * A process of the target as the kernel saw it since the last drain (the
 * forks map, task.bpf.c): its parent, when it was forked (its leader's
 * start_time, CLOCK_MONOTONIC as bpf_ktime_get_ns()), when it last exec'd
 * and when its last thread exited (0: not seen). A shim's helpers
 * (readlink, subshells) exited before the job's program began: launchers,
 * never the job's loader (model/stall_sides.c).
 */
struct proc_life {
	__u32 ptgid;		/* 0: not known */
	__u32 pad;
	__u64 fork_ns;
	__u64 exec_ns;
	__u64 exit_ns;
};

/* A live thread's counters as the drain_threads iterator writes them out. */
struct thread_out {
	__u32 tid;
	__u32 ptgid;		/* its process's parent (real_parent) */
	struct thread_stats s;
};

/*
 * Who ended whose sleep (sched_waking -> sched_switch, see sched.bpf.c):
 * per (sleeper, waker) thread pair, for the training loop's data wait.
 */
#define WAKER_OUTSIDE	0	/* woken by a task outside the target, or an interrupt */
/*
 * A flag in a waker (tids stay below 2^22, PID_MAX_LIMIT): the wait was a
 * stop (SIGSTOP, or a ptrace stop), which the waker, a tracer, resumed.
 */
#define WAKER_STOP	(1u << 30)
/*
 * And: the wakeup ran in a softirq the waker was interrupted by, or ran on
 * its way out of a syscall (loopback TCP is delivered in its sender's own
 * softirq): the waker may be the sender, or any task the softirq
 * interrupted. A wakeup in a hardirq or an NMI (a timer, a device: the
 * GPU's completion) has no waker at all: WAKER_OUTSIDE.
 */
#define WAKER_SOFTIRQ	(1u << 29)
/*
 * And: the waker was exiting (PF_EXITING): a child's exit waking its
 * parent's waitpid(), a thread's waking its joiner. It ends a sleep, but
 * hands over no batch: a shell that runs ten short commands is woken ten
 * times by processes that read, and is no training loop for it.
 */
#define WAKER_EXIT	(1u << 28)
#define WAKER_FLAGS	(WAKER_STOP | WAKER_SOFTIRQ | WAKER_EXIT)

/*
 * A pair is counted in the set of the interval its sleep ended in
 * (thread_gen & 1, as a thread's counters: bpf/thread.bpf.h); user space
 * takes the other set out at each drain (model/wakes.h), so the map holds
 * the pairs of two drain intervals, not of the whole trace.
 */
struct wake_key {
	__u32 wakee;		/* tid that slept */
	__u32 waker;		/* tid that woke it; WAKER_OUTSIDE; | WAKER_FLAGS */
	__u32 set;		/* thread_gen & 1 when the sleep ended */
	__u32 pad;
};

struct wake_stats {
	__u64 wakeups;		/* or stops (WAKER_STOP) */
	__u64 sleep_ns;		/* off CPU until this waker woke it (run queue included) */
};

/*
 * An io_uring or Linux AIO request between its submit and its completion,
 * keyed by (ring, request): io_uring's ring context and struct io_kiocb
 * address (kernel addresses, unique), or the AIO context id and the iocb's
 * user address with the process (user addresses: a forked worker may have
 * both at the same values as its parent). User space counts those left at
 * the end as still in flight.
 */
enum async_iface {
	ASYNC_URING = 0,
	ASYNC_AIO = 1,
};

enum async_op {
	AOP_READ = 0,
	AOP_OPEN,		/* IORING_OP_OPENAT, OPENAT2 */
	AOP_STATX,
	AOP_CLOSE,
	AOP_WRITE,		/* IORING_OP_WRITE, WRITEV, *_FIXED; IOCB_CMD_PWRITE, PWRITEV */
	AOP_FSYNC,		/* IORING_OP_FSYNC, SYNC_FILE_RANGE; IOCB_CMD_FSYNC, FDSYNC */
};

struct async_key {
	__u64 ring;
	__u64 req;
	__u32 tgid;		/* AIO: the process; io_uring: 0 */
	__u32 pad;
};

/*
 * A thread's io_uring and AIO reads, for its life (async_threads, keyed by
 * tid): kept apart from struct thread_stats, whose 128 bytes
 * every syscall's exit touches (at 144 the read path cost ~30 ns more).
 */
struct async_thread {
	__u64 reads;
	__u64 depth;		/* their depth at submit, summed */
};

/*
 * A thread's writes of regular files (write_threads, keyed by tid, for its
 * life, bpf/write.bpf.h): kept apart from struct thread_stats, as a
 * thread's async reads are, so that a read's path touches nothing more.
 * Each count is a call (or an async request); each time, the calls'
 * wall time from entry to exit (a write's dirty-page throttling included).
 */
struct write_thread {
	IOSTORM_GROUP(write_counters, w,
		__u64 writes;		/* write-family calls, io_uring and AIO writes */
		__u64 write_bytes;
		__u64 write_ns;		/* the calls' time (not the async requests') */
		__u64 fsyncs;		/* fsync, fdatasync, sync_file_range, msync */
		__u64 fsync_ns;
		__u64 commits;		/* closes of the file it wrote or synced last */
		__u64 renames;
		__u64 commit_ns;	/* the commits' and the renames' time */
	);
	/* BPF only: the file it wrote or synced last, not closed since (0: none). */
	__u64 last_ino;
	__u32 last_dev;
	__u32 pad;
};

/*
 * A thread's time receiving data from other threads (bpf/recv.bpf.h):
 * bursts of reads of pipes and sockets and of closes and mmaps of those
 * and of shared memory (tmpfs) files, as a PyTorch loop takes a batch from
 * its DataLoader workers. For its life, by tid.
 */
struct recv_thread {
	__u64 bursts;
	__u64 cpu_ns;		/* on a CPU inside them */
	__u64 runq_ns;		/* runnable inside them (preempted) */
	__u64 shake_ns;		/* asleep in their socket reads after the first */
};

/*
 * A file's io_uring and AIO reads of one drain generation (async_file_sums,
 * keyed by struct async_fkey): user space adds them onto the file's record
 * and deletes them at the drain that ends the generation. The depth is the
 * file's own: its async reads in flight at a read's submit, itself
 * included. A read whose file was not known at its submit (an fd not yet
 * in the table, a fixed-file slot not yet filled) is counted in late at
 * its completion, on the file it completed on, with no depth. User space
 * keeps the same struct per file for the whole trace, inflight added at
 * the end (from async_reqs: the programs leave it 0).
 */
struct async_file {
	__u64 reads;		/* completed, the file known at submit */
	__u64 depth;		/* their depth at submit, summed */
	__u64 late;		/* completed, the file known only then */
	__u32 inflight;		/* user space: submitted, not completed (nor reaped: AIO) at the end */
	__u32 depth_max;	/* the deepest at the submit of a read completed (or in flight at the end) */
};

/*
 * A file in one drain generation (file_gen & 1 when the programs wrote):
 * the key of async_file_sums and of async_files, the reads in flight per
 * file. A generation's entries are written only while it is the programs'
 * (and a count in flight taken down); so once user space flipped file_gen
 * and waited, it can read them all, and delete a count at 0 with no race
 * (bpf/async.bpf.h).
 */
struct async_fkey {
	__u64 ino;		/* the file's, with the set in bit 63 (ASYNC_FKEY_SET) */
	__u32 dev;
	__u32 gen;
};
_Static_assert(sizeof(struct async_fkey) == sizeof(struct file_key) &&
	       __builtin_offsetof(struct async_fkey, dev) == __builtin_offsetof(struct file_key, dev) &&
	       __builtin_offsetof(struct async_fkey, gen) == __builtin_offsetof(struct file_key, gen),
	       "async_fkey: a file_key, the set in its inode number's top bit");

/*
 * The set's bit in async_fkey.ino: no file system's inode number has it
 * (see SLOT_INO_FLIP). There, not in a field of its own: the key stays a
 * file_key's 16 bytes on the stacks of the async programs' subprograms,
 * whose frames 6.1's verifier sums against 512 bytes.
 */
#define ASYNC_FKEY_SET	(1ULL << 63)

/* How a request's file was taken at its submit (async_rec.fstate). */
enum async_fstate {
	AFILE_NONE = 0,		/* not known: taken at the completion */
	AFILE_KEYED = 1,	/* key holds it, counted in flight in async_files (fset) */
	AFILE_FULL = 2,		/* known, but async_files was full: counted lost */
};

#define ASYNC_POS_FILE	((__u64)-1)	/* read at the file position (offset -1) */
#define AIO_BATCH	64		/* iocbs read per io_submit or io_getevents */

struct async_rec {
	__u64 start_ns;
	__u64 off;		/* read: the offset asked for, or ASYNC_POS_FILE */
	__u64 file;		/* struct file at submit when known (AIO, close), else 0 */
	struct file_key key;	/* close: the file closed; read: its file (fstate) */
	__u64 cgid;		/* the owner's, for a completion counted elsewhere */
	__u32 owner;		/* tid of the thread that submitted (see uring.bpf.c) */
	__u32 tgid;
	__u32 depth;		/* reads in flight on the ring at submit, itself included */
	__u32 fdepth;		/* read, AFILE_KEYED: on its file, likewise */
	__u8 iface;		/* enum async_iface */
	__u8 op;		/* enum async_op */
	__u8 fstate;		/* enum async_fstate */
	__u8 fset;		/* AFILE_KEYED: its async_files entry's set */
	__u8 pad[4];
	char comm[COMM_LEN];
};

#endif /* IOSTORM_H */
