// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The VFS/syscall programs of vfs.bpf.c built again for kernels without
 * the kfunc bpf_rdonly_cast() (before 6.2) or bpf_loop() (before 5.17):
 * every kernel field read with BPF_CORE_READ(), the path walked by a
 * bounded loop (path.bpf.h, IOSTORM_CORE_READ). The same counts, at the
 * cost of a probe read per field. Which pair loads is decided before the
 * load (collect/features.c); the other pair is not loaded. Its global
 * functions are renamed (core_read.h) so that the link keeps both builds
 * apart.
 */
#include "core_read.h"
#include "vfs.bpf.c"
