// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The training loop's wait for data from threads and wakeups whose every
 * number is known: which thread is the consumer and why, which threads are
 * the loader side, and the exact split of the consumer's time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/procs.h"
#include "model/stall.h"
#include "model/trace.h"
#include "unit.h"

#define MS	1000000ULL
#define SEC	(1000 * MS)

static struct trace *trace_new(void)
{
	struct trace *t = calloc(1, sizeof(*t));

	if (t && store__init(&t->store)) {
		free(t);
		return NULL;
	}
	return t;
}

static void trace_free(struct trace *t)
{
	stall__starts_free(t);
	store__free(&t->store);
	procs__free(&t->procs);
	wakes__free(&t->wakes);
	free(t->loops);
	free(t);
}

/* Measure t: its headline loop into s. */
static int measure(struct stall *s, struct trace *t, const struct stall_opts *o)
{
	int err = stall__measure(t, o);

	*s = t->stall;
	return err;
}

/* A thread's counters; reads without bytes read 64 KiB each, as a reader's do. */
static void thread(struct trace *t, __u32 tid, __u32 tgid, const char *comm,
		   struct thread_stats ts)
{
	if (ts.reads && !ts.read_bytes)
		ts.read_bytes = ts.reads * 65536;
	ts.tgid = tgid;
	snprintf(ts.comm, sizeof(ts.comm), "%s", comm);
	CHECK_EQ_INT(threads__merge(&t->store.threads, tid, &ts), 0);
}

static void wake(struct trace *t, __u32 wakee, __u32 waker, __u64 n, __u64 ns)
{
	REQUIRE(!wakes__add(&t->wakes, wakee, waker, n, ns));
}

static const struct stall_opts opts = {
	.root_tgid = 100, .min_cpu_share = 0.02, .min_wakeups = 10,
};

/*
 * tf.data-like: two readers, two decoders the readers feed (and one wakes
 * a reader back: a full queue), and a compute thread of the loop's own.
 */
static struct trace *pipeline(void)
{
	struct trace *t = trace_new();

	if (!t)
		return NULL;
	thread(t, 100, 100, "python3", (struct thread_stats){ .cpu_ns = 5 * SEC,
		.sleep_ns = 4 * SEC, .runq_ns = 500 * MS });
	thread(t, 101, 100, "tf_data_r", (struct thread_stats){ .reads = 100,
		.read_ns = 2 * SEC, .cpu_ns = SEC, .io_wait_ns = SEC });
	thread(t, 102, 100, "tf_data_r", (struct thread_stats){ .reads = 100,
		.read_ns = 2 * SEC, .cpu_ns = SEC, .io_wait_ns = SEC });
	thread(t, 103, 100, "tf_decode", (struct thread_stats){ .cpu_ns = 3 * SEC,
		.sleep_ns = SEC });
	thread(t, 104, 100, "tf_decode", (struct thread_stats){ .cpu_ns = 3 * SEC,
		.sleep_ns = SEC });
	thread(t, 105, 100, "omp_worker", (struct thread_stats){ .cpu_ns = 2 * SEC,
		.sleep_ns = 3 * SEC });
	wake(t, 100, 103, 200, 2 * SEC);
	wake(t, 100, 104, 100, SEC);
	wake(t, 100, 105, 50, 500 * MS);
	wake(t, 100, WAKER_OUTSIDE, 1, 500 * MS);
	wake(t, 103, 101, 300, SEC);
	wake(t, 101, 104, 10, 100 * MS);	/* only back-pressure joins 104 */
	wake(t, 105, 100, 50, 3 * SEC);
	return t;
}

/* No scheduler programs (IOSTORM_FALLBACKS=no_sched): no loop, and the reason. */
TEST(stall_sched_not_measured)
{
	struct trace *t = pipeline();
	struct stall s;

	REQUIRE(t);
	t->kernel.probed = true;
	t->kernel.layers[KL_SYSCALLS].measured = true;
	snprintf(t->kernel.layers[KL_SCHED].why, sizeof(t->kernel.layers[KL_SCHED].why),
		 "forced off by IOSTORM_FALLBACKS");
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_INT(s.how, CONSUMER_NONE);
	CHECK_EQ_INT(t->nr_loops, 0);
	CHECK_STR(s.why, "no training loop looked for: the scheduler programs are not loaded "
		  "(forced off by IOSTORM_FALLBACKS)");
	CHECK(stall__share(&s) < 0);
	trace_free(t);
}

TEST(stall_pipeline_split)
{
	struct trace *t = pipeline();
	struct stall s;

	REQUIRE(t);
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_INT(s.how, CONSUMER_ROOT);
	CHECK_EQ_INT(s.tid, 100);
	CHECK_EQ_INT(s.loader_threads, 4);	/* readers and decoders, not omp */
	CHECK_EQ_U64(s.loader_wait_ns, 3 * SEC);
	CHECK_EQ_U64(s.loader_wakeups, 300);
	CHECK_EQ_U64(s.data_wait_ns, 3 * SEC);
	CHECK_EQ_U64(s.other_wait_ns, SEC);
	CHECK_EQ_U64(s.on_cpu_ns, 5 * SEC);
	CHECK_EQ_U64(s.runnable_ns, 500 * MS);
	CHECK_EQ_U64(s.wall_ns, 9500 * MS);
	CHECK_REL(stall__share(&s), 3.0 / 9.5);	/* of the wall time, runnable included */
	/* Wakers by name, most sleep first; the loop's own compute thread is not the loader. */
	REQUIRE(s.nr_wakers == 3);
	CHECK_STR(s.wakers[0].name, "tf_decode");
	CHECK(s.wakers[0].loader);
	CHECK_EQ_U64(s.wakers[0].threads, 2);
	CHECK_EQ_U64(s.wakers[0].sleep_ns, 3 * SEC);
	CHECK_STR(s.wakers[1].name, "(outside)");
	CHECK(!s.wakers[1].loader);
	CHECK_STR(s.wakers[2].name, "omp_worker");
	CHECK(!s.wakers[2].loader);
	trace_free(t);
}

TEST(stall_given_consumer)
{
	struct trace *t = pipeline();
	struct consumer_sel sel = {};
	struct stall_opts o = opts;
	struct stall s;

	REQUIRE(t);
	o.given = &sel;
	o.nr_given = 1;
	snprintf(sel.comm, sizeof(sel.comm), "omp_worker");
	CHECK_EQ_INT(measure(&s, t, &o), 0);
	CHECK_EQ_INT(s.how, CONSUMER_GIVEN);
	CHECK_EQ_INT(s.tid, 105);
	/* Seen from it, the loop is fed by the decoders: the loader side. */
	CHECK_EQ_U64(s.loader_wait_ns, 3 * SEC);
	sel.comm[0] = 0;
	sel.tid = 103;
	CHECK_EQ_INT(measure(&s, t, &o), 0);
	CHECK_EQ_INT(s.tid, 103);
	CHECK_EQ_U64(s.loader_wait_ns, SEC);	/* the reader that feeds it */
	sel.tid = 999;
	CHECK_EQ_INT(measure(&s, t, &o), 0);
	CHECK_EQ_INT(s.how, CONSUMER_NONE);
	CHECK(stall__share(&s) < 0);
	trace_free(t);
}

/* Every thread reads, the launcher only joins them: nobody to measure. */
TEST(stall_pure_reader)
{
	struct trace *t = trace_new();
	struct stall s;

	REQUIRE(t);
	thread(t, 100, 100, "reader", (struct thread_stats){ .cpu_ns = 5 * MS,
		.sleep_ns = 5 * SEC });
	for (__u32 i = 101; i <= 104; i++) {
		thread(t, i, 100, "reader", (struct thread_stats){ .reads = 500,
			.read_ns = 4 * SEC, .cpu_ns = SEC, .io_wait_ns = 3 * SEC });
		wake(t, 100, i, 1, SEC);	/* its exit ends the join */
	}
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_INT(s.how, CONSUMER_NONE);
	CHECK(!strncmp(s.why, "no training loop found", 22));
	CHECK(strstr(s.why, "(--consumer TID|COMM names a loop iostorm missed)"));
	trace_free(t);
}

/* num_workers=0: the loop reads its files itself: that is its data wait. */
TEST(stall_own_reads)
{
	struct trace *t = trace_new();
	struct stall s;

	REQUIRE(t);
	thread(t, 100, 100, "python3", (struct thread_stats){ .reads = 2000,
		.read_ns = 2 * SEC, .meta_ns = 100 * MS, .io_wait_ns = 1500 * MS,
		.cpu_ns = 3 * SEC, .sleep_ns = 200 * MS });
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_INT(s.how, CONSUMER_ROOT);
	CHECK_EQ_U64(s.own_io_ns, 2100 * MS);
	CHECK_EQ_U64(s.data_wait_ns, 2100 * MS);
	CHECK_EQ_U64(s.on_cpu_ns, 2400 * MS);	/* 600 ms of it was in the reads */
	CHECK_EQ_U64(s.other_wait_ns, 200 * MS);
	trace_free(t);
}

/*
 * PyTorch: workers in their own processes read; their feeder threads,
 * which read nothing, wake the loop through a pipe. The root given is a
 * launcher that only waits: the loop is found as a process main thread
 * the loader feeds.
 */
