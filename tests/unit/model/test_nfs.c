// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The NFS layer's model (model/nfs.c, model/nfs_layers.c): RPC clients
 * joined to their mounts, calls per file by procedure, latency by layer;
 * a mount's options; code and data on a dataset mounted in a system tree;
 * a layer absent from the node said missing only beside one of its mounts.
 */
#include <stdlib.h>
#include <string.h>
#include "model/kind.h"
#include "model/nfs_layers.h"
#include "model/trace.h"
#include "fixture.h"
#include "unit.h"

static const struct nfs_rpc *rpc_of(const struct trace *t, __u32 clid)
{
	return nfs_layer__find(&t->nfs, clid);
}

TEST(nfs_layers_storm)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct nfs_layers nl;
	char buf[64];

	REQUIRE(t && !fixture__nfs_trace(t, "/mnt/nfs", true));
	/* The mount's client first, then the NFS client's own. */
	REQUIRE(t->nfs.nr_rpcs == 2);
	CHECK_EQ_U64(t->nfs.rpcs[0].clid, 7);
	CHECK_EQ_U64(t->nfs.rpcs[1].clid, 3);
	nfs_layers__measure(t, rpc_of(t, 7), &nl);
	REQUIRE(nl.mount);
	CHECK_STR(nl.mount->point, "/mnt/nfs");
	CHECK_STR(nl.server, "10.0.0.5");
	CHECK_STR(nl.version, "4.2");
	CHECK_EQ_U64(nl.rsize, 524288);
	CHECK_EQ_U64(nl.nconnect, 1);		/* not in the options: one connection */
	CHECK(!nl.nocto && !nl.actimeo);
	CHECK_EQ_U64(nl.sys.files_opened, FIXTURE_NFS_FILES);
	CHECK_EQ_U64(nl.sys.reads, 2 * FIXTURE_NFS_FILES);
	CHECK_EQ_U64(nl.calls, 4 * FIXTURE_NFS_FILES + FIXTURE_NFS_FILES / 10);
	CHECK_NEAR(nl.round_trips, 4.1, 1e-9);
	CHECK_EQ_INT(nl.nr_per_file, 5);
	CHECK_STR(nl.per_file[0].name, "CLOSE");
	CHECK_STR(nl.per_file[3].name, "READ");
	CHECK_NEAR(nl.per_file[3].calls, 1.0, 1e-9);
	CHECK_STR(nl.per_file[4].name, "GETATTR");
	CHECK_NEAR(nl.per_file[4].calls, 0.1, 1e-9);
	CHECK_NEAR(nl.rtt_mean_ns, 1100000, 1e-6);
	CHECK_NEAR(nl.total_mean_ns, 1300000, 1e-6);
	CHECK_EQ_U64(nl.read_calls, FIXTURE_NFS_FILES);
	CHECK_EQ_U64(nl.read.count, FIXTURE_NFS_FILES);
	CHECK_EQ_U64(nl.lookup.count, FIXTURE_NFS_FILES);
	CHECK_EQ_U64(nl.open.count, FIXTURE_NFS_FILES);
	CHECK_EQ_U64(nl.getattr.count, FIXTURE_NFS_FILES / 10);
	CHECK_EQ_U64(nl.access.count, 0);
	CHECK(nl.read.p50 >= 1300000 && nl.read.p50 <= 1300000 * 17 / 16);
	CHECK_EQ_U64(nl.inflight_end, 2);
	CHECK_EQ_U64(nl.unattributed, 0);
	CHECK_EQ_U64(nl.client_calls, 10);	/* its parent's SEQUENCEs */
	CHECK_STR(nfs_layers__fs(&nl, buf, sizeof(buf)), "nfs4 10.0.0.5:/data");
	/* The NFS client's own RPC client: no mount, its version and server all the same. */
	nfs_layers__measure(t, rpc_of(t, 3), &nl);
	CHECK(!nl.mount);
	CHECK_EQ_U64(nl.calls, 0);
	CHECK_NEAR(nl.round_trips, -1, 0);
	CHECK_STR(nfs_layers__fs(&nl, buf, sizeof(buf)), "nfs 10.0.0.5 (v4.2)");
	fixture__free(t);
	free(t);
}

