// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Why the training loop waits when storage does not explain it
 * (input_cause): the loop loads its own data, too few reads are in flight
 * for the latency, the loop's own CPU goes to receiving batches, the
 * loader is short of CPU or busy on it, the loop's taking of batches with
 * its handshakes is the wait, or the loader idles (prefetch too short).
 * Judged after the other rules, from the loader's working threads
 * (model/stall.h). See docs/findings.md.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include "findings/rules.h"

/* input_cause's labels, and their names in a metric label (rules__cause_name()). */
#define CAUSE_OWN_IO	"the loop loads its own data"
#define CAUSE_FEW_READERS	"too few readers for the latency"
#define CAUSE_RECEIVING	"the loop's CPU goes to receiving batches"
#define CAUSE_CPU_STARVED	"the loader is CPU-starved"
#define CAUSE_CPU_BOUND	"the loader is CPU-bound"
#define CAUSE_IDLE	"prefetch too short"
#define CAUSE_UNCLEAR	"the loader's wait not explained"

/*
 * Findings that judge the loader's time waiting on storage: at WARN they
 * say storage is what the loop waits for. The access pattern's findings
 * (a storm, random or small reads) are costs that may not cost time: a
 * warm storm served from memory leaves the cause to the loader.
 */
static const char *const storage_ids[] = {
	"storage_bottleneck", "fuse_round_trips", "nfs_round_trips", "mapped_reads",
	"metadata_overhead",
};

static const struct finding *find_id(const struct finding *all, int n, const char *id)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(all[i].id, id))
			return &all[i];
	return NULL;
}

static bool storage_explains(const struct finding *all, int n)
{
	for (size_t k = 0; k < sizeof(storage_ids) / sizeof(storage_ids[0]); k++) {
		const struct finding *f = find_id(all, n, storage_ids[k]);

		if (f && f->severity >= SEV_WARN)
			return true;
	}
	return false;
}

/* "4 threads (2 CPUs online)", or "4 threads" when the CPUs are not known. */
static const char *threads_words(const struct evidence *e, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%d thread%s", e->ld_workers, e->ld_workers == 1 ? "" : "s");

	if (e->nr_cpus && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " (%u CPU%s online)", e->nr_cpus,
			 e->nr_cpus == 1 ? "" : "s");
	return buf;
}

/* The verb and pronoun for the loader's threads: one thread "is", "its". */
static const char *are(const struct evidence *e)
{
	return e->ld_workers == 1 ? "is" : "are";
}

static const char *their(const struct evidence *e)
{
	return e->ld_workers == 1 ? "its" : "their";
}

static void serialized(const struct evidence *e, struct finding *f)
{
	char buf[NBUF][32];

	finding_init(f, "input_cause", SEV_WARN, CAUSE_OWN_IO,
		     "load in worker processes");
	say(f->summary, sizeof(f->summary),
	    "the loop loads its own data: its own file I/O is %s of its time, %s of its "
	    "wait for data, and no other process loads for it",
	    units__pct(B(0), e->stall_own_io_share),
	    units__pct(B(1), e->stall_share > 0 ? e->stall_own_io_share / e->stall_share : 0));
	say(f->advice, sizeof(f->advice),
	    "reading and decoding run one after the other with the training step: load in "
	    "parallel, ahead of the loop (PyTorch DataLoader num_workers > 0 with "
	    "prefetch_factor; tf.data num_parallel_calls and prefetch)");
}

static void cpu(const struct evidence *e, bool starved, struct finding *f)
{
	char buf[NBUF][32], who[64];

	finding_init(f, "input_cause", SEV_WARN,
		     starved ? CAUSE_CPU_STARVED : CAUSE_CPU_BOUND,
		     starved ? "give the loader more CPUs" : "make decoding cheaper");
	say(f->summary, sizeof(f->summary),
	    "the loader is %s: its %s %s on CPU %s of %s time, waiting for a CPU %s "
	    "(%s of them ready to run on average), on I/O %s; the busiest (%s) on CPU or waiting "
	    "for one %s", starved ? "CPU-starved" : "CPU-bound",
	    threads_words(e, who, sizeof(who)), are(e), units__pct(B(1), e->ld_cpu_share),
	    their(e), units__pct(B(2), e->ld_runq_share), units__num(B(3), e->ld_runnable),
	    units__pct(B(4), e->ld_io_share), e->ld_busiest_comm,
	    units__pct(B(5), e->ld_busiest_share));
	say(f->advice, sizeof(f->advice), "%s", starved ?
	    "more loader threads are ready to run than there are CPUs for them: fewer "
	    "workers or more cores (the container's CPU limit, taskset), and cheaper "
	    "decoding and augmentation; faster storage will not help" :
	    "the loader spends its time decoding and augmenting: more workers if cores "
	    "are free, cheaper decoding (GPU decode with DALI or nvJPEG, pre-resized "
	    "images) or cached decoded samples; faster storage will not help");
}

