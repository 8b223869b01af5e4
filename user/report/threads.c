// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Threads rolled up by name, for "is it decode (CPU) or storage?": a
 * tf.data pool or a set of DataLoader workers is one row, its time split
 * into CPU, I/O wait, run queue and sleep.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/json.h"
#include "report/report_int.h"


static int group_cmp(const void *pa, const void *pb)
{
	const struct thread_group *a = pa, *b = pb;
	__u64 x = a->cpu_ns + a->io_wait_ns, y = b->cpu_ns + b->io_wait_ns;

	if (x != y)
		return x < y ? 1 : -1;
	return strcmp(a->name, b->name);
}

static void group_add(struct thread_group *g, const struct thread_rec *th)
{
	g->threads++;
	g->opens += th->io.opens;
	g->reads += th->io.reads;
	g->read_bytes += th->io.read_bytes;
	g->io_ns += th->io.read_ns + th->io.meta_ns;
	g->cpu_ns += th->cpu_ns;
	g->io_wait_ns += th->io_wait_ns;
	g->runq_ns += th->runq_ns;
	g->sleep_ns += th->sleep_ns;
}

int report__groups(const struct store *s, struct thread_group **groups, size_t *n)
{
	struct thread_group *v = calloc(s->threads.n ? s->threads.n : 1, sizeof(*v));
	char name[COMM_LEN];
	size_t k = 0, j;

	*groups = v;
	*n = 0;
	if (!v)
		return -ENOMEM;
	/* Quadratic in the number of names, which is small. */
	for (size_t i = 0; i < s->threads.n; i++) {
		threads__group(&s->threads.v[i], name);
		for (j = 0; j < k && strcmp(v[j].name, name); j++)
			;
		if (j == k)
			memcpy(v[k++].name, name, COMM_LEN);
		group_add(&v[j], &s->threads.v[i]);
	}
	qsort(v, k, sizeof(*v), group_cmp);
	*n = k;
	return 0;
}

void report_threads__text(FILE *out, const struct report *r, size_t top)
{
	const struct thread_group *g = r->groups;
	size_t n = r->nr_groups;

	if (!n)
		return;
	fprintf(out, "\ntime by thread name (on CPU, I/O wait, waiting for a CPU, asleep)\n");
	fprintf(out, "%-16s %7s %8s %9s %9s %6s %6s %6s %6s\n", "name", "threads",
		"reads", "MiB", "CPU s", "cpu%", "io%", "runq%", "sleep%");
	for (size_t i = 0; i < n && i < top; i++) {
		__u64 all = g[i].cpu_ns + g[i].io_wait_ns + g[i].runq_ns + g[i].sleep_ns;

		fprintf(out, "%-16s %7u %8llu %9.1f %9.2f %6.1f %6.1f %6.1f %6.1f\n",
			g[i].name, g[i].threads, (unsigned long long)g[i].reads,
			g[i].read_bytes / 1048576.0, g[i].cpu_ns / 1e9,
			emit__pct(g[i].cpu_ns, all), emit__pct(g[i].io_wait_ns, all),
			emit__pct(g[i].runq_ns, all), emit__pct(g[i].sleep_ns, all));
	}
	if (n > top)
		fprintf(out, "… %zu more thread names\n", n - top);
}

void report_threads__json(struct json *j, const struct report *r)
{
	const struct thread_group *g = r->groups;
	size_t n = r->nr_groups;

	json__key(j, "thread_groups");
	json__begin_array(j);
	for (size_t i = 0; i < n; i++) {
		json__begin_object(j);
		json__kv_string(j, "name", g[i].name);
		json__kv_u64(j, "threads", g[i].threads);
		json__kv_u64(j, "opens", g[i].opens);
		json__kv_u64(j, "reads", g[i].reads);
		json__kv_u64(j, "read_bytes", g[i].read_bytes);
		json__kv_u64(j, "io_ns", g[i].io_ns);
		json__kv_u64(j, "cpu_ns", g[i].cpu_ns);
		json__kv_u64(j, "io_wait_ns", g[i].io_wait_ns);
		json__kv_u64(j, "runq_ns", g[i].runq_ns);
		json__kv_u64(j, "sleep_ns", g[i].sleep_ns);
		json__end_object(j);
	}
	json__end_array(j);
}
