// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The judge of one body of evidence (rules.h's judge__rules() and
 * judge__headline(), findings.h's finding__figure() and severity__name()):
 * too little I/O to judge, else every rule in order (rules_access.c,
 * rules_bound.c, ...), the findings sorted by severity, and the verdict
 * line that sums them up. The run and its phases are judged with it by
 * findings.c.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "findings/rules.h"

/*
 * Fewer reads than min_reads, faults that read mapped data counted as
 * reads: the one finding, instead of every rule's.
 */
static int rule_little_io(const struct evidence *e, const double *th, struct finding *f)
{
	char buf[NBUF][32], faults[64] = "";

	if (e->reads + e->fault_reads >= th[TH_MIN_READS])
		return 0;
	finding_init(f, "little_io", SEV_INFO, "too little file I/O to judge", "");
	if (e->fault_reads)
		snprintf(faults, sizeof(faults), ", %s faults on mapped data",
			 units__count(B(2), e->fault_reads));
	say(f->summary, sizeof(f->summary),
	    "too little file I/O to judge: %s reads%s and %s opens in %.1f s",
	    units__count(B(0), e->reads), faults, units__count(B(1), e->opens), e->duration_s);
	say(f->advice, sizeof(f->advice),
	    "trace longer, or while the job reads its data (not during start-up or "
	    "evaluation); check that the right process is traced (-p, --cgroup)");
	fig(f, "reads", e->reads, "reads");
	fig(f, "opens", e->opens, "opens");
	fig(f, "duration_s", e->duration_s, "s");
	return 1;
}

/*
 * Layers this kernel did not give: their figures are absent, not zero, and
 * no finding was drawn from them. Said whatever the other rules found.
 */
static int rule_unmeasured(const struct evidence *e, struct finding *f)
{
	if (!e->nr_unmeasured)
		return 0;
	finding_init(f, "layers_not_measured", SEV_INFO, "layers not measured", "");
	say(f->summary, sizeof(f->summary),
	    "not measured on this kernel: %s; nothing here is judged from them",
	    e->unmeasured);
	say(f->advice, sizeof(f->advice),
	    "`iostorm check` says why; a newer kernel gives them (docs/kernels.md)");
	fig(f, "layers_not_measured", e->nr_unmeasured, "layers");
	return 1;
}

/* ---- judging ---- */

/* In the order findings of one severity are listed. */
static const rule_fn rules[] = {
	rule__fuse,
	rule__nfs,
	rule__storm,
	rule__bottleneck,
	rule__parallelism,
	rule__metadata,
	rule__random,
	rule__small,
	rule__mapped,
	rule__page_cache,
	rule__cpu_bound,
	rule__input_bound,
	rule__write_wait,
};

/*
 * The loader keeps up: what the other rules found costs storage or memory
 * but does not stall training, so none is worse than WARN, and says so.
 */
static void as_costs(struct finding *all, int n)
{
	for (int i = 0; i < n; i++) {
		size_t len = strlen(all[i].summary);

		if (!strcmp(all[i].id, "input_bound") || !strcmp(all[i].id, "write_wait") ||
		    all[i].severity < SEV_WARN)
			continue;
		if (all[i].severity > SEV_WARN)
			all[i].severity = SEV_WARN;
		snprintf(all[i].summary + len, sizeof(all[i].summary) - len,
			 " (a cost: the training loop does not wait)");
	}
}

/*
 * A loader short of CPU is said once: when it is the loop's cause
 * (input_cause), cpu_bound, judged over every I/O thread, goes.
 */
static int drop_cpu_bound(struct finding *all, int n)
{
	int cause = -1, cpu = -1;

	for (int i = 0; i < n; i++) {
		if (!strcmp(all[i].id, "input_cause") && strstr(all[i].label, "CPU"))
			cause = i;
		if (!strcmp(all[i].id, "cpu_bound"))
			cpu = i;
	}
	if (cause < 0 || cpu < 0)
		return n;
	memmove(&all[cpu], &all[cpu + 1], (n - cpu - 1) * sizeof(all[0]));
	return n - 1;
}

int judge__rules(const struct evidence *e, const struct thresholds *t,
		   struct finding *out, int max)
{
	struct finding all[FINDINGS_MAX];
	int n = 0, k = 0;

