// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `iostorm --version`: the release, the commit it was built from, the
 * libbpf it loads its programs with, and whether the binary is static.
 * IOSTORM_COMMIT is given to this file alone by the Makefile (a new commit
 * recompiles nothing else).
 */
#include <elf.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/auxv.h>
#include "collect/collect.h"
#include "run/run.h"

#ifndef IOSTORM_COMMIT
#define IOSTORM_COMMIT "unknown"
#endif

/*
 * Static means nothing is loaded at run time: the program's own headers
 * name no interpreter (PT_INTERP, the dynamic loader). Asked of the running
 * binary, not of the build, so a static-pie counts as static too.
 */
static bool linked_statically(void)
{
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)getauxval(AT_PHDR);
	unsigned long i, n = getauxval(AT_PHNUM);

	for (i = 0; ph && i < n; i++)
		if (ph[i].p_type == PT_INTERP)
			return false;
	return true;
}

void run__print_version(void)
{
	char libbpf[64];

	collector__libbpf_version(libbpf, sizeof(libbpf));
	printf("iostorm %s\n", IOSTORM_VERSION);
	printf("commit: %s\n", IOSTORM_COMMIT);
	printf("libbpf: %s\n", libbpf);
	printf("linked: %s\n", linked_statically() ?
	       "static (no shared libraries)" : "dynamic");
}
