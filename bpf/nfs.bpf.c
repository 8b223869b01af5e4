// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * NFS: every call an NFS client makes (NFSv3, v4.x), per RPC client (one
 * per mount, one per server for NFSv4's lease and session calls),
 * procedure and requester: the figures /proc/self/mountstats keeps (calls,
 * transmissions, timeouts, bytes, queue, round trip and total time,
 * errors), taken where sunrpc counts them (rpc_stats_latency), with their
 * histograms and the calls in flight. These programs run on RPC calls and
 * NFS events only, never on a syscall; they load only where the sunrpc
 * and nfs modules are (collect/features.c).
 *
 * A call ends in rpciod's context when it was sent asynchronously (READ,
 * CLOSE), so the requester is taken at rpc_task_begin, in its own (the
 * reader's, or its task_work at close), and kept by the rpc_task's
 * address. A call its rpc_call_done restarts (a short READ, a delay the
 * server asked for) ends, and is counted, once a run, as mountstats
 * counts it: the record is not deleted at the end but taken over by the
 * next begin at its address, in an LRU map whose entries in flight are
 * its newest.
 *
 * Which mount an RPC client serves is not in the client: the NFS
 * client's own tracepoints (a READ sent, a LOOKUP, an open, an inode
 * revalidated) reach the mount's superblock, whose nfs_server names its
 * RPC client (nfs_clnts). User space joins calls to mounts by clid.
 */
#include "maps.bpf.h"
#include "target.bpf.h"
#include "hist_slot.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define PF_KTHREAD	0x00200000
#define RPC_TASK_ASYNC	0x0001		/* include/linux/sunrpc/sched.h */
#define CLNT_PARENTS	4		/* a mount's client, its parent, and theirs */

/*
 * The kernel's sunrpc and NFS structures, as far as they are read: the
 * host's vmlinux.h has none (sunrpc and nfs are modules, often absent).
 * CO-RE finds their fields in the modules' BTF.
 */
struct rpc_procinfo {
	__u32 p_statidx;
	const char *p_name;
} __attribute__((preserve_access_index));

struct rpc_message {
	const struct rpc_procinfo *rpc_proc;
} __attribute__((preserve_access_index));

struct rpc_xprt {
	struct __kernel_sockaddr_storage addr;
	size_t addrlen;
} __attribute__((preserve_access_index));

struct rpc_clnt {
	unsigned int cl_clid;
	struct rpc_xprt *cl_xprt;
	__u32 cl_prog;
	__u32 cl_vers;
	struct rpc_clnt *cl_parent;
} __attribute__((preserve_access_index));

struct rpc_rqst {
	size_t rq_xmit_bytes_sent;
	size_t rq_reply_bytes_recvd;
	int rq_ntrans;
} __attribute__((preserve_access_index));

struct rpc_task {
	int tk_status;
	struct rpc_message tk_msg;
	struct rpc_clnt *tk_client;
	struct rpc_rqst *tk_rqstp;
	unsigned short tk_flags;
	unsigned short tk_timeouts;
} __attribute__((preserve_access_index));

struct nfs_client {
	struct rpc_clnt *cl_rpcclient;
	__u32 cl_minorversion;
	unsigned int cl_nconnect;	/* 5.3 and later */
} __attribute__((preserve_access_index));

struct nfs_server {
	struct nfs_client *nfs_client;
	struct rpc_clnt *client;
	dev_t s_dev;
} __attribute__((preserve_access_index));

struct nfs_pgio_header {
	struct inode *inode;
} __attribute__((preserve_access_index));

/*
 * Calls in flight, by the rpc_task's address: an LRU map (preallocated;
 * user space sizes it to 1 where the layer is not loaded). A record is
 * taken over by the next call at its address, or evicted when more than
 * max_entries calls began after it: a call in flight evicted so is
 * counted untracked at its end, never dropped.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u64);
	__type(value, struct nfs_call);
} nfs_calls SEC(".maps");

/* Allocated on use (BPF_F_NO_PREALLOC): most traces see no NFS call. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, struct nfs_key);
	__type(value, struct nfs_stats);
} nfs_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 2048);
	__type(key, struct nfs_hist_key);
	__type(value, struct hist);
} nfs_hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, struct nfs_clnt);
} nfs_clnts SEC(".maps");

/* Procedure names, by (version, index): written once each. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 512);
	__type(key, struct nfs_proc_key);
	__type(value, struct nfs_proc_name);
} nfs_procs SEC(".maps");

/*
 * The call's RPC client, when it is the NFS program's; NULL otherwise. The
 * verifier takes a tracepoint's pointer as maybe NULL (6.12: "pointer
 * arithmetic on trusted_ptr_or_null_ prohibited"): tested first.
 */
