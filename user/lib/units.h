/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Numbers in words, as the findings' sentences print them: "1.6 GiB",
 * "2.2k", "82%", "4.1ms". Each writes into buf and returns it. The report
 * tables use report__fmt_bytes() and report__fmt_ns() instead (report.h).
 */
#ifndef FMT_H
#define FMT_H

#include <stddef.h>
#include <linux/types.h>

/* "512 B", "78 KiB", "1.6 GiB": three significant digits at most. */
const char *fmt__bytes(char *buf, size_t len, double b);
/* A rate or count: "7", "0.4", "850", "2.2k", "16.5k", "120k", "1.3M". */
const char *fmt__num(char *buf, size_t len, double x);
/* A count: exact below 100,000 ("20000 files"), else as fmt__num ("1.3M"). */
const char *fmt__count(char *buf, size_t len, __u64 n);
/* A share as a percentage: "82%", "0.5%"; shares above 1 show as 100%. */
const char *fmt__pct(char *buf, size_t len, double share);
/* Microseconds as "8.5µs", "95µs", "4.1ms", "38ms", "1.2s". */
const char *fmt__us(char *buf, size_t len, double us);

#endif /* FMT_H */
