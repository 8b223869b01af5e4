// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `iostorm check`: what this node gives, without tracing, as bpftool's
 * `feature probe` does: each layer measured or not and why, the fallbacks
 * this kernel takes, and whether the programs load (verified, not
 * attached). An operator runs it before attaching to a job.
 */
#include <stdio.h>
#include <string.h>
#include "collect/collect.h"
#include "lib/caps.h"
#include "lib/log.h"
#include "model/kernel.h"
#include "run/run.h"

static const char usage[] =
"usage: iostorm check [-v]\n"
"\n"
"Say what this kernel gives iostorm, without tracing: each layer (syscalls,\n"
"page_cache, faults, block, fuse, sched, io_uring, nfs) measured or not and\n"
"why, the fallbacks taken for features an older kernel lacks, and whether\n"
"the BPF programs load here. -v prints libbpf's and the verifier's log.\n"
"\n"
"IOSTORM_FALLBACKS=core_read,block_rq,prev_state,page_arg,no_faults,no_fuse,no_uring,\n"
"no_nfs (or all) forces older kernels' paths on a newer one, for testing them;\n"
"no_sched leaves the scheduler programs out (no training loop is looked for).\n"
"\n"
"Exit status: 0 when iostorm can trace here, 1 when it cannot (the reason\n"
"is printed), 2 on a bad command line.\n";

static void print_reach(const struct kernel_reach *k)
{
	printf("kernel %s\n", k->release);
	for (int l = 0; l < KL__MAX; l++) {
		const struct layer_state *s = &k->layers[l];

		printf("  %-11s %-4s %s\n", kernel__layer_name(l), s->measured ? "yes" : "no",
		       s->measured ? s->how : s->why);
	}
	printf("fallbacks:");
	if (!k->fallbacks)
		printf(" none");
	for (int f = 0; f < KF__MAX; f++)
		if (k->fallbacks & (1U << f))
			printf(" %s%s", kernel__fallback_name(f),
			       k->forced & (1U << f) ? " (forced)" : "");
	printf("\n");
	printf("second chance: %s\n", k->tp_preemptible ?
	       "loaded (this kernel's tracepoints run programs preemptibly and skip runs: "
	       "the syscall programs' skipped runs are run again, docs/kernels.md)" :
	       "not needed (this kernel's tracepoints run programs with preemption off)");
}

int check__main(int argc, char **argv)
{
	struct prog_verified progs[64];
	struct kernel_reach k = {};
	char after[256];
	__u64 caps_after = 0;
	bool verbose = false;
	int n, err;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			verbose = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return 0;
		} else {
			pr_err("check: unknown argument '%s'", argv[i]);
			fprintf(stderr, "Try 'iostorm check --help' for more information.\n");
			return 2;
		}
	}
	err = load__check_env();
	if (!err)
		err = collector__check(&k, verbose, progs, sizeof(progs) / sizeof(progs[0]), &n,
				       &caps_after);
	if (!err || k.probed)
		print_reach(&k);
	if (err) {
		printf("programs: not loaded; iostorm cannot trace here (the reason is above%s)\n",
		       verbose ? "" : "; -v shows the verifier's log");
		return 1;
	}
	printf("programs: %d loaded and verified; iostorm can trace here\n", n);
	for (int i = 0; i < n; i++)
		printf("  %-26s %7u instructions verified\n", progs[i].name, progs[i].insns);
	caps__names(caps_after, after, sizeof(after));
	printf("capabilities once attached, while tracing and serving: %s (%s)\n", after,
	       caps_after ? "this kernel checks CAP_BPF on every map read" :
			    "the maps are read through the fds held");
	return 0;
}
