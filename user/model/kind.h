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


/*
 * Code, by what the file is or where it lives: an extension .py, .pyc,
 * .pyo, .pyd, .so or .so.N...; a directory site-packages, dist-packages,
 * __pycache__ or lib-dynload on its path; a path under /usr/lib, /usr/lib64,
 * /usr/local/lib, /usr/share, /lib, /lib64, /usr/bin, /usr/local/bin,
 * /bin, /sbin, /usr/sbin, /opt/conda/lib, /etc, /proc, /sys, /dev (but
 * /dev/shm, where datasets are staged) or /run;
 * or a file mapped executable (FILE_F_EXEC). Files without a path are data
 * unless mapped executable.
 */
bool kind__is_code(const char *path, __u32 flags);

#endif /* KIND_H */
