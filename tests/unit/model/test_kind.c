// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Code or data (model/kind.c), and /proc/PID/maps lines (model/mapfiles.c). */
#include "model/kind.h"
#include "model/mapfiles.h"
#include "iostorm.h"
#include "unit.h"

TEST(kind_code_or_data)
{
	CHECK(kind__is_code("/usr/lib/python3.11/json/__init__.py", 0));
	CHECK(kind__is_code("/home/u/venv/lib/python3.11/site-packages/torch/_C.so", 0));
	CHECK(kind__is_code("/opt/x/lib/python3.11/dist-packages/a/b.txt", 0));
	CHECK(kind__is_code("/work/proj/__pycache__/train.cpython-311.pyc", 0));
	CHECK(kind__is_code("/work/proj/model.py", 0));
	CHECK(kind__is_code("/opt/cuda/lib64/libcudnn.so.8.9.2", 0));
	CHECK(kind__is_code("/opt/cuda/lib64/libcudart.so", 0));
	CHECK(kind__is_code("/etc/ld.so.cache", 0));
	CHECK(kind__is_code("/proc/self/maps", 0));
	CHECK(kind__is_code("/var/cache/iostorm-tf/venv/pyvenv.cfg", 0));
	CHECK(kind__is_code("/root/.keras/keras.json", 0));
	CHECK(!kind__is_code("/root/.keras/datasets/mnist.npz", 0));
	CHECK(!kind__is_code("/data/my.keras.json", 0));
	CHECK(kind__is_code("/data/anything.bin", FILE_F_EXEC));
	CHECK(kind__is_code(NULL, FILE_F_EXEC));
	CHECK(!kind__is_code(NULL, 0));
	CHECK(!kind__is_code("/data/imagenet/train/n01/x.jpg", 0));
	CHECK(!kind__is_code("/data/shards/shard-00001.tar", 0));
	CHECK(!kind__is_code("/data/lmdb/data.mdb", 0));
	CHECK(!kind__is_code("/dev/shm/dataset/shard-0.tar", 0));
	CHECK(!kind__is_code("/data/x.sock", 0));		/* .so not at the end */
	CHECK(!kind__is_code("/data/x.so.bak", 0));
	CHECK(!kind__is_code("/data/python.tar", 0));
}

/* A runtime's own files (issue 46): Open MPI's session directory and segments, not data. */
TEST(kind_runtime)
{
	CHECK_EQ_U64(kind__why("/tmp/ompi.vm.0/pid.1388/pmix_dstor_ds21_1388/smseg-17-0", 0,
			       NULL, NULL), KIND_RUNTIME);
	CHECK_EQ_U64(kind__why("/tmp/ompi.vm.0/pid.1388/hwloc.sm", 0, NULL, NULL), KIND_RUNTIME);
	CHECK_EQ_U64(kind__why("/scratch/tmp/prte.node1.1000/dvm/hwloc.sm", 0, NULL, NULL),
		     KIND_RUNTIME);
	CHECK_EQ_U64(kind__why("/dev/shm/vader_segment.node1.5a2b0001.0", 0, NULL, NULL),
		     KIND_RUNTIME);
	CHECK_EQ_U64(kind__why("/dev/shm/sm_segment.node1.1000.5a2b0001.0", 0, NULL, NULL),
		     KIND_RUNTIME);
	CHECK_EQ_U64(kind__why("/dev/shm/open_mpi.0000", 0, NULL, NULL), KIND_RUNTIME);
	CHECK_STR(kind__why_key(KIND_RUNTIME), "runtime");
	/* A file named so, or in a directory that is not a session's, is data. */
	CHECK(!kind__is_code("/data/ompi.tar", 0));
	CHECK(!kind__is_code("/data/xompi.a/x.jpg", 0));
	CHECK(!kind__is_code("/dev/shm/data/vader_segment.0", 0));
	CHECK(!kind__is_code("/dev/shm/shard-vader_segment.0", 0));
}

TEST(mapfiles_parse)
{
	const char *path;
	__u64 ino;
	__u32 dev;

	REQUIRE(!mapfiles__parse("7f1c2a000000-7f1c2e000000 r--s 00000000 fe:01 1171532"
				 "                    /var/tmp/data.mdb", &dev, &ino, &path));
	CHECK_EQ_U64(dev, 0xfe << 20 | 1);
	CHECK_EQ_U64(ino, 1171532);
	CHECK_STR(path, "/var/tmp/data.mdb");
	REQUIRE(!mapfiles__parse("55d0-55d1 r-xp 00002000 103:0a 42 /a b/c (deleted)",
				 &dev, &ino, &path));
	CHECK_EQ_U64(dev, 0x103 << 20 | 0xa);
	CHECK_STR(path, "/a b/c (deleted)");
	CHECK(mapfiles__parse("7ffd-7ffe rw-p 00000000 00:00 0 [stack]", &dev, &ino, &path));
	CHECK(mapfiles__parse("7ffd-7ffe rw-p 00000000 00:00 0", &dev, &ino, &path));
	CHECK(mapfiles__parse("garbage", &dev, &ino, &path));
}
