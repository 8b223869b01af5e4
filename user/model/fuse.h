/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The FUSE request layer as the trace saw it, per connection (the FUSE
 * device number, equal to its mount's st_dev) and opcode: ended requests
 * per requester (enum fuse_who), requests still in flight at the end,
 * latency and in-flight histograms per scope. collect/ fills it from the
 * kernel's FUSE maps, which are cumulative: each read replaces the last.
 */
#ifndef MODEL_FUSE_H
#define MODEL_FUSE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "iostorm.h"
#include "model/hist.h"

/* Opcodes the report names (include/uapi/linux/fuse.h). */
enum {
	FUSE_OP_LOOKUP = 1,
	FUSE_OP_GETATTR = 3,
	FUSE_OP_OPEN = 14,
	FUSE_OP_READ = 15,
	FUSE_OP_RELEASE = 18,
	FUSE_OP_STATX = 52,
};

struct fuse_op {
	__u16 opcode;
	struct fuse_stats st[FUSE_WHO__MAX];		/* ended requests */
	__u64 inflight_end[FUSE_WHO__MAX];		/* in flight at the end */
	struct hist *hists[FUSE_H__MAX][FUSE_SCOPE__MAX];	/* NULL: empty */
};

struct fuse_conn {
	__u32 conn;		/* major << 20 | minor */
	struct fuse_op *ops;	/* by opcode */
	size_t nr_ops;
};

struct fuse_layer {
	struct fuse_conn *conns;	/* busiest for the target first */
	size_t nr_conns;
};

/* Bits of enum fuse_who to sum over. */
#define FUSE_WHO_BIT(w)		(1U << (w))
#define FUSE_WHO_ALL		(FUSE_WHO_BIT(FUSE_WHO__MAX) - 1)
#define FUSE_WHO_TARGET_BIT	FUSE_WHO_BIT(FUSE_WHO_TARGET)

void fuse_layer__free(struct fuse_layer *l);
/* conn's record, added empty when new; NULL when out of memory. */
struct fuse_conn *fuse_layer__conn(struct fuse_layer *l, __u32 conn);
struct fuse_conn *fuse_layer__find(const struct fuse_layer *l, __u32 conn);
/* opcode's record in c, added zeroed when new; NULL when out of memory. */
struct fuse_op *fuse_conn__op(struct fuse_conn *c, __u16 opcode);
const struct fuse_op *fuse_conn__find(const struct fuse_conn *c, __u16 opcode);
/* Zero every count, keeping records and histograms: the maps are cumulative. */
void fuse_layer__clear_counts(struct fuse_layer *l);
/* Connections by the target's requests, then all, then number; ops by opcode. */
void fuse_layer__sort(struct fuse_layer *l);
void fuse_stats__add(struct fuse_stats *dst, const struct fuse_stats *src);
/* Sum one opcode's (or, op NULL, every opcode's) counts over requesters. */
void fuse_op__sum(const struct fuse_op *op, unsigned int who, struct fuse_stats *out);
void fuse_conn__sum(const struct fuse_conn *c, unsigned int who, struct fuse_stats *out);
/* Requests of c (every opcode) in flight at the end, of who. */
__u64 fuse_conn__inflight_end(const struct fuse_conn *c, unsigned int who);
/* A histogram of op, NULL when empty. */
const struct hist *fuse_op__hist(const struct fuse_op *op, int id, int scope);
/* Did the layer see any request? */
bool fuse_layer__active(const struct fuse_layer *l);
/* "LOOKUP", "READ", ...; "OP_123" for an opcode without a name (buf). */
const char *fuse__op_name(__u16 opcode, char *buf, size_t len);

#endif /* MODEL_FUSE_H */
