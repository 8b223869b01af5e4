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

static __always_inline void set_nobody(__u8 v)
{
	struct irq_ctx *c = irq_ctx_here();

	if (c)
		c->nobody = v;
}

static __always_inline void set_soft(__u8 v)
{
	struct irq_ctx *c = irq_ctx_here();

	if (c)
		c->soft = v;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(handle_irq_exit)
{
	set_nobody(0);
	return 0;
}

SEC("tp_btf/hrtimer_expire_exit")
int BPF_PROG(handle_hrtimer_exit)
{
	set_nobody(0);
	return 0;
}

SEC("tp_btf/timer_expire_exit")
int BPF_PROG(handle_timer_exit)
{
	set_nobody(0);
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(handle_softirq_exit)
{
	set_soft(0);
	return 0;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(handle_irq_entry)
{
	set_nobody(1);
	return 0;
}

SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(handle_hrtimer_entry)
{
	set_nobody(1);
	return 0;
}

SEC("tp_btf/timer_expire_entry")
int BPF_PROG(handle_timer_entry)
{
	set_nobody(1);
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(handle_softirq_entry)
{
	set_soft(1);
	return 0;
}
