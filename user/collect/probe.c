// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Loading and attaching the one skeleton built from every BPF file.
 * Errors name the cause and the fix: no privileges, no BTF, a tracepoint
 * missing from this kernel. Every program is tp_btf: no tracefs needed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>
#include "iostorm.h"
#include "table.h"
#include "iostorm.skel.h"
#include "collect/collect_int.h"
#include "lib/log.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif
#ifndef CAP_BPF
#define CAP_BPF		39
#endif

static bool verbose;

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static bool has_cap(int cap)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[cap / 32].effective & (1u << (cap % 32));
}

int probe__check_env(void)
{
	if (!has_cap(CAP_SYS_ADMIN) && !(has_cap(CAP_BPF) && has_cap(CAP_PERFMON))) {
		pr_err("cannot trace: permission denied: "
			"run as root or grant CAP_BPF and CAP_PERFMON");
		return -EPERM;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		pr_err("cannot trace: this kernel has no BTF "
			"(/sys/kernel/btf/vmlinux): a kernel built with "
			"CONFIG_DEBUG_INFO_BTF=y is needed");
		return -ENOENT;
	}
	return 0;
}

/* syscall number -> how its arguments are read; missing ones are skipped. */
static int fill_syscalls(int fd)
{
	static const struct { long nr; __u8 kind; } table[] = {
#ifdef SYS_open
		{ SYS_open, SK_OPEN },
#endif
		{ SYS_openat, SK_OPENAT },
#ifdef SYS_openat2
		{ SYS_openat2, SK_OPENAT },
#endif
		{ SYS_read, SK_READ },
		{ SYS_readv, SK_READ },
		{ SYS_pread64, SK_PREAD },
		{ SYS_preadv, SK_PREAD },
		{ SYS_preadv2, SK_PREADV2 },
#ifdef SYS_stat
		{ SYS_stat, SK_STAT },
		{ SYS_lstat, SK_STAT },
		{ SYS_fstat, SK_FSTAT },
#endif
		{ SYS_newfstatat, SK_FSTATAT },
		{ SYS_statx, SK_STATX },
		{ SYS_close, SK_CLOSE },
		{ SYS_getdents64, SK_GETDENTS },
		{ SYS_mmap, SK_MMAP },
		{ SYS_copy_file_range, SK_COPY },
		{ SYS_splice, SK_COPY },
		{ SYS_sendfile, SK_SENDFILE },
		{ SYS_io_submit, SK_AIO_SUBMIT },
		{ SYS_io_getevents, SK_AIO_GETEVENTS },
		{ SYS_io_pgetevents, SK_AIO_GETEVENTS },
		{ SYS_io_uring_enter, SK_URING_ENTER },
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		__u32 key = table[i].nr;

		if (key >= SYSCALL_SLOTS)
			continue;
		if (bpf_map_update_elem(fd, &key, &table[i].kind, BPF_ANY))
			return -errno;
	}
	return 0;
}

static int point_gen(struct bpf_map *outer, struct bpf_map *inner)
{
	__u32 zero = 0;
	int fd = bpf_map__fd(inner);

	if (bpf_map_update_elem(bpf_map__fd(outer), &zero, &fd, BPF_ANY))
		return -errno;
	return 0;
}

int probe__load(struct iostorm_bpf **skelp, const struct probe_config *c,
		struct kernel_reach *k)
{
	struct iostorm_bpf *skel;
	__u32 forced;
	int err;

	verbose = c->verbose;
	libbpf_set_print(print_libbpf);
	err = features__forced(&forced);
	if (!err)
		err = features__probe(k, forced);
	if (err)
		return err;
	skel = iostorm_bpf__open();
	if (!skel) {
		err = -errno;
		pr_err("cannot open the BPF object: %s", strerror(errno));
		return err;
	}
	skel->rodata->targ_mode = c->mode;
	skel->rodata->targ_self_tgid = getpid();
	skel->rodata->targ_cgid = c->cgid;
	skel->rodata->targ_cg_level = c->cg_level;
	/*
	 * The files table: a half of --map-files index slots and as many
	 * entries per drain generation, the last SLOT_PROBES - 1 slots a tail
	 * no probe starts in.
	 */
	skel->rodata->targ_file_slots = c->map_files - (SLOT_PROBES - 1);
	bpf_map__set_max_entries(skel->maps.files, 2 * c->map_files);
	bpf_map__set_max_entries(skel->maps.file_index, 2 * c->map_files);
	features__apply(skel, k);

	err = iostorm_bpf__load(skel);
	if (err) {
		pr_err("cannot load the BPF programs: %s%s",
			strerror(-err), verbose ? "" : " (run with -v for the verifier's log)");
		goto out_destroy_skel;
	}
	err = fill_syscalls(bpf_map__fd(skel->maps.syscalls));
	if (!err)
		err = point_gen(skel->maps.threads_gen, skel->maps.threads_a);
	if (err) {
		pr_err("cannot set up the BPF maps: %s", strerror(-err));
		goto out_destroy_skel;
	}
	*skelp = skel;
	return 0;

out_destroy_skel:
	iostorm_bpf__destroy(skel);
	return err;
}

int probe__attach(struct iostorm_bpf *skel)
{
	struct bpf_program *prog;
	int err;

	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_link *link;

		/* An iterator runs when the drain reads it (drain.c). */
		if (bpf_program__expected_attach_type(prog) == BPF_TRACE_ITER ||
		    !bpf_program__autoload(prog))	/* a variant this kernel does not take */
			continue;
		link = bpf_program__attach(prog);
		if (!link) {
			err = -errno;
			pr_err("cannot attach '%s' to %s: %s",
				bpf_program__name(prog), bpf_program__section_name(prog),
				strerror(-err));
			return err;
		}
		/* The skeleton destroys links it knows; keep ours there too. */
		for (int i = 0; i < skel->skeleton->prog_cnt; i++)
			if (*skel->skeleton->progs[i].prog == prog)
				*skel->skeleton->progs[i].link = link;
	}
	return 0;
}

void probe__detach(struct iostorm_bpf *skel)
{
	iostorm_bpf__detach(skel);
}

__u64 probe__misses(struct iostorm_bpf *skel)
{
	struct bpf_program *prog;
	__u64 n = 0;

	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len) == 0)
			n += info.recursion_misses;
	}
	return n;
}

__u64 probe__maps_bytes(struct iostorm_bpf *skel)
{
	struct bpf_map *map;
	char path[64], line[128];
	unsigned long long v;
	__u64 n = 0;
	FILE *f;

	bpf_object__for_each_map(map, skel->obj) {
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", bpf_map__fd(map));
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "memlock: %llu", &v) == 1)
				n += v;
		fclose(f);
	}
	return n;
}
