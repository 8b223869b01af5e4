// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * iostorm: is a training job starving on storage, and why? See README.md.
 *
 * The commands iostorm knows, and one check of stdout after any of them:
 * a report cut short by a full disk or a closed pipe is an error.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "diff/diff.h"
#include "html/html.h"
#include "lib/log.h"
#include "run/run.h"

static const struct command {
	const char *name;		/* argv[1]; NULL: no subcommand named */
	int (*main)(int argc, char **argv);
	int exit_write;			/* its status when stdout fails */
} commands[] = {
	{ "diff", diff__main, DIFF_EXIT_WRITE },
	{ "html", html__main, HTML_EXIT_WRITE },
	{ "check", check__main, 1 },
	{ "--check", check__main, 1 },	/* the same, spelt as an option */
	{ NULL, run__main, 1 },		/* `iostorm [options] TARGET` */
};

/* Flush stdout; 0, or -errno of a write that failed on the way. */
static int stdout_flush(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	return errno ? -errno : -EIO;
}

int main(int argc, char **argv)
{
	const struct command *c = commands;
	int rc, err;

	while (c->name && !(argc > 1 && !strcmp(argv[1], c->name)))
		c++;
	rc = c->name ? c->main(argc - 1, argv + 1) : c->main(argc, argv);
	err = stdout_flush();
	if (err) {
		pr_err("cannot write to stdout: %s", strerror(-err));
		return rc ? rc : c->exit_write;
	}
	return rc;
}
