// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The syscall programs' second chance, on kernels whose tracepoints run
 * preemptibly (7.x: PREEMPT_LAZY, no "none" mode): while one run of
 * handle_sys_exit is preempted on a CPU, the kernel skips that program's
 * runs on that CPU (its recursion_misses), and another thread's syscall
 * there goes uncounted. These programs run after the main ones on the same
 * tracepoints, and only where a skipped run left its mark: an exit whose
 * entry is still in flight (the main program clears it), an entry of a
 * traced syscall not recorded. Then they tail-call the main program, which
 * counts the call as it would have. Each such call is counted
 * (C_RESCUED_*), so user space reports only the runs still lost.
 *
 * Loaded always, attached by user space only once a syscall program has
 * skipped a run (collect/probe.c): a kernel that never skips pays nothing.
 */
#include "maps.bpf.h"
#include "target.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * The main program this build loaded (handle_* or compat_*) of each hook,
 * at index 0: a table a hook of its own, as tail calls must stay on one
 * hook (Linux 6.11: "bpf: Prevent tail call between progs attached to
 * different hooks").
 */
struct rescue_table {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
};

struct rescue_table rescue_enter SEC(".maps");
struct rescue_table rescue_exit SEC(".maps");

/* The vfs programs' syscall table (weak: vfs.bpf.c owns it). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SYSCALL_SLOTS);
	__type(key, __u32);
	__type(value, __u8);
} syscalls SEC(".maps") __weak;

SEC("tp_btf/sys_enter")
int BPF_PROG(rescue_sys_enter, struct pt_regs *regs, long id)
{
	struct task_state *st;
	__u32 nr = id;
	__u8 *kind;

	kind = bpf_map_lookup_elem(&syscalls, &nr);
	if (!kind || *kind == SK_NONE || !is_target())
		return 0;
	st = task_state_of(bpf_get_current_task_btf(), false);
	if (st && st->in.kind != SK_NONE && st->in.nr == nr)
		return 0;		/* recorded by handle_sys_enter */
	count(C_RESCUED_ENTERS, 1);
	bpf_tail_call(ctx, &rescue_enter, 0);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(rescue_sys_exit, struct pt_regs *regs, long ret)
{
	struct task_state *st;

	if (targ_mode == TARGET_PIDS && !tgid_in_targets(bpf_get_current_pid_tgid() >> 32))
		return 0;
	st = task_state_of(bpf_get_current_task_btf(), false);
	if (!st || st->in.kind == SK_NONE || st->in.nr != SYSCALL_NR(regs))
		return 0;		/* nothing in flight: handle_sys_exit ran */
	count(C_RESCUED_EXITS, 1);
	bpf_tail_call(ctx, &rescue_exit, 0);
	return 0;
}
