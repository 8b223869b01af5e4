/*
 * iostorm-fusefs: a read-only FUSE file system for tests, serving a
 * generated dataset with a fixed delay per request and a tally of every
 * request it received, by opcode, so a test can check iostorm's FUSE
 * counts against the daemon's own.
 *
 *   iostorm-fusefs MOUNTPOINT --files N [--dirs D] [--size BYTES]
 *                  [--delay-us US] [--no-dtype] --tally FILE
 *
 * The dataset is MOUNTPOINT/dNNNN/fNNNNNNN.jpg, N files in D directories
 * (default N/100, at least 1), each BYTES long (default 81920), the byte
 * at offset o of inode i being (i * 31 + o) & 0xff. --no-dtype lists
 * entries without their type (DT_UNKNOWN), as some FUSE file systems do,
 * so a reader stats every entry to learn it (torchvision's ImageFolder
 * indexing a dataset). Runs in the
 * foreground until unmounted, then writes the tally, one line per opcode
 * received after INIT: "LOOKUP 123". FORGET and BATCH_FORGET are tallied
 * too, though the kernel sends them outside the request tracepoints.
 *
 * The request stream is made deterministic enough for exact counts:
 *  - entries and attributes are valid for an hour, so each path is looked
 *    up once and no GETATTR revalidates it;
 *  - files are opened direct_io: each read() is one READ request of the
 *    size asked (at most max_read), the EOF read too; no readahead, no page
 *    cache, so READ bytes equal the bytes read() returned;
 *  - noflush: close() sends no FLUSH (a read-only file has nothing to flush);
 *  - the multi-threaded loop answers requests in parallel, so a request's
 *    latency is the delay, not a queue behind other requests.
 */
#define FUSE_USE_VERSION 312
#include <errno.h>
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define OPS		64	/* opcodes tallied: 0 .. OPS-1 */
#define TIMEOUT		3600.0

static struct {
	unsigned long files, dirs, size, delay_us;
	int no_dtype;
	const char *tally;
} opt = { .size = 81920 };

static unsigned long tally[OPS];
static int counting;		/* after INIT */

static const char *const op_names[OPS] = {
	[1] = "LOOKUP", [2] = "FORGET", [3] = "GETATTR", [14] = "OPEN",
	[15] = "READ", [17] = "STATFS", [18] = "RELEASE", [22] = "GETXATTR",
	[23] = "LISTXATTR", [25] = "FLUSH", [27] = "OPENDIR", [28] = "READDIR",
	[29] = "RELEASEDIR", [34] = "ACCESS", [42] = "BATCH_FORGET",
	[44] = "READDIRPLUS", [46] = "LSEEK", [52] = "STATX",
};

/* Count one request and wait the injected delay before answering it. */
static void request(int op)
{
	struct timespec ts = {
		.tv_sec = opt.delay_us / 1000000,
		.tv_nsec = opt.delay_us % 1000000 * 1000,
	};

	if (__atomic_load_n(&counting, __ATOMIC_RELAXED) && op >= 0 && op < OPS)
		__atomic_fetch_add(&tally[op], 1, __ATOMIC_RELAXED);
	if (opt.delay_us)
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

/* Inodes: 1 the root, 2 .. 1+D the directories, then the files. */
static fuse_ino_t dir_ino(unsigned long d)
{
	return 2 + d;
}

static fuse_ino_t file_ino(unsigned long d, unsigned long f)
{
	return 2 + opt.dirs + d * (opt.files / opt.dirs) + f;
}

static unsigned long per_dir(void)
{
	return opt.files / opt.dirs;
}

static int ino_is_dir(fuse_ino_t ino)
{
	return ino == 1 || (ino >= 2 && ino < 2 + opt.dirs);
}

static int ino_valid(fuse_ino_t ino)
{
	return ino >= 1 && ino < 2 + opt.dirs + opt.dirs * per_dir();
}

static void fill_stat(fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	if (ino_is_dir(ino)) {
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
	} else {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		st->st_size = opt.size;
	}
}

static void reply_entry(fuse_req_t req, fuse_ino_t ino)
{
	struct fuse_entry_param e = {
		.ino = ino, .attr_timeout = TIMEOUT, .entry_timeout = TIMEOUT,
	};

	fill_stat(ino, &e.attr);
	fuse_reply_entry(req, &e);
}

static void fs_init(void *data, struct fuse_conn_info *conn)
{
	if (opt.no_dtype)	/* READDIRPLUS entries carry the mode: no type-less listing */
		conn->want &= ~FUSE_CAP_READDIRPLUS;
	__atomic_store_n(&counting, 1, __ATOMIC_RELAXED);
}

static void fs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	unsigned long n;
	char c;

	request(1);
	if (parent == 1 && sscanf(name, "d%lu%c", &n, &c) == 1 && n < opt.dirs)
		return reply_entry(req, dir_ino(n));
	if (parent >= 2 && parent < 2 + opt.dirs &&
	    sscanf(name, "f%lu.jp%c", &n, &c) == 2 && c == 'g') {
		unsigned long d = parent - 2;

		if (n >= d * per_dir() && n < (d + 1) * per_dir())
			return reply_entry(req, file_ino(d, n - d * per_dir()));
	}
	fuse_reply_err(req, ENOENT);
}

