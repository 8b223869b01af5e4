// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Page cache: pages the target brought into the cache (misses, readahead
 * included when the target's own thread runs it) and faults on its file
 * mappings: a fault is seen by fault-around (pages already cached), by
 * filemap_fault (the page was not mapped around), or by both when
 * fault-around ran and missed; `faults` counts these events. The
 * tracepoints fire in the task that caused them; the file is keyed by
 * (s_dev, i_ino) as the tracepoints' own fields name it, the same key as
 * the VFS layer's. tp_btf programs, like all of iostorm's: no tracefs, and
 * a detach that does not wait for an RCU grace period each (a classic
 * tracepoint's perf event does, ~75 ms apiece at exit).
 *
 * A mapped dataset (LMDB, np.memmap, Arrow) is read by faults, not by
 * read(): mm_filemap_fault arms the task's fault state, and the first page
 * the task then adds to that file's cache outside a traced syscall makes
 * it a fault that read from storage (fault_reads), whose pages, and those
 * of its read-around, are fault_pages.
 */
#include "maps.bpf.h"
#include "target.bpf.h"
#include "entry.bpf.h"
#include "thread.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * Pages the current task's read() adds for the file underneath an overlayfs
 * file (a container image): that file has the same inode number, on the
 * layer's device. When the inode matches the file the task is reading but
 * the device does not, key becomes that file's. Looked up only for pages of
 * a file with no entry yet, so an ordinary storm never pays for it. (CO-RE
 * reads: a second object using bpf_rdonly_cast() fails bpftool's link.)
 */
static __always_inline void overlay_key(struct inflight *in, struct file_key *key)
{
	struct file *file;
	__u64 ino;
	__u32 dev, gen;

	if (!in->file ||
	    (in->kind != SK_READ && in->kind != SK_PREAD && in->kind != SK_PREADV2))
		return;
	file = (struct file *)in->file;
	ino = BPF_CORE_READ(file, f_inode, i_ino);
	dev = BPF_CORE_READ(file, f_inode, i_sb, s_dev);
	gen = BPF_CORE_READ(file, f_inode, i_generation);
	if (ino == key->ino && dev != key->dev) {
		key->dev = dev;
		key->gen = gen;
	}
}

/* The interval's previous major fault on the file: is this one in its stride? */
static __always_inline void fault_classify(struct file_stats *fs, __u64 index)
{
	if (fs->fault_end) {
		if (index >= fs->fault_prev && index <= fs->fault_end)
			__sync_fetch_and_add(&fs->fault_seq, 1);
		else
			__sync_fetch_and_add(&fs->fault_rand, 1);
	}
	fs->fault_prev = index;
	fs->fault_end = 0;
}

/*
 * Pages a fault of this task on this file brought in: not those of a read()
 * (a traced syscall in flight), nor those of another file. The first page
 * after mm_filemap_fault counts the fault as a read from storage.
 */
static __always_inline void fault_pages(struct task_state *tst, const struct file_key *key,
					__u64 index, __u64 pages, struct file_stats *fs)
{
	struct fault_state *st = &tst->fault;

	if (st->ino != key->ino || st->dev != key->dev || st->gen != key->gen ||
	    tst->in.kind != SK_NONE)
		return;
	count(C_FAULT_PAGES, pages);
	if (st->armed) {
		st->armed = 0;
		count(C_FAULT_READS, 1);
		thread_of(tst, bpf_get_current_task_btf())->fault_reads += 1;
		if (fs) {
			__sync_fetch_and_add(&fs->fault_reads, 1);
			fault_classify(fs, st->index);
		}
	}
	if (!fs)
		return;
	__sync_fetch_and_add(&fs->fault_pages, pages);
	if (index + pages > fs->fault_end)
		fs->fault_end = index + pages;
}

/*
 * (s_dev, i_ino, i_generation) of a mapping's inode, as the filemap
 * tracepoints name the first two;
 * a block device's own cache, whose inode lives on the kernel's internal
 * bdev file system, is (FILE_KEY_DEVICE, the device): see struct file_key.
 */
static __always_inline void mapping_key(struct address_space *mapping, struct file_key *key)
{
	struct inode *host = mapping->host;

	key->gen = 0;
	if ((host->i_mode & S_IFMT) == S_IFBLK) {
		key->dev = FILE_KEY_DEVICE;
		key->ino = host->i_rdev;
		return;
	}
	key->ino = host->i_ino;
	key->dev = host->i_sb->s_dev;
	key->gen = host->i_generation;
}

/* struct folio before 6.17, whose flags were a plain unsigned long. */
struct folio___ulong_flags {
	unsigned long flags;
} __attribute__((preserve_access_index));

/* struct folio before 6.6, whose order had a byte of its own. */
struct folio___order_byte {
	unsigned char _folio_order;
} __attribute__((preserve_access_index));

/*
 * folio_order() by hand: a large folio has PG_head set and its order in
 * the low byte of _flags_1, or before 6.6 in _folio_order (where _flags_1
 * is the first tail page's flags: the wrong word, and a field that exists).
 * The flags word is a memdesc_flags_t since 6.17 and an unsigned long
 * before: CO-RE picks the loads at load time, direct ones either way (a
 * probe read here cost every page ~35 ns).
 */
static __always_inline __u64 folio_pages(struct folio *folio)
{
	unsigned long flags;
	__u32 order;

	if (bpf_core_type_exists(memdesc_flags_t))
		flags = folio->flags.f;
	else
		flags = ((struct folio___ulong_flags *)folio)->flags;
	if (!(flags & (1UL << bpf_core_enum_value(enum pageflags, PG_head))))
		return 1;
	if (bpf_core_field_exists(struct folio___order_byte, _folio_order))
		order = ((struct folio___order_byte *)folio)->_folio_order;
	else
		order = folio->_flags_1;
	return 1ULL << (order & 31);
}

/*
 * pages pages at index of the file key, added to the cache by the current
 * task: counted for the target, the thread, the file and a fault in wait.
 * Not the pages a write of a regular file adds (new data, read from
 * nowhere: a checkpoint's pages are no page-cache misses).
 */
static __always_inline void cache_add(struct file_key *key, __u64 index, __u64 pages)
{
	struct task_struct *task;
	struct file_stats *fs;
	struct task_state *st;
	bool need_path;

	task = bpf_get_current_task_btf();
	st = task_state_of(task, true);
	if (st && st->in.kind == SK_WRITE)
		return;
	count(C_CACHE_PAGES, pages);
	if (st)
		thread_of(st, task)->cache_pages += pages;
	else
		count_lost(L_INFLIGHT);	/* the thread's share, and its fault's */
	if (key->dev == FILE_KEY_DEVICE)
		count(C_DEVICE_PAGES, pages);
	fs = file_find(key);
	if (!fs) {
		if (st)
			overlay_key(&st->in, key);
		fs = file_entry(key, 0, false, &need_path);
	}
	if (fs)
		__sync_fetch_and_add(&fs->cache_pages, pages);
	if (st)
		fault_pages(st, key, index, pages, fs);
}

SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(handle_filemap_add, struct folio *folio)
{
	struct file_key key;

	if (!is_target())
		return 0;
	mapping_key(folio->mapping, &key);
	cache_add(&key, folio->index, folio_pages(folio));
	return 0;
}

/* struct page as 6.12 and older name its index (6.18 calls it __folio_index). */
struct page___index {
	unsigned long index;
} __attribute__((preserve_access_index));

/* struct page before 6.6, whose first tail page held the compound order. */
struct page___compound {
	unsigned char compound_order;
} __attribute__((preserve_access_index));

/*
 * Pages of the page at addr, by probe reads: 1, or for a compound head
 * page its order's worth, kept in the first tail page before 6.6 and in
 * the folio's _folio_order or _flags_1 after (a folio begins with its
 * head page, so the same reads serve when the fallback is forced).
 */
static __always_inline __u64 page_pages(__u64 addr)
{
	struct page___compound *tail = (void *)(addr + bpf_core_type_size(struct page));
	struct folio *folio = (struct folio *)addr;
	unsigned long flags = 0;
	unsigned char order = 0;

	bpf_probe_read_kernel(&flags, sizeof(flags), (void *)addr);	/* flags: first */
	if (!(flags & (1UL << bpf_core_enum_value(enum pageflags, PG_head))))
		return 1;
	if (bpf_core_field_exists(struct page___compound, compound_order))
		bpf_core_read(&order, 1, &tail->compound_order);
	else if (bpf_core_field_exists(struct folio___order_byte, _folio_order))
		bpf_core_read(&order, 1, &((struct folio___order_byte *)folio)->_folio_order);
	else
		bpf_core_read(&order, 1, &folio->_flags_1);
	return 1ULL << (order & 31);
}

/*
 * Before 5.17 the tracepoint passed the page, not its folio: taken as an
 * address (so the verifier does not hold it to either type) and read by
 * probe reads, as the key is.
 */
SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(compat_filemap_add)
{
	struct file_key key = {};
	struct page *page;
	struct inode *host;
	__u64 addr = 0, index;

	if (!is_target())
		return 0;
	bpf_probe_read_kernel(&addr, sizeof(addr), ctx);
	page = (struct page *)addr;
	host = BPF_CORE_READ(page, mapping, host);
	if ((BPF_CORE_READ(host, i_mode) & S_IFMT) == S_IFBLK) {
		key.dev = FILE_KEY_DEVICE;
		key.ino = BPF_CORE_READ(host, i_rdev);
	} else {
		key.ino = BPF_CORE_READ(host, i_ino);
		key.dev = BPF_CORE_READ(host, i_sb, s_dev);
		key.gen = BPF_CORE_READ(host, i_generation);
	}
	if (bpf_core_field_exists(struct page___index, index))
		index = BPF_CORE_READ((struct page___index *)page, index);
	else
		index = BPF_CORE_READ(page, __folio_index);
	cache_add(&key, index, page_pages(addr));
	return 0;
}

/* A fault on a file mapping that reached the page cache. */
static __always_inline void count_fault(struct file_key *key)
{
	struct file_stats *fs;
	bool need_path;

	count(C_FAULTS, 1);
	fs = file_entry(key, 0, false, &need_path);
	if (fs)
		__sync_fetch_and_add(&fs->faults, 1);
}

/* Arm the task's fault state: the pages it adds next are this fault's. */
static __always_inline void fault_arm(const struct file_key *key, __u64 index)
{
	struct task_state *tst = task_state_of(bpf_get_current_task_btf(), true);
	struct fault_state *st;

	if (!tst) {
		count_lost(L_INFLIGHT);
		return;
	}
	st = &tst->fault;
	st->ino = key->ino;
	st->dev = key->dev;
	st->gen = key->gen;
	st->index = index;
	st->armed = 1;
	st->waiting = 1;
}

/* The page was not mapped by fault-around: looked up, or read from storage. */
SEC("tp_btf/mm_filemap_fault")
int BPF_PROG(handle_filemap_fault, struct address_space *mapping, unsigned long index)
{
	struct file_key key;

	if (!is_target())
		return 0;
	mapping_key(mapping, &key);
	count_fault(&key);
	fault_arm(&key, index);
	return 0;
}

/* Fault-around: one fault mapped the cached pages around it. */
SEC("tp_btf/mm_filemap_map_pages")
int BPF_PROG(handle_filemap_map_pages, struct address_space *mapping, unsigned long index,
	     unsigned long last_index)
{
	struct file_key key;

	if (!is_target())
		return 0;
	mapping_key(mapping, &key);
	count_fault(&key);
	return 0;
}
