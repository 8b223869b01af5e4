// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The kernel's layers and fallbacks: names and the fallback list's parser. */
#include <errno.h>
#include <string.h>
#include "model/kernel.h"

static const char *const layer_names[KL__MAX] = {
	[KL_SYSCALLS] = "syscalls",
	[KL_PAGE_CACHE] = "page_cache",
	[KL_FAULTS] = "faults",
	[KL_BLOCK] = "block",
	[KL_FUSE] = "fuse",
	[KL_SCHED] = "sched",
	[KL_URING] = "io_uring",
	[KL_NFS] = "nfs",
};

static const char *const fallback_names[KF__MAX] = {
	[KF_CORE_READ] = "core_read",
	[KF_BLOCK_RQ] = "block_rq",
	[KF_PREV_STATE] = "prev_state",
	[KF_PAGE_ARG] = "page_arg",
	[KF_NO_FAULTS] = "no_faults",
	[KF_NO_FUSE] = "no_fuse",
	[KF_NO_URING] = "no_uring",
	[KF_NO_NFS] = "no_nfs",
	[KF_NO_SCHED] = "no_sched",
};

const char *kernel__layer_name(enum kernel_layer l)
{
	return l < KL__MAX ? layer_names[l] : "?";
}

const char *kernel__fallback_name(enum kernel_fallback f)
{
	return f < KF__MAX ? fallback_names[f] : "?";
}

static int fallback_of(const char *name, size_t len)
{
	for (int f = 0; f < KF__MAX; f++)
		if (strlen(fallback_names[f]) == len && !strncmp(name, fallback_names[f], len))
			return f;
	return -1;
}

int kernel__parse_fallbacks(const char *s, __u32 *bits, const char **bad, int *bad_len)
{
	const char *p = s;

	*bits = 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		int f = fallback_of(p, len);

		if (len == 3 && !strncmp(p, "all", 3))
			*bits |= ((1U << KF__MAX) - 1) & ~(1U << KF_NO_SCHED);
		else if (f >= 0)
			*bits |= 1U << f;
		else if (len) {
			*bad = p;
			*bad_len = len;
			return -EINVAL;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

bool kernel__measured(const struct kernel_reach *k, enum kernel_layer l)
{
	return !k->probed || (l < KL__MAX && k->layers[l].measured);
}

int kernel__unmeasured(const struct kernel_reach *k)
{
	int n = 0;

	for (int l = 0; l < KL__MAX; l++)
		n += !kernel__measured(k, l);
	return n;
}
