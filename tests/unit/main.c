// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Run every registered unit test (or those whose name contains argv[1])
 * and end with exactly one line: "N passed, N failed". Exit 1 on failure.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"

#define FAILS_SHOWN	10	/* per test: a broken loop should not flood */

static struct unit_test *tests, **tail = &tests;
static int checks_failed;

void unit__register(struct unit_test *t)
{
	*tail = t;
	tail = &t->next;
}

void unit__fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	if (++checks_failed > FAILS_SHOWN)
		return;
	fprintf(stderr, "%s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (struct unit_test *t = tests; t; t = t->next) {
		if (argc > 1 && !strstr(t->name, argv[1]))
			continue;
		checks_failed = 0;
		t->fn();
		if (checks_failed) {
			if (checks_failed > FAILS_SHOWN)
				fprintf(stderr, "... %d more failed checks\n",
					checks_failed - FAILS_SHOWN);
			fprintf(stderr, "FAIL %s\n", t->name);
			failed++;
		} else {
			passed++;
		}
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
