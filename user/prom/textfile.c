// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The final textfile of a trace's metrics, for node_exporter's textfile
 * collector. See prom.h and docs/metrics.md.
 */
#include <stdio.h>
#include "lib/atomic_file.h"
#include "prom/prom_int.h"

struct render_args {
	const struct trace *t;
	const struct findings *f;
	const char *job;
};

static int fill_render(FILE *out, const void *arg)
{
	const struct render_args *a = arg;

	return prom__render(out, a->t, a->f, a->job);
}

int prom__write_file(const char *path, const struct trace *t, const struct findings *f,
		     const char *job)
{
	struct render_args a = { t, f, job };

	return atomic_file__output_sync(path, false, fill_render, &a);
}
