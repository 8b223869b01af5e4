// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* /proc/diskstats, see diskstats.h. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/diskstats.h"

/* The counters after "major minor name", in the kernel's order. */
static const size_t fields[] = {
	offsetof(struct diskstat, reads), offsetof(struct diskstat, reads_merged),
	offsetof(struct diskstat, read_sectors), offsetof(struct diskstat, read_ms),
	offsetof(struct diskstat, writes), offsetof(struct diskstat, writes_merged),
	offsetof(struct diskstat, write_sectors), offsetof(struct diskstat, write_ms),
	offsetof(struct diskstat, in_flight), offsetof(struct diskstat, io_ms),
	offsetof(struct diskstat, weighted_ms), offsetof(struct diskstat, discards),
	offsetof(struct diskstat, discards_merged),
	offsetof(struct diskstat, discard_sectors),
	offsetof(struct diskstat, discard_ms), offsetof(struct diskstat, flushes),
	offsetof(struct diskstat, flush_ms),
};

#define NR_FIELDS	(sizeof(fields) / sizeof(fields[0]))
#define NR_FIELDS_MIN	11	/* what every kernel has */

static __u64 *field(struct diskstat *ds, size_t i)
{
	return (__u64 *)((char *)ds + fields[i]);
}

static __u64 field_of(const struct diskstat *ds, size_t i)
{
	return *(const __u64 *)((const char *)ds + fields[i]);
}

int diskstats__parse_line(const char *line, struct diskstat *ds)
{
	unsigned int major, minor;
	const char *p = line;
	char *end;
	size_t i;
	int n;

	memset(ds, 0, sizeof(*ds));
	if (sscanf(p, " %u %u %31s%n", &major, &minor, ds->name, &n) != 3)
		return -EINVAL;
	ds->dev = major << 20 | minor;
	p += n;
	for (i = 0; i < NR_FIELDS; i++) {
		unsigned long long v = strtoull(p, &end, 10);

		if (end == p)
			break;
		*field(ds, i) = v;
		p = end;
	}
	return i >= NR_FIELDS_MIN ? 0 : -EINVAL;
}

void diskstats__free(struct diskstats *d)
{
	free(d->v);
	d->v = NULL;
	d->n = 0;
}

int diskstats__read(const char *path, struct diskstats *out)
{
	struct diskstat ds, *v;
	char line[512];
	FILE *f;
	int err = 0;

	diskstats__free(out);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (diskstats__parse_line(line, &ds))
			continue;
		v = realloc(out->v, (out->n + 1) * sizeof(*v));
		if (!v) {
			err = -ENOMEM;
			break;
		}
		out->v = v;
		out->v[out->n++] = ds;
	}
	if (!err && ferror(f))
		err = -EIO;
	fclose(f);
	if (err)
		diskstats__free(out);
	return err;
}

const struct diskstat *diskstats__find(const struct diskstats *d, __u32 dev)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].dev == dev)
			return &d->v[i];
	return NULL;
}

void diskstats__delta(const struct diskstat *start, const struct diskstat *end,
		      struct diskstat *delta)
{
	*delta = *end;
	for (size_t i = 0; i < NR_FIELDS; i++) {
		__u64 a = field_of(start, i), b = field_of(end, i);

		*field(delta, i) = b >= a ? b - a : 0;
	}
	/* in_flight is a level, not a counter: keep the end's. */
	delta->in_flight = end->in_flight;
}
