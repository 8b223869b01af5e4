// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Draining the kernel's maps without losing a count: the programs write to
 * the inner map that the outer map's slot 0 points at. Updating that slot
 * returns only after synchronize_rcu(), so no program still writes to the
 * old inner map when it is read and emptied here. The files table's half
 * (file_gen) and live threads' counters (thread_gen, in task storage) are
 * flipped by a variable, and read after the same wait: the table through
 * its mapping, the threads by an iterator.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>
#include "iostorm.h"
#include "table.h"
#include "iostorm.skel.h"
#include "collect/collect_int.h"
#include "model/mapfiles.h"
#include "model/view.h"

#define ITER_BUF	(256 * sizeof(struct thread_out))

static int map_pair__init(struct map_pair *g, struct bpf_map *outer, struct bpf_map *a,
		     struct bpf_map *b)
{
	g->outer_fd = bpf_map__fd(outer);
	g->inner_fd[0] = bpf_map__fd(a);
	g->inner_fd[1] = bpf_map__fd(b);
	g->active = 0;
	g->key_size = bpf_map__key_size(a);
	g->value_size = bpf_map__value_size(a);
	g->keys = calloc(DRAIN_BATCH, g->key_size);
	g->values = calloc(DRAIN_BATCH, g->value_size);
	if (!g->keys || !g->values)
		return -ENOMEM;
	return 0;
}

static void map_pair__free(struct map_pair *g)
{
	free(g->keys);
	free(g->values);
	g->keys = g->values = NULL;
}

/* Point slot 0 at the other inner map; returns the one to drain. */
static int map_pair__swap(struct map_pair *g, int *old_fd)
{
	__u32 zero = 0;
	int next = !g->active;

	if (bpf_map_update_elem(g->outer_fd, &zero, &g->inner_fd[next], BPF_ANY))
		return -errno;
	*old_fd = g->inner_fd[g->active];
	g->active = next;
	return 0;
}

static int merge_thread(struct trace *t, const void *key, const void *value)
{
	const struct thread_key *k = key;
	int err = threads__merge(&t->store.threads, k->tid, value);

	return err ? err : cgroups__add(&t->cgroups, value);
}

/*
 * An exited thread's counters (the threads map holds only those): merged,
 * and its tid kept, for its entries in the per-thread tables to go once
 * read (drain_threads.c).
 */
static int merge_exited(struct drain *d, struct trace *t, const void *key, const void *value)
{
	const struct thread_key *k = key;

	return tids__push(&d->exited, k->tid) ?: merge_thread(t, key, value);
}

/* Empty one inner map of exited threads into the store, in batches; ENOENT ends the map. */
static int map_pair__empty(struct drain *d, struct map_pair *g, int fd, struct trace *t)
{
	__u64 in = 0, out = 0;
	bool first = true;
	int err, last;

	for (;;) {
		__u32 n = DRAIN_BATCH;

		last = bpf_map_lookup_and_delete_batch(fd, first ? NULL : &in, &out,
						       g->keys, g->values, &n, NULL);
		if (last && errno != ENOENT)
			return -errno;
		for (__u32 i = 0; i < n; i++) {
			err = merge_exited(d, t, (char *)g->keys + i * g->key_size,
					   (char *)g->values + i * g->value_size);
			if (err)
				return err;
		}
		if (last)
			return 0;
		in = out;
		first = false;
	}
}

/* Map all of BPF array map m (BPF_F_MMAPABLE) shared: its size in *size. */
static void *map_array(struct bpf_map *m, size_t *size)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t bytes = (size_t)bpf_map__max_entries(m) * bpf_map__value_size(m);
	void *mem;

	*size = (bytes + page - 1) / page * page;
	mem = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(m), 0);
	return mem == MAP_FAILED ? NULL : mem;
}

/*
 * Map the files table: its entries, index and counts, each two halves, n
 * the home slots the programs were loaded with (targ_file_slots).
 */
static int file_table__init(struct file_table *ft, struct iostorm_bpf *skel)
{
	ft->n = skel->rodata->targ_file_slots;
	ft->gen = &skel->bss->file_gen;
	ft->entries = map_array(skel->maps.files, &ft->entries_size);
	if (ft->entries)
		ft->index = map_array(skel->maps.file_index, &ft->index_size);
	if (ft->index)
		ft->used = map_array(skel->maps.file_used, &ft->used_size);
	return ft->used ? 0 : -errno;
}

static void file_table__free(struct file_table *ft)
{
	if (ft->entries)
		munmap(ft->entries, ft->entries_size);
	if (ft->index)
		munmap(ft->index, ft->index_size);
	if (ft->used)
		munmap(ft->used, ft->used_size);
	ft->entries = NULL;
	ft->index = NULL;
	ft->used = NULL;
}

