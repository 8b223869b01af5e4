/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * From an fd to a struct file, from a file to its (dev, ino), and from a
 * dentry to an absolute path, all by CO-RE reads: this kernel has no
 * kprobes and no bpf_d_path() outside fentry/LSM, so the path is built by
 * walking d_parent and crossing mounts by hand.
 *
 * The path is built backwards, right to left, in the per-CPU scratch
 * buffer (struct path_scratch, maps.bpf.h); for /data/c07/img.jpg:
 *
 *   0           off       slash    end
 *   |           |         |        | | PATH_SCRATCH
 *   | free ... |/data/c07|/img.jpg|x| spare tail: a struct dir_path |
 *               ^         ^
 *               |         place_name(): the file's name, first
 *               the walk, or a directory cache hit, prepended
 *
 *   end    PATH_SCRATCH - 1, fixed: the path is [off, end); byte x is unused
 *   slash  where "/name" of the file begins: [off, slash) is the path of
 *          its directory, which the directory cache remembers
 *   off    the start so far; the walk moves it left one "/component" per
 *          dentry, and stops (FILE_F_TRUNC) rather than pass 0
 *   front  [0, NAME_LEN) also measures a *stat() name before it is placed
 *   tail   stages a dir_path on its way into dir_paths (too big for the stack)
 *
 * Every index goes through scratch_at(), whose mask keeps it inside the
 * buffer for the verifier whatever the arithmetic did.
 */
#ifndef PATH_BPF_H
#define PATH_BPF_H

#include "maps.bpf.h"

#define AT_FDCWD	-100
#define PATH_DEPTH	40		/* components walked at most */
#define DIR_PATH_TTL_NS	(2ULL * 1000000000)	/* see dir_paths below */

/*
 * One source, two builds. KREAD(p, a, b, ...) is p->a->b...:
 *
 * - the fast build (vfs.bpf.c, kernels with the kfunc bpf_rdonly_cast(),
 *   6.2 and later) turns a plain kernel address into an untrusted BTF
 *   pointer, whose fields then load directly (about 1 ns each, a fault
 *   reads 0) instead of one bpf_probe_read_kernel() call each (about
 *   30 ns). The extern is weak: on an older kernel libbpf leaves it
 *   unresolved and these programs are not loaded (collect/features.c).
 * - the compat build (vfs_compat.bpf.c, IOSTORM_CORE_READ: kernels before
 *   6.2, or IOSTORM_FALLBACKS=core_read) reads every field with
 *   BPF_CORE_READ(), as the tools for older kernels do.
 *
 * Field offsets are CO-RE relocated either way. The current task is taken
 * untrusted in both: at each pointer field of a trusted one the verifier
 * asks whether it stays trusted, which it answers by a linear search of
 * the kernel's BTF by name (up to four per load site and visit: most of
 * the load time of the programs).
 */
#ifdef IOSTORM_CORE_READ
#define KREAD(src, a, ...)	BPF_CORE_READ(src, a, ##__VA_ARGS__)
#define BTF_CAST(type, addr)	((type *)(addr))
#define CURRENT_TASK()		((struct task_struct *)bpf_get_current_task())
#else
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;
#define KREAD(src, a, ...)	(___arrow(src, a, ##__VA_ARGS__))
#define BTF_CAST(type, addr) \
	((type *)bpf_rdonly_cast((void *)(addr), bpf_core_type_id_kernel(type)))
#define CURRENT_TASK()	BTF_CAST(struct task_struct, bpf_get_current_task_btf())
#endif

/* The byte at offset off of the scratch buffer's path area. */
static __always_inline char *scratch_at(struct path_scratch *s, int off)
{
	return &s->buf[off & (PATH_SCRATCH - 1)];
}

/*
 * The address of current->files->fdt->fd[fd], or 0. A variable index into
 * a BTF pointer is not allowed, and the array's element type is a pointer,
 * not a struct: the fast build loads the element as the first field of a
 * struct rb_node cast onto it, an unsigned long (a direct load, ~1 ns, of
 * those 8 bytes only, that reads 0 on a fault; a pointer field would give
 * a pointer, which a global function may not return), where the compat
 * build calls a helper (~30 ns). An address, not a pointer, is what a
 * global function may be given.
 */
