// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * /metrics over HTTP (libmicrohttpd, --listen) and the snapshot it serves:
 * the caller's thread renders the text and swaps in one response object
 * under a lock (prom__publish()); every scrape queues that same response,
 * which libmicrohttpd counts references to, so a thousand scrapes cost one
 * copy of the text. prom__save() writes it for --prom-file. It prints
 * what it is given: the live findings are judged in run/ (run/loops.h). See
 * prom.h and docs/metrics.md, which says why each limit below is what it is.
 */
#include <errno.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/un.h>
#include "lib/atomic_file.h"
#include "lib/log.h"
#include "lib/netaddr.h"
#include "prom/prom_int.h"

#if MHD_VERSION >= 0x00097002
typedef enum MHD_Result mhd_result;
#else
typedef int mhd_result;
#endif

#define CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"

/*
 * The limits against idle, slow and reconnecting clients (docs/metrics.md,
 * "Under pressure"). A fleet scrapes a node from 1 to 4 addresses (an HA
 * pair of Prometheus servers, an agent), each with one connection.
 */
#define CONN_MAX	512		/* far above any fleet's scrapers */
#define CONN_PER_IP	16		/* one address cannot take the rest */
#define HEADER_TIMEOUT_S 2		/* idle before a request is complete */
#define KEEPALIVE_S	75		/* idle between scrapes: a 60 s interval fits */
#define CONN_MEMORY	(16 * 1024)	/* per connection: headers are ~300 bytes */
#define LISTEN_BACKLOG	1024		/* a reconnect storm waits, not refused */
#define FDS_SPARE	256		/* iostorm's own: BPF maps, links, files */

struct prom_server {
	struct MHD_Daemon *mhd;	/* NULL: no HTTP, snapshots for prom__save() only */
	pthread_mutex_t lock;	/* guards resp against the server thread */
	struct MHD_Response *resp;	/* 200 with text; NULL before the first publish */
	const char *text;	/* resp's body (resp frees it): the caller's thread only */
	size_t len;
	char *job;
	int fd;			/* listening, until the daemon owns it; else -1 */
	char *unix_path;	/* a Unix socket's, removed at the stop */
	const char *addr;	/* as given, for messages */
	size_t max_series;	/* prom__limit() */
	__u64 dropped;		/* series left out of every page so far */
};

static mhd_result respond(struct MHD_Connection *c, unsigned int status, char *body,
			  size_t len, const char *type)
{
	struct MHD_Response *r;
	mhd_result ret;

	r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static mhd_result respond_text(struct MHD_Connection *c, unsigned int status,
			       const char *text)
{
	char *body = strdup(text);

	return body ? respond(c, status, body, strlen(body), "text/plain; charset=utf-8") :
		      MHD_NO;
}

/*
 * The current snapshot's response, queued under the lock: queueing takes a
 * reference, so a publish may drop ours any time after.
 */
static mhd_result serve_metrics(struct prom_server *s, struct MHD_Connection *c)
{
	mhd_result ret = MHD_NO;
	bool none;

	pthread_mutex_lock(&s->lock);
	none = !s->resp;
	if (s->resp)
		ret = MHD_queue_response(c, MHD_HTTP_OK, s->resp);
	pthread_mutex_unlock(&s->lock);
	if (none)
		return respond_text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
				    "iostorm: no metrics yet\n");
	return ret;
}

/*
 * GET or HEAD of /metrics; / says where the metrics are; the rest is 404.
 * libmicrohttpd calls this once the headers are in, then once per piece of
 * body and once more at the end; it closes a connection whose response is
 * queued on the first call (the body might be unread), so a GET is answered
 * on a later call: that keeps the connection alive for the next scrape.
 */
