/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The BPF side: check the kernel, open, configure, load, attach, detach. */
#ifndef PROBE_H
#define PROBE_H

#include <stdbool.h>
#include <linux/types.h>

struct iostorm_bpf;
struct options;

struct probe_config {
	int mode;		/* enum scope_mode */
	__u64 cgid;
	unsigned int map_files;
	bool verbose;
};

/* Can this process and this kernel trace at all? Prints the fix if not. */
int probe__check_env(void);
int probe__load(struct iostorm_bpf **skel, const struct probe_config *c);
int probe__attach(struct iostorm_bpf *skel);
void probe__detach(struct iostorm_bpf *skel);
/* Program runs the kernel skipped (recursion_misses), all programs summed. */
__u64 probe__misses(struct iostorm_bpf *skel);
/* Kernel memory of the BPF maps (their fdinfo "memlock"), in bytes; 0 if unknown. */
__u64 probe__maps_bytes(struct iostorm_bpf *skel);

#endif /* PROBE_H */