static __always_inline __u64 fd_file_addr(int fd)
{
	struct task_struct *task = CURRENT_TASK();
	struct fdtable *fdt = KREAD(task, files, fdt);
	struct file **fds;
	__u64 file = 0;

	if (fd < 0 || !fdt || (unsigned int)fd >= KREAD(fdt, max_fds))
		return 0;
	fds = KREAD(fdt, fd);
#ifdef IOSTORM_CORE_READ
	bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]);
#else
	file = BTF_CAST(struct rb_node, &fds[fd])->__rb_parent_color;
#endif
	return file;
}

/* current->files->fdt->fd[fd], or NULL. */
static __always_inline struct file *fd_file(int fd)
{
	__u64 file = fd_file_addr(fd);

	return file ? BTF_CAST(struct file, file) : NULL;
}

static __always_inline __u32 file_mode(struct file *file)
{
	return KREAD(file, f_inode, i_mode) & S_IFMT;
}

/* The key of an open file: its inode's number, device and generation. */
static __always_inline void file_key_of(struct file *file, struct file_key *key)
{
	struct inode *inode = KREAD(file, f_inode);

	key->ino = KREAD(inode, i_ino);
	key->dev = KREAD(inode, i_sb, s_dev);
	key->gen = KREAD(inode, i_generation);
}

struct walk {
	__u64 dentry;		/* addresses: BTF pointers may not live here */
	__u64 mnt;		/* struct mount */
	__u64 mnt_root;		/* 0: stay in the file system, cross no mount */
	__u64 root;		/* the task's root (dentry, struct mount): stop there */
	__u64 root_mnt;
	__u64 anchor;		/* the first mount root or root met, 0 if none */
	int anchor_off;		/* w.off when the anchor was met */
	int off;
	__u32 flags;
	__u32 slot;		/* the scratch buffer this run holds (path_claim()) */
};

/* The walk leaves the file's own mount (or stops): remember where. */
static __always_inline void walk_anchor(struct walk *w)
{
	if (!w->anchor) {
		w->anchor = w->dentry;
		w->anchor_off = w->off;
	}
}

/*
 * One step of the walk up from a dentry: prepend its name, or at a mount
 * root continue from the mountpoint in the parent mount. Returns 1 to stop:
 * at the task's root (a chroot or pivot_root's new root: the path is the
 * job's own), at the mount namespace's root, or at the file system's root.
 */
#ifdef IOSTORM_CORE_READ
static __always_inline	/* in the bounded loop: one stack frame less */
#else
static			/* bpf_loop()'s callback */
#endif
long walk_step(__u32 i, struct walk *w)
{
	struct dentry *dentry = BTF_CAST(struct dentry, w->dentry);
	struct mount *mnt = BTF_CAST(struct mount, w->mnt);
	struct dentry *parent;
	struct path_scratch *s;
	const unsigned char *name;
	__u32 len, slot;

	if (w->dentry == w->root && w->mnt == w->root_mnt) {
		walk_anchor(w);
		return 1;
	}
	if (w->dentry == w->mnt_root) {
		struct mount *up = KREAD(mnt, mnt_parent);

		walk_anchor(w);
		if ((__u64)up == w->mnt)
			return 1;		/* the root of all */
		w->dentry = (__u64)KREAD(mnt, mnt_mountpoint);
		w->mnt = (__u64)up;
		w->mnt_root = (__u64)KREAD(up, mnt.mnt_root);
		return 0;
	}
	parent = KREAD(dentry, d_parent);
	if ((__u64)parent == w->dentry) {
		walk_anchor(w);
		return 1;			/* root of an unmounted tree */
	}
	slot = w->slot;		/* a key on the stack: 6.1 takes no other */
	s = bpf_map_lookup_elem(&path_scratch, &slot);
	if (!s)
		return 1;
	name = KREAD(dentry, d_name.name);
	len = KREAD(dentry, d_name.len) & (NAME_LEN - 1);
	if (w->off < (int)len + 1) {
		w->flags |= FILE_F_TRUNC;
		return 1;
	}
	w->off -= len;
	bpf_probe_read_kernel(scratch_at(s, w->off), len, name);
	w->off -= 1;
	*scratch_at(s, w->off) = '/';
	w->dentry = (__u64)parent;
	return 0;
}

