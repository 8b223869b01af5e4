// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The rule on FUSE storage (sshfs, gcsfuse, s3fs, mountpoint-s3...): each
 * file costs several round trips to the daemon, and through it often to a
 * remote server. Names the file system and mount, the round trips per file
 * and the latency per kind of request, and gives advice that fits FUSE.
 * See docs/findings.md.
 */
#include <math.h>
#include <stdio.h>
#include "findings/rules.h"

/* Little's law: requests in flight for rate at a round trip of rtt_us. */
static double in_flight_for(double rate, double rtt_us)
{
	return rate * rtt_us / 1e6;
}

static void fuse_advice(const struct evidence *e, struct finding *f)
{
	double rtt = e->fuse_read_p50_us > 0 ? e->fuse_read_p50_us : e->fuse_rtt_us;
	double per_reader = rtt > 0 ? 1e6 / rtt : 0;
	double now = e->fuse_read_inflight > 0 ? e->fuse_read_inflight : 1;
	double want = in_flight_for(4 * e->fuse_reqs_per_s, e->fuse_rtt_us);
	char buf[NBUF][32];

	say(f->advice, sizeof(f->advice),
	    "every file costs %s round trips of %s: cache metadata in the kernel "
	    "(mount with attr_timeout/entry_timeout of minutes, kernel_cache, and the "
	    "daemon's own cache, e.g. sshfs -o cache=yes); list the dataset once and "
	    "open files by path; pack files into shards so one open serves thousands "
	    "of samples; or stage the data to local disk or memory. More parallel "
	    "reads help while the daemon and the link allow (Little's law: %s READs in "
	    "flight at %s give ~%s/s each; 4x the requests/s needs ~%s in flight)",
	    units__num(B(0), e->fuse_round_trips), units__us(B(1), e->fuse_rtt_us),
	    units__num(B(2), now), units__us(B(3), rtt), units__num(B(4), per_reader),
	    units__num(B(5), want));
	fig(f, "fuse_inflight_for_4x", want, "requests");
}

int rule__fuse(const struct evidence *e, const double *th, struct finding *f)
{
	bool storm = e->files_read >= th[TH_STORM_FILES] && e->median_file_bytes >= 0 &&
		     e->median_file_bytes <= th[TH_STORM_MEDIAN];
	char buf[NBUF][32], label[256], where[192], through[128];

	if (!e->have_fuse || e->fuse_reqs < th[TH_MIN_READS])
		return 0;
	snprintf(where, sizeof(where), "%s%s%s", e->fuse_fs, e->fuse_mount[0] ? " at " : "",
		 e->fuse_mount);
	/* The label keeps what fits a finding's label; the summary has it all. */
	snprintf(label, sizeof(label), "%s on %s", storm ? "small-file storm" : "round trips",
		 where);
	finding_init(f, "fuse_round_trips", impact(e, th), "",
		     "cache metadata, pack into shards or stage locally");
	memcpy(f->label, label, sizeof(f->label) - 1);
	if (e->layer == LAYER_FUSE)
		say(through, sizeof(through), "%s block requests: the data comes through the "
		    "FUSE daemon", e->blk_reads ? units__count(B(5), e->blk_reads) : "no");
	else
		say(through, sizeof(through), "the FUSE daemon returned %s of the bytes read",
		    units__pct(B(5), evidence__ratio(e->fuse_read_bytes, e->read_bytes)));
	say(f->summary, sizeof(f->summary),
	    "%s: %s round trips per file, %s p50 %s, READ p50 %s (mean request %s, "
	    "%s/s); %s",
	    label, e->fuse_round_trips < 0 ? "?" : units__num(B(0), e->fuse_round_trips),
	    e->fuse_lookup_p50_us > 0 ? "LOOKUP" : "OPEN",
	    units__us(B(1), e->fuse_lookup_p50_us > 0 ? e->fuse_lookup_p50_us :
			    e->fuse_open_p50_us), units__us(B(2), e->fuse_read_p50_us),
	    units__us(B(3), e->fuse_rtt_us), units__num(B(4), e->fuse_reqs_per_s), through);
	fig(f, "fuse_requests", e->fuse_reqs, "requests");
	fig(f, "fuse_requests_per_s", e->fuse_reqs_per_s, "requests/s");
	fig(f, "fuse_round_trips_per_file", e->fuse_round_trips, "requests");
	fig(f, "fuse_rtt_us", e->fuse_rtt_us, "us");
	fig(f, "fuse_lookup_p50_us", e->fuse_lookup_p50_us, "us");
	fig(f, "fuse_getattr_p50_us", e->fuse_getattr_p50_us, "us");
	fig(f, "fuse_open_p50_us", e->fuse_open_p50_us, "us");
	fig(f, "fuse_read_p50_us", e->fuse_read_p50_us, "us");
	fig(f, "fuse_read_inflight", e->fuse_read_inflight, "requests");
	fuse_advice(e, f);
	return 1;
}
