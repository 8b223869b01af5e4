// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What the target did on each mount, in both reports ("mounts"). */
#include <stdio.h>
#include "lib/json.h"
#include "lib/units.h"
#include "report/report_int.h"

static const char *mount_point(const struct mount_rec *m, __u32 dev, char *buf, size_t len)
{
	if (m)
		return m->point;
	units__dev(buf, len, dev);
	return buf;
}

void report_mounts__json(struct json *j, const struct report *r)
{
	const struct mount_sums *ms = r->mounts;
	char dev[24];
	int n = r->nr_mounts;

	json__key(j, "mounts");
	json__begin_array(j);
	for (int i = 0; i < n; i++) {
		const struct mount_rec *m = ms[i].mount;

		json__begin_object(j);
		json__kv_string(j, "mount_point", m ? m->point : NULL);
		json__kv_string(j, "fstype", m ? m->fstype : NULL);
		json__kv_string(j, "source", m ? m->source : NULL);
		json__kv_string(j, "dev", units__dev(dev, sizeof(dev), ms[i].dev));
		json__kv_u64(j, "files", ms[i].files);
		json__kv_u64(j, "opens", ms[i].c.opens);
		json__kv_u64(j, "stats", ms[i].c.stats);
		json__kv_u64(j, "reads", ms[i].c.reads);
		json__kv_u64(j, "read_bytes", ms[i].c.read_bytes);
		json__kv_u64(j, "read_ns", ms[i].c.read_ns);
		json__kv_u64(j, "meta_ns", ms[i].c.meta_ns);
		json__end_object(j);
	}
	json__end_array(j);
}

void report_mounts__text(FILE *out, const struct report *r)
{
	const struct mount_sums *ms = r->mounts;
	char buf[4][32];
	int n = r->nr_mounts;

	if (n <= 0)
		return;
	fprintf(out, "\nfile systems, by mount\n%-24s %-12s %7s %7s %7s %8s %9s %9s %9s  %s\n",
		"mount", "type", "files", "opens", "stats", "reads", "bytes", "read", "metadata",
		"source");
	for (int i = 0; i < n; i++) {
		const struct mount_rec *m = ms[i].mount;

		emit__left(out, mount_point(m, ms[i].dev, buf[0], sizeof(buf[0])), 24);
		fprintf(out, " %-12s", m ? m->fstype : "?");
		emit__cell_u64(out, ms[i].files, 7);
		emit__cell_u64(out, ms[i].c.opens, 7);
		emit__cell_u64(out, ms[i].c.stats, 7);
		emit__cell_u64(out, ms[i].c.reads, 8);
		emit__cell(out, units__size(buf[1], sizeof(buf[1]), ms[i].c.read_bytes, true), 9);
		emit__cell(out, units__ns(buf[2], sizeof(buf[2]), ms[i].c.read_ns), 9);
		emit__cell(out, units__ns(buf[3], sizeof(buf[3]), ms[i].c.meta_ns), 9);
		fputs("  ", out);
		emit__safe(out, m ? m->source : "?");
		fputc('\n', out);
	}
}
