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
#include <stdlib.h>
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
#include "lib/caps.h"	/* CAP_PERFMON, CAP_BPF where the headers lack them */
#include "lib/log.h"

static bool verbose;

/*
 * What libbpf said of the last load that failed: the program, and why in
 * libbpf's words (a CO-RE relocation, a missing tracepoint, the verifier's
 * last line). Read from its print callback, which alone sees it.
 */
static struct load_failure {
	char prog[64];
	char core[256];		/* "<byte_off> [30] struct fuse_req.fm (0:9 @ offset 104)" */
	char tp[64];		/* an attach target not in this kernel */
	char verifier[160];	/* the verifier log's last line */
} failure;

/* The last non-empty line of the verifier's log in msg, into out. */
static void last_log_line(const char *msg, char *out, size_t size)
{
	const char *end = strstr(msg, "-- END PROG LOAD LOG --"), *p;

	if (!end)
		return;
	while (end > msg && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	for (p = end; p > msg && p[-1] != '\n'; p--)
		;
	snprintf(out, size, "%.*s", (int)(end - p), p);
}

static void note_failure(const char *msg)
{
	const char *p;

	/* sscanf() counts what it assigned: the words after it are checked apart. */
	if (strstr(msg, "': failed to load:") &&
	    sscanf(msg, "libbpf: prog '%63[^']'", failure.prog) == 1)
		return;
	p = strstr(msg, "': failed to find kernel BTF type ID of '");
	if (p && sscanf(msg, "libbpf: prog '%63[^']'", failure.prog) == 1) {
		sscanf(p + strlen("': failed to find kernel BTF type ID of '"), "%63[^']",
		       failure.tp);
		return;
	}
	p = strstr(msg, "failed to resolve CO-RE relocation ");
	if (p)
		sscanf(p + strlen("failed to resolve CO-RE relocation "), "%255[^\n]",
		       failure.core);
	if (strstr(msg, "-- BEGIN PROG LOAD LOG --"))
		last_log_line(msg, failure.verifier, sizeof(failure.verifier));
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *msg;
	int n;

	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	n = vasprintf(&msg, fmt, ap);
	if (n < 0)
		return 0;
	if (level == LIBBPF_WARN)
		note_failure(msg);
	if (verbose)
		fputs(msg, stderr);
	free(msg);
	return n;
}

/* Kernel BTF's name of a type, without a CO-RE flavour ("folio___o" -> "folio"). */
static void unflavoured(char *name)
{
	char *p = strstr(name, "___");

	if (p)
		*p = '\0';
}

/*
 * libbpf's spec of a CO-RE relocation that failed, in words:
 * "<byte_off> [30] struct fuse_req.fm (0:9 @ offset 104)" is "struct
 * fuse_req has no field fm on this kernel".
 */
static void core_words(const char *spec, char *out, size_t size)
{
	char kind[32] = "", what[16] = "", name[128] = "", value[128] = "";

	if (sscanf(spec, "<%31[^>]> [%*u] %15s %127[^ (=]", kind, what, name) < 3) {
		snprintf(out, size, "libbpf cannot relocate %.160s on this kernel", spec);
		return;
	}
	if (strstr(kind, "enumval")) {		/* "enum fuse_req_flag::FR_BACKGROUND" */
		char *sep = strstr(name, "::");

		if (sep) {
			snprintf(value, sizeof(value), "%s", sep + 2);
			*sep = '\0';
		}
		unflavoured(name);
		snprintf(out, size, "enum %s has no value %s on this kernel", name, value);
	} else if (strchr(name, '.') && (strstr(kind, "field") || strstr(kind, "byte") ||
					 strstr(kind, "signed") || strstr(kind, "bitfield"))) {
		char *dot = strchr(name, '.');

		*dot = '\0';
		unflavoured(name);
		snprintf(out, size, "%s %s has no field %s on this kernel", what, name, dot + 1);
	} else {
		unflavoured(name);
		snprintf(out, size, "this kernel has no %s %s", what, name);
	}
}

/* Why the program of the last failed load cannot load, in words, into out. */
static void failure_words(char *out, size_t size)
{
	if (failure.tp[0])
		snprintf(out, size, "this kernel has no %s tracepoint", failure.tp);
	else if (failure.core[0])
		core_words(failure.core, out, size);
	else if (failure.verifier[0])
		snprintf(out, size, "the verifier refused %.63s: %.160s", failure.prog,
			 failure.verifier);
	else
		snprintf(out, size, "%s does not load on this kernel", failure.prog);
}

int load__check_env(void)
{
	if (!features__has_cap(CAP_SYS_ADMIN) && !(features__has_cap(CAP_BPF) && features__has_cap(CAP_PERFMON))) {
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
		{ SYS_write, SK_WRITE },
		{ SYS_writev, SK_WRITE },
		{ SYS_pwrite64, SK_WRITE },
		{ SYS_pwritev, SK_WRITE },
		{ SYS_pwritev2, SK_WRITE },
		{ SYS_fsync, SK_FSYNC },
		{ SYS_fdatasync, SK_FSYNC },
		{ SYS_sync_file_range, SK_FSYNC },
		{ SYS_msync, SK_MSYNC },
#ifdef SYS_rename
		{ SYS_rename, SK_RENAME },
#endif
#ifdef SYS_renameat
		{ SYS_renameat, SK_RENAME },
#endif
		{ SYS_renameat2, SK_RENAME },
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

/* Open the object and set what this kernel and the configuration take. */
static int open_skel(struct iostorm_bpf **skelp, const struct probe_config *c,
		     const struct kernel_reach *k)
{
	struct iostorm_bpf *skel = iostorm_bpf__open();

	if (!skel) {
		pr_err("cannot open the BPF object: %s", strerror(errno));
		return -errno;
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
	/* Async reads per file: an interval's files, as a half of the files table. */
	bpf_map__set_max_entries(skel->maps.async_files, c->map_files);
	bpf_map__set_max_entries(skel->maps.async_file_sums, c->map_files);
	features__apply(skel, k);
	*skelp = skel;
	return 0;
}

/*
 * A load failed: take the failing program's layer down and say so in k,
 * so the next load goes without it. -errno, said, when that cannot be (the
 * failure names no program, or one the trace cannot do without).
 */
static int lose_layer(struct iostorm_bpf *skel, struct kernel_reach *k, int err)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(skel->obj, failure.prog);
	char why[sizeof(k->layers[0].why)];
	int layer = prog ? features__layer_of(prog) : FEATURES_CORE;

	failure_words(why, sizeof(why));
	if (prog && features__second(prog)) {
		k->no_second = true;	/* a second chance only: the trace goes without */
		if (verbose)
			fprintf(stderr, "iostorm: %s does not load: %s\n", failure.prog, why);
		return 0;
	}
	if (!failure.prog[0]) {
		pr_err("cannot load the BPF programs: %s%s", strerror(-err),
		       verbose ? "" : " (run with -v for libbpf's log)");
		return err;
	}
	if (features__essential(layer) || !k->layers[layer].measured) {
		pr_err("cannot trace on this kernel (%s): %s cannot load (%s layer): %s%s",
		       k->release, failure.prog,
		       layer == FEATURES_CORE ? "the target's" : kernel__layer_name(layer),
		       why, verbose ? "" : "; run with -v for the verifier's log");
		return err;
	}
	features__lose(k, layer, why);
	if (verbose)
		fprintf(stderr, "iostorm: the %s layer is not measured: %s\n",
			kernel__layer_name(layer), why);
	return 0;
}

int load__programs(struct iostorm_bpf **skelp, const struct probe_config *c,
		struct kernel_reach *k)
{
	struct iostorm_bpf *skel = NULL;
	__u32 forced;
	int err;

	verbose = c->verbose;
	libbpf_set_print(print_libbpf);
	err = features__forced(&forced);
	if (!err)
		err = features__probe(k, forced);
	if (err)
		return err;
	/* Each failed load takes one layer down: at most one load a layer. */
	for (int tries = 0; tries <= KL__MAX; tries++) {
		err = open_skel(&skel, c, k);
		if (err)
			return err;
		memset(&failure, 0, sizeof(failure));
		err = iostorm_bpf__load(skel);
		if (!err)
			break;
		err = lose_layer(skel, k, err);
		iostorm_bpf__destroy(skel);
		if (err)
			return err;
		err = -ELOOP;
	}
	if (err) {
		pr_err("cannot load the BPF programs: every try failed");
		return err;
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

/* The skeleton's slot of prog's link, where it destroys the link at the end. */
static struct bpf_link **link_slot(struct iostorm_bpf *skel, const struct bpf_program *prog)
{
	for (int i = 0; i < skel->skeleton->prog_cnt; i++)
		if (*skel->skeleton->progs[i].prog == prog)
			return skel->skeleton->progs[i].link;
	return NULL;
}

/* Detach every program of layer l attached so far. */
static void detach_layer(struct iostorm_bpf *skel, int l)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_link **link = link_slot(skel, prog);

		if (link && *link && features__layer_of(prog) == l) {
			bpf_link__destroy(*link);
			*link = NULL;
		}
	}
}

/*
 * The syscall programs' second chance (second_sys_*, vfs.bpf.c), loaded
 * where the kernel can skip their runs: attached after the main programs,
 * so that each runs after its main one for the same event. One that will
 * not attach is said; the runs skipped then stay counted as lost.
 */
static void attach_second(struct iostorm_bpf *skel, struct kernel_reach *k)
{
	struct bpf_program *prog;
	bool any = false;

	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_link *link, **slot;

		if (!features__second(prog) || !bpf_program__autoload(prog))
			continue;
		link = bpf_program__attach(prog);
		if (!link) {
			pr_err("cannot attach '%s' (the syscall programs' second chance): %s; "
			       "their runs the kernel skips are counted lost",
			       bpf_program__name(prog), strerror(errno));
			k->no_second = true;
			continue;
		}
		slot = link_slot(skel, prog);
		if (slot)
			*slot = link;
		any = true;
	}
	k->second = any && !k->no_second;	/* all of them, or it counts as none */
}

int load__attach(struct iostorm_bpf *skel, struct kernel_reach *k)
{
	struct bpf_program *prog;
	char why[sizeof(k->layers[0].why)];
	int err, l;

	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_link *link, **slot;

		/*
		 * An iterator runs when the drain reads it (drain.c); a second
		 * chance after the main programs (attach_second()).
		 */
		if (bpf_program__expected_attach_type(prog) == BPF_TRACE_ITER ||
		    !bpf_program__autoload(prog) ||	/* a variant this kernel does not take */
		    features__second(prog))
			continue;
		l = features__layer_of(prog);
		if (l >= 0 && !k->layers[l].measured)	/* its layer failed to attach */
			continue;
		link = bpf_program__attach(prog);
		if (!link && features__essential(l)) {
			err = -errno;
			pr_err("cannot attach '%s' to %s: %s",
				bpf_program__name(prog), bpf_program__section_name(prog),
				strerror(-err));
			return err;
		}
		if (!link) {
			snprintf(why, sizeof(why), "cannot attach %s to %s: %s",
				 bpf_program__name(prog), bpf_program__section_name(prog),
				 strerror(errno));
			features__lose(k, l, why);
			detach_layer(skel, l);
			continue;
		}
		/* The skeleton destroys links it knows; keep ours there too. */
		slot = link_slot(skel, prog);
		if (slot)
			*slot = link;
	}
	attach_second(skel, k);
	return 0;
}

void load__detach(struct iostorm_bpf *skel)
{
	iostorm_bpf__detach(skel);
}

/*
 * A kernel whose tracepoints are preemptible (7.x: PREEMPT_LAZY, no
 * "none" mode) skips a program's run on a CPU while another run of it
 * there is preempted: those runs are summed per layer into k, whose
 * figures they make lower bounds. Where the syscall programs have their
 * second chances (second_ and third_sys_*, vfs.bpf.c), a syscall's entry
 * or exit is lost only where every copy's run was skipped, the last
 * copy's among them: the last copies' skipped runs bound the syscalls
 * lost (most of the main programs' skipped runs were other processes'
 * syscalls, or calls iostorm does not trace, which no copy had to run).
 */
__u64 load__misses(struct iostorm_bpf *skel, struct kernel_reach *k, __u64 rescued)
{
	struct bpf_program *prog;
	__u64 n = 0, misses;
	int l;

	for (l = 0; l < KL__MAX; l++)
		k->layers[l].skipped = 0;
	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_program__fd(prog) < 0 ||
		    bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			continue;
		misses = info.recursion_misses;
		if (k->second && (features__second(prog) || features__has_second(prog)) &&
		    !features__last_chance(prog))
			continue;	/* stood in for, or standing in */
		n += misses;
		l = features__layer_of(prog);
		if (l >= 0)
			k->layers[l].skipped += misses;
	}
	k->layers[KL_SYSCALLS].rescued = k->second ? rescued : 0;
	return n;
}

__u64 load__maps_bytes(struct iostorm_bpf *skel)
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
