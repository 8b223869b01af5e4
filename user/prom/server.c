// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * /metrics over HTTP (libmicrohttpd, --listen) and the snapshot it serves:
 * the caller's thread renders and swaps the text in under a lock
 * (prom__publish()), the server thread copies it out per scrape, and
 * prom__save() writes it for --prom-file. See prom.h and docs/metrics.md.
 */
#include <errno.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

struct prom_server {
	struct MHD_Daemon *mhd;	/* NULL: no HTTP, snapshots for prom__save() only */
	pthread_mutex_t lock;	/* guards text and len against the server thread */
	char *text;		/* what a scrape gets; NULL before the first publish */
	size_t len;
	char *job;
	struct thresholds th;		/* for the live findings */
	struct prom_findings findings;	/* judged again when stale */
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

/* The snapshot, copied under the lock: publish may free it any time after. */
static mhd_result serve_metrics(struct prom_server *s, struct MHD_Connection *c)
{
	char *body = NULL;
	size_t len = 0;

	pthread_mutex_lock(&s->lock);
	if (s->text) {
		body = malloc(s->len ? s->len : 1);
		if (body) {
			memcpy(body, s->text, s->len);
			len = s->len;
		}
	}
	pthread_mutex_unlock(&s->lock);
	if (!body)
		return respond_text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
				    "iostorm: no metrics yet\n");
	return respond(c, MHD_HTTP_OK, body, len, CONTENT_TYPE);
}

/* GET or HEAD of /metrics; / says where the metrics are; the rest is 404. */
static mhd_result handle(void *cls, struct MHD_Connection *c, const char *url,
			 const char *method, const char *version, const char *upload,
			 size_t *upload_len, void **req)
{
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return respond_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
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
	    bind(fd, (const struct sockaddr *)sa, len) || listen(fd, 64)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/*
 * The server thread inherits the signal mask: with every signal blocked
 * there, SIGINT and SIGTERM reach the main loop's handler.
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
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned int)32,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)10,
			     MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return d;
}

int prom__serve(struct prom_server **out, const char *addr_port, const char *job,
		const struct thresholds *th)
{
	struct sockaddr_storage sa;
	struct prom_server *s;
	socklen_t len;
	int fd, err;

	*out = NULL;
	if (addr_port && netaddr__parse(addr_port, &sa, &len)) {
		pr_err("cannot listen on '%s': expected IPV4:PORT or "
			"[IPV6]:PORT", addr_port);
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s || (job && *job && !(s->job = strdup(job)))) {
		err = -ENOMEM;
		pr_err("out of memory");
		goto out_free_server;
	}
	s->th = *th;
	pthread_mutex_init(&s->lock, NULL);
	if (!addr_port)
		goto out_done;
	fd = listen_on(&sa, len);
	if (fd < 0) {
		err = fd;
		pr_err("cannot listen on '%s': %s", addr_port,
			strerror(-err));
		goto out_destroy_lock;
	}
	errno = 0;
	s->mhd = start_daemon(s, fd);
	if (!s->mhd) {
		err = errno ? -errno : -EIO;
		pr_err("cannot serve metrics on '%s': %s", addr_port,
			strerror(-err));
		goto out_close_fd;
	}
out_done:
	*out = s;
	return 0;

out_close_fd:
	close(fd);
out_destroy_lock:
	pthread_mutex_destroy(&s->lock);
out_free_server:
	if (s)
		free(s->job);
	free(s);
	return err;
}

int prom__publish(struct prom_server *s, const struct trace *t, const struct findings *f)
{
	char *text = NULL, *old;
	size_t len = 0;
	FILE *out;
	int err = 0;

	if (!f && prom_findings__stale(&s->findings))
		err = prom_findings__judge(&s->findings, t, &s->th);
	if (err)
		return err;
	out = open_memstream(&text, &len);
	if (!out)
		return -ENOMEM;
	err = prom__render(out, t, f ? f : &s->findings.f, s->job);
	if (fclose(out) && !err)
		err = -ENOMEM;
	if (err) {
		free(text);
		return err;
	}
	pthread_mutex_lock(&s->lock);
	old = s->text;
	s->text = text;
	s->len = len;
	pthread_mutex_unlock(&s->lock);
	free(old);
	return 0;
}

/* Only the caller's thread changes text: reading it needs no lock. */
static int fill_snapshot(FILE *f, const void *arg)
{
	const struct prom_server *s = arg;

	return fwrite(s->text, 1, s->len, f) == s->len ? 0 : -EIO;
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
	pthread_mutex_destroy(&s->lock);
	free(s->text);
	free(s->job);
	free(s);
}
