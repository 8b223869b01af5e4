// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The text's header (target, duration, why it stopped), then the kernel's
 * layers: which were measured, which were not and why, and the fallbacks
 * taken ("kernel"). The text says only what is missing or different, under
 * the header; the JSON always holds every layer.
 */
#include <stdio.h>
#include "lib/json.h"
#include "report/report_int.h"

void report_header__text(FILE *out, const struct report *r)
{
	const struct trace *t = r->t;
	static const char *const words[] = {
		[STOP_DURATION] = "duration",
		[STOP_SIGNAL] = "signal",
		[STOP_TARGET_EXIT] = "target exit",
	};
	const char *why = "unknown";

	if (t->stopped_by >= 0 && t->stopped_by <= STOP_TARGET_EXIT)
		why = words[t->stopped_by];
	fprintf(out, "iostorm: ");
	emit__safe(out, t->target);
	fprintf(out, ", traced %.1f s (stopped by %s)\n", t->duration_s, why);
}

void report_kernel__text(FILE *out, const struct report *r)
{
	const struct trace *t = r->t;
	const struct kernel_reach *k = &t->kernel;
	const char *sep = "";

	if (!k->probed)
		return;
	for (int l = 0; l < KL__MAX; l++) {
		if (!trace__layer_missing(t, l))
			continue;
		fprintf(out, "not measured on this kernel (%s): %s: %s\n", k->release,
			kernel__layer_name(l), k->layers[l].why);
	}
	if (!k->fallbacks)
		return;
	fprintf(out, "fallbacks for this kernel: ");
	for (int f = 0; f < KF__MAX; f++) {
		if (!(k->fallbacks & (1U << f)))
			continue;
		fprintf(out, "%s%s%s", sep, kernel__fallback_name(f),
			k->forced & (1U << f) ? " (forced)" : "");
		sep = ", ";
	}
	fputc('\n', out);
}

static void fallbacks_json(struct json *j, const char *key, __u32 bits)
{
	json__key(j, key);
	json__begin_array(j);
	for (int f = 0; f < KF__MAX; f++)
		if (bits & (1U << f))
			json__string(j, kernel__fallback_name(f));
	json__end_array(j);
}

void report_kernel__json(struct json *j, const struct report *r)
{
	const struct trace *t = r->t;
	const struct kernel_reach *k = &t->kernel;

	json__key(j, "kernel");
	json__begin_object(j);
	json__kv_string(j, "release", k->probed ? k->release : NULL);
	json__key(j, "probed");
	json__bool(j, k->probed);
	json__key(j, "layers");
	json__begin_object(j);
	for (int l = 0; l < KL__MAX; l++) {
		const struct layer_state *s = &k->layers[l];
		bool measured = kernel__measured(k, l);

		json__key(j, kernel__layer_name(l));
		json__begin_object(j);
		json__key(j, "measured");
		json__bool(j, measured);
		json__kv_string(j, "how", k->probed && measured ? s->how : NULL);
		json__kv_string(j, "why", measured ? NULL : s->why);
		/* Nothing of it on the node: not said as missing (trace.h). */
		json__key(j, "absent");
		json__bool(j, !measured && !trace__layer_missing(t, l));
		json__kv_u64(j, "skipped_runs", s->skipped);
		json__kv_u64(j, "rescued_runs", s->rescued);
		json__end_object(j);
	}
	json__end_object(j);
	fallbacks_json(j, "fallbacks", k->fallbacks);
	fallbacks_json(j, "forced", k->forced);
	/* The syscall programs' second chance (vfs.bpf.c, docs/kernels.md). */
	json__kv_string(j, "syscall_second_chance", !k->probed ? NULL :
			!k->tp_preemptible ? "not_needed" :
			k->second ? "attached" : "failed");
	json__end_object(j);
}
