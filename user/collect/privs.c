// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the drains still need of the capabilities once everything is
 * attached, found by trying: a child drops them all and reads through the
 * fds it inherited as the drains do (a map's keys, a program's info, the
 * threads iterator). A kernel that lets it (the bpf() checks that remain
 * are at map and program creation: 5.19+, and a distribution's backports,
 * so the version is not read) needs none; else CAP_BPF stays.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "iostorm.skel.h"
#include "collect/collect_int.h"
#include "lib/caps.h"

#define PROBE_KEY_MAX	256

static bool denied(int ret)
{
	return ret < 0 && (errno == EPERM || errno == EACCES);
}

/* In the child: 0 when every read the drains make works without a capability. */
static int try_reads(struct iostorm_bpf *skel, struct bpf_link *iter)
{
	char key[PROBE_KEY_MAX];
	struct bpf_program *prog;
	struct bpf_map *map;
	int fd;

	if (caps__drop_all_but(0))
		return 1;
	bpf_object__for_each_map(map, skel->obj) {
		if (bpf_map__fd(map) < 0 || bpf_map__key_size(map) > PROBE_KEY_MAX)
			continue;
		if (denied(bpf_map_get_next_key(bpf_map__fd(map), NULL, key)))
			return 1;
		break;
	}
	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_program__fd(prog) < 0)
			continue;
		if (denied(bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len)))
			return 1;
		break;
	}
	if (iter) {
		fd = bpf_iter_create(bpf_link__fd(iter));
		if (fd < 0 && (errno == EPERM || errno == EACCES))
			return 1;
		if (fd >= 0)
			close(fd);
	}
	return 0;
}

__u64 privs__after_attach(struct iostorm_bpf *skel, struct bpf_link *iter)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return CAPS_BIT(CAP_BPF);
	if (pid == 0)
		_exit(try_reads(skel, iter));
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return CAPS_BIT(CAP_BPF);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : CAPS_BIT(CAP_BPF);
}
