// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The rules on the access pattern, how the job reads its files: many
 * small files read whole (small_file_storm), time in open/stat/close
 * (metadata_overhead), scattered or small block requests (random_access,
 * small_requests), a mapped dataset read by page faults (mapped_reads).
 * How much each hurts comes from impact(). See
 * docs/findings.md.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include "findings/rules.h"

static void storm_advice(const struct evidence *e, const double *th, struct finding *f)
{
	double data = e->working_set_bytes ? e->working_set_bytes : e->read_bytes;
	double shard = th[TH_SHARD_BYTES], packed = th[TH_PACKED_READ];
	double shards = fmax(1, ceil(data / shard));
	double packed_rps = e->read_bytes_per_s / packed;
	double shard_ops = e->read_bytes_per_s / shard;
	char buf[NBUF][32], what[96];

	/* Files lost to a full map: their count and bytes are lower bounds. */
	if (e->files_lower_bound)
		snprintf(what, sizeof(what), "the files (at least %s, %s)",
			 units__count(B(0), e->files_read), units__bytes(B(1), data));
	else
		snprintf(what, sizeof(what), "the %s files (%s)",
			 units__count(B(0), e->files_read), units__bytes(B(1), data));
	say(f->advice, sizeof(f->advice),
	    "pack %s into %.0f shard%s of %s (TFRecord, WebDataset tar or "
	    "LMDB; 100 MB to 1 GB each) read sequentially in %s reads: at the same %s/s "
	    "that is ~%s reads/s instead of %s, and %s shard opens/s instead of %s opens/s; "
	    "shuffle the shard order and the samples in a shuffle buffer",
	    what, shards,
	    shards == 1 ? "" : "s", units__bytes(B(2), shard), units__bytes(B(3), packed),
	    units__bytes(B(4), e->read_bytes_per_s), units__num(B(5), packed_rps),
	    units__num(B(6), e->reads_per_s), units__num(B(7), shard_ops),
	    units__num(B(8), e->opens_per_s));
	fig(f, "shard_bytes", shard, "bytes");
	fig(f, "shards", shards, "shards");
	fig(f, "packed_reads_per_s", packed_rps, "reads/s");
	fig(f, "shard_opens_per_s", shard_ops, "opens/s");
}

int rule__storm(const struct evidence *e, const double *th, struct finding *f)
{
	bool random = e->file_order_random >= th[TH_STORM_RANDOM];
	bool ordered = e->file_order_random >= 0 && !random;
	char buf[NBUF][32], whole[48], count[96];

	if (e->files_read < th[TH_STORM_FILES] || e->median_file_bytes < 0 ||
	    e->median_file_bytes > th[TH_STORM_MEDIAN] ||
	    e->files_per_s < th[TH_STORM_RATE] ||
	    e->whole_file_share < th[TH_STORM_WHOLE])
		return 0;
	finding_init(f, "small_file_storm", impact(e, th),
		     random ? "small-file random-read storm" : "small-file read storm",
		     "pack files into shards");
	if (e->whole_file_share >= WHOLE_SHARE)
		snprintf(whole, sizeof(whole), "read whole");
	else
		snprintf(whole, sizeof(whole), "%s read whole",
			 units__pct(B(0), e->whole_file_share));
	/* A phase: the run's files, its own opens (files_per_s is their rate). */
	if (e->phase_file_opens)
		snprintf(count, sizeof(count), "%s opens of the run's %s%s",
			 units__count(B(4), e->phase_file_opens),
			 e->files_lower_bound ? "at least " : "", units__count(B(1), e->files_read));
	else
		snprintf(count, sizeof(count), "%s%s", e->files_lower_bound ? "at least " : "",
			 units__count(B(1), e->files_read));
	say(f->summary, sizeof(f->summary),
	    "small-file storm: %s files of median %s %s%s%s%s %s/s%s", count,
	    units__bytes(B(2), e->median_file_bytes), whole,
	    random ? " in random order" : ordered ? " in path order" : "",
	    e->files_lower_bound && !e->phase_file_opens ? ", at least " : " at ",
	    units__num(B(3), e->files_per_s), e->phase_file_opens ? "opens" : "files",
	    from_cache(e, th) ? ", served from the page cache for now" : "");
	fig(f, "files_read", e->files_read, "files");
	if (e->files_lower_bound)
		fig(f, "files_lower_bound", 1, "flag");
	fig(f, "files_per_s", e->files_per_s, "files/s");
	fig(f, "opens_per_s", e->opens_per_s, "opens/s");
	fig(f, "median_file_bytes", e->median_file_bytes, "bytes");
	fig(f, "whole_file_share", e->whole_file_share, "fraction");
	fig(f, "file_order_random", e->file_order_random, "fraction");
	fig(f, "reads_per_s", e->reads_per_s, "reads/s");
	fig(f, "read_bytes_per_s", e->read_bytes_per_s, "bytes/s");
	storm_advice(e, th, f);
	return 1;
}
int rule__metadata(const struct evidence *e, const double *th, struct finding *f)
{
	double per_open = e->opens ? (double)e->stats / e->opens : 0;
	enum severity sev = impact(e, th);
	char buf[NBUF][32];

	if (e->opens + e->stats < th[TH_META_MIN] || e->meta_share < th[TH_META_SHARE])
		return 0;
	if (sev == SEV_HIGH && e->meta_share < th[TH_META_HIGH])
		sev = SEV_WARN;
	finding_init(f, "metadata_overhead", sev, "metadata overhead",
		     "pack files into shards");
	say(f->summary, sizeof(f->summary),
	    "metadata: %s of file I/O time in open/stat/close/getdents (%.1f s; open p50 "
	    "%s, stat p50 %s, %.1f stats per open)", units__pct(B(0), e->meta_share),
	    e->meta_s, units__us(B(1), e->open_p50_us), units__us(B(2), e->stat_p50_us), per_open);
	say(f->advice, sizeof(f->advice),
	    "each file costs an open, usually a stat and a close before its first byte: "
	    "packing files into shards removes them. On network file systems (NFS, "
	    "Lustre, FUSE) cache attributes (actimeo), list directories once and keep "
	    "the file list instead of walking the tree every epoch (getdents), and avoid "
	    "a stat per file (TensorFlow stats each file for its size)");
	fig(f, "meta_share", e->meta_share, "fraction");
	fig(f, "meta_s", e->meta_s, "s");
	fig(f, "opens_per_s", e->opens_per_s, "opens/s");
	fig(f, "stats", e->stats, "stats");
	fig(f, "getdents", e->getdents, "calls");
	fig(f, "open_p50_us", e->open_p50_us, "us");
	fig(f, "stat_p50_us", e->stat_p50_us, "us");
	return 1;
}

