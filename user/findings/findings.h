/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The findings of one trace: the evidence from every layer (VFS, threads,
 * page cache, block), the findings judged from it by the thresholds, each
 * with a severity, the numbers behind it and advice, and the verdict line.
 * Pure code: no BPF, unit-tested. The outputs (report/, prom/) are handed
 * the findings; they print them and do not judge. Rules, thresholds and
 * advice are described in docs/findings.md.
 *
 * The public header of findings/: other folders include only this one.
 */
#ifndef FINDINGS_FINDINGS_H
#define FINDINGS_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "findings/evidence.h"
#include "findings/layers.h"	/* enum layer_verdict: where a read's time goes */
#include "findings/thresholds.h"

struct facts;
struct trace;

enum severity {
	SEV_OK = 0,
	SEV_INFO,
	SEV_WARN,
	SEV_HIGH,
};

#define FINDING_FIGURES	16

struct figure {
	const char *name;		/* JSON key, e.g. "files_per_s" */
	double value;
	const char *unit;		/* "files/s", "bytes", "fraction" (0..1), ... */
};

struct finding {
	const char *id;			/* stable: small_file_storm, ... */
	enum severity severity;
	char label[64];			/* what was found, a few words for the verdict line */
	char fix[64];			/* the first thing to do, imperative; may be empty */
	char summary[256];		/* one line, with its numbers */
	char advice[512];
	struct figure figures[FINDING_FIGURES];
	int nr_figures;
};

/* Room for every finding the rules can return. */
#define FINDINGS_MAX	16

#define PHASE_TOP	3	/* findings kept per phase, the most severe */
#define PHASE_ROOM	8	/* phases at most (model/phases.h PHASES_MAX) */

/* One finding of a phase, as its text says it. */
struct phase_finding {
	const char *id;
	enum severity severity;
	char summary[256];
};

/*
 * A part of the run that behaves alike (model/phases.h), judged on its own:
 * its rates, stall, cache and device load from the timeline's points, the
 * rest (file sizes, order, FUSE) from the whole run. -1: not measured.
 */
struct phase {
	double start_s;			/* since the trace began */
	double end_s;
	__u64 start_ns;			/* CLOCK_MONOTONIC */
	double stall_share;		/* the headline loop's */
	double write_share;		/* the loop that waits most on writes: its write wait */
	double miss_share;		/* of the bytes read, taken into the page cache */
	double util;			/* busy share of the device the target reads most from */
	double reads_per_s;
	double files_per_s;		/* opens of regular files */
	double read_p50_us;
	bool unsplit;			/* holds a change the cap kept from splitting */
	char headline[384];
	struct phase_finding top[PHASE_TOP];
	int nr_top;
};

struct findings {
	bool done;
	struct evidence e;
	struct finding findings[FINDINGS_MAX];
	int nr_findings;
	char headline[384];
	struct phase phases[PHASE_ROOM];	/* one for a steady run */
	int nr_phases;
};

/*
 * Judge t by th into f: evidence, then the rules. fa is facts__measure()'s
 * of t, which the report of t reads too (model/facts.h). 0 or -errno.
 */
int findings__judge(struct findings *f, const struct trace *t, const struct facts *fa,
		    const struct thresholds *th);
/*
 * The cause of loop win's wait for data in a window of win_s seconds (its
 * figures over the window), by the rules a report judges its headline loop
 * by, on the node's evidence (node: the whole trace's): "none" below
 * stall_warn; else input_cause's cause (rules__cause_name(): "own_io",
 * "few_readers", "receiving", "loader_cpu_starved", "loader_cpu_bound",
 * "prefetch_short", "unclear"), or the storage finding that explains it
 * ("storage_bottleneck", "small_file_storm", ...) where the loop's own side
 * waits on I/O (the node's storage is not a warm loop's cause), or
 * "unclear". NULL: no time in the window.
 */
const char *findings__loop_cause(const struct evidence *node, const struct stall *win,
				 double win_s, const struct thresholds *th);
/*
 * The parts of the evidence below take fa, facts__measure()'s of t.
 * The block-layer part: the target's read requests (and fa's device p50).
 */
void evidence__add_block(struct evidence *e, const struct trace *t, const struct facts *fa);
/* The FUSE part: the connection the target sent most requests to. */
void evidence__add_fuse(struct evidence *e, const struct trace *t, const struct facts *fa);
/* The NFS part: the mount the target made most calls on. */
void evidence__add_nfs(struct evidence *e, const struct trace *t, const struct facts *fa);
/*
 * After the block and FUSE parts: the layer verdict (layers__judge()) and
 * miss_share, both from the same sums (fa's layers, with the dataset's figures).
 */
void evidence__add_layer(struct evidence *e, const struct trace *t, const struct facts *fa,
			 const struct thresholds *th);
/*
 * The saves: data files written with th's save_bytes at least, their
 * bytes, time and directory (evidence.h).
 */
void evidence__add_saves(struct evidence *e, const struct trace *t, const struct thresholds *th);
/* The layers the kernel did not give (model/kernel.h): no rule judges their zeros. */
void evidence__add_kernel(struct evidence *e, const struct trace *t);
/* A figure of f by name; NULL when f does not cite it. */
const struct figure *finding__figure(const struct finding *f, const char *name);
const char *severity__name(enum severity s);

#endif /* FINDINGS_FINDINGS_H */
