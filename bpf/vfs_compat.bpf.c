// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The VFS/syscall programs of vfs.bpf.c built again for kernels without
 * the kfunc bpf_rdonly_cast() (before 6.2) or bpf_loop() (before 5.17):
 * every kernel field read with BPF_CORE_READ(), the path walked by a
 * bounded loop (path.bpf.h, IOSTORM_CORE_READ). The same counts, at the
 * cost of a probe read per field. Which pair loads is decided before the
 * load (collect/features.c); the other pair is not loaded. Global
 * functions are renamed so that the link keeps both builds apart.
 */
#define IOSTORM_CORE_READ	1
#define handle_sys_enter	compat_sys_enter
#define handle_sys_exit		compat_sys_exit
#define entry_path		compat_entry_path
#define walk_loop		compat_walk_loop
#define anchor_note		compat_anchor_note
#define aio_track		compat_aio_track
#define aio_untrack		compat_aio_untrack
#define aio_reap		compat_aio_reap

#include "vfs.bpf.c"
