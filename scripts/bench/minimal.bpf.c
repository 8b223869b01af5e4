// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Reference for scripts/bench.sh --compare: the least a syscall latency
 * tracer does. Each syscall of the benchmark's workload (picked by its
 * comm) is timed from sys_enter to sys_exit into one log2 histogram: a
 * task storage slot and a clock read at each end, no per-file work.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
} latency SEC(".maps");

static const char comm[] = "iostorm-workloa";	/* TASK_COMM_LEN - 1 */

SEC("tp_btf/sys_enter")
int BPF_PROG(minimal_enter, struct pt_regs *regs, long id)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 *ts;

	for (int i = 0; i < sizeof(comm) - 1; i++)
		if (task->comm[i] != comm[i])
			return 0;
	ts = bpf_task_storage_get(&start, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (ts)
		*ts = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(minimal_exit, struct pt_regs *regs, long ret)
{
	__u64 *ts, *n, d;
	__u32 slot = 0;

	ts = bpf_task_storage_get(&start, bpf_get_current_task_btf(), 0, 0);
	if (!ts || !*ts)
		return 0;
	d = bpf_ktime_get_ns() - *ts;
	*ts = 0;
	while (d > 1 && slot < 63) {
		d >>= 1;
		slot++;
	}
	n = bpf_map_lookup_elem(&latency, &slot);
	if (n)
		*n += 1;
	return 0;
}
