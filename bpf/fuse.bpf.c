// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * FUSE: every request a FUSE file system (sshfs, gcsfuse, s3fs...) is
 * sent, from fuse_request_send to fuse_request_end, per connection,
 * opcode and requester: count, payload bytes, latency and requests in
 * flight. These programs run on FUSE requests only, never on a syscall.
 *
 * The end runs in the daemon's context (its write of the reply), so the
 * requester is taken at send, in its own, and kept keyed by (connection,
 * the request's address) until the end: not its unique id, which Debian's
 * 6.12 assigns after fuse_request_send has fired (every send there says 0). Background requests (readahead, release) sent
 * from another task's context, when the daemon's reply frees a slot of
 * the background queue, cannot be attributed: they are counted apart.
 */
#include "maps.bpf.h"
#include "target.bpf.h"
#include "hist_slot.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define PF_KTHREAD	0x00200000

/*
 * Allocated on use (BPF_F_NO_PREALLOC): most traces see no FUSE request,
 * and preallocated these maps would cost ~10 MB (fuse_hists alone 8 MB)
 * on every run; the allocation is paid on FUSE requests only.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, struct fuse_req_key);
	__type(value, struct fuse_req_rec);
} fuse_reqs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, struct fuse_key);
	__type(value, struct fuse_stats);
} fuse_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1024);
	__type(key, struct fuse_hist_key);
	__type(value, struct hist);
} fuse_hists SEC(".maps");

/* Requests in flight per connection: up at send, down at a matched end. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u64);
} fuse_conns SEC(".maps");

/*
 * 7.x reaches a request's connection through its channel (fuse_req.chan,
 * struct fuse_chan, which took the request's mount, fuse_req.fm, away).
 * No type of 7.x's is named here: a CO-RE relocation against a type the
 * kernel's vmlinux lacks makes libbpf read every module's BTF, which needs
 * CAP_SYS_ADMIN. User space reads from the BTF whether fuse_req has a
 * channel and where the channel keeps its connection.
 */
const volatile bool targ_fuse_chan = false;
const volatile __u32 targ_fuse_chan_conn = 0;	/* offsetof(struct fuse_chan, conn) */

struct fuse_req___7 {
	void *chan;
} __attribute__((preserve_access_index));

/* The connection's device number, through the field this kernel has. */
static __always_inline __u32 req_conn(const struct fuse_req *req)
{
	const struct fuse_req___7 *r7 = (const void *)req;
	struct fuse_conn *fc = NULL;
	dev_t dev;

	if (!targ_fuse_chan)
		return BPF_CORE_READ(req, fm, fc, dev);
	bpf_probe_read_kernel(&fc, sizeof(fc), BPF_CORE_READ(r7, chan) + targ_fuse_chan_conn);
	dev = BPF_CORE_READ(fc, dev);
	return dev;
}

static __always_inline __u16 req_opcode(const struct fuse_req *req)
{
	__u32 op = BPF_CORE_READ(req, in.h.opcode);

	return op > 0xfffe ? 0xffff : op;
}

static __always_inline bool req_background(const struct fuse_req *req)
{
	unsigned long flags = BPF_CORE_READ(req, flags);
	int bit = bpf_core_enum_value(enum fuse_req_flag, FR_BACKGROUND);

	return flags & (1UL << (bit & 63));
}

/*
 * One value into a histogram of (conn, opcode, id, scope). A global
 * function: verified once, not at each use.
 */
__noinline int fuse_hist_add(__u32 conn, __u32 opcode, __u32 id, __u32 scope, __u64 v)
{
	struct fuse_hist_key key = {
		.conn = conn, .opcode = opcode, .hist = id, .scope = scope,
	};
	__u32 slot = hist_slot(v), zero = 0;
	struct hist *h, *init;

	init = bpf_map_lookup_elem(&hist_zero, &zero);
	if (!init)
		return 0;
	h = map_lookup_or_init(&fuse_hists, &key, init);
	if (!h) {
		count_lost(L_FUSE_HISTS_FULL);
		return 0;
	}
	if (slot < HIST_SLOTS)
		__sync_fetch_and_add(&h->slots[slot], 1);
	return 0;
}

/* Both scopes: the connection's, and the target's when it is. */
static __always_inline void fuse_hists_add(const struct fuse_req_rec *r, __u32 id, __u64 v)
{
	fuse_hist_add(r->conn, r->opcode, id, FUSE_SCOPE_CONN, v);
	if (r->who == FUSE_WHO_TARGET)
		fuse_hist_add(r->conn, r->opcode, id, FUSE_SCOPE_TARGET, v);
}

/* The requester of a request being sent, in its context. */
static __always_inline __u8 req_who(const struct fuse_req *req, bool background)
{
	struct task_struct *task = bpf_get_current_task_btf();

	/* Kernel threads first: with -a they would pass as the target. */
	if (task->flags & PF_KTHREAD)
		return FUSE_WHO_BACKGROUND;
	if (is_target())
		return FUSE_WHO_TARGET;
	return background ? FUSE_WHO_BACKGROUND : FUSE_WHO_OTHER;
}

/* Requests in flight on conn, n added (1 at send, -1 at end); 0 if untracked. */
static __always_inline __u64 conn_inflight(__u32 conn, __s64 n)
{
	__u64 *v, init = 0;

	v = map_lookup_or_init(&fuse_conns, &conn, &init);
	if (!v) {
		count_lost(L_FUSE_CONNS_FULL);
		return 0;
	}
	return __sync_fetch_and_add(v, n) + n;
}

SEC("tp_btf/fuse_request_send")
int BPF_PROG(handle_fuse_request_send, const struct fuse_req *req)
{
	struct fuse_req_key key = {};
	struct fuse_req_rec r = {}, *old;
	__u32 len = BPF_CORE_READ(req, in.h.len);

	r.start_ns = bpf_ktime_get_ns();
	r.conn = req_conn(req);
	r.opcode = req_opcode(req);
	r.background = req_background(req);
	r.who = req_who(req, r.background);
	r.in_bytes = len > FUSE_IN_HDR ? len - FUSE_IN_HDR : 0;
	key.req = (__u64)req;
	key.conn = r.conn;
	r.inflight = conn_inflight(r.conn, 1);
	if (bpf_map_update_elem(&fuse_reqs, &key, &r, BPF_NOEXIST)) {
		/*
		 * A record at this address is a request whose end never came
		 * (one a fatal signal took off the queue before the daemon
		 * read it): the address is reused, so that is said, and it is
		 * no longer in flight. One map operation when it is not.
		 */
		old = bpf_map_lookup_elem(&fuse_reqs, &key);
		if (!old) {
			conn_inflight(r.conn, -1);
			count_lost(L_FUSE_REQS_FULL);	/* its end counts it untracked */
			return 0;
		}
		conn_inflight(old->conn, -1);
		if (old->conn == r.conn && r.inflight)
			r.inflight--;	/* it was counted in this one's */
		count_lost(L_FUSE_ENDS_MISSED);
		*old = r;
	}
	fuse_hists_add(&r, FUSE_H_INFLIGHT, r.inflight);
	return 0;
}

/* The counters of (conn, opcode, who), created when missing; NULL counted lost. */
static __always_inline struct fuse_stats *stats_entry(__u32 conn, __u16 opcode, __u8 who)
{
	struct fuse_key k = { .conn = conn, .opcode = opcode, .who = who };
	struct fuse_stats *st, init = {};

	st = map_lookup_or_init(&fuse_stats, &k, &init);
	if (!st)
		count_lost(L_FUSE_STATS_FULL);
	return st;
}

SEC("tp_btf/fuse_request_end")
int BPF_PROG(handle_fuse_request_end, const struct fuse_req *req)
{
	struct fuse_req_key key = {};
	struct fuse_req_rec *r;
	struct fuse_stats *st;
	__u32 len = BPF_CORE_READ(req, out.h.len);
	__u64 out = len > FUSE_OUT_HDR ? len - FUSE_OUT_HDR : 0, lat;
	bool error = BPF_CORE_READ(req, out.h.error) != 0;

	key.conn = req_conn(req);
	key.req = (__u64)req;
	r = bpf_map_lookup_elem(&fuse_reqs, &key);
	if (!r) {
		/* Sent before the attach, or its record could not be kept. */
		st = stats_entry(key.conn, req_opcode(req), FUSE_WHO_UNTRACKED);
		if (st) {
			st->reqs += 1;
			st->out_bytes += out;
			st->errors += error;
		}
		return 0;
	}
	lat = bpf_ktime_get_ns() - r->start_ns;
	conn_inflight(r->conn, -1);
	st = stats_entry(r->conn, r->opcode, r->who);
	if (st) {
		st->reqs += 1;
		st->in_bytes += r->in_bytes;
		st->out_bytes += out;
		st->total_ns += lat;
		st->errors += error;
		st->background += r->background;
		st->inflight_sum += r->inflight;
	}
	fuse_hists_add(r, FUSE_H_LAT, lat);
	bpf_map_delete_elem(&fuse_reqs, &key);
	return 0;
}