int rule__random(const struct evidence *e, const double *th, struct finding *f)
{
	char buf[NBUF][32];

	if (!e->have_block || e->blk_random_share < 0 || e->blk_reads <= th[TH_RANDOM_MIN])
		return 0;
	if (e->blk_random_share > th[TH_RANDOM_SHARE]) {
		finding_init(f, "random_access", impact(e, th), "random block reads",
			     "read sequentially (shards)");
		say(f->summary, sizeof(f->summary),
		    "random block reads: %s of %s read requests do not continue the previous one",
		    units__pct(B(0), e->blk_random_share), units__count(B(1), e->blk_reads));
		say(f->advice, sizeof(f->advice),
		    "the device is asked for scattered blocks: pack small files into shards "
		    "read sequentially, read large files in order (shuffle the shard order "
		    "and samples in a buffer rather than seeking to each sample), raise "
		    "readahead for sequential streams (blockdev --setra, read_ahead_kb)");
	} else {
		finding_init(f, "random_access", SEV_OK, "sequential block reads", "");
		say(f->summary, sizeof(f->summary),
		    "block reads are sequential: %s of %s read requests continue the previous one",
		    units__pct(B(0), 1 - e->blk_random_share), units__count(B(1), e->blk_reads));
		say(f->advice, sizeof(f->advice), "nothing to do");
	}
	fig(f, "blk_random_share", e->blk_random_share, "fraction");
	fig(f, "blk_reads", e->blk_reads, "requests");
	fig(f, "blk_reads_per_s", e->blk_reads_per_s, "requests/s");
	return 1;
}

int rule__small(const struct evidence *e, const double *th, struct finding *f)
{
	double mean = e->blk_mean_bytes;
	char buf[NBUF][32], size[48] = "";

	if (!e->have_block || e->blk_small_share < 0 || e->blk_reads <= th[TH_SMALL_MIN])
		return 0;
	if (mean > 0)
		snprintf(size, sizeof(size), " (mean %s)", units__bytes(B(2), mean));
	if (e->blk_small_share > th[TH_SMALL_SHARE]) {
		finding_init(f, "small_requests", impact(e, th), "small block reads",
			     "read in larger blocks (shards)");
		say(f->summary, sizeof(f->summary),
		    "small block reads: %s of %s read requests are 128 KiB or less%s",
		    units__pct(B(0), e->blk_small_share), units__count(B(1), e->blk_reads), size);
		say(f->advice, sizeof(f->advice),
		    "each small request costs a whole device operation: pack small files "
		    "into shards and read them in 1 MiB or larger reads (larger reader "
		    "buffers, a larger read_ahead_kb) so that few large requests carry the "
		    "same bytes");
	} else {
		finding_init(f, "small_requests", SEV_OK, "large block reads", "");
		say(f->summary, sizeof(f->summary),
		    "block reads are large: %s of %s read requests are 128 KiB or less%s",
		    units__pct(B(0), e->blk_small_share), units__count(B(1), e->blk_reads), size);
		say(f->advice, sizeof(f->advice), "nothing to do");
	}
	fig(f, "blk_small_share", e->blk_small_share, "fraction");
	fig(f, "blk_reads", e->blk_reads, "requests");
	fig(f, "blk_mean_bytes", mean, "bytes");
	fig(f, "small_read_share", e->small_read_share, "fraction");
	return 1;
}