/*
 * The programs fill the other half from now on: the half to drain (0 or
 * 1) into *half, once they are done with it (drain_wait()).
 */
static void file_table__flip(struct file_table *ft, __u32 *half)
{
	__u32 old = *ft->gen;

	__atomic_store_n(ft->gen, old + 1, __ATOMIC_SEQ_CST);
	*half = old & 1;
}

/*
 * Merge the used entries of a half with a generation (with_gen) or without
 * into the store. An entry whose key is 0 is a hole, given up by a CPU that
 * lost a race (bpf/table.h).
 */
static int file_table__merge(struct file_stats *half, __u32 used, bool with_gen,
			     struct trace *t)
{
	for (__u32 i = 0; i < used; i++) {
		struct file_stats *s = &half[i];
		struct file_key key = {};
		int err;

		if (!s->key_ino || !s->key_gen == with_gen)
			continue;
		key.ino = s->key_ino ^ SLOT_INO_FLIP;
		key.dev = ~s->key_dev;
		key.gen = s->key_gen;
		err = store__merge_file(&t->store, &key, s);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Merge every entry taken in drained half h into the store, those with a
 * generation first (a stat by name has none: it joins the inode's latest
 * life, see store__merge_file()), and zero the entries, the half's index
 * and its count for its next turn. A failed merge (no memory) ends the
 * trace: the rest is not zeroed.
 */
static int file_table__empty(struct file_table *ft, __u32 h, struct trace *t)
{
	__u32 n = SLOT_HALF(ft->n);
	struct file_stats *half = ft->entries + (size_t)h * n;
	__u64 taken = ft->used[h].n;
	__u32 used = taken < n ? taken : n;
	int err;

	err = file_table__merge(half, used, true, t) ?: file_table__merge(half, used, false, t);
	if (err)
		return err;
	memset(half, 0, (size_t)used * sizeof(*half));
	memset(ft->index + (size_t)h * n, 0, (size_t)n * sizeof(*ft->index));
	ft->used[h].n = 0;
	return 0;
}

int drain__init(struct drain *d, struct iostorm_bpf *skel)
{
	int err;

	memset(d, 0, sizeof(*d));
	d->ncpus = libbpf_num_possible_cpus();
	if (d->ncpus <= 0)
		return d->ncpus ? d->ncpus : -EINVAL;
	d->percpu = calloc(d->ncpus, sizeof(struct hist));
	if (!d->percpu)
		return -ENOMEM;
	d->counters_fd = bpf_map__fd(skel->maps.counters);
	d->lost_fd = bpf_map__fd(skel->maps.lost);
	d->anchors_fd = bpf_map__fd(skel->maps.anchors);
	d->forks_fd = bpf_map__fd(skel->maps.forks);
	d->wakes_fd = bpf_map__fd(skel->maps.wakes);
	d->recv_fd = bpf_map__fd(skel->maps.recv_threads);
	d->writes_fd = bpf_map__fd(skel->maps.write_threads);
	d->async_threads_fd = bpf_map__fd(skel->maps.async_threads);
	d->async_files_fd = bpf_map__fd(skel->maps.async_files);
	d->async_file_sums_fd = bpf_map__fd(skel->maps.async_file_sums);
	d->table_max[KT_WAKES] = bpf_map__max_entries(skel->maps.wakes);
	d->table_max[KT_FORKS] = bpf_map__max_entries(skel->maps.forks);
	d->table_max[KT_RECV] = bpf_map__max_entries(skel->maps.recv_threads);
	d->table_max[KT_WRITES] = bpf_map__max_entries(skel->maps.write_threads);
	d->table_max[KT_ASYNC_THREADS] = bpf_map__max_entries(skel->maps.async_threads);
	d->table_max[KT_ASYNC_FILES] = bpf_map__max_entries(skel->maps.async_files);
	d->table_max[KT_ASYNC_FILE_SUMS] = bpf_map__max_entries(skel->maps.async_file_sums);
	d->wake_keys = calloc(DRAIN_BATCH, sizeof(*d->wake_keys));
	d->wake_vals = calloc(DRAIN_BATCH, sizeof(*d->wake_vals));
	d->afile_keys = calloc(DRAIN_BATCH, sizeof(*d->afile_keys));
	d->afile_vals = calloc(DRAIN_BATCH, sizeof(struct async_file));
	if (!d->wake_keys || !d->wake_vals || !d->afile_keys || !d->afile_vals)
		return -ENOMEM;
	d->thread_gen = &skel->bss->thread_gen;
	d->iter_buf = malloc(ITER_BUF);
	if (!d->iter_buf)
		return -ENOMEM;
	d->threads_iter = bpf_program__attach_iter(skel->progs.drain_threads, NULL);
	if (!d->threads_iter)
		return -errno;
	err = file_table__init(&d->files, skel);
	if (err)
		return err;
	pace__init(&d->pace, SLOT_HALF(d->files.n), 0, 0);
	return map_pair__init(&d->threads, skel->maps.threads_gen,
			      skel->maps.threads_a, skel->maps.threads_b);
}

void drain__free(struct drain *d)
{
	file_table__free(&d->files);
	map_pair__free(&d->threads);
	bpf_link__destroy(d->threads_iter);
	d->threads_iter = NULL;
	free(d->iter_buf);
	free(d->percpu);
	free(d->wake_keys);
	free(d->wake_vals);
	free(d->afile_keys);
	free(d->afile_vals);
	free(d->exited.v);
	free(d->late.v);
	d->percpu = d->iter_buf = NULL;
	d->late = (struct tids){};
	d->wake_keys = NULL;
	d->wake_vals = NULL;
	d->afile_keys = NULL;
	d->afile_vals = NULL;
	d->exited = (struct tids){};
}

/* Sum a per-CPU array slot of n __u64 values into out[]. */
static int read_percpu(struct drain *d, int fd, __u32 key, __u64 *out, size_t n)
{
	if (bpf_map_lookup_elem(fd, &key, d->percpu))
		return -errno;
	memset(out, 0, n * sizeof(__u64));
	for (int cpu = 0; cpu < d->ncpus; cpu++) {
		const __u64 *v = percpu_value(d->percpu, n * sizeof(__u64), cpu);

		for (size_t i = 0; i < n; i++)
			out[i] += v[i];
	}
	return 0;
}

/*
 * Entries the programs created in the files maps, plus those they could
 * not (the map was full): the pace sees a full map's rate too.
 */
static int files_count(struct drain *d, __u64 *count)
{
	__u64 made = 0, refused = 0;
	int err;

	err = read_percpu(d, d->counters_fd, C_FILE_ENTRIES, &made, 1);
	if (!err)
		err = read_percpu(d, d->lost_fd, L_FILES_FULL, &refused, 1);
	*count = err ? 0 : made + refused;
	return err;
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * The anchors the kernel walked, into the views: read after the swap, so
 * every anchor of the entries drained is there. A handful of entries.
 */
static int add_anchor(const void *key, void *value, void *vw)
{
	struct anchor_path *ap = value;

	if (!ap->len || ap->len >= PATH_LEN)
		return 0;
	ap->path[ap->len] = '\0';
	return views__anchor(vw, *(const __u64 *)key, ap->dev, ap->path);
}

static int drain_anchors(struct drain *d, struct views *vw)
{
	struct anchor_path ap;
	__u64 key;

	if (!vw)
		return 0;
	views__refresh(vw);
	return map_each(d->anchors_fd, &key, sizeof(key), &ap, 0, add_anchor, vw);
}

/*
 * Wait for the programs running now: rewrite slot 0 of the threads maps'
 * outer map with the map it holds. An update of a map of maps returns only
 * after synchronize_rcu(), whatever it writes; the files table's flip
 * (a variable, file_gen) has no map of its own to swap.
 */
static int drain_wait(struct drain *d)
{
	__u32 zero = 0;

	if (bpf_map_update_elem(d->threads.outer_fd, &zero,
				&d->threads.inner_fd[d->threads.active], BPF_ANY))
		return -errno;
	return 0;
}

/* The fill counted before the flip (so over, never under) and the half to drain. */
struct files_flip {
	__u64 start;
	__u64 count;
	__u32 half;
};

static int files_flip(struct drain *d, struct files_flip *f)
{
	int err;

	f->start = mono_ns();
	err = files_count(d, &f->count);
	if (!err)
		file_table__flip(&d->files, &f->half);
	return err;
}

/*
 * After the wait: the drained half into the store, then the async reads of
 * the same generation, whose files the half (or an earlier one) holds.
 */
static int files_empty(struct drain *d, struct trace *t, const struct files_flip *f)
{
	int err;

	err = drain_anchors(d, t->store.views);
	if (!err)
		err = file_table__empty(&d->files, f->half, t);
	if (!err)
		err = drain__async_files(d, t, f->half);
	if (!err && store__bound(&t->store) < 0)
		err = -ENOMEM;
	if (err)
		return err;
	pace__drained(&d->pace, f->count, mono_ns() - f->start);
	t->drains = d->pace.drains;
	/*
	 * Files faulted on without a path get one now, while their mappers
	 * live (the collector drains threads first: the store knows them).
	 */
	if (t->store.unnamed_faults) {
		t->store.unnamed_faults = false;
		err = mapfiles__name(&t->store, NULL);
		if (err == -ENOMEM)
			return err;
	}
	return 0;
}

int drain__files(struct drain *d, struct trace *t)
{
	struct files_flip f;
	int err;

	err = files_flip(d, &f);
	if (!err)
		err = drain_wait(d);
	return err ?: files_empty(d, t, &f);
}

/*
 * Run the drain_threads iterator: a struct thread_out per live thread with
 * counters in the set the programs no longer write. A read may end inside a
 * record; the rest comes with the next.
 */
static int drain_live_threads(struct drain *d, struct trace *t)
{
	const size_t rs = sizeof(struct thread_out);
	size_t have = 0, done;
	int fd, err = 0;
	ssize_t n;

	fd = bpf_iter_create(bpf_link__fd(d->threads_iter));
	if (fd < 0)
		return -errno;
	while ((n = read(fd, (char *)d->iter_buf + have, ITER_BUF - have)) > 0) {
		have += n;
		for (done = 0; done + rs <= have && !err; done += rs) {
			const struct thread_out *r = (const void *)((char *)d->iter_buf + done);
			struct thread_key key = { .tid = r->tid };

			err = merge_thread(t, &key, &r->s) ?:
			      procs__set(&t->procs, r->s.tgid, r->ptgid);
		}
		if (err)
			break;
		memmove(d->iter_buf, (char *)d->iter_buf + done, have - done);
		have -= done;
	}
	if (!err && n < 0)
		err = -errno;
	if (!err && have)
		err = -EIO;	/* a torn record: never, the kernel writes whole ones */
	close(fd);
	return err;
}

/* The set of thread counters the programs write flips; the swap (a wait) follows. */
static void threads_flip(struct drain *d)
{
	__atomic_store_n(d->thread_gen, *d->thread_gen + 1, __ATOMIC_SEQ_CST);
}

/* After the swap of the threads maps (fd: the one to empty). */
static int threads_empty(struct drain *d, struct trace *t, int fd)
{
	int err;

	err = drain_live_threads(d, t);
	if (!err)
		err = map_pair__empty(d, &d->threads, fd, t);
	if (!err)
		err = drain__side_tables(d, t);
	if (err)
		return err;
	cgroups__tick(&t->cgroups);

	/* New cgroups get their path now, while they exist. */
	err = cgroups__resolve(&t->cgroups, NULL);
	return err == -ENOMEM ? err : 0;
}

int drain__threads(struct drain *d, struct trace *t)
{
	int err, fd = -1;

	/* The programs write the other set from now on; the swap waits for the rest. */
	threads_flip(d);
	err = map_pair__swap(&d->threads, &fd);
	return err ?: threads_empty(d, t, fd);
}

int drain__both(struct drain *d, struct trace *t)
{
	struct files_flip f;
	int err, fd = -1;

	/* Both flip, then one wait (the threads maps' swap) serves both. */
	threads_flip(d);
	err = files_flip(d, &f);
	if (!err)
		err = map_pair__swap(&d->threads, &fd);
	if (!err)
		err = threads_empty(d, t, fd);
	return err ?: files_empty(d, t, &f);
}

bool drain__files_due(struct drain *d, __u64 now_ns)
{
	__u64 count;

	if (files_count(d, &count))
		return false;
	return pace__due(&d->pace, count, now_ns);
}

int drain__final(struct drain *d, struct trace *t)
{
	int err = 0;

	/* The swap waited for running programs; the now-active maps too. */
	for (int i = 0; i < 2 && !err; i++)
		err = drain__both(d, t);
	if (!err && store__rehost(&t->store) < 0)
		err = -ENOMEM;
	return err;
}

int drain__globals(struct drain *d, struct iostorm_bpf *skel, struct trace *t)
{
	int err = 0;

	for (__u32 i = 0; i < C__MAX && !err; i++)
		err = read_percpu(d, d->counters_fd, i, &t->counters[i], 1);
	for (__u32 i = 0; i < L__MAX && !err; i++)
		err = read_percpu(d, bpf_map__fd(skel->maps.lost), i, &t->lost[i], 1);
	for (__u32 i = 0; i < ERRNO_SLOTS && !err; i++)
		err = read_percpu(d, bpf_map__fd(skel->maps.open_errnos), i,
				  &t->open_errnos[i], 1);
	for (__u32 i = 0; i < H__MAX && !err; i++)
		err = read_percpu(d, bpf_map__fd(skel->maps.hists), i,
				  t->hists[i].slots, HIST_SLOTS);
	return err;
}
