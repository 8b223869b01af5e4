// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the trace could not hold and what iostorm held: the lost events by
 * reason (always shown: a report that hides its losses cannot be trusted)
 * and the memory of the store and of the BPF maps.
 */
#include <stdio.h>
#include "lib/json.h"
#include "lib/units.h"
#include "report/report_int.h"

/* ---- text ---- */

/* " (syscalls 140, page_cache 30)": the layers whose runs the kernel skipped. */
static void lost_layers(FILE *out, const struct kernel_reach *k)
{
	const char *sep = " (";

	for (int l = 0; l < KL__MAX; l++) {
		if (!k->layers[l].skipped)
			continue;
		fprintf(out, "%s%s %llu", sep, kernel__layer_name(l), k->layers[l].skipped);
		sep = ", ";
	}
	if (sep[0] == ',')
		fputc(')', out);
}

/* Always printed: a report that hides its losses cannot be trusted. */
static void print_lost(FILE *out, const struct trace *t)
{
	__u64 total = trace__lost_total(t);
	const char *sep = " (";

	if (!total) {
		fprintf(out, "lost: 0 events\n");
		return;
	}
	fprintf(out, "lost: %llu events", total);
	for (int r = 0; r < L__MAX; r++) {
		if (!t->lost[r])
			continue;
		fprintf(out, "%s%s %llu", sep, trace__lost_words(r), t->lost[r]);
		sep = ", ";
	}
	if (t->prog_misses) {
		fprintf(out, "%sprogram runs skipped by the kernel %llu", sep, t->prog_misses);
		lost_layers(out, &t->kernel);
	}
	fprintf(out, ")\nwarning: the counts above are incomplete\n");
}

/* What iostorm itself held: it may run for days. */
static void print_memory(FILE *out, const struct trace *t)
{
	char store[16], maps[16];

	fprintf(out, "memory: %s for %zu files in iostorm, %s of BPF maps in the kernel\n",
		units__size(store, sizeof(store), store__bytes(&t->store), true),
		t->store.nr_files,
		units__size(maps, sizeof(maps), t->maps_bytes, true));
}

void report_lost__text(FILE *out, const struct report *r, bool full)
{
	const struct trace *t = r->t;

	print_lost(out, t);
	if (full)
		print_memory(out, t);
}

/* ---- JSON ---- */

void report_lost__json(struct json *j, const struct report *r)
{
	const struct trace *t = r->t;

	json__key(j, "lost");
	json__begin_object(j);
	json__kv_u64(j, "total", trace__lost_total(t));
	for (int r = 0; r < L__MAX; r++)
		json__kv_u64(j, trace__lost_key(r), t->lost[r]);
	json__kv_u64(j, "prog_misses", t->prog_misses);
	json__end_object(j);
	json__key(j, "store");
	json__begin_object(j);
	json__kv_u64(j, "files", t->store.nr_files);
	json__kv_u64(j, "bytes", store__bytes(&t->store));
	json__kv_u64(j, "files_max", t->store.files_max);
	json__kv_u64(j, "files_evicted", t->store.files_evicted);
	json__kv_u64(j, "threads_max", t->store.threads.max);
	json__kv_u64(j, "threads_evicted", t->store.threads.evicted);
	json__kv_u64(j, "kernel_maps_bytes", t->maps_bytes);
	json__kv_u64(j, "file_slots", t->counters[C_FILE_ENTRIES]);
	json__kv_u64(j, "drains", t->drains);
	json__kv_u64(j, "wake_pairs", t->wakes.n);
	json__kv_u64(j, "wake_pairs_high", t->tables[KT_WAKES].high);
	json__key(j, "kernel_tables");
	json__begin_object(j);
	for (int k = 0; k < KT__MAX; k++) {
		json__key(j, trace__table_key(k));
		json__begin_object(j);
		json__kv_u64(j, "entries", t->tables[k].max);
		json__kv_u64(j, "high", t->tables[k].high);
		json__end_object(j);
	}
	json__end_object(j);
	json__end_object(j);
}
