// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What this kernel gives, learnt before the load from its BTF, never from
 * uname (backports make version numbers lie): the tracepoints and their
 * arguments (a tracepoint's BTF is the typedef btf_trace_<name>, a pointer
 * to its prototype), kfuncs, helpers and map types. From that, each layer
 * is measured or not (and why), and each program variant loads or not.
 * IOSTORM_FALLBACKS forces the older kernels' variants (model/kernel.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <linux/capability.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "iostorm.skel.h"
#include "collect/collect_int.h"
#include "lib/log.h"

bool features__has_cap(int cap)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[cap / 32].effective & (1u << (cap % 32));
}

/* The prototype of tracepoint name (its first parameter is the tracepoint's data), or NULL. */
static const struct btf_type *tp_proto(const struct btf *btf, const char *name)
{
	char tname[128];
	const struct btf_type *t;
	int id;

	snprintf(tname, sizeof(tname), "btf_trace_%s", name);
	id = btf__find_by_name_kind(btf, tname, BTF_KIND_TYPEDEF);
	if (id < 0)
		return NULL;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);	/* the pointer */
	if (!t || !btf_is_ptr(t))
		return NULL;
	t = btf__type_by_id(btf, t->type);
	return t && btf_is_func_proto(t) ? t : NULL;
}

/* Does tracepoint name exist, with at least args arguments? */
static bool has_tp(const struct btf *btf, const char *name, int args)
{
	const struct btf_type *p = tp_proto(btf, name);

	return p && btf_vlen(p) >= args + 1;
}

/* Is argument i of tracepoint name a pointer to struct sname? */
static bool tp_arg_is(const struct btf *btf, const char *name, int i, const char *sname)
{
	const struct btf_type *p = tp_proto(btf, name), *t;

	if (!p || btf_vlen(p) < i + 2)
		return false;
	t = btf__type_by_id(btf, btf_params(p)[i + 1].type);
	if (!t || !btf_is_ptr(t))
		return false;
	t = btf__type_by_id(btf, t->type);
	return t && btf_is_struct(t) && !strcmp(btf__name_by_offset(btf, t->name_off), sname);
}

/* Has enum ename the value vname (a helper's or a map type's number)? */
static bool has_enum_value(const struct btf *btf, const char *ename, const char *vname)
{
	int id = btf__find_by_name_kind(btf, ename, BTF_KIND_ENUM);
	const struct btf_type *t;
	const struct btf_enum *e;

	if (id < 0)
		return false;
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (int i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, e[i].name_off), vname))
			return true;
	return false;
}

/*
 * The value of enumerator name in any enum of btf, named or not: -1 if none.
 * (Debian's 6.12 declares the request flags' enum without a name.)
 */
static long enumerator(const struct btf *btf, const char *name)
{
	int n = btf__type_cnt(btf);

	for (int id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e;

		if (!btf_is_enum(t))
			continue;
		e = btf_enum(t);
		for (int i = 0; i < btf_vlen(t); i++)
			if (!strcmp(btf__name_by_offset(btf, e[i].name_off), name))
				return e[i].val;
	}
	return -1;
}

static void layer_set(struct kernel_reach *k, enum kernel_layer l, bool measured,
		      const char *words)
{
	struct layer_state *s = &k->layers[l];

	s->measured = measured;
	if (measured)
		snprintf(s->how, sizeof(s->how), "%s", words);
	else
		snprintf(s->why, sizeof(s->why), "%s", words);
}

/* The byte offset of member name in struct sname of btf; -1 if none. */
static long member_offset(const struct btf *btf, const char *sname, const char *name)
{
	int id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	const struct btf_type *t;
	const struct btf_member *m;

	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, m[i].name_off), name))
			return btf_member_bit_offset(t, i) / 8;
	return -1;
}

/*
 * How a FUSE request reaches its connection in btf: fuse_req.fm (to 7.x),
 * or fuse_req.chan and fuse_chan.conn (7.x), the offset found here so that
 * the programs name no type vmlinux may lack. False if neither.
 */
