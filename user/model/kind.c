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

/*
 * Settings the runtime reads at start, anywhere: a venv's marker (Python
 * reads it before anything), Keras' configuration (TensorFlow's import).
 * Not ~/.keras/datasets/, where Keras caches what it downloads.
 */
static const char *const code_configs[] = { "/pyvenv.cfg", "/.keras/keras.json" };

/*
 * A runtime's own files, which it maps for itself: Open MPI's session
 * directory (ompi.HOST.UID under /tmp or $TMPDIR; PRRTE's prte.HOST.UID in
 * Open MPI 5), which holds PMIx's shared-memory store and hwloc's topology
 * (hwloc.sm), and its shared-memory segments in /dev/shm. A rank faults
 * them in at MPI_Init, before it reads any of the dataset.
 */
static const char *const runtime_dirs[] = { "ompi.", "prte." };
static const char *const runtime_shm[] = { "vader_segment.", "sm_segment.", "open_mpi." };

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

/* Does a directory on path (not its last component) begin with one of runtime_dirs? */
static bool runtime_dir(const char *path)
{
	for (const char *p = strchr(path, '/'); p; p = strchr(p + 1, '/')) {
		const char *end = strchr(p + 1, '/');

		for (size_t i = 0; end && i < sizeof(runtime_dirs) / sizeof(runtime_dirs[0]); i++)
			if (!strncmp(p + 1, runtime_dirs[i], strlen(runtime_dirs[i])))
				return true;
	}
	return false;
}

static bool runtime_file(const char *path)
{
	if (!strncmp(path, "/dev/shm/", 9))
		for (size_t i = 0; i < sizeof(runtime_shm) / sizeof(runtime_shm[0]); i++)
			if (!strncmp(path + 9, runtime_shm[i], strlen(runtime_shm[i])))
				return true;
	return runtime_dir(path);
}

/* File systems of the kernel's own or of memory, which no dataset is mounted on. */
static const char *const virtual_fs[] = {
	"proc", "sysfs", "cgroup", "cgroup2", "devtmpfs", "devpts", "tmpfs", "securityfs",
	"debugfs", "tracefs", "bpf", "configfs", "mqueue", "pstore", "efivarfs",
	"binfmt_misc", "autofs", "hugetlbfs", "fusectl", "nsfs", "rpc_pipefs", "nfsd",
};

/*
 * Is path on a file system of its own mounted inside tree (not at it, as
 * /proc is), one that can hold a dataset? Then the tree says nothing of it.
 */
static bool mounted_inside(const char *path, const char *tree, const char *point,
			   const char *fstype)
{
	size_t t = strlen(tree), p = point ? strlen(point) : 0;

	if (!point || !fstype || strncmp(point, tree, t) || p <= t)
		return false;
	/* The mount holds the file, and is not the file itself (/etc/hosts). */
	if (strncmp(path, point, p) || path[p] != '/')
		return false;
	for (size_t i = 0; i < sizeof(virtual_fs) / sizeof(virtual_fs[0]); i++)
		if (!strcmp(fstype, virtual_fs[i]))
			return false;
	return true;
}

enum kind_why kind__why(const char *path, __u32 flags, const char *mount_point,
			const char *fstype)
{
	const char *base;

	if (flags & FILE_F_EXEC)
		return KIND_EXEC;
	if (!path)
		return KIND_DATA;
	if (runtime_file(path))
		return KIND_RUNTIME;
	if (!strncmp(path, "/dev/shm/", 9))
		return KIND_DATA;	/* a dataset staged in memory */
	base = strrchr(path, '/');
	if (code_ext(base ? base + 1 : path))
		return KIND_NAME;
	for (size_t i = 0; i < sizeof(code_trees) / sizeof(code_trees[0]); i++)
		if (!strncmp(path, code_trees[i], strlen(code_trees[i])) &&
		    !mounted_inside(path, code_trees[i], mount_point, fstype))
			return KIND_TREE;
	for (size_t i = 0; i < sizeof(code_dirs) / sizeof(code_dirs[0]); i++)
		if (strstr(path, code_dirs[i]))
			return KIND_PYTHON;
	for (size_t i = 0; i < sizeof(code_configs) / sizeof(code_configs[0]); i++) {
		size_t n = strlen(path), k = strlen(code_configs[i]);

		if (n >= k && !strcmp(path + n - k, code_configs[i]))
			return KIND_NAME;	/* a runtime's settings */
	}
	return KIND_DATA;
}

bool kind__is_code(const char *path, __u32 flags)
{
	return kind__why(path, flags, NULL, NULL) != KIND_DATA;
}

const char *kind__why_key(enum kind_why w)
{
	static const char *const keys[KIND__MAX] = {
		[KIND_DATA] = "data", [KIND_EXEC] = "exec", [KIND_NAME] = "name",
		[KIND_PYTHON] = "python", [KIND_TREE] = "tree", [KIND_SCRIPT] = "script",
		[KIND_RUNTIME] = "runtime",
	};

	return w < KIND__MAX ? keys[w] : "?";
}