static mhd_result handle(void *cls, struct MHD_Connection *c, const char *url,
			 const char *method, const char *version, const char *upload,
			 size_t *upload_len, void **req)
{
	static int seen;	/* any non-NULL marker: the headers were seen */

	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return respond_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	if (!*req) {
		*req = &seen;
		/* A whole request came: a scraper; keep it between scrapes. */
		MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT,
					  (unsigned int)KEEPALIVE_S);
		return MHD_YES;
	}
	if (*upload_len) {
		*upload_len = 0;	/* a GET's body means nothing: dropped */
		return MHD_YES;
	}
	if (!strcmp(url, "/metrics"))
		return serve_metrics(cls, c);
	if (!strcmp(url, "/"))
		return respond_text(c, MHD_HTTP_OK, "iostorm: metrics are at /metrics\n");
	return respond_text(c, MHD_HTTP_NOT_FOUND, "iostorm: not found; try /metrics\n");
}

/* A listening socket of our own: bind errors come back with their errno. */
static int listen_on(const struct sockaddr_storage *sa, socklen_t len)
{
	int fd, one = 1;

	fd = socket(sa->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (const struct sockaddr *)sa, len) || listen(fd, LISTEN_BACKLOG)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/*
 * Connections to accept: CONN_MAX when the open-file limit allows it, which
 * is raised up to the hard limit if need be (the soft one is often 1024);
 * else what fits beside iostorm's own FDS_SPARE.
 */
static unsigned int conn_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 64;
	if (rl.rlim_cur < CONN_MAX + FDS_SPARE && rl.rlim_max > rl.rlim_cur) {
		rl.rlim_cur = rl.rlim_max < CONN_MAX + FDS_SPARE ? rl.rlim_max :
								    CONN_MAX + FDS_SPARE;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur >= CONN_MAX + FDS_SPARE)
		return CONN_MAX;
	return rl.rlim_cur > FDS_SPARE + 16 ? rl.rlim_cur - FDS_SPARE : 16;
}

/*
 * One internal thread polls every connection (epoll where it exists), so a
 * slow client delays no other: nothing blocks on a socket. It inherits the
 * signal mask: with every signal blocked there, SIGINT and SIGTERM reach
 * the main loop's handler.
 */
static struct MHD_Daemon *start_daemon(struct prom_server *s, int fd)
{
	sigset_t all, old;
	struct MHD_Daemon *d;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO, 0, NULL, NULL,
			     handle, s,
			     MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_CONNECTION_LIMIT, conn_limit(),
			     MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)CONN_PER_IP,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)HEADER_TIMEOUT_S,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
			     MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return d;
}

/*
 * A Unix socket at path: one left by an iostorm that was killed is
 * replaced (a socket only: any other file is an error). Its mode is the
 * umask's: the directory decides who may connect.
 */
static int listen_unix(const char *path)
{
	struct sockaddr_storage ss = {};
	struct sockaddr_un *un = (struct sockaddr_un *)&ss;
	struct stat st;

	if (!*path || strlen(path) >= sizeof(un->sun_path))
		return -ENAMETOOLONG;
	un->sun_family = AF_UNIX;
	memcpy(un->sun_path, path, strlen(path) + 1);
	if (!lstat(path, &st) && S_ISSOCK(st.st_mode))
		unlink(path);
	return listen_on(&ss, sizeof(*un));
}

/* The listening socket of addr (unix:PATH or IP:PORT): a fd or -errno; says what failed. */
static int listen_addr(struct prom_server *s, const char *addr)
{
	struct sockaddr_storage sa;
	socklen_t len;
	int fd;

	if (!strncmp(addr, PROM_UNIX_PREFIX, strlen(PROM_UNIX_PREFIX))) {
		s->unix_path = strdup(addr + strlen(PROM_UNIX_PREFIX));
		if (!s->unix_path) {
			pr_err("out of memory");
			return -ENOMEM;
		}
		fd = listen_unix(s->unix_path);
		if (fd < 0) {
			free(s->unix_path);
			s->unix_path = NULL;
		}
	} else if (netaddr__parse(addr, &sa, &len)) {
		pr_err("cannot listen on '%s': expected IPV4:PORT, [IPV6]:PORT or unix:PATH",
		       addr);
		return -EINVAL;
	} else {
		fd = listen_on(&sa, len);
	}
	if (fd < 0)
		pr_err("cannot listen on '%s': %s", addr, strerror(-fd));
	return fd;
}

