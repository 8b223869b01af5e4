// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the tracing command's option parser. The input is
 * argv after "iostorm", its words separated by NUL bytes; options__parse()
 * returns (it never exits) and options__free() must leave nothing behind.
 * Built and run by `make fuzz` (part of `make check`).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "run/options.h"

#define MAX_ARGS	64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *argv[MAX_ARGS + 2];
	struct options o;
	int argc = 0;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = 0;
	argv[argc++] = "iostorm";
	for (size_t i = 0; i <= size && argc <= MAX_ARGS; ) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	argv[argc] = NULL;
	options__parse(&o, argc, argv);
	options__free(&o);
	free(buf);
	return 0;
}
