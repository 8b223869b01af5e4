// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The rule on NFS storage: each file costs round trips over the network
 * (a LOOKUP, an OPEN or GETATTR and ACCESS, a READ, a CLOSE), each as long
 * as the network and the server make it. Names the mount, the round trips
 * per file by procedure and their time, and gives advice that fits NFS:
 * fewer files (shards), more connections, attribute caching for read-only
 * data, larger reads, a local cache. See docs/findings.md.
 */
#include <stdio.h>
#include "findings/rules.h"

#define MIB	1048576.0

/* The mount options that would help, from those it has; "" when none. */
static void mount_advice(const struct evidence *e, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	if (!e->nfs_nocto && !e->nfs_actimeo)
		n += snprintf(buf + n, len - n, "; read-only data: mount nocto,actimeo=600 "
			      "(no GETATTR at each open)");
	if (e->nfs_nconnect <= 1 && n < len)
		n += snprintf(buf + n, len - n, "; nconnect=8 (8 connections, now %s)",
			      e->nfs_nconnect ? "1" : "unknown");
	if (e->nfs_rsize && e->nfs_rsize < MIB && n < len)
		snprintf(buf + n, len - n, "; rsize=1048576 (now %llu)",
			 (unsigned long long)e->nfs_rsize);
}

static void nfs_advice(const struct evidence *e, struct finding *f)
{
	char buf[NBUF][32], opts[256];

	mount_advice(e, opts, sizeof(opts));
	say(f->advice, sizeof(f->advice),
	    "every file costs %s round trips of %s over the network: pack files into "
	    "shards (one LOOKUP and OPEN for thousands of samples, READs of rsize)%s; or "
	    "keep a copy near the GPU: FS-Cache (mount -o fsc, cachefilesd) or staging "
	    "to local NVMe or memory. More reads in flight help while the server and the "
	    "link allow (%s READs in flight now)",
	    units__num(B(0), e->nfs_round_trips), units__us(B(1), e->nfs_rtt_us), opts,
	    units__num(B(2), e->nfs_read_inflight > 0 ? e->nfs_read_inflight : 1));
}

int rule__nfs(const struct evidence *e, const double *th, struct finding *f)
{
	bool storm = e->files_read >= th[TH_STORM_FILES] && e->median_file_bytes >= 0 &&
		     e->median_file_bytes <= th[TH_STORM_MEDIAN];
	char buf[NBUF][32], label[256], through[160];

	if (!e->have_nfs || e->nfs_calls < th[TH_MIN_READS])
		return 0;
	/* The label keeps what fits a finding's label; the summary has it all. */
	snprintf(label, sizeof(label), storm ? "small-file storm on NFS: %s round trips of %s "
		 "a file" : "NFS: each file costs %s round trips of %s",
		 e->nfs_round_trips < 0 ? "?" : units__num(B(7), e->nfs_round_trips),
		 units__us(B(8), e->nfs_rtt_us));
	finding_init(f, "nfs_round_trips", impact(e, th), "",
		     "pack into shards, mount nocto/actimeo or stage locally");
	memcpy(f->label, label, sizeof(f->label) - 1);
	if (e->layer == LAYER_NFS)
		say(through, sizeof(through), "%s block requests: the data comes over the "
		    "network", e->blk_reads ? units__count(B(6), e->blk_reads) : "no");
	else
		say(through, sizeof(through), "the NFS server returned %s of the bytes read",
		    units__pct(B(6), evidence__ratio(e->nfs_read_bytes, e->read_bytes)));
	say(f->summary, sizeof(f->summary),
	    "%s on NFS (%.80s at %.60s): each file costs %s round trips of %s (%s), READ "
	    "p50 %s; %s", storm ? "small-file storm" : "round trips", e->nfs_fs,
	    e->nfs_mount, e->nfs_round_trips < 0 ? "?" : units__num(B(0), e->nfs_round_trips),
	    units__us(B(1), e->nfs_rtt_us), e->nfs_per_file[0] ? e->nfs_per_file : "-",
	    units__us(B(2), e->nfs_read_p50_us), through);
	fig(f, "nfs_calls", e->nfs_calls, "calls");
	fig(f, "nfs_calls_per_s", e->nfs_calls_per_s, "calls/s");
	fig(f, "nfs_round_trips_per_file", e->nfs_round_trips, "calls");
	fig(f, "nfs_rtt_us", e->nfs_rtt_us, "us");
	fig(f, "nfs_call_us", e->nfs_total_us, "us");
	fig(f, "nfs_lookup_p50_us", e->nfs_lookup_p50_us, "us");
	fig(f, "nfs_getattr_p50_us", e->nfs_getattr_p50_us, "us");
	fig(f, "nfs_access_p50_us", e->nfs_access_p50_us, "us");
	fig(f, "nfs_open_p50_us", e->nfs_open_p50_us, "us");
	fig(f, "nfs_read_p50_us", e->nfs_read_p50_us, "us");
	fig(f, "nfs_read_inflight", e->nfs_read_inflight, "calls");
	fig(f, "nfs_retrans", e->nfs_retrans, "calls");
	nfs_advice(e, f);
	return 1;
}
