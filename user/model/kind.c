// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Code or data, see kind.h: the extension, the directories on the path,
 * the tree the file lives in.
 */
#include <ctype.h>
#include <string.h>
#include <linux/types.h>
#include "iostorm.h"	/* FILE_F_EXEC */
#include "model/kind.h"

/* Trees that hold programs, libraries and system files, never a dataset. */
static const char *const code_trees[] = {
	"/usr/lib/", "/usr/lib64/", "/usr/local/lib/", "/usr/share/", "/lib/",
	"/lib64/", "/usr/bin/", "/usr/local/bin/", "/bin/", "/sbin/", "/usr/sbin/",
	"/opt/conda/lib/", "/etc/", "/proc/", "/sys/", "/dev/", "/run/",
};

/* A directory of Python's module tree, anywhere (a venv, conda, ~/.local). */
static const char *const code_dirs[] = {
	"/site-packages/", "/dist-packages/", "/__pycache__/", "/lib-dynload/",
};

static const char *const code_exts[] = { ".py", ".pyc", ".pyo", ".pyd", ".so" };

/* ".so" or ".so.1.2.3" ends base (the last component). */
static bool shared_object(const char *base)
{
	const char *so = strstr(base, ".so");

	for (; so; so = strstr(so + 1, ".so")) {
		const char *p = so + 3;

		while (*p == '.' && isdigit((unsigned char)p[1]))
			for (p++; isdigit((unsigned char)*p); p++)
				;
		if (!*p)
			return true;
	}
	return false;
}

static bool code_ext(const char *base)
{
	const char *dot = strrchr(base, '.');

	if (shared_object(base))
		return true;
	for (size_t i = 0; dot && i < sizeof(code_exts) / sizeof(code_exts[0]); i++)
		if (!strcmp(dot, code_exts[i]))
			return true;
	return false;
}

bool kind__is_code(const char *path, __u32 flags)
{
	const char *base;

	if (flags & FILE_F_EXEC)
		return true;
	if (!path)
		return false;
	if (!strncmp(path, "/dev/shm/", 9))
		return false;	/* a dataset staged in memory */
	base = strrchr(path, '/');
	if (code_ext(base ? base + 1 : path))
		return true;
	for (size_t i = 0; i < sizeof(code_trees) / sizeof(code_trees[0]); i++)
		if (!strncmp(path, code_trees[i], strlen(code_trees[i])))
			return true;
	for (size_t i = 0; i < sizeof(code_dirs) / sizeof(code_dirs[0]); i++)
		if (strstr(path, code_dirs[i]))
			return true;
	return false;
}
