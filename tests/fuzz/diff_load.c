// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: `iostorm diff` and the HTML page on arbitrary reports.
 * The input is BASE, then NEW after its first NUL byte (NEW = BASE when
 * there is none); each goes through a memfd, as a file, into diff__main():
 * the stream filter, jansson, the figures, the limits, the text and JSON
 * printers; and BASE into html__load() (the filter giving each record of
 * files and dirs to its parser) and html__render(). Built and run by `make
 * fuzz` (part of `make check`).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "diff/diff.h"
#include "html/html.h"

/* The page of the report at path, 3 rows per table, to /dev/null. */
static void html_page(const char *path)
{
	FILE *in = fopen(path, "r"), *out = fopen("/dev/null", "w");
	json_t *root;

	if (in && out && !html__load(in, path, 3, &root)) {
		html__render(out, root, 3);
		json_decref(root);
	}
	if (in)
		fclose(in);
	if (out)
		fclose(out);
}

/* A memfd holding data, as a path diff__main() can open; -1 on failure. */
static int memfd_of(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("report", 0);

	if (fd < 0)
		return -1;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t base_len = nul ? (size_t)(nul - data) : size;
	char base[64], new[64];
	int fd_base, fd_new;

	fd_base = memfd_of(data, base_len, base, sizeof(base));
	fd_new = nul ? memfd_of(nul + 1, size - base_len - 1, new, sizeof(new)) :
		 memfd_of(data, size, new, sizeof(new));
	if (fd_base >= 0 && fd_new >= 0) {
		char *text[] = { "diff", "--force", base, new, NULL };
		char *json[] = { "diff", "--force", "--json", "--fail-on", "read_p99>+5%",
				 "--fail-on", "finding:*>=WARN", base, new, NULL };

		diff__main(4, text);
		diff__main(9, json);
		html_page(base);
	}
	if (fd_new >= 0)
		close(fd_new);
	if (fd_base >= 0)
		close(fd_base);
	return 0;
}
