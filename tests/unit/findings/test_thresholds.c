// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The thresholds (thresholds.c): set by name, printed back.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "model/hist.h"
#include "model/trace.h"
#include "findings/rules.h"
#include "judged.h"
#include "scenes.h"
#include "unit.h"

TEST(thresholds_set)
{
	struct thresholds t;
	struct evidence e;
	struct judged j;

	thresholds__defaults(&t);
	CHECK_NEAR(thresholds__get(&t, "random_share"), 0.2, 0);
	CHECK_NEAR(thresholds__get(&t, "storm_files"), 1000, 0);
	CHECK_NEAR(thresholds__get(&t, "nope"), -1, 0);
	CHECK_EQ_INT(thresholds__set(&t, "storm_files=500"), 0);
	CHECK_NEAR(thresholds__get(&t, "storm_files"), 500, 0);
	CHECK_EQ_INT(thresholds__set(&t, "shard_bytes=512M"), 0);
	CHECK_NEAR(thresholds__get(&t, "shard_bytes"), 512 * 1048576.0, 0);
	CHECK_EQ_INT(thresholds__set(&t, "shard_bytes=1G"), 0);
	CHECK_NEAR(thresholds__get(&t, "shard_bytes"), GIB, 0);
	CHECK_EQ_INT(thresholds__set(&t, "random_share=25%"), 0);
	CHECK_NEAR(thresholds__get(&t, "random_share"), 0.25, 1e-12);
	CHECK_EQ_INT(thresholds__set(&t, "io_wait_high=0.6"), 0);
	CHECK_NEAR(thresholds__get(&t, "io_wait_high"), 0.6, 0);

	/* Errors leave the value as it was. */
	fprintf(stderr, "(expected errors follow)\n");
	CHECK_EQ_INT(thresholds__set(&t, "nope=1"), -EINVAL);
	CHECK_EQ_INT(thresholds__set(&t, "storm_files"), -EINVAL);
	CHECK_EQ_INT(thresholds__set(&t, "=5"), -EINVAL);
	CHECK_EQ_INT(thresholds__set(&t, "storm_files="), -EINVAL);
	CHECK_EQ_INT(thresholds__set(&t, "storm_files=abc"), -EINVAL);
	CHECK_EQ_INT(thresholds__set(&t, "storm_files=-1"), -EINVAL);
	CHECK_EQ_INT(thresholds__set(&t, "storm_files=12x"), -EINVAL);
	CHECK_EQ_INT(thresholds__set(&t, "storm_files=5M"), -EINVAL);	/* not bytes */
	CHECK_EQ_INT(thresholds__set(&t, "random_share=2"), -EINVAL);
	CHECK_EQ_INT(thresholds__set(&t, "random_share=150%"), -EINVAL);
	CHECK_EQ_INT(thresholds__set(&t, "random_share=nan"), -EINVAL);
	CHECK_EQ_INT(thresholds__set(&t, "shard_bytes=1X"), -EINVAL);
	CHECK_NEAR(thresholds__get(&t, "storm_files"), 500, 0);
	CHECK_NEAR(thresholds__get(&t, "random_share"), 0.25, 1e-12);
	CHECK_NEAR(thresholds__get(&t, "shard_bytes"), GIB, 0);

	/* Every threshold has a name, a unit and a line in the listing. */
	for (int i = 0; thresholds__name(i); i++) {
		CHECK(thresholds__unit(i) != NULL);
		CHECK(i < THRESHOLDS_MAX);
	}

	/* A threshold moves the verdict: a storm needs 50,000 files now. */
	thresholds__defaults(&t);
	CHECK_EQ_INT(thresholds__set(&t, "storm_files=50000"), 0);
	scene__storm_cold_capped(&e);
	judge(&e, &t, &j);
	CHECK(!get(&j, "small_file_storm"));
	judge(&e, NULL, &j);
	CHECK(get(&j, "small_file_storm") != NULL);
}

TEST(thresholds_print)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int lines = 0, n = 0;

	REQUIRE(f);
	thresholds__print(f);
	fclose(f);
	for (char *p = text; *p; p++)
		lines += *p == '\n';
	while (thresholds__name(n))
		n++;
	CHECK_EQ_INT(lines, n);
	CHECK_HAS(text, "random_share=0.2 ");
	CHECK_HAS(text, "storm_median_bytes=1048576 ");
	CHECK_HAS(text, "(Drishti: 20%)");
	free(text);
}
