/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a file is to the job: code (the interpreter, its modules, shared
 * libraries, system files) or data (the dataset, checkpoints, anything
 * else). A Python job imports a thousand .py, .pyc and .so files at start;
 * counted with the dataset they look like a small-file storm. Pure code,
 * unit-tested.
 */
#ifndef KIND_H
#define KIND_H

#include <stdbool.h>
#include <linux/types.h>


/* Why a file is code; KIND_DATA (0) when it is not. */
enum kind_why {
	KIND_DATA = 0,
	KIND_EXEC,		/* mapped executable (FILE_F_EXEC) */
	KIND_NAME,		/* its extension: .py, .pyc, .pyo, .pyd, .so, .so.N */
	KIND_PYTHON,		/* in a Python module tree: site-packages, __pycache__... */
	KIND_TREE,		/* under a system tree: /usr/lib, /etc, /run... */
	KIND_SCRIPT,		/* the script a launched command runs (store.h) */
	KIND_RUNTIME,		/* a runtime's own: MPI's session directory, shared memory */
	KIND__MAX,
};

/*
 * Code, by what the file is or where it lives: an extension .py, .pyc,
 * .pyo, .pyd, .so or .so.N...; a directory site-packages, dist-packages,
 * __pycache__ or lib-dynload on its path; a path under /usr/lib, /usr/lib64,
 * /usr/local/lib, /usr/share, /lib, /lib64, /usr/bin, /usr/local/bin,
 * /bin, /sbin, /usr/sbin, /opt/conda/lib, /etc, /proc, /sys, /dev (but
 * /dev/shm, where datasets are staged) or /run, unless a file system that
 * can hold a dataset (a disk's, NFS, FUSE: not proc, sysfs, tmpfs...) is
 * mounted inside that tree and holds the file (a dataset mounted at
 * /run/data is data; mount_point and fstype are the file's mount, NULL
 * when unknown); a runtime's settings (pyvenv.cfg, .keras/keras.json); or
 * a file mapped executable (FILE_F_EXEC); or a runtime's own file, which
 * it maps for itself: under a directory whose name begins with ompi. or
 * prte. (Open MPI's and PRRTE's session directories: PMIx's store,
 * hwloc's topology) or Open MPI's segments in /dev/shm (vader_segment.*,
 * sm_segment.*, open_mpi.*). Files without a path are data unless mapped
 * executable.
 */
enum kind_why kind__why(const char *path, __u32 flags, const char *mount_point,
			const char *fstype);
bool kind__is_code(const char *path, __u32 flags);
/* "exec", "name", "python", "tree", "script", "runtime": JSON keys. */
const char *kind__why_key(enum kind_why w);

#endif /* KIND_H */
