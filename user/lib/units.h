/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Numbers for people, in three styles. In words, as the findings' sentences
 * print them: "1.6 GiB", "2.2k", "82%", "4.1ms". In table cells, three
 * significant digits: "1.23ms", "4.00K". On the HTML page, three
 * significant digits and a space before the unit: "1.23 ms", "1.5 MiB",
 * "12.3%". Each formatter writes into buf and returns it.
 */
#ifndef LIB_UNITS_H
#define LIB_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* "512 B", "78 KiB", "1.6 GiB": three significant digits at most. */
const char *units__bytes(char *buf, size_t len, double b);
/* A rate or count: "7", "0.4", "850", "2.2k", "16.5k", "120k", "1.3M". */
const char *units__num(char *buf, size_t len, double x);
/* A count: exact below 100,000 ("20000 files"), else as units__num ("1.3M"). */
const char *units__count(char *buf, size_t len, __u64 n);
/* A share as a percentage: "82%", "0.5%"; shares above 1 show as 100%. */
const char *units__pct(char *buf, size_t len, double share);
/* Microseconds as "8.5µs", "95µs", "4.1ms", "38ms", "1.2s". */
const char *units__us(char *buf, size_t len, double us);

/* Table cells: "850ns", "12.3µs", "1.23ms", "4.56s". */
const char *units__ns(char *buf, size_t len, double ns);
/* Table cells: "512", "4.00K", "1.23G" (short) or "512 B", "4.00 KiB" (long units). */
const char *units__size(char *buf, size_t len, double b, bool long_units);
/* A power of two or a multiple of one: "512", "4K", "16M". */
const char *units__pow2(char *buf, size_t len, __u64 v);
/* A kernel device number (major << 20 | minor, as the kernel's dev_t) as "MAJ:MIN". */
const char *units__dev(char *buf, size_t len, __u32 dev);
/* Page: "1.23 ms", "456 µs", "12 ns" for a time in ns. */
const char *units__page_ns(char *buf, size_t len, double ns);
/* Page: "1.5 MiB", "80 KiB", "512 B". */
const char *units__page_bytes(char *buf, size_t len, double bytes);
/* Page: "12.3%" of a 0..1 share, or "n/a" when negative or NaN. */
const char *units__page_share(char *buf, size_t len, double share);
/* Page: a plain number, "30", "0.667", "5653": integers and >= 100 whole. */
const char *units__page_num(char *buf, size_t len, double x);
/*
 * Page: a finding's figure by its unit (findings.h, struct figure):
 * "fraction" as a share, "bytes" in B..TiB, "ns", "us", "ms" and "s" as a
 * time, "flag" as yes or no; any other unit after the number ("30.7
 * requests/s", "1840 requests").
 */
const char *units__page_figure(char *buf, size_t len, double x, const char *unit);
/* Terminal columns of UTF-8 text: one per character. */
int units__cols(const char *s);
/* n per second over secs; 0 when secs is not positive. */
double units__rate(double n, double secs);

#endif /* LIB_UNITS_H */
