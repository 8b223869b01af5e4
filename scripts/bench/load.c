// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench-load OBJECT: load a reference BPF object of scripts/bench.sh,
 * attach all its programs, print "attached" and hold them until SIGINT or
 * SIGTERM.
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <bpf/libbpf.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct bpf_program *prog;
	struct bpf_object *obj;

	if (argc != 2) {
		fprintf(stderr, "usage: bench-load OBJECT\n");
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "bench-load: cannot load %s\n", argv[1]);
		return 1;
	}
	bpf_object__for_each_program(prog, obj) {
		if (!bpf_program__attach(prog)) {
			fprintf(stderr, "bench-load: cannot attach %s\n",
				bpf_program__name(prog));
			return 1;
		}
	}
	printf("attached\n");
	fflush(stdout);
	while (!stop)		/* sleep(), not pause(): a signal before it is not lost */
		sleep(1);
	bpf_object__close(obj);
	return 0;
}
