// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The kernel's layers and fallbacks: IOSTORM_FALLBACKS's parser, measured or not. */
#include <errno.h>
#include <string.h>
#include "model/kernel.h"
#include "unit.h"

#define BIT(f)	(1U << (f))

TEST(kernel_parse_fallbacks)
{
	const char *bad = NULL;
	int len = 0;
	__u32 bits;

	CHECK(!kernel__parse_fallbacks("", &bits, &bad, &len));
	CHECK_EQ_U64(bits, 0);
	CHECK(!kernel__parse_fallbacks("core_read", &bits, &bad, &len));
	CHECK_EQ_U64(bits, BIT(KF_CORE_READ));
	CHECK(!kernel__parse_fallbacks("block_rq,prev_state,", &bits, &bad, &len));
	CHECK_EQ_U64(bits, BIT(KF_BLOCK_RQ) | BIT(KF_PREV_STATE));
	CHECK(!kernel__parse_fallbacks("all", &bits, &bad, &len));
	CHECK_EQ_U64(bits, (BIT(KF__MAX) - 1) & ~BIT(KF_NO_SCHED));
	CHECK(!kernel__parse_fallbacks("all,no_sched", &bits, &bad, &len));
	CHECK_EQ_U64(bits, BIT(KF__MAX) - 1);
	CHECK(!kernel__parse_fallbacks("no_fuse,,no_faults", &bits, &bad, &len));
	CHECK_EQ_U64(bits, BIT(KF_NO_FUSE) | BIT(KF_NO_FAULTS));
	/* A prefix of a name is not the name. */
	CHECK_EQ_INT(kernel__parse_fallbacks("core_read,block", &bits, &bad, &len), -EINVAL);
	CHECK_EQ_INT(len, 5);
	CHECK(!strncmp(bad, "block", 5));
	CHECK_EQ_INT(kernel__parse_fallbacks("core_readx", &bits, &bad, &len), -EINVAL);
	CHECK_EQ_INT(len, 10);
}

TEST(kernel_measured)
{
	struct kernel_reach k = {};

	/* Nothing probed (a report of an older iostorm): every layer counts. */
	CHECK(kernel__measured(&k, KL_FUSE));
	CHECK_EQ_INT(kernel__unmeasured(&k), 0);
	k.probed = true;
	k.layers[KL_SYSCALLS].measured = true;
	k.layers[KL_BLOCK].measured = true;
	CHECK(kernel__measured(&k, KL_BLOCK));
	CHECK(!kernel__measured(&k, KL_FUSE));
	CHECK_EQ_INT(kernel__unmeasured(&k), KL__MAX - 2);
	for (int l = 0; l < KL__MAX; l++)
		CHECK(strcmp(kernel__layer_name(l), "?"));
	for (int f = 0; f < KF__MAX; f++)
		CHECK(strcmp(kernel__fallback_name(f), "?"));
}