TEST(stall_dataloader_workers)
{
	struct trace *t = trace_new();
	struct stall_opts o = opts;
	struct stall s;

	REQUIRE(t);
	o.root_tgid = 90;
	thread(t, 90, 90, "sh", (struct thread_stats){ .sleep_ns = 9 * SEC });
	thread(t, 100, 100, "python3", (struct thread_stats){ .cpu_ns = 2 * SEC,
		.sleep_ns = 6 * SEC });
	for (__u32 w = 0; w < 2; w++) {
		thread(t, 200 + w, 200 + w, "python3", (struct thread_stats){ .reads = 300,
			.read_ns = 5 * SEC, .cpu_ns = SEC, .io_wait_ns = 4 * SEC });
		thread(t, 210 + w, 200 + w, "QueueFeederThr", (struct thread_stats){
			.cpu_ns = 100 * MS, .sleep_ns = 7 * SEC });
		wake(t, 100, 210 + w, 40, 2500 * MS);
		wake(t, 200 + w, 100, 40, SEC);		/* the index queue */
	}
	wake(t, 90, 100, 1, 9 * SEC);
	CHECK_EQ_INT(measure(&s, t, &o), 0);
	CHECK_EQ_INT(s.how, CONSUMER_FED);
	CHECK_EQ_INT(s.tid, 100);
	CHECK_EQ_U64(s.loader_wakeups, 80);
	CHECK_EQ_U64(s.data_wait_ns, 5 * SEC);
	CHECK_REL(stall__share(&s), 5.0 / 8.0);
	trace_free(t);
}

/*
 * A launcher's helper (readlink) that ran a millisecond, all on CPU, next
 * to a loader is not the loop: a pure reader behind a shell has no consumer.
 */
TEST(stall_short_helper_is_no_consumer)
{
	struct trace *t = trace_new();
	struct stall_opts o = opts;
	struct stall s;

	REQUIRE(t);
	t->duration_s = 7;
	o.root_tgid = 90;
	thread(t, 90, 90, "run-capped.sh", (struct thread_stats){ .cpu_ns = 3 * MS,
		.sleep_ns = 7 * SEC });
	thread(t, 91, 91, "readlink", (struct thread_stats){ .cpu_ns = 600 * 1000,
		.sleep_ns = 300 * 1000 });
	for (__u32 i = 101; i <= 104; i++)
		thread(t, i, 100, "iostorm-workloa", (struct thread_stats){ .reads = 500,
			.read_ns = 6 * SEC, .cpu_ns = SEC / 2, .io_wait_ns = 6 * SEC });
	CHECK_EQ_INT(measure(&s, t, &o), 0);
	CHECK_EQ_INT(s.how, CONSUMER_NONE);
	trace_free(t);
}

/*
 * fio: the job reads its files itself and computes 3% beside: no loop. Its
 * parent computes half its time, setting up before the job runs, but wakes
 * the job once: a loop the loader keeps ahead of would take its batches
 * (the numbers of a run that was once taken for a loop).
 */
TEST(stall_fio_is_no_loop)
{
	struct trace *t = trace_new();
	struct stall s;

	REQUIRE(t);
	thread(t, 100, 100, "fio", (struct thread_stats){ .reads = 97, .cpu_ns = 169 * MS,
		.io_wait_ns = 2 * MS, .sleep_ns = 152 * MS });
	thread(t, 101, 101, "fio", (struct thread_stats){ .reads = 513,
		.read_ns = 35 * MS, .cpu_ns = 16 * MS, .io_wait_ns = 23 * MS,
		.sleep_ns = 100 * MS });
	wake(t, 101, 100, 1, 100 * MS);
	wake(t, 100, 101, 1, 150 * MS);
	CHECK_EQ_INT(procs__set(&t->procs, 101, 100), 0);	/* the job is forked */
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_INT(s.how, CONSUMER_NONE);
	trace_free(t);
}

/*
 * Two data-parallel ranks under a launcher (torchrun's shape): each rank
 * has two DataLoader workers (its children) and a communication thread;
 * rank 0 waits in the all-reduce for rank 1, whose loop is slower. Each
 * rank is its own loop; a sleep its communication thread ended is rank
 * wait, not data wait; the workers are no loops; a worker's stray wakeup
 * of a communication thread joins it to nothing.
 */
static struct trace *two_ranks_fed(__u64 batches0)
{
	struct trace *t = trace_new();

	if (!t)
		return NULL;
	t->duration_s = 10;
	thread(t, 90, 90, "torchrun", (struct thread_stats){ .cpu_ns = 50 * MS,
		.sleep_ns = 10 * SEC });
	for (__u32 r = 0; r < 2; r++) {
		__u32 rank = 100 + 100 * r, comm = rank + 1;

		CHECK_EQ_INT(procs__set(&t->procs, rank, 90), 0);
		thread(t, rank, rank, "python3", (struct thread_stats){ .cpu_ns = 4 * SEC,
			.sleep_ns = 6 * SEC });
		thread(t, comm, rank, "python3", (struct thread_stats){ .cpu_ns = SEC,
			.sleep_ns = 9 * SEC });
		for (__u32 w = 0; w < 2; w++) {
			__u32 wk = rank + 10 + 10 * w;

			CHECK_EQ_INT(procs__set(&t->procs, wk, rank), 0);
			thread(t, wk, wk, "python3", (struct thread_stats){ .reads = 200,
				.read_ns = 2 * SEC, .cpu_ns = 3 * SEC, .io_wait_ns = SEC,
				.sleep_ns = 6 * SEC });
			thread(t, wk + 1, wk, "python3", (struct thread_stats){
				.cpu_ns = 100 * MS, .sleep_ns = 9 * SEC });
			wake(t, rank, wk + 1, r ? 50 : batches0, r ? 2 * SEC : 500 * MS); /* batches */
			wake(t, wk, rank, 50, SEC);			/* indices */
		}
		wake(t, comm, rank, 100, SEC);		/* its gradients */
		wake(t, rank, comm, 100, r ? 200 * MS : 4 * SEC);	/* all-reduce done */
	}
	wake(t, 101, 201, 300, 2 * SEC);		/* the ranks' communication */
	wake(t, 201, 101, 300, 2 * SEC);
	wake(t, 201, 110, 2, 10 * MS);			/* a stray wakeup */
	return t;
}

static struct trace *two_ranks(void)
{
	return two_ranks_fed(50);
}

TEST(stall_ranks)
{
	struct trace *t = two_ranks();
	struct stall s;

	REQUIRE(t);
	t->duration_s = 10;
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	REQUIRE(t->nr_loops == 2);
	/* The headline is the loop that waits most for data: rank 1. */
	CHECK_EQ_INT(s.tid, 200);
	CHECK_EQ_INT(s.how, CONSUMER_FED);
	CHECK_EQ_U64(s.loader_wait_ns, 4 * SEC);
	CHECK_EQ_U64(s.rank_wait_ns, 200 * MS);
	CHECK_EQ_INT(t->loops[1].tid, 100);
	CHECK_EQ_U64(t->loops[1].loader_wait_ns, SEC);
	CHECK_EQ_U64(t->loops[1].rank_wait_ns, 4 * SEC);
	CHECK_EQ_U64(t->loops[1].other_wait_ns, SEC);
	CHECK_EQ_U64(t->loops[1].data_wait_ns, SEC);
	CHECK_REL(stall__share(&t->loops[1]), 1.0 / 10.0);
	CHECK_EQ_INT(t->loops[1].loader_threads, 8);	/* the 4 workers and their feeders */
	trace_free(t);
}

/*
 * Rank 0's loader keeps ahead of it: 8 of its batches found it asleep (of
 * 100 in stall_ranks). It computes 40% and waits for rank 1 in every
 * all-reduce: the other loop paces it, and it is a loop still.
 */
TEST(stall_rank_its_loader_keeps_ahead_of)
{
	struct trace *t = two_ranks_fed(4);
	struct stall s;

	REQUIRE(t);
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	REQUIRE(t->nr_loops == 2);
	CHECK_EQ_INT(t->loops[1].tid, 100);
	CHECK_EQ_U64(t->loops[1].loader_wakeups, 8);
	CHECK_EQ_U64(t->loops[1].rank_wait_ns, 4 * SEC);
	trace_free(t);
}

/* Without the tree, a worker would be a loop of its own: the tree keeps it out. */
TEST(stall_ranks_given)
{
	struct trace *t = two_ranks();
	struct consumer_sel sel[2] = { { .tid = 100 }, { .tid = 999 } };
	struct stall_opts o = opts;
	struct stall s;

	REQUIRE(t);
	o.given = sel;
	o.nr_given = 2;
	CHECK_EQ_INT(measure(&s, t, &o), 0);
	REQUIRE(t->nr_loops == 1);
	CHECK_EQ_INT(s.how, CONSUMER_GIVEN);
	CHECK_EQ_INT(s.tid, 100);
	CHECK(strstr(s.why, "1 of those given did not run"));
	/* Alone, rank 1 is no loop: its sleeps the communication ended are other waits. */
	CHECK_EQ_U64(s.rank_wait_ns, 0);
	trace_free(t);
}

/*
 * strace over a reader: the tracer is woken by its tracee at every stop and
 * computes, but it resumed the tracee from its ptrace stops: never a loop.
 */