static void fs_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	request(2);
	fuse_reply_none(req);
}

static void fs_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *f)
{
	request(42);
	fuse_reply_none(req);
}

static void fs_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;

	request(3);
	if (!ino_valid(ino))
		return (void)fuse_reply_err(req, ENOENT);
	fill_stat(ino, &st);
	fuse_reply_attr(req, &st, TIMEOUT);
}

static void fs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	request(14);
	if (ino_is_dir(ino))
		return (void)fuse_reply_err(req, EISDIR);
	fi->direct_io = 1;
	fi->noflush = 1;
	fuse_reply_open(req, fi);
}

static void fs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	char *buf;
	size_t n = 0;

	request(15);
	if (off < (off_t)opt.size)
		n = opt.size - off < size ? opt.size - off : size;
	buf = malloc(n ? n : 1);
	if (!buf)
		return (void)fuse_reply_err(req, ENOMEM);
	for (size_t i = 0; i < n; i++)
		buf[i] = (ino * 31 + off + i) & 0xff;
	fuse_reply_buf(req, buf, n);
	free(buf);
}

static void fs_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	request(18);
	fuse_reply_err(req, 0);
}

/* One directory entry at index i of ino, or 0 past the end. */
static int dir_entry(fuse_ino_t ino, unsigned long i, char *name, size_t len,
		     fuse_ino_t *child)
{
	unsigned long d = ino - 2;

	if (ino == 1 && i < opt.dirs) {
		snprintf(name, len, "d%04lu", i);
		*child = dir_ino(i);
		return 1;
	}
	if (ino != 1 && i < per_dir()) {
		snprintf(name, len, "f%07lu.jpg", d * per_dir() + i);
		*child = file_ino(d, i);
		return 1;
	}
	return 0;
}

static void readdir_common(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			   int plus)
{
	char *buf = calloc(1, size), name[32];
	size_t used = 0, n;
	fuse_ino_t child;

	if (!buf)
		return (void)fuse_reply_err(req, ENOMEM);
	for (unsigned long i = off; dir_entry(ino, i, name, sizeof(name), &child); i++) {
		struct fuse_entry_param e = {
			.ino = child, .attr_timeout = TIMEOUT, .entry_timeout = TIMEOUT,
		};

		fill_stat(child, &e.attr);
		if (opt.no_dtype && !plus)
			e.attr.st_mode = 0;	/* d_type DT_UNKNOWN: the reader must stat */
		if (plus)
			n = fuse_add_direntry_plus(req, buf + used, size - used, name, &e, i + 1);
		else
			n = fuse_add_direntry(req, buf + used, size - used, name, &e.attr, i + 1);
		if (n > size - used)
			break;
		used += n;
	}
	fuse_reply_buf(req, buf, used);
	free(buf);
}

static void fs_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	request(27);
	fuse_reply_open(req, fi);
}

static void fs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	request(28);
	readdir_common(req, ino, size, off, 0);
}

