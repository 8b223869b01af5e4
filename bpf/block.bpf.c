// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Block layer: every request's time before the device (start -> issue) and
 * in it (issue -> done), sizes, sequentiality and requests in flight, per
 * device, operation and submitter.
 *
 * Completion runs in interrupt context, so the submitter is taken where the
 * request starts (block_io_start, kernel >= 6.5) and kept, keyed by the
 * request, until block_io_done. Requests merged into another are dropped at
 * block_rq_merge and counted as merged.
 *
 * Before 6.5 (and with IOSTORM_FALLBACKS=block_rq) the request tracepoints
 * stand in: block_getrq runs in the submitter as a new request takes its
 * first bio, which keys the submitter until block_rq_issue finds it through
 * rq->bio; block_rq_complete with every remaining byte is the done. The same
 * counts: a request is started, issued, merged or done once either way.
 */
#include "maps.bpf.h"
#include "target.bpf.h"
#include "hist.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define REQ_OP_MASK	0xff
#define PF_KTHREAD	0x00200000

/* The BPF view of struct blk_dev_info: same layout, a real lock. */
struct blk_dev_state {
	struct bpf_spin_lock lock;
	__u32 inflight[2];
	__u32 pad;
	__u64 since[2];
	__u64 busy_ns[2];
	__u64 next_sector;
	char name[32];
};

_Static_assert(sizeof(struct blk_dev_state) == sizeof(struct blk_dev_info),
	       "blk_dev_state and blk_dev_info must match");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct blk_req);
} blk_reqs SEC(".maps");

/*
 * The fallback's requests between block_getrq and block_rq_issue, keyed by
 * their first bio. LRU: a request merged away before its issue may leave its
 * record here; one whose record went is counted at its done (MISS_START).
 * One entry unless the fallback is taken (collect/features.c).
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct blk_req);
} blk_bios SEC(".maps");

/* No block_io_start/done: the request tracepoints stand in (see above). */
const volatile bool targ_block_rq = false;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct blk_key);
	__type(value, struct blk_stats);
} blk_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct blk_hist_key);
	__type(value, struct hist);
} blk_hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, struct blk_dev_state);
} blk_devs SEC(".maps");

/*
 * Requests one of whose events never reached our programs, per (dev, op,
 * enum blk_miss in .who). The kernel, rarely (seen about once in 4,000
 * requests), fires a tracepoint without running the program and without
 * counting a recursion miss either: such requests are counted here.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct blk_key);
	__type(value, __u64);
} blk_missed SEC(".maps");


/*
 * The request is a trusted BTF pointer here: its fields load directly,
 * CO-RE relocated, with no bpf_probe_read_kernel() call per field.
 */
static __always_inline __u32 disk_dev(struct gendisk *disk)
{
	return disk->major << 20 | disk->first_minor;
}

static __always_inline __u32 rq_dev(struct request *rq)
{
	return disk_dev(rq->q->disk);
}

static __always_inline __u8 rq_op(struct request *rq)
{
	__u32 op = rq->cmd_flags & REQ_OP_MASK;

	switch (op) {
	case REQ_OP_READ:
		return BLK_READ;
	case REQ_OP_WRITE:
		return BLK_WRITE;
	case REQ_OP_FLUSH:
		return BLK_FLUSH;
	case REQ_OP_DISCARD:
		return BLK_DISCARD;
	default:
		return BLK_OTHER;
	}
}

/*
 * RQF_IO_STAT and RQF_FLUSH_SEQ, set by user space from this kernel's BTF
 * (collect/features.c): bits 13 and 4 until 6.11 made them an enum of bit
 * numbers, which is anonymous in some kernels (Debian's 6.12), so that a
 * CO-RE relocation by the enum's name finds nothing there.
 */
const volatile __u32 targ_rqf_io_stat = 1U << 13;
const volatile __u32 targ_rqf_flush_seq = 1U << 4;

static __always_inline void rq_stat_flags(struct request *rq, bool *io_stat,
					  bool *flush_seq)
{
	__u32 flags = rq->rq_flags;

	*io_stat = flags & targ_rqf_io_stat;
	*flush_seq = flags & targ_rqf_flush_seq;
}

