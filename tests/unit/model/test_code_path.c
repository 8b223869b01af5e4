// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A launched command's script is code by its path, whatever its name or place. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "model/mapfiles.h"
#include "model/store.h"
#include "unit.h"

static struct file_rec *merge_read(struct store *s, __u64 ino, const char *path)
{
	struct file_key k = { .ino = ino, .dev = 8 << 20 | 1 };
	struct file_stats fs = { .opens = 1, .reads = 2, .read_bytes = 100 };

	snprintf(fs.path, sizeof(fs.path), "%s", path);
	fs.path_len = strlen(fs.path);
	fs.flags = FILE_F_PATH | FILE_F_REG | FILE_F_READ;
	if (store__merge_file(s, &k, &fs))
		return NULL;
	return store__find(s, k.dev, k.ino, 0);
}

TEST(store_code_paths)
{
	struct store s;
	struct file_rec *f;

	REQUIRE(!store__init(&s));
	CHECK(!store__add_code_path(&s, "/work/job/wrapper.sh"));
	CHECK(!store__add_code_path(&s, "/work/job/run"));
	CHECK_EQ_INT(store__add_code_path(&s, "/work/job/third"), -ENOSPC);
	f = merge_read(&s, 1, "/work/job/wrapper.sh");
	REQUIRE(f);
	CHECK(f->code);
	f = merge_read(&s, 2, "/work/job/run");
	REQUIRE(f);
	CHECK(f->code);
	/* Next to it, the dataset: data. */
	f = merge_read(&s, 3, "/work/job/wrapper.sh.bak");
	REQUIRE(f);
	CHECK(!f->code);
	f = merge_read(&s, 4, "/work/job/data/x.jpg");
	REQUIRE(f);
	CHECK(!f->code);
	store__free(&s);
}

/* A fault names no file: a record with faults, no path, on (dev 8:1, ino). */
static struct file_rec *merge_fault(struct store *s, __u64 ino)
{
	struct file_key k = { .ino = ino, .dev = 8 << 20 | 1 };
	struct file_stats fs = { .faults = 3, .fault_reads = 1, .fault_pages = 4 };

	if (store__merge_file(s, &k, &fs))
		return NULL;
	return store__find(s, k.dev, k.ino, 0);
}

/*
 * A binary outside the code trees, mapped executable by exec: its text
 * faulted in is code, named from maps (seen after its record, or before),
 * or from the launched command's program (mapfiles__add).
 */
TEST(mapfiles_exec_is_code)
{
	char dir[] = "/tmp/iostorm-unit.XXXXXX", path[64];
	struct store s;
	struct file_rec *f;
	FILE *maps;

	REQUIRE(!store__init(&s));
	REQUIRE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/42", dir);
	REQUIRE(!mkdir(path, 0755));
	snprintf(path, sizeof(path), "%s/42/maps", dir);
	maps = fopen(path, "w");
	REQUIRE(maps);
	fprintf(maps, "5600-5601 r--p 00000000 08:01 7 /opt/app/bin/trainer\n"
		      "5601-5605 r-xp 00001000 08:01 7 /opt/app/bin/trainer\n"
		      "5605-5606 r--p 00000000 08:01 8 /opt/app/weights.bin\n"
		      "7f00-7f01 r-xp 00000000 08:01 9 /opt/app/bin/late\n");
	fclose(maps);
	f = merge_fault(&s, 7);
	REQUIRE(f);
	CHECK(!f->code);
	CHECK(merge_fault(&s, 8));
	CHECK(mapfiles__scan(&s, 42, dir) > 0);
	/* Not on this machine: named as the job saw it. */
	CHECK(f->code && f->job_path && !strcmp(f->job_path, "/opt/app/bin/trainer"));
	f = store__find(&s, 8 << 20 | 1, 8, 0);
	CHECK(f && !f->code);			/* mapped to be read: data */
	f = merge_fault(&s, 9);			/* remembered, then seen */
	REQUIRE(f);
	CHECK(mapfiles__name(&s, "/nonexistent") == 1);
	CHECK(f->code && f->job_path && !strcmp(f->job_path, "/opt/app/bin/late"));
	CHECK(!mapfiles__add(&s, 8 << 20 | 1, 10, "/opt/app/bin/launched", true));
	f = merge_fault(&s, 10);
	REQUIRE(f);
	CHECK(mapfiles__name(&s, "/nonexistent") > 0);
	CHECK(f->code);
	unlink(path);
	snprintf(path, sizeof(path), "%s/42", dir);
	rmdir(path);
	rmdir(dir);
	store__free(&s);
}
