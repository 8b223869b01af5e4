/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel's counter groups (bpf/iostorm.h), summed: one add function
 * per struct, as libbpf-tools shares its value structs between the two
 * sides. The store's records, the cgroups and the per-mount sums embed
 * them, so a counter added to bpf/iostorm.h is summed everywhere at once.
 */
#ifndef MODEL_COUNTERS_H
#define MODEL_COUNTERS_H

#include <linux/types.h>
#include "iostorm.h"

/* to += from, member by member. */
void file_counters__add(struct file_counters *to, const struct file_counters *from);
void io_counters__add(struct io_counters *to, const struct io_counters *from);

#endif /* MODEL_COUNTERS_H */