int prom__serve(struct prom_server **out, const char *addr_port, const char *job)
{
	struct prom_server *s;
	int err;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s || (job && *job && !(s->job = strdup(job)))) {
		err = -ENOMEM;
		pr_err("out of memory");
		goto out_free_server;
	}
	s->fd = -1;
	s->addr = addr_port;
	s->max_series = PROM_SERIES_MAX;
	pthread_mutex_init(&s->lock, NULL);
	if (addr_port) {
		s->fd = listen_addr(s, addr_port);
		if (s->fd < 0) {
			err = s->fd;
			goto out_destroy_lock;
		}
	}
	*out = s;
	return 0;

out_destroy_lock:
	pthread_mutex_destroy(&s->lock);
out_free_server:
	if (s)
		free(s->job);
	free(s);
	return err;
}

int prom__start(struct prom_server *s)
{
	int err;

	if (!s || s->fd < 0 || s->mhd)
		return 0;
	errno = 0;
	s->mhd = start_daemon(s, s->fd);
	if (!s->mhd) {
		err = errno ? -errno : -EIO;
		pr_err("cannot serve metrics on '%s': %s", s->addr, strerror(-err));
		return err;
	}
	s->fd = -1;	/* the daemon's now */
	return 0;
}

void prom__limit(struct prom_server *s, size_t max_series)
{
	s->max_series = max_series;
}

/* text as the 200 response of /metrics; it owns text from now on, even on failure. */
static struct MHD_Response *metrics_response(char *text, size_t len)
{
	struct MHD_Response *r;

	r = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(text);
		return NULL;
	}
	if (MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, CONTENT_TYPE) != MHD_YES) {
		MHD_destroy_response(r);
		return NULL;
	}
	return r;
}

int prom__publish(struct prom_server *s, const struct trace *t, const struct findings *f)
{
	struct MHD_Response *r, *old;
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	int err;

	out = open_memstream(&text, &len);
	if (!out)
		return -ENOMEM;
	err = prom__render_page(out, t, f, s->job, s->max_series, &s->dropped);
	if (fclose(out) && !err)
		err = -ENOMEM;
	if (err) {
		free(text);
		return err;
	}
	r = metrics_response(text, len);
	if (!r)
		return -ENOMEM;
	pthread_mutex_lock(&s->lock);
	old = s->resp;
	s->resp = r;
	pthread_mutex_unlock(&s->lock);
	s->text = text;
	s->len = len;
	if (old)
		MHD_destroy_response(old);	/* freed when its last scrape is sent */
	return 0;
}

/* Only the caller's thread changes text, and resp keeps it: no lock needed. */
static int fill_snapshot(FILE *f, const void *arg)
{
	const struct prom_server *s = arg;

	errno = 0;
	if (fwrite(s->text, 1, s->len, f) == s->len)
		return 0;
	return errno ? -errno : -EIO;	/* ENOSPC must say so */
}

int prom__save(struct prom_server *s, const char *path)
{
	if (!s->text)
		return -ENODATA;
	return atomic_file__output_sync(path, false, fill_snapshot, s);
}

void prom__stop(struct prom_server *s)
{
	if (!s)
		return;
	if (s->mhd)
		MHD_stop_daemon(s->mhd);	/* closes the listening socket too */
	else if (s->fd >= 0)
		close(s->fd);
	if (s->unix_path)
		unlink(s->unix_path);
	free(s->unix_path);
	if (s->resp)
		MHD_destroy_response(s->resp);	/* frees text */
	pthread_mutex_destroy(&s->lock);
	free(s->job);
	free(s);
}