/*
 * Walk from w->dentry in w->mnt up to the root, prepending into the scratch
 * buffer before w->off; w->off becomes the start. bpf_loop() keeps the
 * verifier's work to one step, whatever PATH_DEPTH is (the compat build's
 * bounded loop is verified step by step). Sets FILE_F_TRUNC in
 * w->flags when the walk gave up (too deep or too long).
 *
 * A global function: verified once, not at each of its uses, and
 * with w->off unknown (only masked into the buffer), so the verifier
 * settles the loop in a few rounds instead of one per possible offset.
 * Weak, so that any BPF file may include this header: the link keeps one.
 */
__weak __noinline int walk_loop(struct walk *w)
{
	long n;
#ifndef IOSTORM_CORE_READ
	struct walk l;
#endif

	if (!w)
		return 0;
#ifdef IOSTORM_CORE_READ
	/*
	 * bpf_loop() came in 5.17: a bounded loop, as many steps, counted
	 * alike. In place, with no copy: the probe reads' temporaries left no
	 * room on the 512-byte stack for one.
	 */
	w->off &= PATH_SCRATCH - 1;
	for (n = 0; n < PATH_DEPTH; )
		if (walk_step(n++, w))
			break;
	if (n >= PATH_DEPTH)
		w->flags |= FILE_F_TRUNC;
#else
	l = *w;
	l.off &= PATH_SCRATCH - 1;
	n = bpf_loop(PATH_DEPTH, walk_step, &l, 0);
	if (n >= PATH_DEPTH)
		l.flags |= FILE_F_TRUNC;
	w->off = l.off;
	w->flags = l.flags;
	w->anchor = l.anchor;
	w->anchor_off = l.anchor_off;
#endif
	return 0;
}

/* The task's root, where its paths start: (dentry, struct mount). */
static __always_inline void task_root(__u64 *dentry, __u64 *mnt)
{
	struct task_struct *task = CURRENT_TASK();
	struct vfsmount *vfsmnt = KREAD(task, fs, root.mnt);

	*dentry = (__u64)KREAD(task, fs, root.dentry);
	*mnt = (__u64)container_of(vfsmnt, struct mount, mnt);
}

/*
 * Write the path of (dentry, vfsmount) as the task sees it into the scratch
 * buffer, ending just before offset end (at most PATH_SCRATCH - 1), and
 * return the offset where it starts. Adds to *flags what the walk set;
 * *anchor and *anchor_off tell where it left the file's mount.
 */
static __always_inline int path_walk(struct dentry *dentry, struct vfsmount *vfsmnt,
				     int end, __u32 *flags, __u64 *anchor, int *anchor_off,
				     __u32 slot)
{
	struct walk w = {
		.dentry = (__u64)dentry,
		.mnt = (__u64)container_of(vfsmnt, struct mount, mnt),
		.mnt_root = (__u64)KREAD(vfsmnt, mnt_root),
		.off = end,
		.slot = slot,
	};

	task_root(&w.root, &w.root_mnt);
	walk_loop(&w);
	*flags |= w.flags;
	*anchor = w.anchor;
	*anchor_off = w.anchor_off;
	return w.off;
}

/*
 * Where a dentry lies in its file system, walked before offset end of the
 * scratch buffer (left of a path being built, which stays) into anchors,
 * unless known and fresh. Once per anchor and DIR_PATH_TTL_NS: anchors are
 * mount roots and task roots, a handful. A global function, verified once
 * for its four callers; weak, as walk_loop(). The address comes through
 * memory: a BTF pointer may not be passed to a global function.
 */
__weak __noinline int anchor_note(__u64 *where, int end, __u64 now, __u32 slot)
{
	struct anchor_path *ap;
	struct path_scratch *s;
	struct dentry *d;
	__u64 dentry;
	int len;
	struct walk w = {
		.off = end & (PATH_SCRATCH - 1),
		.slot = slot,
	};

	if (!where || !*where)
		return 0;
	dentry = *where;	/* a scalar here, whatever the caller held */
	w.dentry = dentry;
	ap = bpf_map_lookup_elem(&anchors, &dentry);
	if (ap && now - ap->at < DIR_PATH_TTL_NS)
		return 0;
	s = bpf_map_lookup_elem(&path_scratch, &slot);
	if (!s)
		return 0;
	walk_loop(&w);		/* mnt_root 0: up to the file system's root */
	ap = (struct anchor_path *)&s->buf[PATH_SCRATCH];	/* spare tail */
	d = BTF_CAST(struct dentry, dentry);
	ap->dev = KREAD(d, d_sb, s_dev);
	ap->at = now;
	len = end - w.off;
	ap->len = 0;
	if (!(w.flags & FILE_F_TRUNC) && len >= 0 && len < PATH_LEN &&
	    !bpf_probe_read_kernel(ap->path, len & (PATH_LEN - 1), scratch_at(s, w.off)))
		ap->len = len ? len : 1;	/* the file system's root: "/" */
	if (len == 0)
		ap->path[0] = '/';
	bpf_map_update_elem(&anchors, &dentry, ap, BPF_ANY);
	return 0;
}