TEST(stall_tracer_is_no_loop)
{
	struct trace *t = trace_new();
	struct stall s;

	REQUIRE(t);
	t->duration_s = 5;
	thread(t, 90, 90, "strace", (struct thread_stats){ .cpu_ns = 2 * SEC,
		.sleep_ns = 3 * SEC });
	REQUIRE(!procs__set(&t->procs, 91, 90));
	thread(t, 91, 91, "cat", (struct thread_stats){ .reads = 5000,
		.read_ns = SEC, .io_wait_ns = 500 * MS, .cpu_ns = 200 * MS,
		.sleep_ns = 3300 * MS });
	wake(t, 90, 91, 10000, 3 * SEC);
	wake(t, 91, 90 | WAKER_STOP, 10000, 3300 * MS);
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_INT(s.how, CONSUMER_NONE);
	CHECK_EQ_INT(t->nr_loops, 0);
	trace_free(t);
}

/*
 * A mapped dataset (LMDB): the workers only fault their data in. They are
 * the loader side, and the loop they feed is found.
 */
TEST(stall_mapped_loader)
{
	struct trace *t = trace_new();
	struct stall s;

	REQUIRE(t);
	t->duration_s = 10;
	thread(t, 100, 100, "python3", (struct thread_stats){ .cpu_ns = SEC,
		.sleep_ns = 9 * SEC });
	for (__u32 w = 200; w < 202; w++) {
		REQUIRE(!procs__set(&t->procs, w, 100));
		thread(t, w, w, "python3", (struct thread_stats){ .fault_reads = 3000,
			.io_wait_ns = 9 * SEC, .cpu_ns = 500 * MS });
		thread(t, w + 10, w, "python3", (struct thread_stats){ .cpu_ns = 10 * MS,
			.sleep_ns = 9 * SEC });
		wake(t, 100, w + 10, 40, 4 * SEC);
		wake(t, w, 100, 40, 100 * MS);
	}
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_INT(s.tid, 100);
	CHECK_EQ_INT(s.how, CONSUMER_ROOT);
	CHECK_EQ_U64(s.loader_wait_ns, 8 * SEC);
	CHECK_EQ_U64(s.loader_threads, 4);
	trace_free(t);
}

/*
 * A loop short of CPU: its wait is its own CPU taking batches (receive
 * bursts), on CPU and runnable, which is data wait and no longer computing.
 */
TEST(stall_receive_is_data_wait)
{
	struct trace *t = pipeline();
	struct thread_rec *th;
	struct stall s;

	REQUIRE(t);
	th = threads__find(&t->store.threads, 100);
	REQUIRE(th);
	th->recv_cpu_ns = SEC;
	th->recv_runq_ns = 100 * MS;
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_U64(s.receive_ns, 1100 * MS);
	CHECK_EQ_U64(s.data_wait_ns, 4100 * MS);	/* 3 s woken by the loader + 1.1 s */
	CHECK_EQ_U64(s.on_cpu_ns, 4 * SEC);
	CHECK_EQ_U64(s.runnable_ns, 400 * MS);
	CHECK_EQ_U64(s.wall_ns, 9500 * MS);		/* moved, not added */
	trace_free(t);
}

/* A kernel without fault tracepoints: "no consumer" says a mapped loader may be unseen. */
TEST(stall_none_says_faults_unmeasured)
{
	struct trace *t = trace_new();
	struct stall s;

	REQUIRE(t);
	t->kernel.probed = true;
	for (int l = 0; l < KL__MAX; l++)
		t->kernel.layers[l].measured = l != KL_FAULTS;
	thread(t, 100, 100, "python3", (struct thread_stats){ .cpu_ns = SEC,
		.sleep_ns = 9 * SEC });
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_INT(s.how, CONSUMER_NONE);
	CHECK(strstr(s.why, "faults not measured here"));
	t->kernel.layers[KL_FAULTS].measured = true;
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK(!strstr(s.why, "faults not measured"));
	trace_free(t);
}

/*
 * Wakeups in a softirq (WAKER_SOFTIRQ): rank 0's socket wakeups charged to
 * the worker the softirq interrupted are never the loader's, nor do they
 * join the communication thread to the loader side; charged to the other
 * rank's thread (loopback traffic in its sender's softirq), they are rank
 * wait as before. A device interrupt's are nobody's (WAKER_OUTSIDE).
 */
TEST(stall_softirq_wakers)
{
	struct trace *t = two_ranks();
	struct stall s;

	REQUIRE(t);
	t->duration_s = 10;
	/* Rank 0's all-reduce completions, in softirqs that interrupted its worker 110. */
	wake(t, 100, 110 | WAKER_SOFTIRQ, 40, 3 * SEC);
	/* And its communication thread woken so 400 times: no join. */
	wake(t, 101, 110 | WAKER_SOFTIRQ, 400, SEC);
	/* Rank 1's sender, in its own softirq: rank wait. */
	wake(t, 100, 201 | WAKER_SOFTIRQ, 10, 500 * MS);
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	REQUIRE(t->nr_loops == 2);
	CHECK_EQ_INT(t->loops[1].tid, 100);
	CHECK_EQ_U64(t->loops[1].loader_wait_ns, SEC);		/* not + 3 s */
	CHECK_EQ_U64(t->loops[1].rank_wait_ns, 4 * SEC + 500 * MS);
	for (int i = 0; i < t->loops[1].nr_wakers; i++)
		if (!strcmp(t->loops[1].wakers[i].name, "(softirq)"))
			CHECK(!t->loops[1].wakers[i].loader);
	trace_free(t);
}

/* Process tgid of parent ptgid, forked, exec'd and exited at those ms (0: not seen). */
static void proc(struct trace *t, __u32 tgid, __u32 ptgid, __u64 fork_ms, __u64 exec_ms,
		 __u64 exit_ms)
{
	struct proc_life ev = { .ptgid = ptgid, .fork_ns = fork_ms * MS,
				.exec_ns = exec_ms * MS, .exit_ns = exit_ms * MS };

	CHECK_EQ_INT(procs__note(&t->procs, tgid, &ev), 0);
}

/*
 * A loop launched through a shim of pyenv's shape (tests/pipe.py through
 * test_stall_shim_launcher's shim/python3; the threads of a real run): the
 * shim (pid 100) runs basename, dirname, readlink and cat, two of them in
 * subshells, 40 ms before it execs the interpreter, whose reader thread
 * sleeps 12 ms a file. The helpers, which read their libraries and ran a
 * millisecond each nearly all on CPU, exited before the loop's program
 * began: launchers, never its loader. Without their exits they joined it
 * ("its 8 threads ... the busiest (readlink) 97%": CPU-bound).
 */
static struct trace *shim_run(bool exits)
{
	static const struct { __u32 tid, ptgid; const char *comm; __u64 cpu, io, runq, sleep; }
	helper[] = {
		{ 102, 100, "basename", 919001, 0, 62653, 63594 },
		{ 103, 100, "bash", 375430, 0, 36044, 1017637 },
		{ 104, 103, "readlink", 852222, 0, 27129, 28792 },
		{ 105, 103, "dirname", 1038837, 963107, 231375, 34922 },
		{ 106, 100, "cat", 892801, 0, 12889, 49574 },
		{ 107, 100, "bash", 395380, 2032880, 0, 825831 },
		{ 108, 107, "readlink", 900963, 0, 17446, 30957 },
		{ 109, 107, "dirname", 974614, 894613, 14301, 108552 },
		{ 110, 107, "dirname", 710700, 0, 7821, 44917 },
	};
	struct trace *t = trace_new();

	if (!t)
		return NULL;
	t->duration_s = 6.3;
	thread(t, 100, 100, "python3", (struct thread_stats){ .reads = 115, .fault_reads = 4,
		.read_ns = 373554, .meta_ns = 1547482, .cpu_ns = 1381677672,
		.io_wait_ns = 8434726, .runq_ns = 1059539730, .sleep_ns = 3798592695 });
	thread(t, 101, 100, "python3", (struct thread_stats){ .reads = 800,
		.read_ns = 234463872, .meta_ns = 8676627, .cpu_ns = 48377981,
		.io_wait_ns = 224493256, .runq_ns = 95417078, .sleep_ns = 5859386014 });
	wake(t, 100, 101, 501, 3798038509);
	wake(t, 100, WAKER_OUTSIDE, 2, 315961);
	proc(t, 100, 90, 1000, 1040, 0);
	for (size_t i = 0; i < sizeof(helper) / sizeof(helper[0]); i++) {
		thread(t, helper[i].tid, helper[i].tid, helper[i].comm, (struct thread_stats){
			.reads = helper[i].comm[0] == 'b' && helper[i].comm[1] == 'a' &&
				 helper[i].comm[2] == 's' ? 0 : 5,
			.read_ns = 3000, .meta_ns = 80000, .cpu_ns = helper[i].cpu,
			.io_wait_ns = helper[i].io, .runq_ns = helper[i].runq,
			.sleep_ns = helper[i].sleep });
		proc(t, helper[i].tid, helper[i].ptgid, 1002 + 4 * i, 0,
		     exits ? 1004 + 4 * i : 0);
		wake(t, helper[i].ptgid, helper[i].tid, 1, helper[i].sleep);	/* its exit */
	}
	return t;
}

