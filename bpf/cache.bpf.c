// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Page cache: pages the target brought into the cache (misses, readahead
 * included when the target's own thread runs it) and faults on its file
 * mappings: a fault is seen by fault-around (pages already cached), by
 * filemap_fault (the page was not mapped around), or by both when
 * fault-around ran and missed; `faults` counts these events. Both tracepoints fire in the task that caused them and name the
 * file by (s_dev, i_ino), the same key as the VFS layer's.
 */
#include "maps.bpf.h"
#include "target.bpf.h"
#include "entry.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * Pages the current task's read() adds for the file underneath an overlayfs
 * file (a container image): that file has the same inode number, on the
 * layer's device. When the inode matches the file the task is reading but
 * the device does not, key becomes that file's. Looked up only for pages of
 * a file with no entry yet, so an ordinary storm never pays for it. (CO-RE
 * reads: a second object using bpf_rdonly_cast() fails bpftool's link.)
 */
static __always_inline void overlay_key(struct file_key *key)
{
	struct file *file;
	struct inflight *in;
	__u64 ino;
	__u32 dev;

	in = bpf_task_storage_get(&inflight, bpf_get_current_task_btf(), 0, 0);
	if (!in || !in->file ||
	    (in->kind != SK_READ && in->kind != SK_PREAD && in->kind != SK_PREADV2))
		return;
	file = (struct file *)in->file;
	ino = BPF_CORE_READ(file, f_inode, i_ino);
	dev = BPF_CORE_READ(file, f_inode, i_sb, s_dev);
	if (ino == key->ino && dev != key->dev)
		key->dev = dev;
}

SEC("tracepoint/filemap/mm_filemap_add_to_page_cache")
int handle_filemap_add(struct trace_event_raw_mm_filemap_op_page_cache *ctx)
{
	struct thread_stats *ts;
	struct file_stats *fs = NULL;
	struct file_key key = {};
	void *files;
	__u64 pages;
	bool need_path;

	if (!is_target())
		return 0;
	pages = 1ULL << (ctx->order & 31);
	count(C_CACHE_PAGES, pages);
	ts = thread_entry();
	if (ts)
		ts->cache_pages += pages;
	key.ino = ctx->i_ino;
	key.dev = ctx->s_dev;
	files = current_files_map();
	if (files)
		fs = bpf_map_lookup_elem(files, &key);
	if (!fs) {
		overlay_key(&key);
		fs = file_entry(&key, 0, false, &need_path);
	}
	if (fs)
		__sync_fetch_and_add(&fs->cache_pages, pages);
	return 0;
}

/* A fault on a file mapping that reached the page cache. */
static __always_inline void count_fault(__u64 ino, __u32 dev)
{
	struct file_stats *fs;
	struct file_key key = { .ino = ino, .dev = dev };
	bool need_path;

	count(C_FAULTS, 1);
	fs = file_entry(&key, 0, false, &need_path);
	if (fs)
		__sync_fetch_and_add(&fs->faults, 1);
}

/* The page was not mapped by fault-around: looked up, or read from storage. */
SEC("tracepoint/filemap/mm_filemap_fault")
int handle_filemap_fault(struct trace_event_raw_mm_filemap_fault *ctx)
{
	if (is_target())
		count_fault(ctx->i_ino, ctx->s_dev);
	return 0;
}

/* Fault-around: one fault mapped the cached pages around it. */
SEC("tracepoint/filemap/mm_filemap_map_pages")
int handle_filemap_map_pages(struct trace_event_raw_mm_filemap_op_page_cache_range *ctx)
{
	if (is_target())
		count_fault(ctx->i_ino, ctx->s_dev);
	return 0;
}
