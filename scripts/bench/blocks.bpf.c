// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The building blocks of a syscall tracer's hot path, one per program, for
 * `scripts/bench.sh --blocks`: every program runs on sys_enter, returns at
 * once for any task but `dd` (the filter: a 2-byte comm compare, block
 * "filter"), and for dd does one thing more. bpf_stats gives each
 * program's ns per run; "nothing", an empty program, is the floor. The
 * blocks are what iostorm's programs are made of (see bpf/): which
 * instruction costs what, on this machine, measured side by side.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} tstor SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u64);
} hash4 SEC(".maps");

struct key24 {
	__u64 ino, dev, pad;
};

struct val432 {
	__u64 n[54];		/* struct file_stats' size */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, struct key24);
	__type(value, struct val432);
} hash24 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u64);
} pcpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u64);
} bits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct val432);
} zero432 SEC(".maps");

static __always_inline struct task_struct *dd(void)
{
	struct task_struct *t = bpf_get_current_task_btf();

	return t->comm[0] == 'd' && t->comm[1] == 'd' && t->comm[2] == 0 ? t : NULL;
}

/* Keep a value alive without a store the blocks would pay for. */
static __always_inline void sink(__u64 v)
{
	__u32 k = 0;
	__u64 *p = bpf_map_lookup_elem(&pcpu, &k);

	if (p && v == 0x5a5a5a5a5a5a5a5aULL)
		*p = v;
}

#define BLOCK(name) \
	SEC("tp_btf/sys_enter") int BPF_PROG(name, struct pt_regs *regs, long id)

/* No filter at all: what a program run costs before any instruction of its own. */
BLOCK(nothing)
{
	return 0;
}

BLOCK(filter)
{
	return dd() != NULL;	/* a tracing program's return value is ignored */
}

BLOCK(ktime)
{
	if (dd())
		sink(bpf_ktime_get_ns());
	return 0;
}

BLOCK(task_storage)
{
	struct task_struct *t = dd();
	__u64 *v;

	if (!t)
		return 0;
	v = bpf_task_storage_get(&tstor, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (v)
		*v += 1;
	return 0;
}

BLOCK(hash_u32)
{
	struct task_struct *t = dd();
	__u32 k;
	__u64 one = 1, *v;

	if (!t)
		return 0;
	k = t->pid;
	v = bpf_map_lookup_elem(&hash4, &k);
	if (v)
		*v += 1;
	else
		bpf_map_update_elem(&hash4, &k, &one, BPF_NOEXIST);
	return 0;
}

BLOCK(hash_24b_hit)
{
	struct task_struct *t = dd();
	struct key24 k = {};
	struct val432 *v;
	__u32 z = 0;

	if (!t)
		return 0;
	k.ino = t->pid;
	v = bpf_map_lookup_elem(&hash24, &k);
	if (v) {
		v->n[0] += 1;
		return 0;
	}
	v = bpf_map_lookup_elem(&zero432, &z);
	if (v)
		bpf_map_update_elem(&hash24, &k, v, BPF_NOEXIST);
	return 0;
}

/* A new 432-byte entry each run (a storm's first touch of a file), deleted after. */
BLOCK(hash_24b_insert)
{
	struct task_struct *t = dd();
	struct key24 k = {};
	struct val432 *v;
	__u32 z = 0;

	if (!t)
		return 0;
	k.ino = bpf_ktime_get_ns();	/* its clock read is block "ktime" */
	k.dev = 1;
	v = bpf_map_lookup_elem(&zero432, &z);
	if (!v)
		return 0;
	bpf_map_update_elem(&hash24, &k, v, BPF_NOEXIST);
	bpf_map_delete_elem(&hash24, &k);
	return 0;
}

BLOCK(atomic_add_x3)
{
	struct task_struct *t = dd();
	__u32 k = 1;
	__u64 *v;

	if (!t)
		return 0;
	v = bpf_map_lookup_elem(&bits, &k);
	if (v) {
		__sync_fetch_and_add(v, 1);
		__sync_fetch_and_add(v, 2);
		__sync_fetch_and_add(v, 3);
	}
	return 0;
}

BLOCK(percpu_add)
{
	__u32 k = 2;
	__u64 *v;

	if (!dd())
		return 0;
	v = bpf_map_lookup_elem(&pcpu, &k);
	if (v)
		*v += 1;
	return 0;
}

BLOCK(bitmap_test)
{
	__u32 tgid, w;
	__u64 *v;

	if (!dd())
		return 0;
	tgid = bpf_get_current_pid_tgid() >> 32;
	w = (tgid >> 6) & 0xffff;
	v = bpf_map_lookup_elem(&bits, &w);
	sink(v && (*v >> (tgid & 63)) & 1);
	return 0;
}

BLOCK(fd_to_file)
{
	struct task_struct *t = dd();
	struct fdtable *fdt;
	__u64 f = 0;

	if (!t)
		return 0;
	fdt = t->files->fdt;
	if (!fdt || fdt->max_fds < 1)
		return 0;
	bpf_probe_read_kernel(&f, sizeof(f), &fdt->fd[0]);
	sink(f);
	return 0;
}

extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/*
 * The same by a direct load: the element as the first field (an unsigned
 * long) of a struct rb_node cast onto it, as bpf/path.bpf.h does.
 */
BLOCK(fd_to_file_direct)
{
	struct task_struct *t = dd();
	struct fdtable *fdt;
	struct rb_node *e;

	if (!t)
		return 0;
	fdt = t->files->fdt;
	if (!fdt || fdt->max_fds < 1)
		return 0;
	e = bpf_rdonly_cast((void *)&fdt->fd[0], bpf_core_type_id_kernel(struct rb_node));
	sink(e->__rb_parent_color);
	return 0;
}

BLOCK(probe_read_8b)
{
	struct task_struct *t = dd();
	__u64 v = 0;

	if (!t)
		return 0;
	bpf_probe_read_kernel(&v, sizeof(v), &t->start_time);
	sink(v);
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, struct key24);
	__type(value, __u64);
} hash24s SEC(".maps");

