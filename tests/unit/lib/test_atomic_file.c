// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Output paths: a symlink written through (to a file not there yet too), checks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include "lib/atomic_file.h"
#include "unit.h"

static int fill_hello(FILE *f, const void *arg)
{
	return fputs("hello\n", f) < 0 ? -EIO : 0;
}

/* A scratch directory under /tmp, or NULL. */
static char *scratch(void)
{
	char *dir = strdup("/tmp/iostorm-unit.XXXXXX");

	if (dir && !mkdtemp(dir)) {
		free(dir);
		return NULL;
	}
	return dir;
}

static char *join(const char *dir, const char *name)
{
	char *p;

	return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}

TEST(atomic_file_symlink_written_through)
{
	char *dir = scratch(), *real, *link, *dangling, buf[16] = {};
	struct stat st;
	FILE *f;

	REQUIRE(dir);
	real = join(dir, "real");
	link = join(dir, "link");
	dangling = join(dir, "dangling");
	REQUIRE(real && link && dangling);
	CHECK_EQ_INT(symlink(real, link), 0);
	CHECK_EQ_INT(symlink("nowhere/x", dangling), 0);
	CHECK_EQ_INT(atomic_file__check(link), 0);
	CHECK_EQ_INT(atomic_file__output(link, fill_hello, NULL), 0);
	CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
	f = fopen(real, "r");
	REQUIRE(f);
	CHECK(fgets(buf, sizeof(buf), f) && !strcmp(buf, "hello\n"));
	fclose(f);
	/* A link into a missing directory cannot be written through. */
	CHECK_EQ_INT(atomic_file__check(dangling), -ENOENT);
	CHECK_EQ_INT(atomic_file__output(dangling, fill_hello, NULL), -ENOENT);
	CHECK_EQ_INT(atomic_file__check(dir), -EISDIR);
	CHECK_EQ_INT(atomic_file__check("/nonexistent-iostorm/x.json"), -ENOENT);
	CHECK_EQ_INT(atomic_file__check("/dev/null"), 0);
	CHECK_EQ_INT(atomic_file__check("-"), 0);
	unlink(real);
	unlink(link);
	unlink(dangling);
	CHECK_EQ_INT(rmdir(dir), 0);	/* the checks left no temporary file */
	free(real);
	free(link);
	free(dangling);
	free(dir);
}
