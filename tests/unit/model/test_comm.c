// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Thread names grouped: numbered siblings are one pool, versions stay whole. */
#include "model/store.h"
#include "unit.h"

static const char *group(const char *comm)
{
	static char name[COMM_LEN];

	store__comm_group(comm, name);
	return name;
}

TEST(comm_group_siblings)
{
	CHECK_STR(group("w-1"), "w-");
	CHECK_STR(group("w-4"), "w-");
	CHECK_STR(group("worker-12"), "worker-");
	CHECK_STR(group("worker_3"), "worker_");
	CHECK_STR(group("tf_data_12"), "tf_data_");
	CHECK_STR(group("pt_autograd_0"), "pt_autograd_");
	CHECK_STR(group("kworker/3:1"), "kworker/3:");
	CHECK_STR(group("GC Thread#7"), "GC Thread#");
	CHECK_STR(group("pool 2"), "pool ");
}

TEST(comm_group_whole)
{
	/* Digits glued to a letter or a dot: a version or a name, kept. */
	CHECK_STR(group("python3.11"), "python3.11");
	CHECK_STR(group("python3"), "python3");
	CHECK_STR(group("pt_data_worker7"), "pt_data_worker7");
	CHECK_STR(group("ld-2.36"), "ld-2.36");
	/* No digits, or nothing before the separator. */
	CHECK_STR(group("pt_data_worker"), "pt_data_worker");
	CHECK_STR(group("tf_data_private"), "tf_data_private");
	CHECK_STR(group("-1"), "-1");
	CHECK_STR(group("4242"), "4242");
	CHECK_STR(group(""), "");
	/* Cut at 15 bytes, as the kernel's comm is. */
	CHECK_STR(group("a_very_long_thread_name_1"), "a_very_long_thr");
}
