// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The threads table: merging sums, finding among many, bounding; thread
 * names grouped: numbered siblings are one pool, versions stay whole.
 */
#include <string.h>
#include "model/threads.h"
#include "unit.h"

static const char *group(const char *comm)
{
	static char name[COMM_LEN];

	threads__comm_group(comm, name);
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

TEST(threads_merge)
{
	const __u32 n = 100000;
	struct thread_stats ts = {};
	struct thread_rec *th;
	struct threads t = {};	/* zeroed: empty */
	size_t bad = 0;

	CHECK(!threads__find(&t, 5));
	ts.reads = 1;
	ts.read_bytes = 10;
	ts.read_ns = 5;
	ts.opens = 2;
	ts.meta_ns = 7;
	memcpy(ts.comm, "python", 7);
	for (int round = 0; round < 2; round++) {
		for (__u32 tid = 1; tid <= n; tid++) {
			ts.tgid = tid / 10;
			if (threads__merge(&t, tid * 7919, &ts)) {
				CHECK(!"merge failed");
				break;
			}
		}
	}
	CHECK_EQ_U64(t.n, n);
	for (__u32 tid = 1; tid <= n; tid++) {
		th = threads__find(&t, tid * 7919);
		if (!th || th->tid != tid * 7919 || th->io.reads != 2 || th->io.read_bytes != 20 ||
		    th->io.opens != 4 || th->io.meta_ns != 14 || th->tgid != tid / 10)
			bad++;
	}
	CHECK_EQ_U64(bad, 0);
	CHECK(!threads__find(&t, 1));
	CHECK_EQ_U64(threads__bytes(&t), t.cap * sizeof(*t.v) + t.index_cap * sizeof(*t.index));

	/* exec renames a thread: the latest name is kept */
	memcpy(ts.comm, "dataloader-0", 13);
	REQUIRE(!threads__merge(&t, 7919, &ts));
	th = threads__find(&t, 7919);
	REQUIRE(th);
	CHECK_STR(th->comm, "dataloader-0");
	CHECK_EQ_U64(th->io.reads, 3);
	threads__free(&t);
	CHECK(!threads__find(&t, 7919));
}

/* An exporter's threads: past max, the least recently merged go. */
TEST(threads_bound)
{
	struct threads t = { .max = 40 };
	struct thread_stats ts = { .tgid = 1, .opens = 1, .cpu_ns = 10 };
	__u64 cpu = 0;

	for (__u32 tid = 1; tid <= 100; tid++) {
		CHECK(!threads__merge(&t, tid, &ts));
		CHECK(!threads__merge(&t, 1, &ts));	/* tid 1 stays busy */
		threads__bound(&t);
		CHECK(t.n <= 40);
	}
	CHECK(threads__find(&t, 1) && threads__find(&t, 100));
	CHECK(!threads__find(&t, 50));
	CHECK_EQ_U64(threads__find(&t, 1)->io.opens, 101);
	CHECK_EQ_U64(t.evicted + t.n, 100);
	/* The evicted threads' time is kept in the sum: 200 merges of 10 ns. */
	for (size_t i = 0; i < t.n; i++)
		cpu += t.v[i].cpu_ns;
	CHECK_EQ_U64(cpu + t.gone.cpu_ns, 2000);
	threads__free(&t);
}