static void few_readers(const struct evidence *e, struct finding *f)
{
	double target = ceil(fmax(1, e->read_concurrency) / fmax(0.05, 1 - e->stall_share));
	char buf[NBUF][32], who[64];

	finding_init(f, "input_cause", SEV_WARN, CAUSE_FEW_READERS,
		     "raise num_workers / num_parallel_calls");
	say(f->summary, sizeof(f->summary),
	    "too few readers for the latency: the loader's %s %s on I/O %s of %s "
	    "time, with %s reads in flight at %s each (%s reads/s)",
	    threads_words(e, who, sizeof(who)), are(e), units__pct(B(1), e->ld_io_share), their(e),
	    units__num(B(2), e->read_concurrency), units__us(B(3), e->read_mean_us),
	    units__num(B(4), e->reads_per_s));
	say(f->advice, sizeof(f->advice),
	    "by Little's law reads/s = reads in flight / latency: the storage answers each "
	    "read slowly but is not shown to be saturated, so ~%.0f reads in flight "
	    "(num_workers, num_parallel_calls, prefetch) would feed the loop without "
	    "waiting at the same latency", target);
	fig(f, "readers_suggested", target, "reads");
}

static void receiving(const struct evidence *e, struct finding *f)
{
	char buf[NBUF][32], shake[64] = ",";
	double taking = e->stall_receive_share + e->stall_shake_share;

	finding_init(f, "input_cause", SEV_WARN, CAUSE_RECEIVING,
		     "send fewer, larger tensors");
	if (e->stall_shake_share > 0)
		snprintf(shake, sizeof(shake), ", %s asleep in handshakes with it, together",
			 units__pct(B(1), e->stall_shake_share));
	say(f->summary, sizeof(f->summary),
	    "the loop's CPU goes to receiving batches: %s of its time on CPU or waiting for "
	    "one while it takes them from the loader%s %s of its wait for data; waiting for "
	    "a CPU %s of its time beside", units__pct(B(0), e->stall_receive_share), shake,
	    units__pct(B(2), e->stall_share > 0 ? taking / e->stall_share : 0),
	    units__pct(B(3), e->stall_runq_share));
	say(f->advice, sizeof(f->advice),
	    "each batch costs the loop its own CPU to take (PyTorch: a pipe read, then per "
	    "tensor a socket handshake, a passed fd and a shared-memory map): collate into "
	    "fewer, larger tensors, leave the loop a CPU of its own (fewer workers than "
	    "cores), or pin the workers apart from it");
}

static void idle(const struct evidence *e, struct finding *f)
{
	char buf[NBUF][32], who[64];

	finding_init(f, "input_cause", SEV_WARN, CAUSE_IDLE,
		     "raise prefetching");
	say(f->summary, sizeof(f->summary),
	    "prefetch too short: the loader's %s %s idle %s of %s time (on CPU %s, on "
	    "I/O %s) while the loop waits for data",
	    threads_words(e, who, sizeof(who)), are(e), units__pct(B(1), e->ld_sleep_share), their(e),
	    units__pct(B(2), e->ld_cpu_share), units__pct(B(3), e->ld_io_share));
	say(f->advice, sizeof(f->advice),
	    "the loader waits for work while the loop waits for batches: let it run "
	    "further ahead (PyTorch prefetch_factor, persistent_workers=True; tf.data "
	    "prefetch(AUTOTUNE)), and check for a lock or a queue between them");
}

static void unclear(const struct evidence *e, struct finding *f)
{
	char buf[NBUF][32], who[64];

	finding_init(f, "input_cause", SEV_WARN, CAUSE_UNCLEAR, "");
	say(f->summary, sizeof(f->summary),
	    "no one cause: the loader's %s %s on CPU %s, waiting for a CPU %s, on I/O %s, "
	    "idle %s", threads_words(e, who, sizeof(who)), are(e), units__pct(B(1), e->ld_cpu_share),
	    units__pct(B(2), e->ld_runq_share), units__pct(B(3), e->ld_io_share),
	    units__pct(B(4), e->ld_sleep_share));
	say(f->advice, sizeof(f->advice),
	    "see the threads table: which loader threads wait, and for what; "
	    "--consumer names the loop if iostorm chose the wrong one");
}