static __always_inline struct rpc_clnt *nfs_clnt_of(const struct rpc_task *task)
{
	struct rpc_clnt *clnt;

	if (!task)
		return NULL;
	clnt = BPF_CORE_READ(task, tk_client);
	if (!clnt || BPF_CORE_READ(clnt, cl_prog) != NFS_PROGRAM)
		return NULL;
	return clnt;
}

static __always_inline __u16 task_proc(const struct rpc_task *task)
{
	__u32 idx = BPF_CORE_READ(task, tk_msg.rpc_proc, p_statidx);

	return idx < NFS_PROCS ? idx : NFS_PROCS - 1;
}

/* What the client says of itself: program, version, parent, server address. */
static __always_inline void clnt_fill(struct nfs_clnt *c, struct rpc_clnt *clnt)
{
	struct rpc_xprt *xprt = BPF_CORE_READ(clnt, cl_xprt);
	__u64 len = xprt ? BPF_CORE_READ(xprt, addrlen) : 0;

	c->prog = BPF_CORE_READ(clnt, cl_prog);
	c->vers = BPF_CORE_READ(clnt, cl_vers);
	c->parent = BPF_CORE_READ(clnt, cl_parent, cl_clid);
	c->addrlen = len > sizeof(c->addr) ? sizeof(c->addr) : len;
	if (xprt)
		bpf_probe_read_kernel(c->addr, sizeof(c->addr), &xprt->addr);
}

/* The record of RPC client clnt, created from it when new; NULL counted lost. */
static __always_inline struct nfs_clnt *clnt_entry(struct rpc_clnt *clnt, __u32 clid)
{
	struct nfs_clnt *c, init = {};

	c = bpf_map_lookup_elem(&nfs_clnts, &clid);
	if (c)
		return c;
	clnt_fill(&init, clnt);
	c = map_lookup_or_init(&nfs_clnts, &clid, &init);
	if (!c)
		count_lost(L_NFS_CLNTS_FULL);
	return c;
}

/*
 * One value into a histogram of (clid, proc, id, scope). A global
 * function: verified once, not at each use.
 */
__noinline int nfs_hist_add(__u32 clid, __u32 proc, __u32 id, __u32 scope, __u64 v)
{
	struct nfs_hist_key key = {
		.clid = clid, .proc = proc, .hist = id, .scope = scope,
	};
	__u32 slot = hist_slot(v), zero = 0;
	struct hist *h, *init;

	init = bpf_map_lookup_elem(&hist_zero, &zero);
	if (!init)
		return 0;
	h = map_lookup_or_init(&nfs_hists, &key, init);
	if (!h) {
		count_lost(L_NFS_HISTS_FULL);
		return 0;
	}
	if (slot < HIST_SLOTS)
		__sync_fetch_and_add(&h->slots[slot], 1);
	return 0;
}

/* Both scopes: the RPC client's, and the target's when it is. */
static __always_inline void nfs_hists_add(__u32 clid, __u16 proc, __u8 who, __u32 id, __u64 v)
{
	nfs_hist_add(clid, proc, id, NFS_SCOPE_CLNT, v);
	if (who == NFS_WHO_TARGET)
		nfs_hist_add(clid, proc, id, NFS_SCOPE_TARGET, v);
}

/* The requester of a call being begun, in its context. */
static __always_inline __u8 call_who(void)
{
	struct task_struct *task = bpf_get_current_task_btf();

	/* Kernel threads first: with -a they would pass as the target. */
	if (task->flags & PF_KTHREAD)
		return NFS_WHO_CLIENT;
	return is_target() ? NFS_WHO_TARGET : NFS_WHO_OTHER;
}

