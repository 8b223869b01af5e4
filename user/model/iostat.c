// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* iostat -x's formulas (sysstat's rd_sec, r_await, aqu-sz, %util), see iostat.h. */
#include <string.h>
#include "model/diskstats.h"
#include "model/iostat.h"

static double per(double n, double d)
{
	return d > 0 ? n / d : 0;
}

void iostat__compute(const struct iostat_in *in, struct iostat *out)
{
	double s = in->secs > 0 ? in->secs : 0;

	memset(out, 0, sizeof(*out));
	out->r_s = per(in->reads, s);
	out->rkb_s = per(in->read_bytes / 1024.0, s);
	out->r_await = per(in->read_ms, in->reads);
	out->rareq_sz = per(in->read_bytes / 1024.0, in->reads);
	out->w_s = per(in->writes, s);
	out->wkb_s = per(in->write_bytes / 1024.0, s);
	out->w_await = per(in->write_ms, in->writes);
	out->wareq_sz = per(in->write_bytes / 1024.0, in->writes);
	out->aqu_sz = per(in->queue_ms, s * 1000);
	out->util = per(in->busy_ms * 100, s * 1000);
	if (out->util > 100)	/* jiffy rounding; sysstat caps it too */
		out->util = 100;
}

void iostat__from_diskstat(const struct diskstat *d, double secs, struct iostat_in *in)
{
	memset(in, 0, sizeof(*in));
	in->secs = secs;
	in->reads = d->reads;
	in->read_bytes = d->read_sectors * 512;
	in->read_ms = d->read_ms;
	in->writes = d->writes;
	in->write_bytes = d->write_sectors * 512;
	in->write_ms = d->write_ms;
	in->busy_ms = d->io_ms;
	in->queue_ms = d->weighted_ms;
}