/*
 * One value into a histogram of (dev, op, id, scope). A global function:
 * verified once, not once for each of its eight uses per request.
 */
__noinline int blk_hist_add(__u32 dev, __u32 op, __u32 id, __u32 scope, __u64 v)
{
	struct blk_hist_key key = { .dev = dev, .op = op, .hist = id, .scope = scope };
	__u32 slot = hist_slot(v), zero = 0;
	struct hist *h, *init;

	init = bpf_map_lookup_elem(&hist_zero, &zero);
	if (!init)
		return 0;
	h = map_lookup_or_init(&blk_hists, &key, init);
	if (!h) {
		count_lost(L_BLK_HISTS_FULL);
		return 0;
	}
	if (slot < HIST_SLOTS)
		__sync_fetch_and_add(&h->slots[slot], 1);
	return 0;
}

/* Both scopes of a histogram: the device's, and the target's when it is. */
static __always_inline void blk_hists_add(struct blk_req *r, __u8 id, __u64 v)
{
	blk_hist_add(r->dev, r->op, id, BLK_SCOPE_DEVICE, v);
	if (r->who == WHO_TARGET)
		blk_hist_add(r->dev, r->op, id, BLK_SCOPE_TARGET, v);
}

static __always_inline struct blk_dev_state *dev_state(struct request *rq, __u32 dev)
{
	struct blk_dev_state *d = bpf_map_lookup_elem(&blk_devs, &dev), init = {};

	if (d)
		return d;
	bpf_probe_read_kernel_str(init.name, sizeof(init.name), rq->q->disk->disk_name);
	d = map_lookup_or_init(&blk_devs, &dev, &init);
	if (!d)
		count_lost(L_BLK_DEVS_FULL);	/* no busy time, no sequentiality */
	return d;
}

/* Busy time: add the span since in-flight requests last became non-zero. */
static __always_inline void busy_step(struct blk_dev_state *d, int scope, int delta,
				      __u64 now)
{
	if (scope < 0 || scope > 1)
		return;
	if (delta > 0 && d->inflight[scope]++ == 0)
		d->since[scope] = now;
	if (delta < 0 && d->inflight[scope] > 0 && --d->inflight[scope] == 0)
		d->busy_ns[scope] += now - d->since[scope];
}

/* The request left the device: step busy time down, once. */
static __always_inline void leave_device(struct blk_req *r, __u64 now)
{
	struct blk_dev_state *d;

	if (!r->issued || r->idle)
		return;
	r->idle = 1;
	d = bpf_map_lookup_elem(&blk_devs, &r->dev);
	if (!d)
		return;
	bpf_spin_lock(&d->lock);
	busy_step(d, BLK_SCOPE_DEVICE, -1, now);
	if (r->who == WHO_TARGET)
		busy_step(d, BLK_SCOPE_TARGET, -1, now);
	bpf_spin_unlock(&d->lock);
}

/* One more request of (dev, op) whose kind (enum blk_miss) event was missed. */
static __always_inline void count_missed(__u32 dev, __u8 op, __u8 kind)
{
	struct blk_key k = { .dev = dev, .op = op, .who = kind };
	__u64 *n, init = 0;

	n = map_lookup_or_init(&blk_missed, &k, &init);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		count_lost(L_BLK_MISSED_FULL);
}

/* Who submits now: kernel threads first, since with -a they would pass as the target. */
static __always_inline __u8 submitter(void)
{
	struct task_struct *task = bpf_get_current_task_btf();

	if (task->flags & PF_KTHREAD)
		return WHO_KTHREAD;
	return is_target() ? WHO_TARGET : WHO_OTHER;
}

/*
 * Track the request at key from r. A record at this address: the request
 * that had it last was never seen completing (its done missed us). Count
 * it, and end its busy time now rather than never.
 */
