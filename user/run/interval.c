// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Interval lines (-i) while tracing: when they are due, and their snapshots. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "report/report.h"
#include "run/interval.h"

int interval__start(struct interval *iv, FILE *out, double period,
		    const struct trace *t, __u64 now_ns)
{
	memset(iv, 0, sizeof(*iv));
	iv->out = out;
	iv->period = period;
	if (period <= 0)
		return 0;
	iv->snap[0] = calloc(1, sizeof(*iv->snap[0]));
	iv->snap[1] = calloc(1, sizeof(*iv->snap[1]));
	if (!iv->snap[0] || !iv->snap[1])
		return -ENOMEM;
	iv->next_ns = now_ns + (__u64)(period * 1e9);
	return trace__snap(iv->snap[0], t, now_ns);
}

bool interval__due(const struct interval *iv, __u64 now_ns)
{
	return iv->period > 0 && now_ns >= iv->next_ns;
}

void interval__free(struct interval *iv)
{
	for (int i = 0; i < 2; i++) {
		if (!iv->snap[i])
			continue;
		trace__snap_free(iv->snap[i]);
		free(iv->snap[i]);
		iv->snap[i] = NULL;
	}
}

int interval__tick(struct interval *iv, const struct trace *t, __u64 now_ns)
{
	struct trace_snap *prev = iv->snap[iv->cur], *cur = iv->snap[!iv->cur];
	char clock[16];
	time_t wall = time(NULL);
	struct tm tm;
	int err;

	err = trace__snap(cur, t, now_ns);
	if (err)
		return err;
	iv->cur = !iv->cur;
	while (iv->next_ns <= now_ns)	/* a late tick skips, never bunches */
		iv->next_ns += (__u64)(iv->period * 1e9);
	strftime(clock, sizeof(clock), "%H:%M:%S", localtime_r(&wall, &tm));
	if (iv->rows++ % INTERVAL_HEADER_EVERY == 0)
		report__interval_header(iv->out);
	report__interval_line(iv->out, prev, cur, clock);
	fflush(iv->out);
	return 0;
}
