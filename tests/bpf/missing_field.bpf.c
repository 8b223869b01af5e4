// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A program no kernel can load: it reads a field of struct request that
 * no kernel has, as a program of iostorm's would on a kernel that moved
 * one. Linked into the build `make degrade` makes (.output/degrade/iostorm),
 * never into ./iostorm: the block layer must go unmeasured, said with the
 * reason, and every other layer load and count (tests/e2e/test_degrade.sh).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct request___iostorm_test {
	int iostorm_no_such_field;
} __attribute__((preserve_access_index));

SEC("tp_btf/block_rq_issue")
int BPF_PROG(test_missing_field, struct request *rq)
{
	struct request___iostorm_test *r = (void *)rq;

	return BPF_CORE_READ(r, iostorm_no_such_field) ? 1 : 0;
}
