// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The FUSE request layer per connection and opcode, see fuse.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/fuse.h"

static void op_free(struct fuse_op *op)
{
	for (int h = 0; h < FUSE_H__MAX; h++)
		for (int s = 0; s < FUSE_SCOPE__MAX; s++)
			free(op->hists[h][s]);
}

void fuse_layer__free(struct fuse_layer *l)
{
	for (size_t i = 0; i < l->nr_conns; i++) {
		for (size_t k = 0; k < l->conns[i].nr_ops; k++)
			op_free(&l->conns[i].ops[k]);
		free(l->conns[i].ops);
	}
	free(l->conns);
	l->conns = NULL;
	l->nr_conns = 0;
}

struct fuse_conn *fuse_layer__find(const struct fuse_layer *l, __u32 conn)
{
	for (size_t i = 0; i < l->nr_conns; i++)
		if (l->conns[i].conn == conn)
			return &l->conns[i];
	return NULL;
}

struct fuse_conn *fuse_layer__conn(struct fuse_layer *l, __u32 conn)
{
	struct fuse_conn *c = fuse_layer__find(l, conn), *v;

	if (c)
		return c;
	v = realloc(l->conns, (l->nr_conns + 1) * sizeof(*v));
	if (!v)
		return NULL;
	l->conns = v;
	c = &l->conns[l->nr_conns++];
	memset(c, 0, sizeof(*c));
	c->conn = conn;
	return c;
}

const struct fuse_op *fuse_conn__find(const struct fuse_conn *c, __u16 opcode)
{
	for (size_t i = 0; i < c->nr_ops; i++)
		if (c->ops[i].opcode == opcode)
			return &c->ops[i];
	return NULL;
}

struct fuse_op *fuse_conn__op(struct fuse_conn *c, __u16 opcode)
{
	struct fuse_op *op = (struct fuse_op *)fuse_conn__find(c, opcode), *v;

	if (op)
		return op;
	v = realloc(c->ops, (c->nr_ops + 1) * sizeof(*v));
	if (!v)
		return NULL;
	c->ops = v;
	op = &c->ops[c->nr_ops++];
	memset(op, 0, sizeof(*op));
	op->opcode = opcode;
	return op;
}

void fuse_layer__clear_counts(struct fuse_layer *l)
{
	for (size_t i = 0; i < l->nr_conns; i++)
		for (size_t k = 0; k < l->conns[i].nr_ops; k++) {
			struct fuse_op *op = &l->conns[i].ops[k];

			memset(op->st, 0, sizeof(op->st));
			memset(op->inflight_end, 0, sizeof(op->inflight_end));
		}
}

void fuse_stats__add(struct fuse_stats *dst, const struct fuse_stats *src)
{
	dst->reqs += src->reqs;
	dst->in_bytes += src->in_bytes;
	dst->out_bytes += src->out_bytes;
	dst->total_ns += src->total_ns;
	dst->errors += src->errors;
	dst->background += src->background;
	dst->inflight_sum += src->inflight_sum;
}

void fuse_op__sum(const struct fuse_op *op, unsigned int who, struct fuse_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!op)
		return;
	for (int w = 0; w < FUSE_WHO__MAX; w++)
		if (who & FUSE_WHO_BIT(w))
			fuse_stats__add(out, &op->st[w]);
}

void fuse_conn__sum(const struct fuse_conn *c, unsigned int who, struct fuse_stats *out)
{
	struct fuse_stats s;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < c->nr_ops; i++) {
		fuse_op__sum(&c->ops[i], who, &s);
		fuse_stats__add(out, &s);
	}
}

__u64 fuse_conn__inflight_end(const struct fuse_conn *c, unsigned int who)
{
	__u64 n = 0;

	for (size_t i = 0; i < c->nr_ops; i++)
		for (int w = 0; w < FUSE_WHO__MAX; w++)
			if (who & FUSE_WHO_BIT(w))
				n += c->ops[i].inflight_end[w];
	return n;
}

