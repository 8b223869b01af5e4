/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where a wakeup runs. sched_waking runs in the waker, but in an interrupt
 * "current" is whoever was interrupted: a DataLoader worker decoding on
 * the CPU the GPU's completion interrupt lands on is no waker of the loop.
 * irq.bpf.c keeps, per CPU, whether a device interrupt or a timer is being
 * handled, or a softirq served: from their entry and exit tracepoints,
 * which exist on every kernel, where preempt_count() would need the
 * kernel's per-CPU symbols (CONFIG_KALLSYMS_ALL).
 *
 * Flags, not depths: hardirqs do not nest, nor softirqs on one CPU, so a
 * missed exit (at the attach) is undone by the next one.
 */
#ifndef IRQ_BPF_H
#define IRQ_BPF_H

#define IRQ_DEVICE	1
#define IRQ_TIMER	2

struct irq_ctx {
	__u8 nobody;		/* IRQ_DEVICE, IRQ_TIMER (expiring), or 0 */
	__u8 soft;		/* a softirq being served */
	__u8 pad[6];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct irq_ctx);
} irq_ctx SEC(".maps") __weak;

static __always_inline struct irq_ctx *irq_ctx_here(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&irq_ctx, &zero);
}

/*
 * Waker w (a target thread's tid) as this context makes it: nobody's
 * (WAKER_OUTSIDE) in a device interrupt or a timer, flagged WAKER_SOFTIRQ
 * in a softirq (loopback traffic is delivered in its sender's softirq, so
 * the sender may be the waker after all: user space decides).
 */
static __always_inline __u32 irq_waker(__u32 w)
{
	struct irq_ctx *c = irq_ctx_here();

	if (!c)
		return w;
	if (c->nobody)
		return WAKER_OUTSIDE;
	return c->soft ? w | WAKER_SOFTIRQ : w;
}

/* Is a timer expiring here: a wakeup made here ends a wait that timed out. */
static __always_inline bool irq_in_timer(void)
{
	struct irq_ctx *c = irq_ctx_here();

	return c && c->nobody == IRQ_TIMER;
}

#endif /* IRQ_BPF_H */