TEST(stall_shim_helpers_are_launchers)
{
	struct trace *t = shim_run(true);
	struct stall s;

	REQUIRE(t);
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_INT(s.how, CONSUMER_ROOT);
	CHECK_EQ_INT(s.tid, 100);
	CHECK_EQ_INT(s.loader_threads, 1);		/* the reader */
	CHECK_EQ_INT(s.loader_workers, 1);
	CHECK_EQ_INT(s.loader_procs, 0);
	CHECK_STR(s.busiest_comm, "python3");
	CHECK_EQ_U64(s.loader_wait_ns, 3798038509);
	trace_free(t);
	/* The same trace with the helpers' exits not seen: they join the loader. */
	t = shim_run(false);
	REQUIRE(t);
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_INT(s.tid, 100);
	/* the 7 that read, the 2 subshells they woke, and basename: below the loop, on CPU */
	CHECK_EQ_INT(s.loader_threads, 10);
	CHECK_STR(s.busiest_comm, "readlink");
	trace_free(t);
}

/*
 * A helper still running when the loop's program began (started in the
 * background, or forked by the loop itself) is no launcher: it may feed.
 */
TEST(stall_helper_alive_at_exec_may_feed)
{
	struct trace *t = shim_run(true);
	struct stall s;

	REQUIRE(t);
	proc(t, 106, 100, 1022, 0, 1041);	/* cat exits after the exec */
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_INT(s.loader_threads, 2);
	trace_free(t);
}

/*
 * A launcher that stays (conda run, uv run: a Python process that imports
 * its modules, runs the job as its child and waits for it; a real run of
 * tests/pipe.py under such a runner): it read 188 files at its start and
 * sleeps the whole run, until the loop's exit wakes it. It launched the
 * loop: never its loader (it made "the loader's 2 threads ... idle 98%").
 */
TEST(stall_parent_launcher_is_no_loader)
{
	struct trace *t = trace_new();
	struct stall_opts o = opts;
	struct stall s;

	REQUIRE(t);
	t->duration_s = 6.55;
	o.root_tgid = 90;
	thread(t, 90, 90, "python3", (struct thread_stats){ .reads = 188, .fault_reads = 4,
		.read_ns = 1069816, .meta_ns = 1479812, .cpu_ns = 36671186,
		.io_wait_ns = 504208, .runq_ns = 3996948, .sleep_ns = 6546149212 });
	thread(t, 100, 100, "python3", (struct thread_stats){ .reads = 98,
		.read_ns = 331068, .meta_ns = 1951976, .cpu_ns = 1605964056,
		.io_wait_ns = 405060, .runq_ns = 43513595, .sleep_ns = 4879633626 });
	thread(t, 101, 100, "python3", (struct thread_stats){ .reads = 800,
		.read_ns = 713325381, .meta_ns = 9291766, .cpu_ns = 59604527,
		.io_wait_ns = 684976685, .runq_ns = 114705765, .sleep_ns = 5650111722 });
	wake(t, 100, 101, 500, 4877011614);
	wake(t, 100, WAKER_OUTSIDE, 1, 75196);
	wake(t, 90, 100, 1, 6546149212);
	proc(t, 90, 1, 1000, 1001, 0);
	proc(t, 100, 90, 1100, 1101, 0);
	CHECK_EQ_INT(measure(&s, t, &o), 0);
	CHECK_EQ_INT(s.how, CONSUMER_FED);
	CHECK_EQ_INT(s.tid, 100);
	CHECK_EQ_INT(s.loader_threads, 1);
	CHECK_EQ_INT(s.loader_workers, 1);
	CHECK_EQ_U64(s.loader_wait_ns, 4877011614);
	trace_free(t);
}

/*
 * A mapped dataset attached cold (test_stall_torch_mapped_attached_cold's
 * numbers): 4 workers fault their images in behind a 300-IOPS cap; the
 * loop waits 97.3% of its time in its handshakes with them (sleeps their
 * senders end) and computes 1.4% of its 15.2 s, 53% of the 0.41 s its
 * loader leaves it. It is the loop; a worker, whose faults are its own
 * I/O wait and which computes 0.7% of its time, is not, tree or none.
 */
static struct trace *mapped_attached(bool tree)
{
	struct trace *t = trace_new();

	if (!t)
		return NULL;
	t->duration_s = 15.3;
	thread(t, 100, 100, "python3", (struct thread_stats){ .cpu_ns = 217688770,
		.io_wait_ns = 81942, .runq_ns = 164695723, .sleep_ns = 14839362276 });
	wake(t, 100, WAKER_OUTSIDE, 6, 29331636);
	for (__u32 w = 0; w < 4; w++) {
		__u32 wk = 200 + 10 * w;

		if (tree)
			proc(t, wk, 100, 900, 0, 0);
		thread(t, wk, wk, "python3", (struct thread_stats){ .fault_reads = 1100,
			.cpu_ns = 110215023, .io_wait_ns = 14043219748, .runq_ns = 37708820,
			.sleep_ns = 930329388 });
		thread(t, wk + 1, wk, "python3", (struct thread_stats){ .cpu_ns = 12 * MS,
			.io_wait_ns = 30 * MS, .runq_ns = 8 * MS, .sleep_ns = 15200 * MS });
		thread(t, 101 + w, 100, "python3", (struct thread_stats){ .cpu_ns = 2 * MS,
			.sleep_ns = 15200 * MS });
		wake(t, 100, wk + 1, 82, 14810030640 / 4);	/* the batches' senders */
		wake(t, wk, 101 + w, 10, 930329388);		/* the indices */
		wake(t, 101 + w, 100, 10, 15100 * MS);
	}
	return t;
}

TEST(stall_mapped_loop_attached_cold)
{
	struct trace *t = mapped_attached(true);
	struct stall s;

	REQUIRE(t);
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_INT(s.how, CONSUMER_ROOT);
	CHECK_EQ_INT(s.tid, 100);
	CHECK_EQ_INT(t->nr_loops, 1);
	CHECK_EQ_U64(s.loader_wait_ns, 14810030640);
	CHECK_EQ_U64(s.loader_wakeups, 328);
	/* Its data wait: those sleeps and 82 us of I/O wait outside its calls. */
	CHECK_EQ_U64(s.data_wait_ns, 14810030640 + 81942);
	CHECK_EQ_U64(s.wall_ns, s.data_wait_ns + 217688770 + 164695723 + 29331636);
	/* The workers' senders are python3 on the loader side; no other woke it. */
	REQUIRE(s.nr_wakers == 2);
	CHECK_STR(s.wakers[0].name, "python3");
	CHECK(s.wakers[0].loader);
	CHECK_EQ_U64(s.wakers[0].threads, 4);
	trace_free(t);
	/* A thread of its own (python3 too, no loader) ends 1 ms of its sleep. */
	t = mapped_attached(true);
	REQUIRE(t);
	thread(t, 110, 100, "python3", (struct thread_stats){ .cpu_ns = MS,
		.sleep_ns = 15 * SEC });
	wake(t, 100, 110, 1, MS);
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	REQUIRE(s.nr_wakers == 3);
	CHECK_STR(s.wakers[0].name, "python3");
	CHECK(s.wakers[0].loader);
	CHECK_EQ_U64(s.wakers[0].sleep_ns, 14810030640);
	CHECK_STR(s.wakers[2].name, "python3");
	CHECK(!s.wakers[2].loader);
	trace_free(t);
	t = mapped_attached(false);
	REQUIRE(t);
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_INT(t->nr_loops, 1);
	CHECK_EQ_INT(s.tid, 100);
	trace_free(t);
}

/*
 * A joiner of 64 readers (iostorm-workload read --threads 64, attached at
 * its gate, the numbers of a real run): 2 of its sleeps ended by readers'
 * exits, 38 ms at its gate. Whatever its share of the time left to it, it
 * is woken too seldom to be a loop.
 */
TEST(stall_joiner_of_many_readers)
{
	struct trace *t = trace_new();
	struct stall s;

	REQUIRE(t);
	t->duration_s = 0.155;
	thread(t, 100, 100, "iostorm-workloa", (struct thread_stats){ .cpu_ns = 2003828,
		.sleep_ns = 140024401, .runq_ns = 12330000 });
	wake(t, 100, WAKER_OUTSIDE, 1, 37467679);
	for (__u32 i = 101; i <= 164; i++)
		thread(t, i, 100, "iostorm-workloa", (struct thread_stats){ .reads = 62,
			.read_ns = 100 * MS, .cpu_ns = 10 * MS, .io_wait_ns = 90 * MS,
			.sleep_ns = 40 * MS });
	wake(t, 100, 101, 1, 90 * MS);
	wake(t, 100, 140, 1, 12556722);
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_INT(s.how, CONSUMER_NONE);
	trace_free(t);
}

/*
 * A loop its loader keeps ahead of, on a loaded machine (test_stall_diff_gate's
 * warm pipeline at load 12, the threads of a real run; its clock: 17% wait):
 * seldom woken, preempted 53% of its time and on CPU 45%, it computes
 * nearly all the time it has a CPU for and frees room in the decoders'
 * queue at every pop. It is the loop (it was "no consumer found").
 */