	if (rule_little_io(e, t->v, &all[0])) {
		n = 1 + rule__input_bound(e, t->v, &all[1]);
		n += rule__write_wait(e, t->v, &all[n]);
	} else {
		for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
			n += rules[i](e, t->v, &all[n]);
	}
	n += rule__input_cause(e, t->v, all, n, &all[n]);
	n = drop_cpu_bound(all, n);
	if (e->have_stall && e->stall_share < t->v[TH_STALL_WARN])
		as_costs(all, n);
	n += rule_unmeasured(e, &all[n]);
	/* Stable: HIGH first, rule order within a severity. */
	for (int sev = SEV_HIGH; sev >= SEV_OK; sev--)
		for (int i = 0; i < n && k < max; i++)
			if ((int)all[i].severity == sev)
				out[k++] = all[i];
	return k;
}

const struct figure *finding__figure(const struct finding *f, const char *name)
{
	for (int i = 0; i < f->nr_figures; i++)
		if (!strcmp(f->figures[i].name, name))
			return &f->figures[i];
	return NULL;
}

/* ---- the verdict line ---- */

static const struct finding *find(const struct finding *f, int n, const char *id)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(f[i].id, id))
			return &f[i];
	return NULL;
}

/* "82% of loader thread time waits on I/O", else "read p50 4.1ms". */
static const char *wait_words(const struct finding *b, char *buf, size_t len)
{
	const struct figure *w = finding__figure(b, "io_wait_share");
	const struct figure *p = finding__figure(b, "read_p50_us");
	char v[16];

	if (w && w->value >= 0)
		snprintf(buf, len, "%s of loader thread time waits on I/O",
			 units__pct(v, sizeof(v), w->value));
	else
		snprintf(buf, len, "read p50 %s", units__us(v, sizeof(v), p ? p->value : 0));
	return buf;
}

/* "; pack files into shards", or nothing. */
static const char *fix_words(const struct finding *f, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", f->fix[0] ? "; " : "", f->fix);
	return buf;
}

/*
 * storage_bottleneck found storage keeping up (or the page cache serving
 * the reads), or was not given: only then may the verdict say "storage
 * keeps up", never beside a slow or saturated device.
 */
static bool keeps_up(const struct finding *bott)
{
	return !bott || !strcmp(bott->label, "storage keeps up") ||
	       !strcmp(bott->label, "reads served from the page cache");
}

static void loader_headline(const struct finding *f, int n, char *buf, size_t len)
{
	const struct finding *net = find(f, n, "fuse_round_trips") ?: find(f, n, "nfs_round_trips");
	const struct finding *storm = net && net->severity >= SEV_WARN ? net :
				      find(f, n, "small_file_storm");
	const struct finding *mapped = find(f, n, "mapped_reads");
	const struct finding *bott = find(f, n, "storage_bottleneck");
	const struct finding *cpu = find(f, n, "cpu_bound");
	const struct finding *little = find(f, n, "little_io");
	const struct finding *worst = NULL;
	char wait[96], fix[80], pct[16];

	/* A mapped dataset's faults are its storm: what the wait is for. */
	if (mapped && (!storm || storm->severity < mapped->severity))
		storm = mapped;
	for (int i = 0; i < n; i++)
		if (&f[i] != cpu && (!worst || f[i].severity > worst->severity))
			worst = &f[i];
	if (mapped && worst && mapped->severity >= worst->severity)
		worst = mapped;
	if (little) {
		snprintf(buf, len, "VERDICT: %s", little->summary);
	} else if (bott && bott->severity >= SEV_WARN && storm && storm->severity >= SEV_WARN) {
		snprintf(buf, len, "VERDICT: %s, storage-bound (%s): %s%s", storm->label,
			 severity__name(storm->severity > bott->severity ?
					storm->severity : bott->severity),
			 wait_words(bott, wait, sizeof(wait)), fix_words(storm, fix, sizeof(fix)));
	} else if (bott && bott->severity >= SEV_WARN) {
		snprintf(buf, len, "VERDICT: storage-bound%s%s (%s): %s%s",
			 strcmp(bott->label, "storage-bound") ? ", " : "",
			 strcmp(bott->label, "storage-bound") ? bott->label : "",
			 severity__name(bott->severity), wait_words(bott, wait, sizeof(wait)),
			 fix_words(bott, fix, sizeof(fix)));
	} else if (cpu && (!worst || worst->severity < SEV_WARN)) {
		const struct figure *c = finding__figure(cpu, "cpu_share");

		snprintf(buf, len, "VERDICT: %s (storage is not the problem): loader threads "
			 "%s on CPU", cpu->label, units__pct(pct, sizeof(pct), c ? c->value : 0));
	} else if (worst && worst->severity >= SEV_WARN) {
		snprintf(buf, len, "VERDICT: %s (%s)%s%s", worst->label,
			 severity__name(worst->severity),
			 worst == storm && worst != net && worst != mapped && keeps_up(bott) ?
			 ", storage keeps up for now" : "",
			 fix_words(worst, fix, sizeof(fix)));
	} else if (bott && !keeps_up(bott)) {
		/* A slow device the threads hardly wait on: named, never "keeps up". */
		snprintf(buf, len, "VERDICT: storage is not what the job waits on: %s (%s)",
			 bott->label, severity__name(bott->severity));
	} else if (bott && strcmp(bott->label, "storage keeps up")) {
		snprintf(buf, len, "VERDICT: storage keeps up: %s", bott->label);
	} else {
		snprintf(buf, len, "VERDICT: storage keeps up");
	}
}

