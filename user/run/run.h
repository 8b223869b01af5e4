/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* `iostorm [options] TARGET`: trace a target and report on it. */
#ifndef RUN_RUN_H
#define RUN_RUN_H

/*
 * The tracing command, argv as main()'s. Returns the exit status
 * docs/iostorm.8 documents: 0, 1 (could not trace), 2 (bad command line),
 * 3 (nothing to trace there), 4 (a report not written), or a launched
 * COMMAND's own status.
 */
int run__main(int argc, char **argv);
/* `iostorm check`: what this kernel gives, without tracing (check.c). */
int check__main(int argc, char **argv);
/* `iostorm --version`: release, commit, libbpf, static or dynamic, on stdout. */
void run__print_version(void);

#endif /* RUN_RUN_H */
