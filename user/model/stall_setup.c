// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A launched loop's set-up before its first batch, left out of its time:
 * what each process main thread did until the job read data, kept, and a
 * loop split on what it did since (see stall.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "model/stall_int.h"
#include "model/trace.h"

/*
 * Thread tid's entry in t->starts, made if new; NULL without memory. The
 * entries of threads the store no longer holds are dropped before it grows.
 */
static struct stall_start *start_of(struct trace *t, __u32 tid)
{
	struct stall_start *ss;
	size_t k = 0;

	for (size_t i = 0; i < t->nr_starts; i++)
		if (t->starts[i].tid == tid)
			return &t->starts[i];
	for (size_t i = 0; i < t->nr_starts; i++) {
		if (threads__find(&t->store.threads, t->starts[i].tid))
			t->starts[k++] = t->starts[i];
		else
			free(t->starts[i].wakes);
	}
	t->nr_starts = k;
	ss = realloc(t->starts, (k + 1) * sizeof(*ss));
	if (!ss)
		return NULL;
	t->starts = ss;
	t->nr_starts = k + 1;
	memset(&ss[k], 0, sizeof(ss[k]));
	ss[k].tid = tid;
	return &ss[k];
}

void stall__starts_free(struct trace *t)
{
	for (size_t i = 0; i < t->nr_starts; i++)
		free(t->starts[i].wakes);
	free(t->starts);
	t->starts = NULL;
	t->nr_starts = 0;
}

/* Keep thread i's counters and its sleeps by waker in ss. 0 or -ENOMEM. */
static int start_keep(const struct stall_ctx *x, long i, struct stall_start *ss)
{
	size_t first, n = wakes_of(x, x->s->threads.v[i].tid, &first);
	struct wake_rec *w = realloc(ss->wakes, (n ? n : 1) * sizeof(*w));

	if (!w)
		return -ENOMEM;
	memcpy(w, &x->wakes[first], n * sizeof(*w));
	ss->wakes = w;
	ss->nr_wakes = n;
	ss->th = x->s->threads.v[i];
	return 0;
}

/*
 * Has the target read data: READER_MIN_BYTES of data files (read, or
 * faulted in: a page a fault), code apart? A file with no path is not
 * known to be data (a launched job's first drains see the interpreter's
 * libraries faulted in before /proc names them), nor is a kilobyte of a
 * temporary file (ctypes looking for a library at an import).
 */
bool stall_setup__data_read(const struct store *s)
{
	__u64 bytes = 0;

	for (size_t i = 0; i < s->files_cap && bytes < READER_MIN_BYTES; i++) {
		const struct file_rec *f = s->files[i];

		if (f && f->path && !file_rec__is_device(f) && !(f->flags & FILE_F_DIR) &&
		    !file_rec__is_code(f))
			bytes += f->c.read_bytes + f->c.fault_reads * 4096;
	}
	return bytes >= READER_MIN_BYTES;
}

/*
 * A launched loop's time starts with its data, as the loop's own clock
 * does: what the job's main thread did before its pipeline first read
 * data (Python's imports, loading TensorFlow's libraries, building the
 * model: 3-5 s of CPU and of reading code) is not the loop's. Until then,
 * every drain keeps each process main thread's counters and sleeps; from
 * then on they are final, and a loop is split on what it did after them
 * (stall_setup__split()); iostorm drains every 0.1 s until then, so little set-up
 * stays in. Attached (-p), the job has started: nothing is left out (a
 * pipeline at rest when iostorm attached reads again only once the loop
 * has taken its buffered batches). Code is told from data by
 * model/kind.h: a dataset under /usr/share is never seen read, and its
 * loop is counted whole.
 */
int stall_setup__keep(struct stall_ctx *x, struct trace *t)
{
	const struct store *s = x->s;
	struct stall_start *ss;

	for (size_t i = 0; i < s->threads.n; i++) {
		if (s->threads.v[i].tid != s->threads.v[i].tgid || x->tracer[i])
			continue;
		ss = start_of(t, s->threads.v[i].tid);
		if (!ss)
			return -ENOMEM;
		if (ss->fed)
			continue;
		ss->fed = t->data_seen;
		if (!ss->fed && start_keep(x, i, ss))
			return -ENOMEM;
	}
	return 0;
}

static __u64 less(__u64 a, __u64 b)
{
	return a > b ? a - b : 0;
}

/* th less what b kept: the counters stall_split__loop() reads. */
static void since_rec(struct thread_rec *th, const struct thread_rec *b)
{
	th->cpu_ns = less(th->cpu_ns, b->cpu_ns);
	th->io_wait_ns = less(th->io_wait_ns, b->io_wait_ns);
	th->runq_ns = less(th->runq_ns, b->runq_ns);
	th->sleep_ns = less(th->sleep_ns, b->sleep_ns);
	th->io.read_ns = less(th->io.read_ns, b->io.read_ns);
	th->io.meta_ns = less(th->io.meta_ns, b->io.meta_ns);
	th->io.reads = less(th->io.reads, b->io.reads);
	th->io.fault_reads = less(th->io.fault_reads, b->io.fault_reads);
	th->recv_cpu_ns = less(th->recv_cpu_ns, b->recv_cpu_ns);
	th->recv_runq_ns = less(th->recv_runq_ns, b->recv_runq_ns);
	th->recv_shake_ns = less(th->recv_shake_ns, b->recv_shake_ns);
	th->w.write_ns = less(th->w.write_ns, b->w.write_ns);
	th->w.fsync_ns = less(th->w.fsync_ns, b->w.fsync_ns);
	th->w.commit_ns = less(th->w.commit_ns, b->w.commit_ns);
}

/*
 * Split loop i on what it did since its start (stall_setup__keep()), with the
 * sides of the whole trace: its counters and its sleeps less those kept
 * (x->wakes, a copy, is put back after).
 */
int stall_setup__split(struct stall_ctx *x, const struct trace *t, long i, struct stall *st)
{
	const struct stall_start *ss = NULL;
	size_t first, n = wakes_of(x, x->s->threads.v[i].tid, &first);
	struct thread_rec th = x->s->threads.v[i];
	struct wake_rec *w = &x->wakes[first], *kept;

	for (size_t k = 0; k < t->nr_starts && !ss; k++)
		if (t->starts[k].tid == th.tid && t->starts[k].fed)
			ss = &t->starts[k];
	if (!ss || !wall_of(&ss->th)) {
		stall_split__loop(x, i, st);
		return 0;
	}
	kept = malloc((n ? n : 1) * sizeof(*kept));
	if (!kept)
		return -ENOMEM;
	memcpy(kept, w, n * sizeof(*w));
	since_rec(&th, &ss->th);
	for (size_t k = 0; k < ss->nr_wakes; k++)
		for (size_t j = 0; j < n; j++)
			if (w[j].waker == ss->wakes[k].waker) {
				w[j].sleep_ns = less(w[j].sleep_ns, ss->wakes[k].sleep_ns);
				w[j].wakeups = less(w[j].wakeups, ss->wakes[k].wakeups);
			}
	x->since = th;
	x->since_i = i;
	stall_split__loop(x, i, st);
	x->since_i = -1;
	memcpy(w, kept, n * sizeof(*w));
	free(kept);
	st->setup_ns = wall_of(&ss->th);
	return 0;
}