/*
 * The verdict line leads with the training loop's wait when it is known
 * (of several, the one that waits most for data: the slowest rank), then
 * what the loader's findings say (without input_bound itself).
 */
/*
 * The loop's wait on its writes, when it is a loss (WARN or worse) larger
 * than its wait for data: the verdict, with the data wait after it.
 */
static bool write_headline(const struct finding *f, int n, char *buf, size_t len)
{
	const struct finding *ww = find(f, n, "write_wait");
	const struct figure *w = ww ? finding__figure(ww, "write_share") : NULL;
	const struct figure *d = ww ? finding__figure(ww, "data_share") : NULL;
	char pct[16], fix[80];

	if (!w || !d || ww->severity < SEV_WARN || w->value <= d->value)
		return false;
	snprintf(buf, len, "VERDICT: %s (write-bound, %s)%s; it waits for data %s",
		 ww->summary, severity__name(ww->severity), fix_words(ww, fix, sizeof(fix)),
		 units__pct(pct, sizeof(pct), d->value));
	return true;
}

void judge__headline(const struct finding *f, int n, char *buf, size_t len)
{
	const struct finding *ib = find(f, n, "input_bound");
	const struct finding *cause = find(f, n, "input_cause");
	const struct figure *share = ib ? finding__figure(ib, "stall_share") : NULL, *loops;
	struct finding rest[FINDINGS_MAX];
	char loader[256], pct[16], who[48], fix[80];
	int k = 0;

	if (write_headline(f, n, buf, len))
		return;
	if (!ib || !share) {
		loader_headline(f, n, buf, len);
		return;
	}
	for (int i = 0; i < n && k < FINDINGS_MAX; i++)
		if (&f[i] != ib && &f[i] != cause && strcmp(f[i].id, "write_wait"))
			rest[k++] = f[i];
	loader_headline(rest, k, loader, sizeof(loader));
	units__pct(pct, sizeof(pct), share->value);
	loops = finding__figure(ib, "loops");
	if (loops)
		snprintf(who, sizeof(who), "the slowest of %.0f training loops", loops->value);
	else
		snprintf(who, sizeof(who), "the training loop");
	if (ib->severity >= SEV_WARN && cause)
		snprintf(buf, len, "VERDICT: %s waits for data %s of its time "
			 "(input-bound, %s) because %s%s", who, pct, severity__name(ib->severity),
			 cause->summary, fix_words(cause, fix, sizeof(fix)));
	else if (ib->severity >= SEV_WARN)
		snprintf(buf, len, "VERDICT: %s waits for data %s of its time "
			 "(input-bound, %s): %s", who, pct, severity__name(ib->severity),
			 loader + strlen("VERDICT: "));
	else
		snprintf(buf, len, "VERDICT: the loader keeps up: %s waits for "
			 "data %s of its time; %s", who, pct, loader + strlen("VERDICT: "));
}

const char *severity__name(enum severity s)
{
	static const char *const names[] = { "OK", "INFO", "WARN", "HIGH" };

	return (unsigned int)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}
