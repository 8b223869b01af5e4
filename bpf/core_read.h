/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The CO-RE build: every kernel field read with BPF_CORE_READ() (no
 * bpf_rdonly_cast(), before 6.2), the path walked by a bounded loop (no
 * bpf_loop(), before 5.17); see path.bpf.h. Included first by each object
 * built that way (vfs_compat.bpf.c, uring.bpf.c). Every global function
 * whose body depends on the read mode, and every program built twice, gets
 * its compat_ name here, the one list: the link keeps one body per name,
 * so a function missing here would link the other build's silently.
 */
#ifndef CORE_READ_H
#define CORE_READ_H

#define IOSTORM_CORE_READ	1

/* programs of vfs.bpf.c, built again by vfs_compat.bpf.c */
#define handle_sys_enter	compat_sys_enter
#define handle_sys_exit		compat_sys_exit
#define second_sys_enter	compat_second_sys_enter
#define second_sys_exit		compat_second_sys_exit
#define third_sys_enter		compat_third_sys_enter
#define third_sys_exit		compat_third_sys_exit

/* global functions (path.bpf.h, file_ops.bpf.h, aio.bpf.h) */
#define entry_path		compat_entry_path
#define walk_loop		compat_walk_loop
#define anchor_note		compat_anchor_note
#define aio_track		compat_aio_track
#define aio_untrack		compat_aio_untrack
#define aio_reap		compat_aio_reap

#endif /* CORE_READ_H */
