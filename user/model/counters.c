// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Counter groups summed, see counters.h. Each struct is a run of __u64
 * counts and nothing else (bpf/iostorm.h), so it is summed as an array;
 * the static asserts hold that true.
 */
#include <stddef.h>
#include "model/counters.h"

_Static_assert(sizeof(struct file_counters) % sizeof(__u64) == 0,
	       "struct file_counters holds __u64 counts only");
_Static_assert(sizeof(struct io_counters) % sizeof(__u64) == 0,
	       "struct io_counters holds __u64 counts only");

static void add_u64s(__u64 *to, const __u64 *from, size_t n)
{
	for (size_t i = 0; i < n; i++)
		to[i] += from[i];
}

void file_counters__add(struct file_counters *to, const struct file_counters *from)
{
	add_u64s((__u64 *)to, (const __u64 *)from, sizeof(*to) / sizeof(__u64));
}

void io_counters__add(struct io_counters *to, const struct io_counters *from)
{
	add_u64s((__u64 *)to, (const __u64 *)from, sizeof(*to) / sizeof(__u64));
}