/* Record in the entry the view it was resolved in (see struct file_stats). */
static __always_inline __u32 view_store(struct file_stats *fs, __u64 anchor, int alen)
{
	struct task_struct *task = CURRENT_TASK();

	fs->root = (__u64)KREAD(task, fs, root.dentry);
	fs->root_dev = KREAD(task, fs, root.dentry, d_sb, s_dev);
	fs->mnt_ns = KREAD(task, nsproxy, mnt_ns, ns.inum);
	fs->tgid = KREAD(task, tgid);
	if (!anchor || alen < 0)
		return 0;
	fs->anchor = anchor;
	fs->anchor_len = alen;
	return FILE_F_ANCHOR;
}

/*
 * Copy scratch[off, end) into the entry, keeping the tail if it is too
 * long, and set FILE_F_PATH with the flags the resolution gathered: one
 * atomic OR per new entry.
 */
static __always_inline void path_store(struct file_stats *fs, struct path_scratch *s,
				       int off, int end, __u32 flags)
{
	int len;

	if (off >= end) {			/* "/" itself */
		off = end - 1;
		*scratch_at(s, off) = '/';
	}
	len = end - off;
	if (len > PATH_LEN - 1) {
		off = end - (PATH_LEN - 1);
		len = PATH_LEN - 1;
		flags |= FILE_F_TRUNC;
	}
	if (len < 0) {
		__sync_fetch_and_or(&fs->flags, flags);
		return;
	}
	bpf_probe_read_kernel(fs->path, len & (PATH_LEN - 1), scratch_at(s, off));
	fs->path[len & (PATH_LEN - 1)] = 0;
	fs->path_len = len;
	__sync_fetch_and_or(&fs->flags, flags | FILE_F_PATH);
}

/*
 * Directory paths already walked live in dir_paths (maps.bpf.h), keyed by
 * the directory's (dev, ino), dentry, mount and the task's root: a file's path is then its
 * directory's plus its name, one lookup instead of a walk up the tree (a
 * storm opens thousands of files in each class directory). A cache: an
 * evicted entry is walked again, and so is one older than DIR_PATH_TTL_NS,
 * so a directory renamed (or moved with an ancestor) during the trace gets
 * its new path within that time.
 */

/* Place name (a dentry's) before end, with its '/'; returns the new start. */
static __always_inline int place_name(struct path_scratch *s, struct dentry *dentry,
				      int end)
{
	__u32 len = KREAD(dentry, d_name.len) & (NAME_LEN - 1);
	int off = end - len;

	bpf_probe_read_kernel(scratch_at(s, off), len, KREAD(dentry, d_name.name));
	off -= 1;
	*scratch_at(s, off) = '/';
	return off;
}

/* Remember scratch[off, slash) as the path of the directory of key, walked at now. */
static __always_inline void dir_remember(struct dir_key *key, struct path_scratch *s,
					 int off, int slash, __u64 anchor, int alen,
					 __u64 now)
{
	struct dir_path *dp = (struct dir_path *)&s->buf[PATH_SCRATCH];	/* spare tail */
	int len = slash - off;

	if (len <= 0 || len >= PATH_LEN)
		return;
	if (bpf_probe_read_kernel(dp->path, len & (PATH_LEN - 1), scratch_at(s, off)))
		return;
	dp->len = len;
	dp->at = now;
	dp->anchor = alen >= 0 ? anchor : 0;
	dp->alen = alen;
	bpf_map_update_elem(&dir_paths, key, dp, BPF_ANY);
}

/*
 * Resolve the path of an open file, as the task sees it, into a new entry,
 * with the view and anchor that user space turns into the host's path.
 */