static bool fuse_conn_path(const struct btf *btf, struct kernel_reach *k)
{
	long conn;

	if (member_offset(btf, "fuse_req", "fm") >= 0)
		return true;
	conn = member_offset(btf, "fuse_chan", "conn");
	if (member_offset(btf, "fuse_req", "chan") < 0 || conn < 0)
		return false;
	k->fuse_chan = true;
	k->fuse_chan_conn = conn;
	return true;
}

/*
 * FUSE's tracepoints: in vmlinux when FUSE is built in, else in the fuse
 * module's BTF, there only while the module is loaded. A module's types
 * are relocated against its BTF, which libbpf reads by id: that needs
 * CAP_SYS_ADMIN. Sets *why if absent.
 */
static bool fuse_tps(const struct btf *vmlinux, struct kernel_reach *k, const char **why)
{
	struct btf *mod;
	bool ok;

	*why = "this kernel has no fuse_request_send tracepoint";
	if (btf__find_by_name_kind(vmlinux, "fuse_req", BTF_KIND_STRUCT) >= 0) {
		ok = has_tp(vmlinux, "fuse_request_send", 1) &&
		     has_tp(vmlinux, "fuse_request_end", 1);
		if (ok && !fuse_conn_path(vmlinux, k)) {
			*why = "this kernel's struct fuse_req has no way to its connection iostorm knows "
			       "(fm, or chan and fuse_chan.conn)";
			return false;
		}
		return ok;
	}
	if (access("/sys/kernel/btf/fuse", R_OK)) {
		*why = "the fuse module is not loaded: no FUSE mount when iostorm started";
		return false;
	}
	if (!features__has_cap(CAP_SYS_ADMIN)) {
		*why = "the fuse module's BTF is read by id, which needs CAP_SYS_ADMIN (run as root)";
		return false;
	}
	mod = btf__load_module_btf("fuse", (struct btf *)vmlinux);
	if (!mod) {
		*why = "cannot read the fuse module's BTF";
		return false;
	}
	ok = has_tp(mod, "fuse_request_send", 1) && has_tp(mod, "fuse_request_end", 1) &&
	     fuse_conn_path(mod, k);
	btf__free(mod);
	return ok;
}

/*
 * A module's tracepoints (all of tps): in vmlinux when the module is built
 * in (its first tracepoint there: Debian's vmlinux BTF has the sunrpc and
 * NFS structs, not their tracepoints), else in the module's BTF, which is
 * there only while the module is loaded. 0, or -ENOENT when the module is
 * not loaded, -ENOSYS when a tracepoint is missing, -EIO when its BTF
 * cannot be read.
 */
static int module_tps(const struct btf *vmlinux, const char *module, const char *const *tps,
		      int n)
{
	const struct btf *in = vmlinux;
	struct btf *mod = NULL;
	char path[64];
	int err = 0;

	if (!has_tp(vmlinux, tps[0], 1)) {
		snprintf(path, sizeof(path), "/sys/kernel/btf/%s", module);
		if (access(path, R_OK))
			return -ENOENT;
		mod = btf__load_module_btf(module, (struct btf *)vmlinux);
		if (!mod)
			return -EIO;
		in = mod;
	}
	for (int i = 0; i < n && !err; i++)
		if (!has_tp(in, tps[i], 1))
			err = -ENOSYS;
	btf__free(mod);
	return err;
}

/*
 * NFS: sunrpc's call tracepoints and the NFS client's own (nfs.bpf.c), in
 * the sunrpc and nfs modules (or built in). Without them loaded there is
 * no NFS mount: the layer is absent, not lost (k->layers[KL_NFS].absent).
 * Sets *why when NFS cannot be measured.
 */
static bool nfs_tps(const struct btf *vmlinux, bool *absent, const char **why)
{
	static const char *const rpc[] = { "rpc_task_begin", "rpc_task_end",
					   "rpc_stats_latency" };
	static const char *const nfs[] = { "nfs_initiate_read", "nfs_lookup_enter",
					   "nfs_atomic_open_enter", "nfs_revalidate_inode_enter" };
	int err = module_tps(vmlinux, "sunrpc", rpc, 3);

	*absent = false;
	if (!err)
		err = module_tps(vmlinux, "nfs", nfs, 4);
	if (!err && !features__has_cap(CAP_SYS_ADMIN)) {
		/* Their types are the modules': libbpf reads those BTFs by id. */
		*why = "the sunrpc and nfs modules' BTF is read by id, which needs CAP_SYS_ADMIN "
		       "(run as root)";
		return false;
	}
	if (err == -ENOENT) {
		*absent = true;
		*why = "no NFS client loaded (the sunrpc and nfs modules) when iostorm started: "
		       "no NFS mount then";
	} else if (err == -ENOSYS) {
		*why = "this kernel's sunrpc or nfs module lacks a tracepoint iostorm needs "
		       "(rpc_task_begin/end, rpc_stats_latency, nfs_initiate_read...)";
	} else if (err) {
		*why = "cannot read the sunrpc or nfs module's BTF";
	}
	return !err;
}