SEC("tp_btf/rpc_task_begin")
int BPF_PROG(handle_rpc_task_begin, const struct rpc_task *task, const void *action)
{
	struct rpc_clnt *clnt = nfs_clnt_of(task);
	struct nfs_call r = {};
	struct nfs_clnt *c;
	__u64 key = (__u64)task;

	if (!clnt)
		return 0;
	r.clid = BPF_CORE_READ(clnt, cl_clid);
	r.proc = task_proc(task);
	r.who = call_who();
	r.async = BPF_CORE_READ(task, tk_flags) & RPC_TASK_ASYNC;
	c = clnt_entry(clnt, r.clid);
	if (c) {
		r.running = 1;
		r.inflight = __sync_fetch_and_add(&c->inflight, 1) + 1;
	}
	/* BPF_ANY: a record at this address is an ended call's. */
	bpf_map_update_elem(&nfs_calls, &key, &r, BPF_ANY);
	return 0;
}

/* A call leaves the in-flight count at its (first) end. */
SEC("tp_btf/rpc_task_end")
int BPF_PROG(handle_rpc_task_end, const struct rpc_task *task, const void *action)
{
	struct nfs_call *r;
	struct nfs_clnt *c;
	__u64 key = (__u64)task;

	if (!nfs_clnt_of(task))
		return 0;
	r = bpf_map_lookup_elem(&nfs_calls, &key);
	if (!r || !r->running)
		return 0;
	r->running = 0;
	c = bpf_map_lookup_elem(&nfs_clnts, &r->clid);
	if (c)
		__sync_fetch_and_add(&c->inflight, -1);
	return 0;
}

/* The procedure's name, once per (version, index). */
static __always_inline void proc_name(const struct rpc_task *task, __u32 vers, __u16 proc)
{
	struct nfs_proc_key k = { .vers = vers, .proc = proc };
	struct nfs_proc_name n = {};

	if (bpf_map_lookup_elem(&nfs_procs, &k))
		return;
	bpf_probe_read_kernel_str(n.name, sizeof(n.name),
				  BPF_CORE_READ(task, tk_msg.rpc_proc, p_name));
	bpf_map_update_elem(&nfs_procs, &k, &n, BPF_NOEXIST);
}

/* The counters of (clid, proc, who), created when missing; NULL counted lost. */
static __always_inline struct nfs_stats *stats_entry(const struct rpc_task *task,
						     struct rpc_clnt *clnt, __u32 clid,
						     __u16 proc, __u8 who)
{
	struct nfs_key k = { .clid = clid, .proc = proc, .who = who };
	struct nfs_stats *st, init = {};

	st = bpf_map_lookup_elem(&nfs_stats, &k);
	if (st)
		return st;
	proc_name(task, BPF_CORE_READ(clnt, cl_vers), proc);
	st = map_lookup_or_init(&nfs_stats, &k, &init);
	if (!st)
		count_lost(L_NFS_STATS_FULL);
	return st;
}

/*
 * The end of a call's run, where sunrpc adds it to mountstats
 * (rpc_count_iostats_metrics): backlog, rtt and execute are the times it
 * adds, in ns.
 */