static __always_inline void path_of_file(struct file_stats *fs, struct file *file,
					 __u64 now, __u32 slot)
{
	struct dentry *dentry = KREAD(file, f_path.dentry), *dir = KREAD(dentry, d_parent);
	struct vfsmount *mnt = KREAD(file, f_path.mnt);
	struct dir_key key = {};
	struct path_scratch *s;
	struct dir_path *dp;
	__u32 flags = 0;
	__u64 anchor = 0, root, root_mnt;
	int off, slash, aoff = 0, end = PATH_SCRATCH - 1;

	s = bpf_map_lookup_elem(&path_scratch, &slot);
	if (!s)
		return;
	if (dentry == KREAD(mnt, mnt_root) || dentry == dir) {
		off = path_walk(dentry, mnt, end, &flags, &anchor, &aoff, slot);	/* a mount root */
		goto walked;
	}
	slash = off = place_name(s, dentry, end);
	task_root(&root, &root_mnt);
	key.ino = KREAD(dir, d_inode, i_ino);
	key.dev = KREAD(dir, d_sb, s_dev);
	key.dentry = (__u64)dir;
	key.mnt = (__u64)mnt;
	key.root = root;
	dp = bpf_map_lookup_elem(&dir_paths, &key);
	if (dp && now - dp->at < DIR_PATH_TTL_NS &&
	    dp->len < PATH_LEN && (int)dp->len <= off) {
		off -= dp->len;
		bpf_probe_read_kernel(scratch_at(s, off), dp->len & (PATH_LEN - 1), dp->path);
		flags |= view_store(fs, dp->anchor, dp->alen + (end - slash));
		goto store;
	}
	off = path_walk(dir, mnt, off, &flags, &anchor, &aoff, slot);
	if (!(flags & FILE_F_TRUNC))
		dir_remember(&key, s, off, slash, anchor, slash - aoff, now);
walked:
	flags |= view_store(fs, anchor, end - aoff);
	root = fs->root;
	anchor_note(&anchor, off, now, slot);
	anchor_note(&root, off, now, slot);
store:
	path_store(fs, s, off, end, flags);
}

/*
 * Resolve "base/rel" where rel is a user string given to a *stat() call and
 * base is the directory of dirfd or the cwd; an absolute rel starts at the
 * task's root. The result may hold "." and ".." components: user space
 * normalizes it. The anchor assumes rel crosses no mount point: user space
 * checks the host's path it gives (stat, dev:ino) before it believes it.
 */
static __always_inline void path_of_name(struct file_stats *fs, int dirfd,
					 const char *rel, __u64 now, __u32 slot)
{
	struct task_struct *task = CURRENT_TASK();
	struct path_scratch *s;
	struct dentry *dentry;
	struct vfsmount *mnt;
	__u32 flags = 0;
	__u64 anchor, root;
	int n, off, aoff, end = PATH_SCRATCH - 1;
	char first = 0;

	s = bpf_map_lookup_elem(&path_scratch, &slot);
	if (!s)
		return;
	bpf_probe_read_user(&first, 1, rel);
	/* Measure rel in the unused front of the buffer, then place it at the end. */
	n = bpf_probe_read_user_str(s->buf, NAME_LEN, rel);
	if (n <= 1)
		return;
	off = end - (n - 1);
	bpf_probe_read_user(scratch_at(s, off), (n - 1) & (NAME_LEN - 1), rel);
	anchor = (__u64)KREAD(task, fs, root.dentry);
	aoff = off;
	if (first != '/') {
		off -= 1;
		*scratch_at(s, off) = '/';
		if (dirfd == AT_FDCWD) {
			dentry = KREAD(task, fs, pwd.dentry);
			mnt = KREAD(task, fs, pwd.mnt);
		} else {
			struct file *dir = fd_file(dirfd);

			if (!dir)
				return;
			dentry = KREAD(dir, f_path.dentry);
			mnt = KREAD(dir, f_path.mnt);
		}
		off = path_walk(dentry, mnt, off, &flags, &anchor, &aoff, slot);
	}
	flags |= view_store(fs, anchor, end - aoff);
	root = fs->root;
	anchor_note(&anchor, off, now, slot);
	anchor_note(&root, off, now, slot);
	path_store(fs, s, off, end, flags | FILE_F_RELPATH);
}

#endif /* PATH_BPF_H */