/*
 * io_uring's tracepoints, and which variant of the programs takes them
 * (uring.bpf.c): the submit is io_uring_submit_req from 6.0 and
 * io_uring_submit_sqe before; the completion passes (ctx, req, cqe) from
 * 6.15, (ctx, req, user_data, res, ...) from 5.19, and no request before.
 * Sets *why when io_uring cannot be measured.
 */
static bool uring_tps(const struct btf *btf, struct kernel_reach *k, const char **why)
{
	const struct btf_type *done = tp_proto(btf, "io_uring_complete");

	*why = "this kernel has no io_uring tracepoints (no CONFIG_IO_URING)";
	if (has_tp(btf, "io_uring_submit_req", 1))
		k->uring_submit_sqe = false;
	else if (has_tp(btf, "io_uring_submit_sqe", 1))
		k->uring_submit_sqe = true;
	else
		return false;
	if (!done || !has_tp(btf, "io_uring_create", 2))
		return false;
	if (tp_arg_is(btf, "io_uring_complete", 2, "io_uring_cqe")) {
		k->uring_cqe_fields = false;
		return true;
	}
	if (btf_vlen(done) >= 8) {
		k->uring_cqe_fields = true;
		return true;
	}
	*why = "this kernel's io_uring_complete does not name the request (before 5.19)";
	return false;
}

/* The features a kernel must have, with what is missing named in *why. */
static bool floor_ok(const struct btf *btf, const char **why)
{
	if (!has_tp(btf, "sys_enter", 2) || !has_tp(btf, "sched_process_fork", 2))
		*why = "no typed tracepoints (tp_btf) for sys_enter and sched_process_fork";
	else if (!has_enum_value(btf, "bpf_map_type", "BPF_MAP_TYPE_TASK_STORAGE"))
		*why = "no task storage maps";
	else if (!has_enum_value(btf, "bpf_func_id", "BPF_FUNC_get_current_task_btf"))
		*why = "no bpf_get_current_task_btf()";
	else if (!has_enum_value(btf, "bpf_func_id", "BPF_FUNC_task_storage_get"))
		*why = "no bpf_task_storage_get()";
	else if (!has_tp(btf, "block_rq_issue", 1) || tp_arg_is(btf, "block_rq_issue", 0,
								"request_queue"))
		*why = "block_rq_issue takes a request queue (Linux 5.11 dropped it)";
	else
		return true;
	return false;
}