static __always_inline void req_begin(__u64 key, struct blk_req *r)
{
	struct blk_req *old = bpf_map_lookup_elem(&blk_reqs, &key);

	if (old) {
		leave_device(old, r->start_ns);
		count_missed(old->dev, old->op, MISS_DONE);
	}
	if (bpf_map_update_elem(&blk_reqs, &key, r, BPF_ANY))
		count_lost(L_BLK_REQS_FULL);
}

SEC("tp_btf/block_io_start")
int BPF_PROG(handle_block_io_start, struct request *rq)
{
	struct blk_req r = {};

	r.start_ns = bpf_ktime_get_ns();
	r.dev = rq_dev(rq);
	r.op = rq_op(rq);
	r.who = submitter();
	req_begin((__u64)rq, &r);
	return 0;
}

/* The fallback's start: a new request is given its first bio, in the submitter. */
SEC("tp_btf/block_getrq")
int BPF_PROG(compat_block_getrq, struct bio *bio)
{
	struct blk_req r = {};
	__u64 key = (__u64)bio;

	r.start_ns = bpf_ktime_get_ns();
	r.dev = disk_dev(bio->bi_bdev->bd_disk);
	r.who = submitter();
	bpf_map_update_elem(&blk_bios, &key, &r, BPF_ANY);
	return 0;
}

/*
 * The fallback's record of rq, taken out of blk_bios into out: through its
 * first bio, or its last when a front merge put another bio first.
 */