TEST(stall_loop_ahead_of_on_a_loaded_machine)
{
	struct trace *t = trace_new();
	struct stall s;

	REQUIRE(t);
	t->duration_s = 0.373;
	thread(t, 100, 100, "iostorm-workloa", (struct thread_stats){ .reads = 3,
		.read_ns = 2684, .meta_ns = 207321, .cpu_ns = 164415106,
		.runq_ns = 193179072, .sleep_ns = 4031269 });
	thread(t, 101, 100, "iostorm-workloa", (struct thread_stats){ .reads = 563,
		.read_ns = 1784549, .meta_ns = 822446, .cpu_ns = 4364031, .runq_ns = 39279,
		.sleep_ns = 327982048 });
	thread(t, 102, 100, "iostorm-workloa", (struct thread_stats){ .reads = 517,
		.read_ns = 1674773, .meta_ns = 804928, .cpu_ns = 4179269,
		.runq_ns = 1602879, .sleep_ns = 325389110 });
	thread(t, 103, 100, "iostorm-workloa", (struct thread_stats){ .cpu_ns = 2152940,
		.runq_ns = 26449310, .sleep_ns = 308257959 });
	thread(t, 104, 100, "iostorm-workloa", (struct thread_stats){ .cpu_ns = 2142502,
		.runq_ns = 18445728, .sleep_ns = 316291448 });
	for (__u32 d = 103; d <= 104; d++) {
		wake(t, d, 101, 200, 150 * MS);		/* raw files */
		wake(t, 101, d, 40, 20 * MS);		/* room in the raw queue */
		wake(t, d, 100, 25, 100 * MS);		/* room in the ready queue */
		wake(t, 100, d, 1, 2 * MS);
	}
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_INT(s.how, CONSUMER_ROOT);
	CHECK_EQ_INT(s.tid, 100);
	CHECK_EQ_U64(s.runnable_ns, 193179072);
	trace_free(t);
}


/*
 * A PyTorch loop fed by two DataLoader workers (processes 200 and 201,
 * their feeder threads 210 and 211): the workers read; one of them logs a
 * line now and then, and stays on the loader side.
 */
static struct trace *dataloader(void)
{
	struct trace *t = trace_new();

	if (!t)
		return NULL;
	t->duration_s = 10;
	t->page_size = 4096;
	for (__u32 w = 0; w < 2; w++) {
		CHECK_EQ_INT(procs__set(&t->procs, 200 + w, 100), 0);
		thread(t, 200 + w, 200 + w, "python3", (struct thread_stats){ .reads = 300,
			.read_bytes = 300 << 20, .read_ns = SEC, .cpu_ns = 4 * SEC,
			.io_wait_ns = SEC, .sleep_ns = 4 * SEC });
		thread(t, 210 + w, 200 + w, "QueueFeederThr", (struct thread_stats){
			.cpu_ns = 100 * MS, .sleep_ns = 9 * SEC });
		wake(t, 100, 210 + w, 20, 100 * MS);
		wake(t, 200 + w, 100, 20, 4 * SEC);	/* the index queue */
	}
	threads__find(&t->store.threads, 201)->w = (struct write_counters){
		.writes = 10, .write_bytes = 4096, .write_ns = 3 * MS };
	return t;
}

/*
 * The loop saves in line (torch.save, flush, fsync every few steps): its
 * own writes and syncs, and the I/O wait inside them, are write wait; its
 * data wait is only what its loader made it wait (it was all of it).
 */
TEST(stall_inline_save_is_write_wait)
{
	struct trace *t = dataloader();
	struct thread_rec *th;
	struct stall s;

	REQUIRE(t);
	thread(t, 100, 100, "python3", (struct thread_stats){ .cpu_ns = 3 * SEC,
		.io_wait_ns = 5 * SEC, .sleep_ns = 500 * MS });
	wake(t, 100, WAKER_OUTSIDE, 3, 300 * MS);
	th = threads__find(&t->store.threads, 100);
	REQUIRE(th);
	th->w = (struct write_counters){ .writes = 42, .write_bytes = 120 << 20,
		.write_ns = 1500 * MS, .fsyncs = 6, .fsync_ns = 4 * SEC, .commits = 6 };
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_INT(s.tid, 100);
	CHECK_EQ_U64(s.loader_wait_ns, 200 * MS);
	CHECK_EQ_U64(s.data_wait_ns, 200 * MS);		/* not + 5 s of I/O wait */
	CHECK_EQ_U64(s.own_write_ns, 5500 * MS);
	CHECK_EQ_U64(s.writer_wait_ns, 0);
	CHECK_EQ_U64(s.write_wait_ns, 5500 * MS);
	CHECK_EQ_U64(s.on_cpu_ns, 2500 * MS);		/* 0.5 s of the writes on CPU */
	CHECK_EQ_U64(s.other_wait_ns, 300 * MS);
	CHECK_EQ_U64(s.wall_ns, 8500 * MS);
	CHECK_REL(stall__write_share(&s), 5.5 / 8.5);
	CHECK_EQ_INT(s.loader_threads, 4);		/* the worker that logs included */
	CHECK(stall__most_writing(t) == &t->loops[0]);
	trace_free(t);
}

/*
 * A saver thread the loop joins before each save: the sleeps it ends are
 * write wait, though the GIL hands it back and forth with the pin-memory
 * thread (on the loader side): a writer never joins the loader side.
 */
TEST(stall_saver_thread_joined)
{
	struct trace *t = dataloader();
	struct thread_rec *th;
	struct stall s;

	REQUIRE(t);
	thread(t, 100, 100, "python3", (struct thread_stats){ .cpu_ns = 3 * SEC,
		.sleep_ns = 4 * SEC });
	thread(t, 130, 100, "pt_pin_memory", (struct thread_stats){ .cpu_ns = SEC,
		.sleep_ns = 8 * SEC });
	thread(t, 150, 100, "saver", (struct thread_stats){ .cpu_ns = 500 * MS,
		.io_wait_ns = 3500 * MS, .sleep_ns = 3 * SEC });
	th = threads__find(&t->store.threads, 150);
	REQUIRE(th);
	th->w = (struct write_counters){ .writes = 42, .write_bytes = 120 << 20,
		.write_ns = 1 * SEC, .fsyncs = 6, .fsync_ns = 2500 * MS, .commits = 6 };
	wake(t, 100, 150, 6, 3500 * MS);	/* join() */
	wake(t, 130, 210, 40, 2 * SEC);		/* the feeders feed the pin thread */
	wake(t, 150, 130, 30, 100 * MS);	/* the GIL */
	wake(t, 130, 150, 30, 100 * MS);
	wake(t, 150, 100, 6, 2900 * MS);	/* the next save starts */
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_INT(s.tid, 100);
	CHECK_EQ_U64(s.writer_wait_ns, 3500 * MS);
	CHECK_EQ_U64(s.writer_wakeups, 6);
	CHECK_EQ_U64(s.write_wait_ns, 3500 * MS);
	CHECK_EQ_U64(s.own_write_ns, 0);
	CHECK_EQ_U64(s.loader_wait_ns, 200 * MS);
	CHECK_EQ_U64(s.data_wait_ns, 200 * MS);
	CHECK_EQ_U64(s.other_wait_ns, 300 * MS);
	CHECK_EQ_INT(s.writer_threads, 1);
	CHECK_EQ_INT(s.loader_threads, 5);		/* the pin thread, not the saver */
	REQUIRE(s.nr_wakers >= 1);
	CHECK_STR(s.wakers[0].name, "saver");
	CHECK(s.wakers[0].writer && !s.wakers[0].loader);
	trace_free(t);
}

/*
 * An async checkpointer in a process of its own: forked (it reads nothing)
 * or spawned (it read its modules, a few MiB, and wrote 120 MiB): either
 * way a writer, never the loader, though other processes that read files
 * are; the loop's waits for it (waitpid(), woken by its exit) are write wait.
 */
TEST(stall_saver_process)
{
	for (int spawned = 0; spawned < 2; spawned++) {
		struct trace *t = dataloader();
		struct thread_rec *th;
		struct stall s;

		REQUIRE(t);
		thread(t, 100, 100, "python3", (struct thread_stats){ .cpu_ns = 3 * SEC,
			.sleep_ns = 4 * SEC });
		REQUIRE(!procs__set(&t->procs, 300, 100));
		thread(t, 300, 300, "python3", (struct thread_stats){ .reads = spawned ? 200 : 0,
			.read_bytes = spawned ? 5 << 20 : 0, .read_ns = spawned ? 50 * MS : 0,
			.cpu_ns = 500 * MS, .io_wait_ns = 3 * SEC });
		th = threads__find(&t->store.threads, 300);
		REQUIRE(th);
		th->w = (struct write_counters){ .writes = 42, .write_bytes = 120 << 20,
			.write_ns = SEC, .fsyncs = 6, .fsync_ns = 2 * SEC, .commits = 6 };
		wake(t, 100, 300, 6, 3 * SEC);
		CHECK_EQ_INT(measure(&s, t, &opts), 0);
		CHECK_EQ_INT(s.tid, 100);
		CHECK_EQ_U64(s.writer_wait_ns, 3 * SEC);
		CHECK_EQ_U64(s.data_wait_ns, 200 * MS);
		CHECK_EQ_INT(s.writer_threads, 1);
		CHECK_EQ_INT(s.loader_threads, 4);
		trace_free(t);
	}
}

/*
 * Issue 46: four DataLoader workers fault a mapped dataset in (cold: 2
 * pages read from storage each; warm: none) and decode, and each rewrites
 * a 30-byte progress file after every sample: 502 writes, 15 KiB, more
 * than they read, in 6 ms of their 5 s busy. They spent their time
 * faulting and decoding: no writers but the loader side (warm, as worker
 * processes of the loop on CPU), and the loop's sleeps they end are data
 * wait (they were write wait: "write-bound").
 */
