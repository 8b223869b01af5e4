// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * iostorm: is a training job starving on storage, and why? See README.md.
 *
 * The commands iostorm knows, and one check of stdout after any of them:
 * a report cut short by a full disk or a closed pipe is an error (4, as
 * every subcommand's "could not write").
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "diff/diff.h"
#include "html/html.h"
#include "lib/log.h"
#include "run/run.h"

static int help_main(int argc, char **argv);

static const struct command {
	const char *name;		/* argv[1]; NULL: no subcommand named */
	int (*main)(int argc, char **argv);
	int exit_write;			/* its status when stdout fails */
} commands[] = {
	{ "diff", diff__main, DIFF_EXIT_WRITE },
	{ "html", html__main, HTML_EXIT_WRITE },
	{ "check", check__main, 4 },
	{ "--check", check__main, 4 },	/* the same, spelt as an option */
	{ "help", help_main, 4 },
	{ NULL, run__main, 4 },		/* `iostorm [options] TARGET` */
};

/* `iostorm help [COMMAND]`: that command's --help, or the tracer's. */
static int help_main(int argc, char **argv)
{
	char *args[] = { "iostorm", "--help", NULL };

	for (const struct command *c = commands; argc > 1 && c->name; c++)
		if (!strcmp(argv[1], c->name) && c->main != help_main) {
			args[0] = (char *)c->name;
			return c->main(2, args);
		}
	if (argc > 1) {
		pr_err("help: no command '%s' (commands: diff, html, check)", argv[1]);
		return 2;
	}
	return run__main(2, args);
}

/* Edits (insert, delete, replace, swap two neighbours) from a to b, at most 3. */
static int edits(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la > 16 || lb > 16)
		return 3;
	int d[17][17];

	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			int v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

/* Is name a program PATH has (a slash: a path, taken as it is)? */
static bool on_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (strchr(name, '/'))
		return true;
	for (const char *p = path ? path : "/usr/bin:/bin"; *p; ) {
		size_t n = strcspn(p, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? p : ".", name);
		if (!access(buf, X_OK))
			return true;
		p += n + (p[n] == ':');
	}
	return false;
}

/*
 * A first word that is no command, no program on PATH and within two
 * edits of a command is a mistyped command, said as git says it, not a
 * program iostorm cannot run.
 */
static bool mistyped(const char *word)
{
	if (word[0] == '-' || on_path(word))
		return false;
	for (const struct command *c = commands; c->name; c++) {
		if (c->name[0] == '-' || edits(word, c->name) > 2)
			continue;
		pr_err("'%s' is not an iostorm command; did you mean '%s'? (to trace a "
		       "program named '%s', put -- before it)", word, c->name, word);
		return true;
	}
	return false;
}

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
	if (!c->name && argc > 1 && mistyped(argv[1]))
		return 2;
	rc = c->name ? c->main(argc - 1, argv + 1) : c->main(argc, argv);
	err = stdout_flush();
	if (err) {
		pr_err("cannot write to stdout: %s", strerror(-err));
		return rc ? rc : c->exit_write;
	}
	return rc;
}
