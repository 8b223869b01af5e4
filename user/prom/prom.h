/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Prometheus metrics: the trace in the text exposition format (0.0.4),
 * served on /metrics by libmicrohttpd (--listen ADDR:PORT) or written for
 * node_exporter's textfile collector (--prom-file PATH). Every metric, its
 * labels and units are in docs/metrics.md.
 *
 * The caller renders in its own thread, after a drain: prom__publish()
 * swaps the new text in under a mutex, so the server thread never reads
 * the trace and a scrape always gets one whole snapshot of what the trace
 * held then.
 *
 * The public header of prom/: other folders include only this one.
 */
#ifndef PROM_H
#define PROM_H

#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

struct findings;
struct trace;

/* Not a port anyone expects: ebpf_exporter has 9435. Only documented. */
#define PROM_PORT_SUGGESTED	9436

/* Histogram bounds: 2^k - 1 of the base unit (ns, bytes), see docs/metrics.md. */
#define PROM_NS_K_MIN		10	/* le 0.000001023 s */
#define PROM_NS_K_MAX		37	/* le 137.438953471 s */
#define PROM_BYTES_K_MIN	9	/* le 511 bytes (after le 0) */
#define PROM_BYTES_K_MAX	30	/* le 1073741823 bytes */

/*
 * The longest --job: the label is on every sample (about 900), so a long one
 * multiplies the text and the series a server stores; 128 bytes holds any
 * Kubernetes or Slurm job name.
 */
#define PROM_JOB_MAX		128

/*
 * Labelled series on one page at most (--max-series): a node's pods, jobs
 * and processes are named by its tenants, and a page without a bound is
 * memory without one, here and in the server (CVE-2022-21698). Far above
 * what the bounded families make (docs/metrics.md); those beyond are
 * counted in iostorm_series_dropped_total.
 */
#define PROM_SERIES_MAX		20000

/*
 * A label value's bytes at most, as written (longer ones are cut at a
 * character): a cgroup path is ~200, a process name 15. Below the
 * labelValueLengthLimit a scraper sets (docs/deploy/: 1024).
 */
#define PROM_LABEL_VALUE_MAX	512

struct prom_server;

/*
 * Write every metric of t and its findings f to out. job, when not NULL or
 * empty, labels every sample training_job="job" (not "job": Prometheus owns
 * that label and would rename ours to exported_job). Returns 0 or the first
 * failed write's -errno (-ENOSPC on a full disk; -EIO when it is unknown).
 */
int prom__render(FILE *out, const struct trace *t, const struct findings *f,
		 const char *job);

/*
 * prom__render() with at most max_series labelled series (0: no bound);
 * those left out are added to *dropped_total (NULL: this page's alone),
 * which iostorm_series_dropped_total says.
 */
int prom__render_page(FILE *out, const struct trace *t, const struct findings *f,
		      const char *job, size_t max_series, __u64 *dropped_total);

/* --listen unix:PATH: a Unix socket, for a proxy in the same pod or host. */
#define PROM_UNIX_PREFIX	"unix:"

/*
 * Listen on addr_port ("IPV4:PORT", "[IPV6]:PORT" or "unix:PATH"), but
 * serve nothing until prom__start(): binding is early, so a port taken
 * fails before the programs load, and the server's thread starts after
 * the capabilities are dropped (capset() is per thread). addr_port NULL
 * listens on nothing (for --prom-file alone: prom__publish() +
 * prom__save()). job labels every sample, as for prom__render(). Says what
 * failed on stderr ("iostorm: cannot listen on '127.0.0.1:9436': Address
 * already in use") and returns -errno (-EINVAL for a bad address,
 * -EADDRINUSE, -EACCES, -EADDRNOTAVAIL...).
 */
int prom__serve(struct prom_server **s, const char *addr_port, const char *job);

/*
 * Serve /metrics from an internal thread, 503 until the first
 * prom__publish(); nothing to do without an address. 0 or -errno (said).
 */
int prom__start(struct prom_server *s);

/* At most max_series labelled series per page from now on (0: no bound; PROM_SERIES_MAX at first). */
void prom__limit(struct prom_server *s, size_t max_series);

/*
 * Render t with the findings f (judged by the caller: live, run/loops.h;
 * at the end, the run's) and make it what scrapes (and prom__save()) get
 * from now on. Returns 0 or -errno.
 */
int prom__publish(struct prom_server *s, const struct trace *t, const struct findings *f);

/*
 * Write the last published snapshot to path atomically, as
 * prom__write_file() does: the per-interval --prom-file. -ENODATA before
 * the first publish.
 */
int prom__save(struct prom_server *s, const char *path);

/* Stop serving (waits for scrapes in progress) and free s; NULL is fine. */
void prom__stop(struct prom_server *s);

/*
 * Render t and its findings f (the final file) to path atomically: to
 * "path.tmp.<pid>" in the same directory (mode 0644 less the umask, so
 * node_exporter can read it), renamed over path; a failure leaves the
 * previous file intact and no temporary file. As every report is written
 * (atomic_file__output()): a symlink through, a device or FIFO in place,
 * "-" to stdout. Returns 0 or -errno; the caller says what failed.
 */
int prom__write_file(const char *path, const struct trace *t, const struct findings *f,
		     const char *job);

#endif /* PROM_H */