/* The same insert with an 8-byte value: what the 432 bytes cost. */
BLOCK(hash_24b_insert_8b)
{
	struct task_struct *t = dd();
	struct key24 k = {};
	__u64 v = 0;

	if (!t)
		return 0;
	k.ino = bpf_ktime_get_ns();
	k.dev = 1;
	bpf_map_update_elem(&hash24s, &k, &v, BPF_NOEXIST);
	bpf_map_delete_elem(&hash24s, &k);
	return 0;
}

/*
 * The current tgid two ways, for a filter that runs on every syscall: a
 * helper call, or a load from the current task (bpf_get_current_task_btf()
 * is inlined by the x86-64 JIT on recent kernels).
 */
BLOCK(tgid_helper)
{
	if (dd())
		sink(bpf_get_current_pid_tgid() >> 32);
	return 0;
}

BLOCK(tgid_task_load)
{
	struct task_struct *t = dd();

	if (t)
		sink(bpf_get_current_task_btf()->tgid);
	return 0;
}

/* The filter's helper call alone. */
BLOCK(one_helper_call)
{
	sink(bpf_get_current_pid_tgid());
	return 0;
}

/*
 * The files table of bpf/table.h: an index of 8-byte slots where a file's
 * slot is found by hashing its key and probing, and entries (struct
 * file_stats) that new files take in order from per-CPU chunks; a new file
 * takes its entry, writes its key and claims a free slot with one
 * compare-and-swap, against the hash insert and delete above. array_claim
 * does that for a new key each run and frees it (two stores: the drain
 * zeroes the index and the entries in user space, outside any program);
 * array_find finds dd's own entry, claimed on its first run.
 */
#include "iostorm.h"

#define TABLE_SLOTS	32768

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, TABLE_SLOTS);
	__type(key, __u32);
	__type(value, struct file_stats);
} table SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct file_chunk);
} table_chunk SEC(".maps");

__u64 table_used;

static __always_inline int table_take(__u32 gen);
#define TABLE_TAKE(ctx, gen)	table_take(gen)
#define TABLE_ENTRY(ctx, e)	((struct file_stats *)bpf_map_lookup_elem(&table, &(e)))
#include "table.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, SLOT_HALF(TABLE_SLOTS));
	__type(key, __u32);
	__type(value, __u64);
} table_index SEC(".maps");

/* An entry of the table's one half; when all are taken, start over. */
static __always_inline int table_take(__u32 gen)
{
	struct file_chunk *c;
	__u32 zero = 0;
	int a;

	c = bpf_map_lookup_elem(&table_chunk, &zero);
	if (!c)
		return -1;
	a = chunk_take(c, &table_used, gen, TABLE_SLOTS);
	if (a < 0)
		table_used = 0;
	return a;
}

/* One probe: an empty table, the home slot (a hit at load <= 0.5 takes ~1.5). */
static __always_inline struct file_stats *table_entry(__u64 ino, __u32 dev, int claim,
						       __u64 **slot)
{
	struct slot_probe p = { .ino = ino, .dev = dev, .claim = claim, .taken = -1 };
	__u32 i = slot_home(ino, dev, TABLE_SLOTS);
	int e;

	p.fp = slot_fp(ino, dev);
	*slot = bpf_map_lookup_elem(&table_index, &i);
	if (!*slot)
		return NULL;
	e = slot_try(NULL, *slot, &p);
	return e < 0 ? NULL : TABLE_ENTRY(NULL, e);
}

BLOCK(array_claim)
{
	struct task_struct *t = dd();
	struct file_stats *s;
	__u64 *slot;

	if (!t)
		return 0;
	s = table_entry(bpf_ktime_get_ns() | 1, 1, 1, &slot);
	if (s) {
		*slot = 0;
		s->key_ino = 0;
	}
	return 0;
}

BLOCK(array_find)
{
	struct task_struct *t = dd();
	struct file_stats *s;
	__u64 *slot;

	if (!t)
		return 0;
	s = table_entry(t->pid | 1ULL << 40, 1, 1, &slot);
	if (s)
		__sync_fetch_and_add(&s->reads, 1);
	return 0;
}