TEST(stall_progress_writes_are_no_saves)
{
	for (int warm = 0; warm < 2; warm++) {
		struct trace *t = trace_new();
		struct thread_rec *th;
		struct stall s;

		REQUIRE(t);
		t->duration_s = 10;
		t->page_size = 4096;
		thread(t, 100, 100, "python3", (struct thread_stats){ .cpu_ns = 4 * SEC,
			.sleep_ns = 6 * SEC });
		for (__u32 w = 200; w < 204; w++) {
			REQUIRE(!procs__set(&t->procs, w, 100));
			thread(t, w, w, "python3", (struct thread_stats){
				.fault_reads = warm ? 0 : 2, .cache_pages = warm ? 0 : 2,
				.cpu_ns = 2 * SEC, .io_wait_ns = 3 * SEC, .sleep_ns = 5 * SEC });
			th = threads__find(&t->store.threads, w);
			REQUIRE(th);
			th->w = (struct write_counters){ .writes = 502,
				.write_bytes = 502 * 30, .write_ns = 6 * MS };
			wake(t, 100, w, 40, 1250 * MS);
			wake(t, w, 100, 40, 100 * MS);
		}
		CHECK_EQ_INT(measure(&s, t, &opts), 0);
		CHECK_EQ_INT(s.tid, 100);
		CHECK_EQ_INT(s.writer_threads, 0);
		CHECK_EQ_INT(s.loader_threads, 4);
		CHECK_EQ_U64(s.write_wait_ns, 0);
		CHECK_EQ_U64(s.loader_wait_ns, 5 * SEC);
		CHECK_EQ_U64(s.data_wait_ns, 5 * SEC);
		CHECK(stall__most_writing(t) == NULL);
		trace_free(t);
	}
}

/* No writes: the split and the shares are as before; no loop waits on writes. */
TEST(stall_no_writes_no_write_wait)
{
	struct trace *t = pipeline();
	struct stall s;

	REQUIRE(t);
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_U64(s.write_wait_ns, 0);
	CHECK_EQ_INT(s.writer_threads, 0);
	CHECK(stall__write_share(&s) == 0);
	CHECK(stall__most_writing(t) == NULL);
	trace_free(t);
}

/*
 * A file at path of the store: reads of bytes, or faults that read
 * (fault_reads), as a drain merges them.
 */
static void file(struct trace *t, __u64 ino, const char *path, __u64 reads, __u64 bytes,
		 __u64 fault_reads)
{
	struct file_key k = { .ino = ino, .dev = 8 << 20 | 1 };
	struct file_stats fs = { .opens = reads ? 1 : 0, .reads = reads, .read_bytes = bytes,
				 .faults = fault_reads, .fault_reads = fault_reads };

	snprintf(fs.path, sizeof(fs.path), "%s", path);
	fs.path_len = strlen(fs.path);
	fs.flags = FILE_F_PATH | FILE_F_REG | (reads ? FILE_F_READ : 0);
	CHECK_EQ_INT(store__merge_file(&t->store, &k, &fs), 0);
}

/*
 * TensorFlow's custom loop behind a storage cap: the loop's thread takes
 * each batch from the prefetch thread and runs each step in its pools
 * (inter-op 'python' threads, tf_Compute), computing 1.5% of its time
 * itself; its pools compute 4%. A pool thread read 4 bytes as it started
 * (/sys/devices/system/cpu/online), another faulted a page of
 * libtensorflow_cc.so in: neither is a reader, and the pool stays off the
 * loader side.
 */
static struct trace *tf_loop(void)
{
	struct trace *t = trace_new();

	if (!t)
		return NULL;
	t->duration_s = 10;
	thread(t, 100, 100, "python", (struct thread_stats){ .cpu_ns = 150 * MS,
		.sleep_ns = 9850 * MS });
	thread(t, 101, 100, "python", (struct thread_stats){ .reads = 400,
		.read_bytes = 400 * 16384, .io_wait_ns = 9 * SEC, .cpu_ns = 100 * MS });
	thread(t, 102, 100, "python", (struct thread_stats){ .cpu_ns = 10 * MS,
		.sleep_ns = 9990 * MS });	/* prefetch */
	thread(t, 110, 100, "python", (struct thread_stats){ .cpu_ns = 100 * MS,
		.sleep_ns = 9900 * MS, .reads = 1, .read_bytes = 4 });
	thread(t, 111, 100, "tf_Compute", (struct thread_stats){ .cpu_ns = 150 * MS,
		.sleep_ns = 9850 * MS, .fault_reads = 1 });
	thread(t, 112, 100, "tf_Compute", (struct thread_stats){ .cpu_ns = 150 * MS,
		.sleep_ns = 9850 * MS });
	file(t, 1, "/venv/lib/python3.11/site-packages/tensorflow/libtensorflow_cc.so.2",
	     0, 0, 1);
	file(t, 2, "/data/img/c000/img00000.jpg", 400, 400 * 16384, 0);
	wake(t, 102, 101, 400, 9 * SEC);
	wake(t, 100, 102, 50, 9 * SEC);		/* batches */
	wake(t, 102, 100, 5, 100 * MS);		/* room in the buffer */
	wake(t, 100, 111, 25, 300 * MS);	/* steps done */
	wake(t, 100, 112, 25, 300 * MS);
	wake(t, 111, 110, 500, 4 * SEC);	/* the pools among themselves */
	wake(t, 110, 112, 500, 4 * SEC);
	wake(t, 112, 111, 200, 4 * SEC);
	wake(t, 111, 101, 1, 1 * MS);		/* a reader used the intra-op pool once */
	return t;
}

TEST(stall_tf_loop_computes_in_its_pool)
{
	struct trace *t = tf_loop();
	struct stall s;

	REQUIRE(t);
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_INT(s.how, CONSUMER_ROOT);
	CHECK_EQ_INT(s.tid, 100);
	CHECK_EQ_INT(s.loader_threads, 2);	/* the reader and the prefetch thread */
	CHECK_EQ_U64(s.loader_wait_ns, 9 * SEC);
	CHECK_EQ_U64(s.data_wait_ns, 9 * SEC);
	CHECK_EQ_U64(s.pool_data_ns, 0);	/* it takes its batches itself */
	CHECK_EQ_INT(s.pool_threads, 3);
	CHECK_EQ_U64(s.pool_cpu_ns, 400 * MS);
	CHECK_EQ_U64(s.pool_wait_ns, 600 * MS);
	CHECK_EQ_U64(s.wall_ns, 10 * SEC);
	trace_free(t);
}

/*
 * Where a mapped dataset is faulted in, faults make readers still: the pool
 * thread that faulted one page is one, and its peers join it (given: the
 * loop's thread alone computes too little to be found then).
 */
TEST(stall_tf_data_faults_read)
{
	struct trace *t = tf_loop();
	struct consumer_sel sel = { .tid = 100 };
	struct stall_opts given = opts;
	struct stall s;

	REQUIRE(t);
	given.given = &sel;
	given.nr_given = 1;
	CHECK_EQ_INT(measure(&s, t, &given), 0);
	CHECK_EQ_INT(s.loader_threads, 2);
	file(t, 3, "/data/train.mdb", 0, 0, 5);
	CHECK_EQ_INT(measure(&s, t, &given), 0);
	CHECK_EQ_INT(s.loader_threads, 5);
	CHECK_EQ_INT(s.pool_threads, 0);
	trace_free(t);
}

/*
 * Keras fit: the step's function takes the batch (get_next) in the pool,
 * so the loader wakes the pool threads (both idle through the wait, woken
 * at one moment), never the loop, whose sleeps the pool ends once a step.
 * The longest the pool waited for the loader is the steps' data wait.
 */
TEST(stall_tf_fit_fed_through_pool)
{
	struct trace *t = trace_new();
	struct stall s;

	REQUIRE(t);
	t->duration_s = 8;
	thread(t, 100, 100, "python", (struct thread_stats){ .cpu_ns = 70 * MS,
		.sleep_ns = 7930 * MS });
	thread(t, 101, 100, "python", (struct thread_stats){ .reads = 770,
		.read_bytes = 770 * 16384, .io_wait_ns = 7500 * MS, .cpu_ns = 100 * MS });
	thread(t, 102, 100, "tf_Compute", (struct thread_stats){ .cpu_ns = 10 * MS,
		.sleep_ns = 7990 * MS });	/* prefetch, named after its creator */
	thread(t, 111, 100, "tf_Compute", (struct thread_stats){ .cpu_ns = 45 * MS,
		.sleep_ns = 7955 * MS });
	thread(t, 112, 100, "tf_Compute", (struct thread_stats){ .cpu_ns = 48 * MS,
		.sleep_ns = 7952 * MS });
	thread(t, 113, 100, "python", (struct thread_stats){ .cpu_ns = 100 * MS,
		.sleep_ns = 7900 * MS });
	wake(t, 102, 101, 770, 7500 * MS);
	wake(t, 111, 102, 66, 7200 * MS);	/* the batch is there */
	wake(t, 112, 102, 69, 7100 * MS);
	wake(t, 100, 111, 26, 3200 * MS);	/* the step is done */
	wake(t, 100, 112, 29, 4500 * MS);
	wake(t, 100, 102, 1, 1 * MS);
	wake(t, 111, 113, 900, 1 * SEC);	/* the pool among itself, as measured */
	wake(t, 113, 111, 900, 1 * SEC);
	wake(t, 112, 113, 900, 1 * SEC);
	wake(t, 113, 112, 900, 1 * SEC);
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_INT(s.how, CONSUMER_ROOT);
	CHECK_EQ_INT(s.tid, 100);
	CHECK_EQ_U64(s.pool_wait_ns, 7700 * MS);
	CHECK_EQ_U64(s.pool_data_ns, 7200 * MS);
	CHECK_EQ_U64(s.data_wait_ns, 7201 * MS);
	CHECK_EQ_U64(s.other_wait_ns, 7930 * MS - 7201 * MS);
	CHECK_EQ_U64(s.wall_ns, 8 * SEC);
	/* Woken by its loader as often itself, it takes its batches: none via its pool. */
	wake(t, 100, 102, 40, 10 * MS);
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_U64(s.pool_data_ns, 0);
	trace_free(t);
}