const struct hist *fuse_op__hist(const struct fuse_op *op, int id, int scope)
{
	if (!op || id < 0 || id >= FUSE_H__MAX || scope < 0 || scope >= FUSE_SCOPE__MAX)
		return NULL;
	return op->hists[id][scope];
}

bool fuse_layer__active(const struct fuse_layer *l)
{
	for (size_t i = 0; i < l->nr_conns; i++) {
		struct fuse_stats s;

		fuse_conn__sum(&l->conns[i], FUSE_WHO_ALL, &s);
		if (s.reqs || fuse_conn__inflight_end(&l->conns[i], FUSE_WHO_ALL))
			return true;
	}
	return false;
}

static __u64 conn_reqs(const struct fuse_conn *c, unsigned int who)
{
	struct fuse_stats s;

	fuse_conn__sum(c, who, &s);
	return s.reqs;
}

static int conn_cmp(const void *pa, const void *pb)
{
	const struct fuse_conn *a = pa, *b = pb;
	__u64 ta = conn_reqs(a, FUSE_WHO_TARGET_BIT), tb = conn_reqs(b, FUSE_WHO_TARGET_BIT);
	__u64 aa = conn_reqs(a, FUSE_WHO_ALL), ab = conn_reqs(b, FUSE_WHO_ALL);

	if (ta != tb)
		return ta > tb ? -1 : 1;
	if (aa != ab)
		return aa > ab ? -1 : 1;
	return a->conn < b->conn ? -1 : a->conn > b->conn;
}

static int op_cmp(const void *pa, const void *pb)
{
	const struct fuse_op *a = pa, *b = pb;

	return (int)a->opcode - (int)b->opcode;
}

void fuse_layer__sort(struct fuse_layer *l)
{
	for (size_t i = 0; i < l->nr_conns; i++)
		if (l->conns[i].nr_ops > 1)
			qsort(l->conns[i].ops, l->conns[i].nr_ops, sizeof(struct fuse_op), op_cmp);
	if (l->nr_conns > 1)
		qsort(l->conns, l->nr_conns, sizeof(*l->conns), conn_cmp);
}

static const char *const op_names[] = {
	[1] = "LOOKUP", [2] = "FORGET", [3] = "GETATTR", [4] = "SETATTR",
	[5] = "READLINK", [6] = "SYMLINK", [8] = "MKNOD", [9] = "MKDIR",
	[10] = "UNLINK", [11] = "RMDIR", [12] = "RENAME", [13] = "LINK",
	[14] = "OPEN", [15] = "READ", [16] = "WRITE", [17] = "STATFS",
	[18] = "RELEASE", [20] = "FSYNC", [21] = "SETXATTR", [22] = "GETXATTR",
	[23] = "LISTXATTR", [24] = "REMOVEXATTR", [25] = "FLUSH", [26] = "INIT",
	[27] = "OPENDIR", [28] = "READDIR", [29] = "RELEASEDIR", [30] = "FSYNCDIR",
	[31] = "GETLK", [32] = "SETLK", [33] = "SETLKW", [34] = "ACCESS",
	[35] = "CREATE", [36] = "INTERRUPT", [37] = "BMAP", [38] = "DESTROY",
	[39] = "IOCTL", [40] = "POLL", [41] = "NOTIFY_REPLY", [42] = "BATCH_FORGET",
	[43] = "FALLOCATE", [44] = "READDIRPLUS", [45] = "RENAME2", [46] = "LSEEK",
	[47] = "COPY_FILE_RANGE", [48] = "SETUPMAPPING", [49] = "REMOVEMAPPING",
	[50] = "SYNCFS", [51] = "TMPFILE", [52] = "STATX",
};

const char *fuse__op_name(__u16 opcode, char *buf, size_t len)
{
	if (opcode < sizeof(op_names) / sizeof(op_names[0]) && op_names[opcode])
		return op_names[opcode];
	snprintf(buf, len, "OP_%u", opcode);
	return buf;
}
