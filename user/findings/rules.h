/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Private to findings/: the rules on the access pattern (rules_access.c)
 * and on what bounds the job (rules_bound.c), their order, the judging and
 * the verdict line (judge.c). Here: what a rule is, how it writes its
 * finding, and the judgements more than one rule makes.
 */
#ifndef FINDINGS_RULES_H
#define FINDINGS_RULES_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "findings/findings.h"
#include "lib/units.h"

/* Fill out[] (at most max) ordered by severity; returns how many. */
int judge__rules(const struct evidence *e, const struct thresholds *t,
		   struct finding *out, int max);
/* One line: the worst finding in words, or that storage is fine. */
void judge__headline(const struct finding *f, int n, char *buf, size_t len);

/*
 * A rule: fills f and returns 1, or returns 0 when it has nothing to say.
 * th is struct thresholds' v[], indexed by enum threshold.
 */
typedef int (*rule_fn)(const struct evidence *e, const double *th, struct finding *f);

/* rules_access.c: how the job reads its files. */
int rule__storm(const struct evidence *e, const double *th, struct finding *f);
int rule__metadata(const struct evidence *e, const double *th, struct finding *f);
int rule__random(const struct evidence *e, const double *th, struct finding *f);
int rule__small(const struct evidence *e, const double *th, struct finding *f);
int rule__mapped(const struct evidence *e, const double *th, struct finding *f);
/* rules_bound.c: what holds the job back, storage, memory or CPU. */
int rule__input_bound(const struct evidence *e, const double *th, struct finding *f);
int rule__bottleneck(const struct evidence *e, const double *th, struct finding *f);
int rule__parallelism(const struct evidence *e, const double *th, struct finding *f);
int rule__page_cache(const struct evidence *e, const double *th, struct finding *f);
int rule__cpu_bound(const struct evidence *e, const double *th, struct finding *f);
/*
 * The block layer shows the target's reads capped above the device or the
 * device saturated: more readers only queue longer. False when the reads
 * go mostly through FUSE, where no cap can be seen.
 */
bool rules__capped(const struct evidence *e, const double *th);
/* An input_cause finding's cause as a metric label names it ("loader_cpu_bound"). */
const char *rules__cause_name(const struct finding *f);
/* rules_cause.c: why the loop waits when storage does not say; after the others. */
int rule__input_cause(const struct evidence *e, const double *th,
		      const struct finding *all, int n, struct finding *f);
/* rules_write.c: the loop's wait on its checkpoint writes. */
int rule__write_wait(const struct evidence *e, const double *th, struct finding *f);
/* rules_fuse.c: FUSE storage, its round trips per file. */
int rule__fuse(const struct evidence *e, const double *th, struct finding *f);
/* rules_nfs.c: NFS storage, its round trips per file, the network. */
int rule__nfs(const struct evidence *e, const double *th, struct finding *f);

/* ---- writing a finding ---- */

/* Scratch buffers for one message, one per number: B(0) .. B(9). */
#define NBUF	10
#define B(i)	buf[i], sizeof(buf[i])

/* A summary or advice: snprintf() into one of a finding's strings. */
static inline void say(char *dst, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline void say(char *dst, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, len, fmt, ap);
	va_end(ap);
}

/* Start f afresh: id, severity, label and fix; the rule adds the rest. */
static inline void finding_init(struct finding *f, const char *id, enum severity sev,
				const char *label, const char *fix)
{
	memset(f, 0, sizeof(*f));
	f->id = id;
	f->severity = sev;
	snprintf(f->label, sizeof(f->label), "%s", label);
	snprintf(f->fix, sizeof(f->fix), "%s", fix);
}

/* Cite one figure; past FINDING_FIGURES the rest are dropped. */
static inline void fig(struct finding *f, const char *name, double value, const char *unit)
{
	if (f->nr_figures >= FINDING_FIGURES)
		return;
	f->figures[f->nr_figures++] = (struct figure){ name, value, unit };
}

/* ---- judgements more than one rule makes ---- */

/* The I/O threads wait on I/O for most of their time. */
static inline bool storage_bound(const struct evidence *e, const double *th)
{
	return e->io_wait_share >= th[TH_IO_WAIT_HIGH];
}

/*
 * Reads come from memory: the layer verdict's page_cache, judged on the
 * storage share (block reads, pages added to the page cache, FUSE
 * daemons' bytes: layers__storage_share()), so that the latency-by-layer
 * line and every finding agree; by misses alone before it is judged.
 */
static inline bool from_cache(const struct evidence *e, const double *th)
{
	if (e->layer != LAYER_NONE)
		return e->layer == LAYER_CACHE;
	return e->miss_share >= 0 && e->miss_share < th[TH_CACHE_MISS];
}

/*
 * How much a costly access pattern hurts now: HIGH when the threads wait
 * on I/O most of the time, WARN when noticeably or when unmeasured, INFO
 * when they hardly wait or the page cache serves the reads.
 */
static inline enum severity impact(const struct evidence *e, const double *th)
{
	if (from_cache(e, th))
		return SEV_INFO;
	if (storage_bound(e, th))
		return SEV_HIGH;
	if (e->io_wait_share < 0 || e->io_wait_share >= th[TH_IO_WAIT_WARN])
		return SEV_WARN;
	return SEV_INFO;
}

#endif /* FINDINGS_RULES_H */
