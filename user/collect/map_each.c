// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* One walk over a BPF map's entries, for every reader in collect/ (collect_int.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "collect/collect_int.h"

int map_each(int fd, void *key, size_t key_size, void *value, __u64 lookup_flags,
	     map_each_fn fn, void *ctx)
{
	void *next = malloc(key_size);
	int err;

	if (!next)
		return -ENOMEM;
	for (err = bpf_map_get_next_key(fd, NULL, next); !err;
	     err = bpf_map_get_next_key(fd, key, next)) {
		memcpy(key, next, key_size);
		if (bpf_map_lookup_elem_flags(fd, key, value, lookup_flags))
			continue;	/* deleted between the key and the lookup */
		err = fn(key, value, ctx);
		if (err)
			break;
	}
	free(next);
	return err == -ENOENT ? 0 : err;
}

int map_each_percpu(int fd, void *key, size_t key_size, size_t value_size, int ncpus,
		    map_each_fn fn, void *ctx)
{
	void *values = calloc(ncpus, percpu_stride(value_size));
	int err;

	if (!values)
		return -ENOMEM;
	err = map_each(fd, key, key_size, values, 0, fn, ctx);
	free(values);
	return err;
}