int features__probe(struct kernel_reach *k, __u32 forced)
{
	const char *why = NULL, *fuse_why = NULL, *uring_why = NULL, *nfs_why = NULL;
	bool nfs_absent = false;
	struct utsname u;
	struct btf *btf;
	__u32 need = 0;

	memset(k, 0, sizeof(*k));
	if (!uname(&u))
		snprintf(k->release, sizeof(k->release), "%s", u.release);
	btf = btf__load_vmlinux_btf();
	if (!btf) {
		pr_err("cannot read this kernel's BTF (/sys/kernel/btf/vmlinux): %s",
		       strerror(errno));
		return -errno;
	}
	if (!floor_ok(btf, &why)) {
		pr_err("cannot trace on this kernel (%s): %s; iostorm needs Linux 5.15 or later "
		       "(or a kernel with its BPF features, as RHEL 9's)", k->release, why);
		btf__free(btf);
		return -EOPNOTSUPP;
	}
	if (btf__find_by_name_kind(btf, "bpf_rdonly_cast", BTF_KIND_FUNC) < 0 ||
	    !has_enum_value(btf, "bpf_func_id", "BPF_FUNC_loop"))
		need |= 1U << KF_CORE_READ;
	if (!has_tp(btf, "block_io_start", 1) || !has_tp(btf, "block_io_done", 1))
		need |= 1U << KF_BLOCK_RQ;
	if (!has_tp(btf, "sched_switch", 4))
		need |= 1U << KF_PREV_STATE;
	if (!tp_arg_is(btf, "mm_filemap_add_to_page_cache", 0, "folio"))
		need |= 1U << KF_PAGE_ARG;
	if (!has_tp(btf, "mm_filemap_fault", 2) || !has_tp(btf, "mm_filemap_map_pages", 3))
		need |= 1U << KF_NO_FAULTS;
	if (!fuse_tps(btf, k, &fuse_why))
		need |= 1U << KF_NO_FUSE;
	if (!uring_tps(btf, k, &uring_why))
		need |= 1U << KF_NO_URING;
	/* No NFS client loaded: nothing to measure, and nothing done differently. */
	if (!nfs_tps(btf, &nfs_absent, &nfs_why) && !nfs_absent)
		need |= 1U << KF_NO_NFS;
	k->statx_delayed = btf__find_by_name_kind(btf, "delayed_filename", BTF_KIND_STRUCT) >= 0;
	k->tp_preemptible = btf__find_by_name_kind(btf, "init_srcu_struct_fast", BTF_KIND_FUNC) >= 0 || getenv("IOSTORM_SECOND_CHANCE");
	k->rqf_io_stat = enumerator(btf, "__RQF_IO_STAT");
	k->rqf_flush_seq = enumerator(btf, "__RQF_FLUSH_SEQ");
	k->probed = true;
	k->fallbacks = need | forced;
	k->forced = forced & ~need;

	layer_set(k, KL_SYSCALLS, true, k->fallbacks & (1U << KF_CORE_READ) ?
		  "sys_enter/sys_exit, fields by probe reads (the way before 6.2)" :
		  "sys_enter/sys_exit");
	layer_set(k, KL_PAGE_CACHE, true, k->fallbacks & (1U << KF_PAGE_ARG) ?
		  "mm_filemap_add_to_page_cache, its page by probe reads (the way before 5.17)" :
		  "mm_filemap_add_to_page_cache");
	if (k->fallbacks & (1U << KF_NO_FAULTS))
		layer_set(k, KL_FAULTS, false, need & (1U << KF_NO_FAULTS) ?
			  "this kernel has no mm_filemap_fault tracepoint (added in 6.12)" :
			  "forced off by IOSTORM_FALLBACKS");
	else
		layer_set(k, KL_FAULTS, true, "mm_filemap_fault, mm_filemap_map_pages");
	layer_set(k, KL_BLOCK, true, k->fallbacks & (1U << KF_BLOCK_RQ) ?
		  "block_getrq, block_rq_issue/complete (the way before 6.5)" :
		  "block_io_start/done, block_rq_issue");
	if (k->fallbacks & (1U << KF_NO_FUSE))
		layer_set(k, KL_FUSE, false, need & (1U << KF_NO_FUSE) ? fuse_why :
			  "forced off by IOSTORM_FALLBACKS");
	else
		layer_set(k, KL_FUSE, true, "fuse_request_send/end");
	if (k->fallbacks & (1U << KF_NO_URING))
		layer_set(k, KL_URING, false, need & (1U << KF_NO_URING) ? uring_why :
			  "forced off by IOSTORM_FALLBACKS");
	else
		layer_set(k, KL_URING, true, k->uring_submit_sqe ?
			  "io_uring_submit_sqe, io_uring_complete (the way before 6.0)" :
			  "io_uring_submit_req, io_uring_complete");
	if (nfs_absent) {
		layer_set(k, KL_NFS, false, nfs_why);
		k->layers[KL_NFS].absent = true;
	} else if (k->fallbacks & (1U << KF_NO_NFS)) {
		layer_set(k, KL_NFS, false, need & (1U << KF_NO_NFS) ? nfs_why :
			  "forced off by IOSTORM_FALLBACKS");
	} else {
		layer_set(k, KL_NFS, true, "rpc_task_begin/end, rpc_stats_latency, nfs_*");
	}
	if (k->fallbacks & (1U << KF_NO_SCHED))
		layer_set(k, KL_SCHED, false, "forced off by IOSTORM_FALLBACKS");
	else
		layer_set(k, KL_SCHED, true, k->fallbacks & (1U << KF_PREV_STATE) ?
			  "sched_switch with the task's state (the way before 5.18), "
			  "sched_waking, irq/softirq/timer entry/exit" :
			  "sched_switch, sched_waking, irq/softirq/timer entry/exit");
	btf__free(btf);
	return 0;
}

