// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* lib/units.c: the page's style, and a finding's figure by its unit. */
#include "lib/units.h"
#include "unit.h"

#define FIG(v, unit)	units__page_figure(buf, sizeof(buf), v, unit)

TEST(units_page_figure)
{
	char buf[64];

	/* The review's two examples: a share and MemTotal. */
	CHECK_STR(FIG(0.2241765752, "fraction"), "22.4%");
	CHECK_STR(FIG(2.527597363e+10, "bytes"), "23.5 GiB");
	CHECK_STR(FIG(-1, "fraction"), "n/a");
	CHECK_STR(FIG(512, "bytes"), "512 B");
	CHECK_STR(FIG(686.9300674, "us"), "687 µs");
	CHECK_STR(FIG(0.8858695652, "ms"), "886 µs");
	CHECK_STR(FIG(1.203546, "s"), "1.2 s");
	CHECK_STR(FIG(850, "ns"), "850 ns");
	CHECK_STR(FIG(1, "flag"), "yes");
	CHECK_STR(FIG(0, "flag"), "no");
	CHECK_STR(FIG(30.66666667, "requests/s"), "30.7 requests/s");
	CHECK_STR(FIG(1840, "requests"), "1840 requests");
	CHECK_STR(FIG(1455.752263, "reads/s"), "1456 reads/s");
	CHECK_STR(FIG(0.5, NULL), "0.5");
	CHECK_STR(FIG(27510402, "bytes/s"), "26.2 MiB/s");
	CHECK_STR(FIG(8.42e-05, "requests"), "0.0000842 requests");
	CHECK_STR(FIG(0, "requests"), "0 requests");
	CHECK_STR(units__page_num(buf, sizeof(buf), 0.0001666666667), "0.000167");
}