/* A client no NFS event named: its server's one NFS mount, by addr= and vers=. */
TEST(nfs_mount_by_server)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct nfs_rpc *r;
	char buf[16];

	REQUIRE(t && !fixture__nfs_trace(t, "/mnt/nfs", true));
	r = nfs_layer__find(&t->nfs, 7);
	REQUIRE(r);
	r->info.role = NFS_ROLE_UNKNOWN;
	r->info.dev = 0;
	REQUIRE(nfs_layers__mount(t, r) && nfs_layers__mount(t, r)->dev == FIXTURE_NFS_DEV);
	CHECK_STR(nfs_rpc__version(r, buf, sizeof(buf)), "4");	/* the minor: the mount's */
	r->info.vers = 3;		/* the mount is 4.2: not this one */
	CHECK(!nfs_layers__mount(t, r));
	r->info.vers = 4;
	r->info.addr[7] = 6;		/* 10.0.0.6 */
	CHECK(!nfs_layers__mount(t, r));
	r->known = false;
	CHECK_STR(nfs_rpc__server(r, buf, sizeof(buf)), "?");
	CHECK_STR(nfs_rpc__version(r, buf, sizeof(buf)), "?");
	fixture__free(t);
	free(t);
}

TEST(nfs_sums_and_names)
{
	struct nfs_layer l = {};
	struct nfs_rpc *r = nfs_layer__rpc(&l, 9);
	struct nfs_op *op;
	struct nfs_stats s;
	char buf[16];

	REQUIRE(r);
	op = nfs_rpc__op(r, 12);
	REQUIRE(op);
	op->st[NFS_WHO_TARGET] = (struct nfs_stats){ .calls = 3, .trans = 4, .rtt_ns = 30 };
	op->st[NFS_WHO_UNTRACKED] = (struct nfs_stats){ .calls = 1, .trans = 1, .rtt_ns = 5 };
	op->inflight_end[NFS_WHO_CLIENT] = 2;
	CHECK_STR(nfs_op__name(op, buf, sizeof(buf)), "PROC_12");
	nfs_op__sum(op, NFS_WHO_ALL, &s);
	CHECK_EQ_U64(s.calls, 4);
	CHECK_EQ_U64(s.trans, 5);
	CHECK_EQ_U64(s.rtt_ns, 35);
	nfs_rpc__sum(r, NFS_WHO_TARGET_BIT, &s);
	CHECK_EQ_U64(s.calls, 3);
	CHECK_EQ_U64(nfs_rpc__inflight_end(r, NFS_WHO_ALL), 2);
	CHECK(nfs_layer__active(&l));
	CHECK(nfs_rpc__op(r, 12) == op);
	CHECK(!nfs_rpc__named(r, "READ"));
	/* The maps are cumulative: counts go, records and names stay. */
	snprintf(op->name, sizeof(op->name), "READ_PLUS");
	nfs_layer__clear_counts(&l);
	CHECK(!nfs_layer__active(&l));
	CHECK(nfs_rpc__named(r, "READ_PLUS") == op);
	CHECK_STR(nfs__role_name(NFS_ROLE_CLIENT), "client");
	CHECK_STR(nfs__role_name(NFS_ROLE_MOUNT), "mount");
	CHECK_STR(nfs__role_name(99), "unknown");
	nfs_layer__free(&l);
}

TEST(mount_options)
{
	struct mount_rec r;
	char v[32];

	REQUIRE(!mounts__parse_line("44 28 0:37 / /mnt/nfs rw,relatime - nfs4 127.0.0.1:/ "
				    "rw,vers=4.2,rsize=524288,nocto,nconnect=4,addr=127.0.0.1\n",
				    &r));
	CHECK(mount__is_nfs(&r));
	CHECK_STR(mount__option(&r, "vers", v, sizeof(v)), "4.2");
	CHECK_STR(mount__option(&r, "nconnect", v, sizeof(v)), "4");
	CHECK_STR(mount__option(&r, "addr", v, sizeof(v)), "127.0.0.1");
	CHECK_STR(mount__option(&r, "nocto", v, sizeof(v)), "");
	CHECK(!mount__option(&r, "noac", v, sizeof(v)));
	CHECK(!mount__option(&r, "rsiz", v, sizeof(v)));	/* a prefix is not the name */
	CHECK(!mount__option(&r, "wsize", v, sizeof(v)));
	CHECK_STR(mount__option(&r, "rsize", v, 4), "524");	/* cut to the buffer */
	mounts__rec_free(&r);
	/* A line without super options (older kernels' tests): none. */
	REQUIRE(!mounts__parse_line("36 35 98:0 / /data rw - ext4 /dev/sda1\n", &r));
	CHECK(!mount__option(&r, "rw", v, sizeof(v)));
	CHECK(!mount__is_nfs(&r));
	mounts__rec_free(&r);
}