/*
 * A launched job: 5 s of imports (CPU, reading code, a Keras setting, a
 * temporary file) before its pipeline reads data; then 10 s of loop. The loop is counted from the
 * last drain before its data: its imports are set-up, left out.
 */
TEST(stall_loop_starts_with_data)
{
	struct trace *t = trace_new();
	struct stall_opts launched = opts;
	struct stall s;

	REQUIRE(t);
	launched.launched = true;
	t->duration_s = 5;
	thread(t, 100, 100, "python", (struct thread_stats){ .cpu_ns = 4 * SEC,
		.reads = 3000, .read_ns = 500 * MS, .io_wait_ns = 300 * MS,
		.sleep_ns = 700 * MS });
	file(t, 1, "/venv/lib/python3.11/site-packages/tensorflow/__init__.py", 3000,
	     3000 * 4096, 0);
	file(t, 2, "/root/.keras/keras.json", 1, 240, 0);
	file(t, 4, "/tmp/6t14jpzm", 1, 1075, 0);	/* ctypes.util.find_library's */
	/* MPI_Init: Open MPI's PMIx store and hwloc's topology, faulted in (issue 46) */
	file(t, 5, "/tmp/ompi.vm.0/pid.90/pmix_dstor_ds21_90/smseg-1771175937-0", 0, 0, 6);
	file(t, 6, "/tmp/ompi.vm.0/pid.90/hwloc.sm", 0, 0, 2);
	wake(t, 100, WAKER_OUTSIDE, 10, 700 * MS);
	CHECK_EQ_INT(measure(&s, t, &launched), 0);
	CHECK(!t->data_seen);
	/* The next drain: the pipeline read its data; the loop waits 6 s of 10. */
	t->duration_s = 15;
	thread(t, 100, 100, "python", (struct thread_stats){ .cpu_ns = 4 * SEC,
		.sleep_ns = 6 * SEC });
	thread(t, 101, 100, "python", (struct thread_stats){ .reads = 400,
		.read_bytes = 400 * 16384, .io_wait_ns = 9 * SEC, .cpu_ns = SEC });
	file(t, 3, "/data/img/c000/img00000.jpg", 400, 400 * 16384, 0);
	wake(t, 100, 101, 60, 6 * SEC);
	CHECK_EQ_INT(measure(&s, t, &launched), 0);
	CHECK(t->data_seen);
	CHECK_EQ_INT(s.tid, 100);
	CHECK_EQ_U64(s.setup_ns, 5 * SEC);
	CHECK_EQ_U64(s.wall_ns, 10 * SEC);
	CHECK_EQ_U64(s.own_io_ns, 0);
	CHECK_EQ_U64(s.data_wait_ns, 6 * SEC);
	CHECK_EQ_U64(s.on_cpu_ns, 4 * SEC);
	CHECK_REL(stall__share(&s), 0.6);
	trace_free(t);
}

/* Attached, the same job is counted whole: its start-up was before iostorm. */
TEST(stall_attached_counted_whole)
{
	struct trace *t = trace_new();
	struct stall s;

	REQUIRE(t);
	t->duration_s = 5;
	thread(t, 100, 100, "python", (struct thread_stats){ .cpu_ns = 4 * SEC,
		.sleep_ns = SEC });
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK(t->data_seen);
	t->duration_s = 15;
	thread(t, 100, 100, "python", (struct thread_stats){ .cpu_ns = 4 * SEC,
		.sleep_ns = 6 * SEC });
	thread(t, 101, 100, "python", (struct thread_stats){ .reads = 400,
		.read_bytes = 400 * 16384, .io_wait_ns = 9 * SEC, .cpu_ns = SEC });
	file(t, 3, "/data/img/c000/img00000.jpg", 400, 400 * 16384, 0);
	wake(t, 100, 101, 60, 6 * SEC);
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_INT(s.tid, 100);
	CHECK_EQ_U64(s.setup_ns, 0);
	CHECK_EQ_U64(s.wall_ns, 15 * SEC);
	trace_free(t);
}

/*
 * A node (-a) running two jobs in two pods: each loop fed by its own
 * DataLoader worker process. Pod A's worker also wakes pod B's loop 50
 * times (a shared futex, a pipe a sidecar writes): never B's loader, so
 * that 1 s is B's other wait, not its data wait, when the sides are drawn
 * within each workload; without the workloads it counts as B's data wait.
 */
#define POD_A	"/kubepods/burstable/pod11111111-2222-3333-4444-555555555555/aa"
#define POD_B	"/kubepods/burstable/pod66666666-7777-8888-9999-000000000000/bb"

static struct trace *two_pods(void)
{
	struct trace *t = trace_new();
	struct thread_stats cg = {};

	if (!t)
		return NULL;
	thread(t, 100, 100, "python3", (struct thread_stats){ .cpu_ns = 3 * SEC,
		.sleep_ns = 7 * SEC, .cgid = 1 });
	thread(t, 110, 110, "pt_worker", (struct thread_stats){ .reads = 500,
		.read_ns = 8 * SEC, .cpu_ns = 500 * MS, .io_wait_ns = 8 * SEC, .cgid = 1 });
	thread(t, 200, 200, "python3", (struct thread_stats){ .cpu_ns = 8 * SEC,
		.sleep_ns = 2 * SEC, .cgid = 2 });
	thread(t, 210, 210, "pt_worker", (struct thread_stats){ .reads = 500,
		.read_ns = SEC, .cpu_ns = 200 * MS, .io_wait_ns = SEC, .sleep_ns = 3 * SEC,
		.cgid = 2 });
	CHECK(!procs__set(&t->procs, 110, 100) && !procs__set(&t->procs, 210, 200));
	wake(t, 100, 110, 100, 7 * SEC);
	wake(t, 200, 210, 100, 500 * MS);
	wake(t, 200, 110, 50, SEC);		/* A's worker ends B's sleeps */
	wake(t, 200, WAKER_OUTSIDE, 10, 500 * MS);
	for (__u64 id = 1; id <= 2; id++) {
		cg.cgid = id;
		CHECK(!cgroups__add(&t->cgroups, &cg) &&
		      !cgroup__set_path(cgroups__find(&t->cgroups, id), id == 1 ? POD_A : POD_B));
	}
	return t;
}

static const struct stall *loop_of(const struct trace *t, __u32 tgid)
{
	for (size_t i = 0; i < t->nr_loops; i++)
		if (t->loops[i].tgid == tgid)
			return &t->loops[i];
	return NULL;
}

TEST(stall_loader_within_its_pod)
{
	struct trace *t = two_pods();
	struct stall_opts o = { .min_cpu_share = 0.02, .min_wakeups = 10 };
	const struct stall *a, *b;

	REQUIRE(t);
	/* Without the workloads (as before): A's worker is B's loader too. */
	CHECK_EQ_INT(stall__measure(t, &o), 0);
	CHECK_EQ_INT(t->nr_loops, 2);
	b = loop_of(t, 200);
	REQUIRE(b);
	CHECK_EQ_U64(b->data_wait_ns, 1500 * MS);
	CHECK_EQ_INT(b->loader_threads, 2);
	/* Within each pod: B's data wait is its own worker's 0.5 s. */
	o.workloads = &t->cgroups;
	CHECK_EQ_INT(stall__measure(t, &o), 0);
	CHECK_EQ_INT(t->nr_loops, 2);
	a = loop_of(t, 100);
	b = loop_of(t, 200);
	REQUIRE(a && b);
	CHECK_EQ_U64(a->data_wait_ns, 7 * SEC);
	CHECK_EQ_INT(a->loader_threads, 1);
	CHECK_EQ_U64(b->data_wait_ns, 500 * MS);
	CHECK_EQ_U64(b->other_wait_ns, 1500 * MS);
	CHECK_EQ_INT(b->loader_threads, 1);
	CHECK_EQ_U64(a->cgid, 1);
	CHECK_EQ_U64(b->cgid, 2);
	/*
	 * A node's exporter runs for days; the jobs are 10 s of its 10 min:
	 * still loops on a node, where a job is not "most of the trace".
	 */
	t->duration_s = 600;
	CHECK_EQ_INT(stall__measure(t, &o), 0);
	CHECK_EQ_INT(t->nr_loops, 2);
	o.workloads = NULL;
	CHECK_EQ_INT(stall__measure(t, &o), 0);
	CHECK_EQ_INT(t->nr_loops, 0);
	cgroups__free(&t->cgroups);
	trace_free(t);
}