SEC("tp_btf/rpc_stats_latency")
int BPF_PROG(handle_rpc_stats_latency, const struct rpc_task *task, s64 backlog, s64 rtt,
	     s64 execute)
{
	struct rpc_clnt *clnt = nfs_clnt_of(task);
	struct rpc_rqst *rq;
	struct nfs_stats *st;
	struct nfs_call *r;
	__u64 key = (__u64)task;
	__u32 clid;
	__u16 proc;
	__u8 who;
	int ntrans;

	if (!clnt)
		return 0;
	clid = BPF_CORE_READ(clnt, cl_clid);
	proc = task_proc(task);
	/*
	 * The procedure may have changed since the begin (NFSv4's OPEN sent as
	 * OPEN_NOATTR, chosen in its prepare step): the end's is the one
	 * mountstats counts, and the one every figure of the call is kept by.
	 */
	r = bpf_map_lookup_elem(&nfs_calls, &key);
	who = r && r->clid == clid ? r->who : NFS_WHO_UNTRACKED;
	if (who == NFS_WHO_UNTRACKED)
		clnt_entry(clnt, clid);		/* its version and server, for its name */
	st = stats_entry(task, clnt, clid, proc, who);
	if (!st)
		return 0;
	rq = BPF_CORE_READ(task, tk_rqstp);
	ntrans = BPF_CORE_READ(rq, rq_ntrans);
	st->calls += 1;
	st->trans += ntrans > 1 ? ntrans : 1;
	st->timeouts += BPF_CORE_READ(task, tk_timeouts);
	st->bytes_sent += BPF_CORE_READ(rq, rq_xmit_bytes_sent);
	st->bytes_recv += BPF_CORE_READ(rq, rq_reply_bytes_recvd);
	st->queue_ns += backlog > 0 ? backlog : 0;
	st->rtt_ns += rtt > 0 ? rtt : 0;
	st->total_ns += execute > 0 ? execute : 0;
	st->errors += BPF_CORE_READ(task, tk_status) < 0;
	if (who == NFS_WHO_UNTRACKED)
		return 0;
	st->async += r->async;
	st->inflight_sum += r->inflight;
	nfs_hists_add(clid, proc, who, NFS_H_QUEUE, backlog > 0 ? backlog : 0);
	nfs_hists_add(clid, proc, who, NFS_H_RTT, rtt > 0 ? rtt : 0);
	nfs_hists_add(clid, proc, who, NFS_H_TOTAL, execute > 0 ? execute : 0);
	nfs_hists_add(clid, proc, who, NFS_H_INFLIGHT, r->inflight);
	return 0;
}

/*
 * The mount an NFS inode is on names its RPC clients: the mount's own
 * (nfs_server.client) and those it was cloned from (the NFS client's,
 * shared by the server's mounts). Once per client: later events find it
 * named and return after one lookup.
 */
static __always_inline void mount_note(const struct inode *inode)
{
	struct nfs_server *server;
	struct rpc_clnt *clnt;
	struct nfs_clnt *c;
	__u32 clid, dev;

	if (!inode)
		return;
	server = BPF_CORE_READ(inode, i_sb, s_fs_info);
	clnt = BPF_CORE_READ(server, client);
	if (!clnt)
		return;
	clid = BPF_CORE_READ(clnt, cl_clid);
	c = bpf_map_lookup_elem(&nfs_clnts, &clid);
	if (c && c->role == NFS_ROLE_MOUNT)
		return;
	dev = BPF_CORE_READ(server, s_dev);
	for (int i = 0; i < CLNT_PARENTS; i++) {
		struct rpc_clnt *parent = BPF_CORE_READ(clnt, cl_parent);

		c = clnt_entry(clnt, BPF_CORE_READ(clnt, cl_clid));
		if (!c)
			return;
		c->role = i ? NFS_ROLE_CLIENT : NFS_ROLE_MOUNT;
		c->dev = i ? 0 : dev;
		c->minor = BPF_CORE_READ(server, nfs_client, cl_minorversion);
		if (bpf_core_field_exists(struct nfs_client, cl_nconnect))
			c->nconnect = BPF_CORE_READ(server, nfs_client, cl_nconnect);
		if (!parent || parent == clnt)
			return;
		clnt = parent;
	}
}

SEC("tp_btf/nfs_initiate_read")
int BPF_PROG(handle_nfs_initiate_read, const struct nfs_pgio_header *hdr)
{
	if (hdr)
		mount_note(BPF_CORE_READ(hdr, inode));
	return 0;
}

SEC("tp_btf/nfs_lookup_enter")
int BPF_PROG(handle_nfs_lookup_enter, const struct inode *dir)
{
	mount_note(dir);
	return 0;
}

SEC("tp_btf/nfs_atomic_open_enter")
int BPF_PROG(handle_nfs_atomic_open_enter, const struct inode *dir)
{
	mount_note(dir);
	return 0;
}

SEC("tp_btf/nfs_revalidate_inode_enter")
int BPF_PROG(handle_nfs_revalidate_inode_enter, const struct inode *inode)
{
	mount_note(inode);
	return 0;
}
