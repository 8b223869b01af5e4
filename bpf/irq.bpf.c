// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The interrupt context of wakeups (irq.bpf.h): device interrupts, timers
 * expiring (high-resolution, in a hardirq or a softirq; the timer wheel,
 * in a softirq) and softirqs, per CPU. The exits come first in this file,
 * so they are attached first. Machine-wide, a store each.
 */
#include "maps.bpf.h"
#include "irq.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set this CPU's flag: nobody's (a device interrupt, a timer), or a softirq's. */
static __always_inline void irq_set(bool soft, __u8 v)
{
	struct irq_ctx *c = irq_ctx_here();

	if (!c)
		return;
	if (soft)
		c->soft = v;
	else
		c->nobody = v;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(handle_irq_exit)
{
	irq_set(false, 0);
	return 0;
}

SEC("tp_btf/hrtimer_expire_exit")
int BPF_PROG(handle_hrtimer_exit)
{
	irq_set(false, 0);
	return 0;
}

SEC("tp_btf/timer_expire_exit")
int BPF_PROG(handle_timer_exit)
{
	irq_set(false, 0);
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(handle_softirq_exit)
{
	irq_set(true, 0);
	return 0;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(handle_irq_entry)
{
	irq_set(false, IRQ_DEVICE);
	return 0;
}

SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(handle_hrtimer_entry)
{
	irq_set(false, IRQ_TIMER);
	return 0;
}

SEC("tp_btf/timer_expire_entry")
int BPF_PROG(handle_timer_entry)
{
	irq_set(false, IRQ_TIMER);
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(handle_softirq_entry)
{
	irq_set(true, 1);
	return 0;
}
