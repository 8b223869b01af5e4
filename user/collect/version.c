// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Which libbpf iostorm loads its programs with, for `iostorm --version`:
 * the headers it was compiled against and the library it runs with. The
 * two differ only in a dynamic build run on another libbpf.
 */
#include <stdio.h>
#include <bpf/libbpf.h>
#include "collect/collect.h"

void collector__libbpf_version(char *buf, size_t len)
{
	unsigned int maj = libbpf_major_version(), min = libbpf_minor_version();

	if (maj == LIBBPF_MAJOR_VERSION && min == LIBBPF_MINOR_VERSION)
		snprintf(buf, len, "%u.%u", maj, min);
	else
		snprintf(buf, len, "%u.%u (built with %u.%u headers)", maj, min,
			 LIBBPF_MAJOR_VERSION, LIBBPF_MINOR_VERSION);
}
