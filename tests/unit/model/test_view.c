// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Paths in two views: a job's path and its anchor give the host's path
 * through a mountinfo, checked by stat(); a stat()'s name is placed from
 * where the view's other files were found. On real files in a temporary
 * directory, with a /proc of the test's own making.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "model/view.h"
#include "unit.h"

TEST(view_mnt_join)
{
	char *p;

	p = mnt__join("/", "/", "/a/b");
	CHECK_STR(p, "/a/b");
	free(p);
	p = mnt__join("/mnt/x", "/srv", "/srv/a");
	CHECK_STR(p, "/mnt/x/a");
	free(p);
	p = mnt__join("/mnt/x", "/srv", "/srv");
	CHECK_STR(p, "/mnt/x");
	free(p);
	CHECK(!mnt__join("/mnt/x", "/srv", "/srvother/a"));
	CHECK(!mnt__join("/mnt/x", "/srv", "/a"));
}

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f)
		fclose(f);
}

static __u32 kdev_of(const char *path, __u64 *ino)
{
	struct stat st;

	if (stat(path, &st))
		return 0;
	*ino = st.st_ino;
	return major(st.st_dev) << 20 | minor(st.st_dev);
}

TEST(view_place_and_rehost)
{
	char dir[] = "/tmp/iostorm-view.XXXXXX", p[512], x[512], y[512];
	struct file_stats *fs = calloc(1, sizeof(*fs));
	struct file_key key = {};
	struct file_paths out;
	struct views vw;
	__u64 yino = 0;
	char *host;
	FILE *f;

	REQUIRE(fs && mkdtemp(dir));
	snprintf(p, sizeof(p), "mkdir -p %s/proc/1/ns %s/ds/c1", dir, dir);
	REQUIRE(!system(p));
	snprintf(p, sizeof(p), "%s/proc/1/ns/mnt", dir);
	touch(p);
	snprintf(x, sizeof(x), "%s/ds/c1/x", dir);
	snprintf(y, sizeof(y), "%s/ds/c1/y", dir);
	touch(x);
	touch(y);
	key.dev = kdev_of(x, &key.ino);
	kdev_of(y, &yino);
	snprintf(p, sizeof(p), "%s/proc/1/mountinfo", dir);
	f = fopen(p, "w");
	REQUIRE(f);
	fprintf(f, "21 1 %u:%u / / rw - ext4 /dev/x rw\n", key.dev >> 20, key.dev & 0xfffff);
	fclose(f);
	snprintf(p, sizeof(p), "%s/proc", dir);
	REQUIRE(!views__init(&vw, p));
	snprintf(p, sizeof(p), "%s/ds", dir);
	CHECK(!views__anchor(&vw, 0x1000, key.dev, p));

	/* A job that sees ds at /data (mount namespace 7, not the host's). */
	fs->mnt_ns = 7;
	fs->root = 0x2000;
	fs->tgid = 999999;	/* gone: its mountinfo is not read */
	fs->anchor = 0x1000;
	fs->anchor_len = strlen("/c1/x");
	fs->flags = FILE_F_PATH | FILE_F_ANCHOR | FILE_F_REG;
	CHECK(!views__place(&vw, &key, fs, strdup("/data/c1/x"), &out));
	CHECK_STR(out.host, x);
	CHECK_STR(out.job, "/data/c1/x");
	CHECK(out.view == 1);
	free(out.host);
	free(out.job);

	/* A stat() of y by name: no anchor; found where x was. */
	host = views__rehost(&vw, 1, "/data/c1/y", yino, key.dev);
	CHECK_STR(host, y);
	free(host);
	CHECK(!views__rehost(&vw, 1, "/data/c1/y", yino + 1, key.dev));	/* another inode */
	CHECK(!views__rehost(&vw, 1, "/other/y", yino, key.dev));

	/*
	 * iostorm in a chroot or a container: no host mount leads to the file,
	 * but it is at the job's path in iostorm's own root (same inode):
	 * that path, never one that names another file.
	 */
	{
		char z[512];
		struct file_key kz = {};

		snprintf(z, sizeof(z), "%s/own-z", dir);
		touch(z);
		kz.dev = kdev_of(z, &kz.ino);
		fs->flags = FILE_F_PATH | FILE_F_REG;
		CHECK(!views__place(&vw, &kz, fs, strdup(z), &out));
		CHECK_STR(out.host, z);
		free(out.host);
		free(out.job);
		kz.ino++;
		CHECK(!views__place(&vw, &kz, fs, strdup(z), &out));
		CHECK(!out.host);
		free(out.job);
		fs->flags = FILE_F_PATH | FILE_F_ANCHOR | FILE_F_REG;
	}

	/* The anchor names another file: the stat() check refuses it. */
	key.ino++;
	fs->anchor_len = strlen("/c1/x");
	CHECK(!views__place(&vw, &key, fs, strdup("/data/c1/x"), &out));
	CHECK(!out.host);
	CHECK_STR(out.job, "/data/c1/x");
	free(out.job);
	views__free(&vw);
	free(fs);
	snprintf(p, sizeof(p), "rm -rf %s", dir);
	CHECK(!system(p));
}