static void fs_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			   struct fuse_file_info *fi)
{
	request(44);
	readdir_common(req, ino, size, off, 1);
}

static void fs_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	request(29);
	fuse_reply_err(req, 0);
}

/* Anything else: tallied by the low-level default (ENOSYS) is not enough. */
static void fs_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	request(22);
	fuse_reply_err(req, ENODATA);
}

static void fs_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct statvfs sv = { .f_bsize = 4096, .f_namemax = 255 };

	request(17);
	fuse_reply_statfs(req, &sv);
}

static void fs_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
	request(34);
	fuse_reply_err(req, 0);
}

static const struct fuse_lowlevel_ops ops = {
	.init = fs_init,
	.lookup = fs_lookup,
	.forget = fs_forget,
	.forget_multi = fs_forget_multi,
	.getattr = fs_getattr,
	.open = fs_open,
	.read = fs_read,
	.release = fs_release,
	.opendir = fs_opendir,
	.readdir = fs_readdir,
	.readdirplus = fs_readdirplus,
	.releasedir = fs_releasedir,
	.getxattr = fs_getxattr,
	.statfs = fs_statfs,
	.access = fs_access,
};

static int write_tally(void)
{
	FILE *f = fopen(opt.tally, "w");

	if (!f) {
		perror(opt.tally);
		return -1;
	}
	for (int op = 0; op < OPS; op++)
		if (tally[op])
			fprintf(f, "%s %lu\n", op_names[op] ? op_names[op] : "OTHER", tally[op]);
	return fclose(f) ? -1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: iostorm-fusefs MOUNTPOINT --files N [--dirs D] "
		"[--size BYTES] [--delay-us US] [--no-dtype] --tally FILE\n");
	exit(2);
}

static void parse(int argc, char **argv, const char **mnt)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (a[0] != '-') {
			*mnt = a;
			continue;
		}
		if (!strcmp(a, "--no-dtype")) {
			opt.no_dtype = 1;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--files"))
			opt.files = strtoul(v, NULL, 0);
		else if (!strcmp(a, "--dirs"))
			opt.dirs = strtoul(v, NULL, 0);
		else if (!strcmp(a, "--size"))
			opt.size = strtoul(v, NULL, 0);
		else if (!strcmp(a, "--delay-us"))
			opt.delay_us = strtoul(v, NULL, 0);
		else if (!strcmp(a, "--tally"))
			opt.tally = v;
		else
			usage();
	}
	if (!*mnt || !opt.files || !opt.tally)
		usage();
	if (!opt.dirs)
		opt.dirs = opt.files / 100 ? opt.files / 100 : 1;
	if (opt.files % opt.dirs) {
		fprintf(stderr, "iostorm-fusefs: --files must be a multiple of --dirs\n");
		exit(2);
	}
}

int main(int argc, char **argv)
{
	char *fargv[] = { argv[0], "-o", "fsname=iostormfs,subtype=iostormfs,ro", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, fargv);
	struct fuse_loop_config *cfg;
	struct fuse_session *se;
	const char *mnt = NULL;
	int err = 1;

	parse(argc, argv, &mnt);
	/* A sleep of 1 ms, not 1.05: the default timer slack is 50 us. */
	prctl(PR_SET_TIMERSLACK, 1UL);
	se = fuse_session_new(&args, &ops, sizeof(ops), NULL);
	if (!se)
		return 1;
	if (fuse_set_signal_handlers(se))
		goto out_destroy_session;
	if (fuse_session_mount(se, mnt))
		goto out_remove_handlers;
	cfg = fuse_loop_cfg_create();
	if (!cfg)
		goto out_unmount;
	fuse_loop_cfg_set_max_threads(cfg, 64);
	fuse_loop_cfg_set_idle_threads(cfg, 64);
	err = fuse_session_loop_mt(se, cfg) < 0;
	fuse_loop_cfg_destroy(cfg);
	if (write_tally())
		err = 1;
out_unmount:
	fuse_session_unmount(se);
out_remove_handlers:
	fuse_remove_signal_handlers(se);
out_destroy_session:
	fuse_session_destroy(se);
	return err;
}