/* IOSTORM_FALLBACKS into bits of enum kernel_fallback; -EINVAL said on stderr. */
int features__forced(__u32 *bits)
{
	const char *s = getenv("IOSTORM_FALLBACKS"), *bad;
	int len;

	*bits = 0;
	if (!s || !*s)
		return 0;
	if (kernel__parse_fallbacks(s, bits, &bad, &len)) {
		pr_err("IOSTORM_FALLBACKS: unknown fallback '%.*s' (known: core_read, block_rq, "
		       "prev_state, page_arg, no_faults, no_fuse, no_uring, no_nfs, no_sched, all)", len, bad);
		return -EINVAL;
	}
	return 0;
}

/*
 * Which layer a program measures, by the tracepoint it attaches to: a
 * program that cannot load or attach on this kernel takes its layer down,
 * and only that (features__lose). The rest (sched_process_* and the
 * thread iterator) follow the target itself: FEATURES_CORE.
 */
static const struct {
	const char *tp;		/* a prefix of the tracepoint's name */
	int layer;
} tp_layers[] = {
	{ "sys_enter", KL_SYSCALLS },
	{ "sys_exit", KL_SYSCALLS },
	{ "mm_filemap_add_to_page_cache", KL_PAGE_CACHE },
	{ "mm_filemap_fault", KL_FAULTS },
	{ "mm_filemap_map_pages", KL_FAULTS },
	{ "block_", KL_BLOCK },
	{ "fuse_", KL_FUSE },
	{ "io_uring_", KL_URING },
	{ "rpc_", KL_NFS },
	{ "nfs_", KL_NFS },
	{ "sched_switch", KL_SCHED },
	{ "sched_waking", KL_SCHED },
	{ "irq_handler_", KL_SCHED },
	{ "softirq_", KL_SCHED },
	{ "hrtimer_expire_", KL_SCHED },
	{ "timer_expire_", KL_SCHED },
};

/* The syscall programs a second chance stands in for. */
bool features__has_second(const struct bpf_program *prog)
{
	const char *n = bpf_program__name(prog);

	return !strcmp(n, "handle_sys_enter") || !strcmp(n, "handle_sys_exit") ||
	       !strcmp(n, "compat_sys_enter") || !strcmp(n, "compat_sys_exit");
}

/* The last of the second chances: a run it skipped is lost. */
bool features__last_chance(const struct bpf_program *prog)
{
	const char *n = bpf_program__name(prog);

	if (!strncmp(n, "compat_", 7))
		n += 7;
	return !strncmp(n, "third_sys_", 10);
}

bool features__second(const struct bpf_program *prog)
{
	const char *n = bpf_program__name(prog);

	if (!strncmp(n, "compat_", 7))
		n += 7;
	return !strncmp(n, "second_sys_", 11) || !strncmp(n, "third_sys_", 10);
}

int features__layer_of(const struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog), *tp = strchr(sec, '/');

	if (!tp || strncmp(sec, "tp_btf/", 7))
		return FEATURES_CORE;
	for (size_t i = 0; i < sizeof(tp_layers) / sizeof(tp_layers[0]); i++)
		if (!strncmp(tp + 1, tp_layers[i].tp, strlen(tp_layers[i].tp)))
			return tp_layers[i].layer;
	return FEATURES_CORE;
}

bool features__essential(int layer)
{
	return layer == FEATURES_CORE || layer == KL_SYSCALLS || layer == KL_SCHED;
}

void features__lose(struct kernel_reach *k, int layer, const char *why)
{
	if (layer >= 0 && layer < KL__MAX)
		layer_set(k, layer, false, why);
}