/*
 * A dataset on its own file system mounted inside a system tree (/run/data)
 * is data; the tree's own files, a file bind-mounted (/etc/hosts) and a
 * kernel file system mounted inside a tree (/sys/fs/cgroup) stay code.
 */
TEST(kind_mount_inside_tree)
{
	CHECK_EQ_INT(kind__why("/run/data/train/x.jpg", 0, "/run/data", "nfs4"), KIND_DATA);
	CHECK_EQ_INT(kind__why("/run/data/train/x.jpg", 0, "/run/data", "ext4"), KIND_DATA);
	CHECK_EQ_INT(kind__why("/run/data/train/x.jpg", 0, "/run", "tmpfs"), KIND_TREE);
	CHECK_EQ_INT(kind__why("/run/data/train/x.jpg", 0, NULL, NULL), KIND_TREE);
	CHECK_EQ_INT(kind__why("/run/user/1000/x", 0, "/run/user/1000", "tmpfs"), KIND_TREE);
	CHECK_EQ_INT(kind__why("/sys/fs/cgroup/cpu.max", 0, "/sys/fs/cgroup", "cgroup2"),
		     KIND_TREE);
	CHECK_EQ_INT(kind__why("/etc/hosts", 0, "/etc/hosts", "ext4"), KIND_TREE);
	CHECK_EQ_INT(kind__why("/run/datax/y", 0, "/run/data", "nfs4"), KIND_TREE);
	/* Its own kind still counts: a module on the dataset's mount is code. */
	CHECK_EQ_INT(kind__why("/run/data/lib/mod.py", 0, "/run/data", "nfs4"), KIND_NAME);
	CHECK_EQ_INT(kind__why("/run/data/x.bin", FILE_F_EXEC, "/run/data", "nfs4"), KIND_EXEC);
	CHECK_EQ_INT(kind__why("/w/venv/site-packages/a.txt", 0, NULL, NULL), KIND_PYTHON);
	CHECK_STR(kind__why_key(KIND_TREE), "tree");
	CHECK_STR(kind__why_key(KIND_SCRIPT), "script");
}

/* The store classifies by the file's mount: a storm under /run on NFS is data. */
TEST(nfs_storm_under_run_is_data)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct file_totals tot;

	REQUIRE(t && !fixture__nfs_trace(t, "/run/nfs", true));
	trace__file_totals(&t->store, &tot);
	CHECK_EQ_U64(tot.files, FIXTURE_NFS_FILES);
	CHECK_EQ_U64(tot.code_files, 0);
	fixture__free(t);
	/* Without its mount known, the same files are set aside, and why is said. */
	REQUIRE(!fixture__nfs_trace(t, "/run/nfs", false));
	trace__file_totals(&t->store, &tot);
	CHECK_EQ_U64(tot.code_files, FIXTURE_NFS_FILES);
	CHECK_EQ_U64(tot.code_why_files[KIND_TREE], FIXTURE_NFS_FILES);
	CHECK_EQ_U64(tot.code_why_reads[KIND_TREE], 2 * FIXTURE_NFS_FILES);
	fixture__free(t);
	free(t);
}

/* No NFS client loaded: not said missing, unless an NFS mount turned up since. */
TEST(nfs_absent_layer)
{
	struct trace *t = calloc(1, sizeof(*t));

	REQUIRE(t && !fixture__nfs_trace(t, "/mnt/nfs", true));
	t->kernel.layers[KL_NFS].measured = false;
	t->kernel.layers[KL_NFS].absent = true;
	CHECK(trace__layer_missing(t, KL_NFS));		/* the trace has an NFS mount */
	mounts__free(&t->mounts);
	CHECK(!trace__layer_missing(t, KL_NFS));
	t->kernel.layers[KL_NFS].absent = false;	/* the kernel lacks its tracepoints */
	CHECK(trace__layer_missing(t, KL_NFS));
	CHECK(!trace__layer_missing(t, KL_FUSE));
	fixture__free(t);
	free(t);
}