/* What fits a mapped dataset: madvise, prefetch, order, the page cache. */
static void mapped_advice(const struct evidence *e, const double *th, bool random,
			  struct finding *f)
{
	bool fits = e->mem_total_bytes && e->mapped_bytes &&
		    e->mapped_bytes < th[TH_MEM_FIT] * e->mem_total_bytes;
	char buf[NBUF][32], cache[256];

	if (!e->mapped_bytes || !e->mem_total_bytes)
		snprintf(cache, sizeof(cache), "compare the mapped files' size with the "
			 "page cache: what fits is faulted from memory after a first pass");
	else if (fits)
		snprintf(cache, sizeof(cache), "the %s mapped fit in the page cache (%s of "
			 "RAM): warm them once (a sequential read, vmtouch, or "
			 "madvise(MADV_WILLNEED) on the whole mapping) and later epochs fault "
			 "from memory", units__bytes(B(0), e->mapped_bytes),
			 units__bytes(B(1), e->mem_total_bytes));
	else
		snprintf(cache, sizeof(cache), "the %s mapped are more than the page cache "
			 "holds (%s of RAM): every epoch faults them in again, so the order "
			 "of access is what counts", units__bytes(B(0), e->mapped_bytes),
			 units__bytes(B(1), e->mem_total_bytes));
	if (random)
		say(f->advice, sizeof(f->advice),
		    "each fault is a small synchronous read, one at a time per thread: "
		    "madvise(MADV_RANDOM) on the mapping (LMDB: MDB_NORDAHEAD) stops "
		    "read-around fetching neighbours no one reads; prefetch the next "
		    "batches' records with madvise(MADV_WILLNEED) or readahead() from "
		    "helper threads so faults find them cached; or visit records in "
		    "storage order within a shard, shuffle the shard order and samples "
		    "in a buffer; %s", cache);
	else
		say(f->advice, sizeof(f->advice),
		    "the mapping is faulted in order: madvise(MADV_SEQUENTIAL) and a larger "
		    "read_ahead_kb (blockdev --setra) let each fault bring more pages, or "
		    "read the file with large read() calls; %s", cache);
}

int rule__mapped(const struct evidence *e, const double *th, struct finding *f)
{
	bool random = e->fault_random_share >= th[TH_MAPPED_RANDOM];
	char buf[NBUF][32], order[48] = "";

	if (e->fault_reads < th[TH_MAPPED_MIN])
		return 0;
	finding_init(f, "mapped_reads", impact(e, th),
		     random ? "random reads through a file mapping" : "reads through a file mapping",
		     random ? "prefetch mapped records (MADV_WILLNEED) or read them in order" :
			      "read ahead further on the mapping");
	if (e->fault_random_share >= 0)
		snprintf(order, sizeof(order), ", %s of them random",
			 units__pct(B(0), e->fault_random_share));
	say(f->summary, sizeof(f->summary),
	    "mapped reads: %s page faults read %s from storage in %s mapped %s%s "
	    "(%s faults/s, %.1f s waiting for pages)",
	    units__count(B(1), e->fault_reads), units__bytes(B(2), e->fault_bytes),
	    units__count(B(3), e->files_mapped), e->files_mapped == 1 ? "file" : "files",
	    order, units__num(B(4), e->fault_reads_per_s), e->fault_wait_s);
	mapped_advice(e, th, random, f);
	fig(f, "fault_reads", e->fault_reads, "faults");
	fig(f, "fault_bytes", e->fault_bytes, "bytes");
	fig(f, "fault_reads_per_s", e->fault_reads_per_s, "faults/s");
	fig(f, "fault_random_share", e->fault_random_share, "fraction");
	fig(f, "fault_wait_s", e->fault_wait_s, "s");
	fig(f, "files_mapped", e->files_mapped, "files");
	fig(f, "mapped_bytes", e->mapped_bytes, "bytes");
	fig(f, "io_wait_share", e->io_wait_share, "fraction");
	return 1;
}