/*
 * The jobs of two_pods() started by a shell in the root cgroup that reads
 * its own script files and computes (a test harness, an agent): a loop of
 * its own. Without the workloads the pods' jobs are its workers, no loops;
 * with them a pod's job is a loop of its pod, whatever started it.
 */
TEST(stall_node_loop_under_a_shell)
{
	struct trace *t = two_pods();
	struct stall_opts o = { .min_cpu_share = 0.02, .min_wakeups = 10 };
	struct thread_stats cg = { .cgid = 3 };

	REQUIRE(t);
	thread(t, 50, 50, "bash", (struct thread_stats){ .reads = 2000, .read_ns = SEC,
		.cpu_ns = 5 * SEC, .sleep_ns = 4 * SEC, .cgid = 3 });
	CHECK(!procs__set(&t->procs, 100, 50) && !procs__set(&t->procs, 200, 50));
	CHECK(!cgroups__add(&t->cgroups, &cg) &&
	      !cgroup__set_path(cgroups__find(&t->cgroups, 3), "/"));
	CHECK_EQ_INT(stall__measure(t, &o), 0);
	CHECK_EQ_INT(t->nr_loops, 1);
	CHECK(loop_of(t, 50));
	o.workloads = &t->cgroups;
	CHECK_EQ_INT(stall__measure(t, &o), 0);
	CHECK_EQ_INT(t->nr_loops, 3);
	CHECK(loop_of(t, 50) && loop_of(t, 100) && loop_of(t, 200));
	CHECK_EQ_U64(loop_of(t, 200)->data_wait_ns, 500 * MS);
	cgroups__free(&t->cgroups);
	trace_free(t);
}

/*
 * A job under a process that relays its output (issue 46): the relay (90,
 * the traced process) reads each line the job (100) logs from a pipe, 40
 * steps, and writes it on; the job read its imports, so it is on the
 * relay's loader side and ended every sleep of the relay's. Its two
 * DataLoader workers feed it, and it hands them indices. relay_comm names
 * the relay; self_fed makes the job read its own data (num_workers=0), with
 * no workers; relay_runq is the relay's wait for a CPU (a loaded machine).
 */
static struct trace *relayed(const char *relay_comm, bool self_fed, __u64 relay_runq)
{
	struct trace *t = trace_new();

	if (!t)
		return NULL;
	t->duration_s = 10;
	thread(t, 90, 90, relay_comm, (struct thread_stats){ .reads = 400,
		.read_bytes = 160000, .cpu_ns = 40 * MS, .runq_ns = relay_runq,
		.sleep_ns = 9960 * MS - relay_runq });
	wake(t, 90, 100, 40, 9900 * MS);
	wake(t, 90, WAKER_OUTSIDE, 2, 60 * MS);
	CHECK(!procs__set(&t->procs, 100, 90));
	if (self_fed) {
		thread(t, 100, 100, "python3", (struct thread_stats){ .reads = 3000,
			.read_ns = 4 * SEC, .io_wait_ns = 4 * SEC, .cpu_ns = 5 * SEC,
			.sleep_ns = SEC });
		wake(t, 100, WAKER_OUTSIDE, 40, SEC);
		return t;
	}
	thread(t, 100, 100, "python3", (struct thread_stats){ .reads = 300,
		.read_ns = 300 * MS, .io_wait_ns = 300 * MS, .cpu_ns = 3 * SEC,
		.sleep_ns = 6700 * MS });
	wake(t, 100, WAKER_OUTSIDE, 40, 2 * SEC);
	for (__u32 w = 0; w < 2; w++) {
		thread(t, 200 + w, 200 + w, "python3", (struct thread_stats){ .reads = 300,
			.read_ns = 5 * SEC, .cpu_ns = SEC, .io_wait_ns = 4 * SEC,
			.sleep_ns = 4 * SEC });
		CHECK(!procs__set(&t->procs, 200 + w, 100));
		wake(t, 100, 200 + w, 40, 2350 * MS);
		wake(t, 200 + w, 100, 40, SEC);		/* the index queue */
	}
	return t;
}

/*
 * The relay is no loop, by what it does (no name of a launcher): the job
 * is. On a loaded machine too, where the relay waits for a CPU 10% of its
 * time: once the job is a loop, the relay's sleeps it ended are rank wait,
 * and the relay computed enough beside them to be a rank waiting for it.
 */
TEST(stall_relay_is_no_loop)
{
	struct stall_opts o = opts;
	struct stall s;

	o.root_tgid = 90;
	for (int loaded = 0; loaded < 2; loaded++) {
		struct trace *t = relayed("logger", false, loaded ? SEC : 0);

		REQUIRE(t);
		CHECK_EQ_INT(measure(&s, t, &o), 0);
		CHECK_EQ_INT(t->nr_loops, 1);
		CHECK_EQ_INT(s.how, CONSUMER_FED);
		CHECK_EQ_INT(s.tid, 100);
		CHECK_EQ_U64(s.loader_wakeups, 80);
		CHECK_EQ_U64(s.data_wait_ns, 5 * SEC);	/* the workers 4.7 s, its own reads 0.3 s */
		trace_free(t);
	}
}

/*
 * A job that reads its own data is no loop fed by a loader: a relay over it
 * looks fed as a loop would. By name (mpirun), it is none; by behaviour
 * alone (logger), the relay is taken for the loop.
 */
TEST(stall_launcher_by_name_is_no_loop)
{
	struct trace *t = relayed("mpirun", true, 0);
	struct stall_opts o = opts;
	struct stall s;

	REQUIRE(t);
	o.root_tgid = 90;
	CHECK_EQ_INT(measure(&s, t, &o), 0);
	CHECK_EQ_INT(t->nr_loops, 1);
	CHECK_EQ_INT(s.tid, 100);
	CHECK_EQ_U64(s.own_io_ns, 4 * SEC);
	trace_free(t);
	t = relayed("logger", true, 0);
	REQUIRE(t);
	CHECK_EQ_INT(measure(&s, t, &o), 0);
	CHECK_EQ_INT(t->nr_loops, 1);
	CHECK_EQ_INT(s.tid, 90);
	trace_free(t);
}

/*
 * One DataLoader worker that the loop never wakes (the loader behind: its
 * index queue never runs dry) ends every sleep of the loop's: the loop
 * does not relay it, as the worker is not fed by a loader of its own.
 */
TEST(stall_loop_over_one_worker_is_no_relay)
{
	struct trace *t = trace_new();
	struct stall s;

	REQUIRE(t);
	t->duration_s = 10;
	thread(t, 100, 100, "python3", (struct thread_stats){ .cpu_ns = 2 * SEC,
		.sleep_ns = 8 * SEC });
	thread(t, 200, 200, "python3", (struct thread_stats){ .reads = 600,
		.read_ns = 2 * SEC, .io_wait_ns = 2 * SEC, .cpu_ns = 7 * SEC,
		.sleep_ns = SEC });
	CHECK(!procs__set(&t->procs, 200, 100));
	wake(t, 100, 200, 80, 8 * SEC);
	CHECK_EQ_INT(measure(&s, t, &opts), 0);
	CHECK_EQ_INT(t->nr_loops, 1);
	CHECK_EQ_INT(s.how, CONSUMER_ROOT);
	CHECK_EQ_INT(s.tid, 100);
	CHECK_EQ_U64(s.data_wait_ns, 8 * SEC);
	trace_free(t);
}

/*
 * A relay over 3 ranks, each logging a line a step and fed by a worker of
 * its own: no one rank ended half the relay's sleeps, the three did. The
 * ranks are the loops, the relay none.
 */
TEST(stall_relay_of_ranks)
{
	struct trace *t = trace_new();
	struct stall_opts o = opts;

	REQUIRE(t);
	o.root_tgid = 90;
	t->duration_s = 10;
	thread(t, 90, 90, "logger", (struct thread_stats){ .reads = 400,
		.read_bytes = 160000, .cpu_ns = 60 * MS, .sleep_ns = 9940 * MS });
	for (__u32 r = 0; r < 3; r++) {
		__u32 rank = 100 + r, worker = 200 + r;

		thread(t, rank, rank, "python3", (struct thread_stats){ .reads = 300,
			.read_ns = 300 * MS, .io_wait_ns = 300 * MS, .cpu_ns = 3 * SEC,
			.sleep_ns = 6700 * MS });
		thread(t, worker, worker, "python3", (struct thread_stats){ .reads = 300,
			.read_ns = 5 * SEC, .cpu_ns = SEC, .io_wait_ns = 4 * SEC,
			.sleep_ns = 4 * SEC });
		CHECK(!procs__set(&t->procs, rank, 90) && !procs__set(&t->procs, worker, rank));
		wake(t, 90, rank, 40, 3300 * MS);
		wake(t, rank, worker, 40, 4 * SEC);
		wake(t, worker, rank, 40, SEC);
	}
	CHECK_EQ_INT(stall__measure(t, &o), 0);
	CHECK_EQ_INT(t->nr_loops, 3);
	CHECK(loop_of(t, 100) && loop_of(t, 101) && loop_of(t, 102) && !loop_of(t, 90));
	trace_free(t);
}
