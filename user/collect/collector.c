// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The collector: the loaded programs and their maps behind one handle, so
 * the tracing command asks for what it needs (seed, attach, refresh,
 * finish) and never sees libbpf. See collect.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "iostorm.skel.h"
#include "collect/collect_int.h"
#include "lib/log.h"

struct collector {
	struct iostorm_bpf *skel;
	struct drain drain;
	__u64 *targets;		/* the targets bitmap, mapped */
	__u32 targets_hint;	/* target__any()'s */
	struct kernel_reach *k;	/* the trace's, told of a layer that will not attach */
	bool attached;
};

/* The runs the kernel skipped and lost: less those the second chance ran. */
static __u64 collect_misses(struct collector *c, struct trace *t)
{
	return load__misses(c->skel, &t->kernel,
			    t->counters[C_RESCUED_ENTERS] + t->counters[C_RESCUED_EXITS]);
}

int collector__open(struct collector **out, const struct probe_config *pc,
		    struct kernel_reach *k)
{
	struct collector *c = calloc(1, sizeof(*c));
	int err;

	*out = NULL;
	if (!c) {
		pr_err("out of memory");
		return -ENOMEM;
	}
	err = load__programs(&c->skel, pc, k);
	if (err)
		goto out_free_collector;
	c->k = k;
	err = drain__init(&c->drain, c->skel);
	if (err) {
		pr_err("cannot set up draining: %s", strerror(-err));
		goto out_free_drain;
	}
	c->targets = target__map(bpf_map__fd(c->skel->maps.targets));
	if (!c->targets) {
		err = -errno;
		pr_err("cannot map the targets map: %s", strerror(-err));
		goto out_free_drain;
	}
	*out = c;
	return 0;

out_free_drain:
	drain__free(&c->drain);
	iostorm_bpf__destroy(c->skel);
out_free_collector:
	free(c);
	return err;
}

int collector__check(struct kernel_reach *k, bool verbose, struct prog_verified *progs,
		     int max, int *n, __u64 *caps_after)
{
	struct probe_config pc = {
		.mode = TARGET_PIDS, .map_files = 1024, .verbose = verbose,
	};
	struct iostorm_bpf *skel;
	struct bpf_program *prog;
	int err;

	*n = 0;
	err = load__programs(&skel, &pc, k);
	if (err)
		return err;
	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_program__fd(prog) < 0 || *n >= max)
			continue;
		if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			info.verified_insns = 0;
		snprintf(progs[*n].name, sizeof(progs[*n].name), "%s", bpf_program__name(prog));
		progs[(*n)++].insns = info.verified_insns;
	}
	*caps_after = privs__after_attach(skel, NULL);
	iostorm_bpf__destroy(skel);
	return 0;
}

__u64 collector__maps_bytes(const struct collector *c)
{
	return load__maps_bytes(c->skel);
}

int collector__seed(struct collector *c, const pid_t *pids, int n)
{
	return target__seed(c->targets, pids, n);
}

int collector__parents(struct collector *c, struct trace *t)
{
	return target__parents(c->targets, &t->procs);
}

int collector__attach(struct collector *c)
{
	int err = load__attach(c->skel, c->k);

	c->attached = !err;
	return err;
}

__u64 collector__caps_needed(struct collector *c)
{
	return privs__after_attach(c->skel, c->drain.threads_iter);
}

void collector__start(struct collector *c, __u64 now_ns)
{
	c->skel->bss->window_start_ns = now_ns;
}

bool collector__targets_left(struct collector *c)
{
	return target__any(c->targets, &c->targets_hint);
}

bool collector__filling(struct collector *c, __u64 now_ns)
{
	return drain__files_due(&c->drain, now_ns);
}

__u64 collector__next_look_ns(const struct collector *c, __u64 max_ns)
{
	return pace__next_ns(&c->drain.pace, max_ns);
}

/*
 * The kernel's counters first, then the store, which a drain brings up to
 * the map swap, a few ms later: so both count nearly the same events.
 */
int collector__refresh(struct collector *c, struct trace *t, unsigned int what,
		       __u64 now_ns)
{
	unsigned int block = what & REFRESH_BLOCK_HISTS ? DRAIN_BLOCK_HISTS : 0;
	int err = 0;

	if (what & REFRESH_GLOBALS) {
		err = drain__globals(&c->drain, c->skel, t);
		if (!err)
			err = drain__block(&c->drain, c->skel, &t->block, block, now_ns);
		if (!err)
			err = drain__fuse(&c->drain, c->skel, &t->fuse, block);
		if (!err)
			err = drain__nfs(&c->drain, c->skel, &t->nfs, block);
		t->prog_misses = collect_misses(c, t);
	}
	if (!err && what & REFRESH_GLOBALS && what & REFRESH_FILES)
		err = drain__both(&c->drain, t);
	else if (!err && what & REFRESH_GLOBALS)
		err = drain__threads(&c->drain, t);
	else if (!err && what & REFRESH_FILES)
		err = drain__files(&c->drain, t);
	return err;
}

int collector__finish(struct collector *c, struct trace *t, __u64 now_ns)
{
	int err;

	load__detach(c->skel);
	c->attached = false;
	err = drain__final(&c->drain, t);
	if (!err)
		err = drain__globals(&c->drain, c->skel, t);
	if (!err)
		err = drain__block(&c->drain, c->skel, &t->block,
				   DRAIN_BLOCK_HISTS | DRAIN_BLOCK_UNFINISHED, now_ns);
	if (!err)
		err = drain__fuse(&c->drain, c->skel, &t->fuse,
				  DRAIN_BLOCK_HISTS | DRAIN_BLOCK_UNFINISHED);
	if (!err)
		err = drain__nfs(&c->drain, c->skel, &t->nfs,
				 DRAIN_BLOCK_HISTS | DRAIN_BLOCK_UNFINISHED);
	if (!err)
		err = drain__async(c->skel, t);
	t->prog_misses = collect_misses(c, t);
	t->maps_bytes = load__maps_bytes(c->skel);
	return err;
}

void collector__close(struct collector *c)
{
	if (!c)
		return;
	if (c->attached)
		load__detach(c->skel);
	drain__free(&c->drain);
	target__unmap(c->targets);
	iostorm_bpf__destroy(c->skel);
	free(c);
}