static __always_inline bool bio_take(struct request *rq, struct blk_req *out)
{
	__u64 keys[2] = { (__u64)rq->bio, (__u64)rq->biotail };
	struct blk_req *r;

	for (int i = 0; i < 2; i++) {
		r = bpf_map_lookup_elem(&blk_bios, &keys[i]);
		if (!r)
			continue;
		*out = *r;
		out->op = rq_op(rq);
		bpf_map_delete_elem(&blk_bios, &keys[i]);
		return true;
	}
	return false;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(handle_block_rq_issue, struct request *rq)
{
	__u64 key = (__u64)rq, now = bpf_ktime_get_ns(), sector, end;
	struct blk_dev_state *d;
	struct blk_req *r;
	__u32 inflight;

	if (targ_block_rq) {
		struct blk_req fresh;

		if (bio_take(rq, &fresh))
			req_begin(key, &fresh);
	}
	r = bpf_map_lookup_elem(&blk_reqs, &key);
	if (!r || r->issued)
		return 0;	/* started before the attach, or requeued */
	d = dev_state(rq, r->dev);
	if (!d)
		return 0;
	r->issue_ns = now;
	r->issued = 1;
	sector = rq->__sector;
	end = sector + (rq->__data_len >> 9);
	bpf_spin_lock(&d->lock);
	r->seq = sector == d->next_sector;
	d->next_sector = end;
	busy_step(d, BLK_SCOPE_DEVICE, 1, now);
	if (r->who == WHO_TARGET)
		busy_step(d, BLK_SCOPE_TARGET, 1, now);
	inflight = d->inflight[BLK_SCOPE_DEVICE];
	bpf_spin_unlock(&d->lock);
	blk_hists_add(r, H_BLK_INFLIGHT, inflight);
	return 0;
}

/* The counters of (dev, op, who), created when missing; NULL counted lost. */
static __always_inline struct blk_stats *stats_entry(struct blk_req *r)
{
	struct blk_key k = { .dev = r->dev, .op = r->op, .who = r->who };
	struct blk_stats *st, init = {};

	st = map_lookup_or_init(&blk_stats, &k, &init);
	if (!st)
		count_lost(L_BLK_STATS_FULL);
	return st;
}

/* A request merged into another: it will never complete on its own. */
SEC("tp_btf/block_rq_merge")
int BPF_PROG(handle_block_rq_merge, struct request *rq)
{
	struct blk_stats *st;
	struct blk_req *r;
	__u64 key = (__u64)rq;

	struct blk_req fresh;

	r = bpf_map_lookup_elem(&blk_reqs, &key);
	if (!r && targ_block_rq && bio_take(rq, &fresh))
		r = &fresh;	/* merged before its issue */
	if (!r)
		return 0;
	st = stats_entry(r);
	if (st)		/* atomic: an irq's account_done() may share this CPU */
		__sync_fetch_and_add(&st->merged, 1);
	bpf_map_delete_elem(&blk_reqs, &key);
	return 0;
}

static __always_inline void account_done(struct blk_req *r, __u64 now)
{
	__u64 total = now - r->start_ns, queue = 0, device = total;
	struct blk_stats *st;

	if (r->issued) {
		queue = r->issue_ns - r->start_ns;
		device = now - r->issue_ns;
	}
	st = stats_entry(r);
	if (!st)
		return;
	st->reqs += 1;
	st->bytes += r->bytes;
	st->total_ns += total;
	st->queue_ns += queue;
	st->device_ns += device;
	st->seq += r->seq;
	st->small += r->bytes <= BLK_SMALL;
	blk_hists_add(r, H_BLK_TOTAL_LAT, total);
	blk_hists_add(r, H_BLK_QUEUE_LAT, queue);
	blk_hists_add(r, H_BLK_DEV_LAT, device);
	blk_hists_add(r, H_BLK_SIZE, r->bytes);
}

/*
 * A request completes with no record: it started before the attach, or
 * its block_io_start never ran our program. Its start_time_ns, set by
 * blk_account_io_start() from the same clock, tells them apart. Counted
 * once, as diskstats counts it: not at a flush sequence's step.
 */
static __always_inline void count_untracked(struct request *rq)
{
	bool io_stat, flush_seq;
	__u64 attach = window_start_ns;

	rq_stat_flags(rq, &io_stat, &flush_seq);
	if (!attach || !io_stat || flush_seq ||
	    rq->start_time_ns < attach)
		return;
	count_missed(rq_dev(rq), rq_op(rq), MISS_START);
}

/*
 * Counted as /proc/diskstats counts, in blk_account_io_done(): requests
 * with RQF_IO_STAT. A request in a flush sequence (a REQ_PREFLUSH or
 * REQ_FUA write: a journal commit) passes here twice: when its data part
 * completes, with RQF_FLUSH_SEQ set and not accounted, then when the
 * sequence ends (blk_flush_complete_seq() clears the flag and ends it
 * again), accounted. Its record is kept until then.
 */
static __always_inline void req_done(struct request *rq)
{
	__u64 key = (__u64)rq, now = bpf_ktime_get_ns();
	struct blk_req *r;
	bool io_stat, flush_seq;

	r = bpf_map_lookup_elem(&blk_reqs, &key);
	if (!r) {
		count_untracked(rq);
		return;
	}
	leave_device(r, now);
	rq_stat_flags(rq, &io_stat, &flush_seq);
	if (flush_seq)
		return;		/* back when the flush sequence ends */
	if (io_stat)
		account_done(r, now);
	bpf_map_delete_elem(&blk_reqs, &key);
}

SEC("tp_btf/block_io_done")
int BPF_PROG(handle_block_io_done, struct request *rq)
{
	req_done(rq);
	return 0;
}

/*
 * Bytes completed, perhaps in parts. The fallback's done: the part that
 * completes every remaining byte (blk_update_request() traces it before it
 * counts them off; a flush sequence's end completes its 0 bytes left).
 */
SEC("tp_btf/block_rq_complete")
int BPF_PROG(handle_block_rq_complete, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	__u64 key = (__u64)rq;
	struct blk_req *r = bpf_map_lookup_elem(&blk_reqs, &key);

	if (r)
		r->bytes += nr_bytes;
	/*
	 * The request's last bytes: it left the device, whether or not
	 * block_io_done follows (blk_account_io_done() runs only for requests
	 * that need a time stamp; without this step a request that had none
	 * kept its device busy until its address was reused: %util 100%
	 * through a warm phase with no request in flight).
	 */
	if (r && nr_bytes >= rq->__data_len)
		leave_device(r, bpf_ktime_get_ns());
	if (targ_block_rq && nr_bytes >= rq->__data_len)
		req_done(rq);
	return 0;
}
