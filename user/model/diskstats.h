/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * /proc/diskstats: the kernel's own count of completed requests, sectors
 * and time per block device (Documentation/admin-guide/iostats.rst), read
 * at the start and the end of a trace as an independent truth.
 */
#ifndef DISKSTATS_H
#define DISKSTATS_H

#include <stddef.h>
#include <linux/types.h>

#define DISKSTATS_PATH	"/proc/diskstats"

/* One line; fields a kernel does not have (before 4.18, 5.5) stay 0. */
struct diskstat {
	__u32 dev;		/* major << 20 | minor, as the BPF side keys disks */
	char name[32];
	__u64 reads;		/* completed */
	__u64 reads_merged;
	__u64 read_sectors;	/* of 512 bytes */
	__u64 read_ms;		/* summed over requests, start -> done */
	__u64 writes;
	__u64 writes_merged;
	__u64 write_sectors;
	__u64 write_ms;
	__u64 in_flight;
	__u64 io_ms;		/* time with requests in flight: %util */
	__u64 weighted_ms;	/* summed request time of every op: aqu-sz */
	__u64 discards;
	__u64 discards_merged;
	__u64 discard_sectors;
	__u64 discard_ms;
	__u64 flushes;
	__u64 flush_ms;
};

struct diskstats {
	struct diskstat *v;
	size_t n;
};

/* Parse one line; -EINVAL when it is not a diskstats line. */
int diskstats__parse_line(const char *line, struct diskstat *ds);
/* Read every line of path (DISKSTATS_PATH) into *out, replacing it. */
int diskstats__read(const char *path, struct diskstats *out);
void diskstats__free(struct diskstats *d);
const struct diskstat *diskstats__find(const struct diskstats *d, __u32 dev);
/* end - start, field by field (counters that went backwards give 0). */
void diskstats__delta(const struct diskstat *start, const struct diskstat *end,
		      struct diskstat *delta);

#endif /* DISKSTATS_H */