static void autoload(struct bpf_program *p, bool on)
{
	bpf_program__set_autoload(p, on);
}

/* Load the variant of each program this kernel takes, and no other. */
void features__apply(struct iostorm_bpf *skel, const struct kernel_reach *k)
{
	bool core = k->fallbacks & (1U << KF_CORE_READ);
	bool rq = k->fallbacks & (1U << KF_BLOCK_RQ);
	bool state = k->fallbacks & (1U << KF_PREV_STATE);
	bool page = k->fallbacks & (1U << KF_PAGE_ARG);
	struct bpf_program *p;
	bool uring;

	autoload(skel->progs.handle_sys_enter, !core);
	autoload(skel->progs.handle_sys_exit, !core);
	autoload(skel->progs.compat_sys_enter, core);
	autoload(skel->progs.compat_sys_exit, core);
	/* Their second chance, where the kernel can skip their runs (7.x). */
	autoload(skel->progs.second_sys_enter, !core && k->tp_preemptible);
	autoload(skel->progs.second_sys_exit, !core && k->tp_preemptible);
	autoload(skel->progs.compat_second_sys_enter, core && k->tp_preemptible);
	autoload(skel->progs.compat_second_sys_exit, core && k->tp_preemptible);
	autoload(skel->progs.third_sys_enter, !core && k->tp_preemptible);
	autoload(skel->progs.third_sys_exit, !core && k->tp_preemptible);
	autoload(skel->progs.compat_third_sys_enter, core && k->tp_preemptible);
	autoload(skel->progs.compat_third_sys_exit, core && k->tp_preemptible);
	autoload(skel->progs.handle_block_io_start, !rq);
	autoload(skel->progs.handle_block_io_done, !rq);
	autoload(skel->progs.compat_block_getrq, rq);
	skel->rodata->targ_block_rq = rq;
	skel->rodata->targ_fuse_chan = k->fuse_chan;
	skel->rodata->targ_fuse_chan_conn = k->fuse_chan_conn;
	skel->rodata->targ_statx_delayed = k->statx_delayed;
	skel->rodata->targ_preemptible = k->tp_preemptible;
	if (!rq)
		bpf_map__set_max_entries(skel->maps.blk_bios, 1);
	if (k->rqf_io_stat >= 0 && k->rqf_io_stat < 32 &&
	    k->rqf_flush_seq >= 0 && k->rqf_flush_seq < 32) {
		skel->rodata->targ_rqf_io_stat = 1U << k->rqf_io_stat;
		skel->rodata->targ_rqf_flush_seq = 1U << k->rqf_flush_seq;
	}
	autoload(skel->progs.handle_sched_switch, !state);
	autoload(skel->progs.compat_sched_switch, state);
	autoload(skel->progs.handle_filemap_add, !page);
	autoload(skel->progs.compat_filemap_add, page);
	autoload(skel->progs.handle_filemap_fault, k->layers[KL_FAULTS].measured);
	autoload(skel->progs.handle_filemap_map_pages, k->layers[KL_FAULTS].measured);
	autoload(skel->progs.handle_fuse_request_send, k->layers[KL_FUSE].measured);
	autoload(skel->progs.handle_fuse_request_end, k->layers[KL_FUSE].measured);
	uring = k->layers[KL_URING].measured;
	autoload(skel->progs.handle_uring_create, uring);
	autoload(skel->progs.handle_uring_submit, uring && !k->uring_submit_sqe);
	autoload(skel->progs.compat_uring_submit, uring && k->uring_submit_sqe);
	autoload(skel->progs.handle_uring_complete, uring && !k->uring_cqe_fields);
	autoload(skel->progs.compat_uring_complete, uring && k->uring_cqe_fields);
	/* NFS's call records are preallocated (an LRU map): none where it is not loaded. */
	if (!k->layers[KL_NFS].measured)
		bpf_map__set_max_entries(skel->maps.nfs_calls, 1);
	/* A layer this kernel cannot give, found at load or attach: none of its programs. */
	bpf_object__for_each_program(p, skel->obj) {
		int l = features__layer_of(p);

		if ((l >= 0 && !k->layers[l].measured) || (features__second(p) && k->no_second))
			autoload(p, false);
	}
}