/*
 * Too few reads in flight for the latency: the loader waits on I/O, most
 * of it in reads (reads in flight cover half its threads' I/O wait at
 * least: else opens, stats or faults are the wait), with fewer reads in
 * flight than a typical num_workers, and nothing shows the storage capped
 * (a small-file storm is its own cause: pack it first).
 */
static bool few_in_flight(const struct evidence *e, const double *th,
			  const struct finding *all, int n)
{
	const struct finding *storm = find_id(all, n, "small_file_storm");
	double io_threads = e->ld_workers * e->ld_io_share;

	return e->ld_io_share >= th[TH_IO_WAIT_WARN] &&
	       e->read_concurrency >= 0.5 * io_threads &&
	       e->read_concurrency < th[TH_READERS_FEW] && !rules__capped(e, th) &&
	       !(storm && storm->severity >= SEV_WARN);
}

int rule__input_cause(const struct evidence *e, const double *th,
		      const struct finding *all, int n, struct finding *f)
{
	if (!e->have_stall || e->stall_share < th[TH_STALL_WARN])
		return 0;
	if (!e->ld_procs && e->stall_share > 0 &&
	    e->stall_own_io_share >= th[TH_OWN_IO] * e->stall_share)
		serialized(e, f);
	else if (e->ld_workers && few_in_flight(e, th, all, n))
		few_readers(e, f);
	else if (storage_explains(all, n) || !e->ld_workers || e->ld_cpu_share < 0)
		return 0;
	else if (e->stall_receive_share >= th[TH_OWN_IO] * e->stall_share)
		receiving(e, f);
	else if (e->ld_runq_share >= th[TH_RUNQ_HIGH])
		cpu(e, true, f);
	else if (e->ld_cpu_share + e->ld_runq_share >= th[TH_CPU_BOUND] ||
		 e->ld_busiest_share >= th[TH_CPU_BOUND])
		cpu(e, false, f);
	else if (e->stall_receive_share + e->stall_shake_share >= th[TH_OWN_IO] * e->stall_share)
		receiving(e, f);	/* the loader has the batches ready: taking them is the wait */
	else if (e->ld_sleep_share >= th[TH_LOADER_IDLE])
		idle(e, f);
	else
		unclear(e, f);
	f->severity = e->stall_share >= th[TH_STALL_HIGH] ? SEV_HIGH : SEV_WARN;	/* as input_bound */
	fig(f, "stall_share", e->stall_share, "fraction");
	fig(f, "own_io_share", e->stall_own_io_share, "fraction");
	fig(f, "receive_share", e->stall_receive_share, "fraction");
	fig(f, "handshake_share", e->stall_shake_share, "fraction");
	fig(f, "loader_threads", e->ld_workers, "threads");
	fig(f, "loader_procs", e->ld_procs, "processes");
	fig(f, "loader_cpu_share", e->ld_cpu_share, "fraction");
	fig(f, "loader_runq_share", e->ld_runq_share, "fraction");
	fig(f, "loader_io_share", e->ld_io_share, "fraction");
	fig(f, "loader_idle_share", e->ld_sleep_share, "fraction");
	fig(f, "loader_runnable", e->ld_runnable, "threads");
	fig(f, "loader_busiest_share", e->ld_busiest_share, "fraction");
	fig(f, "cpus", e->nr_cpus, "CPUs");
	fig(f, "read_concurrency", e->read_concurrency, "reads");
	return 1;
}

const char *rules__cause_name(const struct finding *f)
{
	static const struct { const char *label, *name; } names[] = {
		{ CAUSE_OWN_IO, "own_io" },
		{ CAUSE_FEW_READERS, "few_readers" },
		{ CAUSE_RECEIVING, "receiving" },
		{ CAUSE_CPU_STARVED, "loader_cpu_starved" },
		{ CAUSE_CPU_BOUND, "loader_cpu_bound" },
		{ CAUSE_IDLE, "prefetch_short" },
		{ CAUSE_UNCLEAR, "unclear" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(f->label, names[i].label))
			return names[i].name;
	return "unclear";
}
