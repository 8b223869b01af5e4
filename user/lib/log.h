/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One way to say what went wrong: "iostorm: cannot X: reason[; fix]" on
 * stderr, lower-case, no full stop (STYLE.md). The prefix is written here
 * only.
 */
#ifndef LIB_LOG_H
#define LIB_LOG_H

#include <stdio.h>

#define pr_err(fmt, ...)	fprintf(stderr, "iostorm: " fmt "\n", ##__VA_ARGS__)

#endif /* LIB_LOG_H */
