// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The HTML report: every string from the trace is escaped (markup,
 * quotes, invalid UTF-8, controls), and a report whose paths and names
 * carry all of them renders to a page that holds none of them raw.
 */
#include <stdlib.h>
#include "html/html.h"
#include "unit.h"

static char *escaped(const char *s, size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f)
		return NULL;
	html__escape(f, s, len);
	fclose(f);
	return buf;
}

#define CHECK_ESC(in, want)						\
	do {								\
		char *got_ = escaped(in, sizeof(in) - 1);		\
		CHECK_STR(got_, want);					\
		free(got_);						\
	} while (0)

TEST(html_escape)
{
	CHECK_ESC("/data/a<b>&c", "/data/a&lt;b&gt;&amp;c");
	CHECK_ESC("say \"hi\" it's", "say &quot;hi&quot; it&#39;s");
	CHECK_ESC("caf\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x98\x80");
	/* Invalid UTF-8: a lone continuation, a truncated sequence, an overlong '/', a surrogate. */
	CHECK_ESC("a\x80z", "a\xef\xbf\xbdz");
	CHECK_ESC("a\xc3", "a\xef\xbf\xbd");
	CHECK_ESC("\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd");
	CHECK_ESC("\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	CHECK_ESC("\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	/* Controls and noncharacters a checker rejects; tab and newline stay. */
	CHECK_ESC("a\x01\x7f\tb\n", "a\xef\xbf\xbd\xef\xbf\xbd\tb\n");
	CHECK_ESC("\xc2\x85\xef\xbf\xbe", "\xef\xbf\xbd\xef\xbf\xbd");
	CHECK_ESC("a\0b", "a\xef\xbf\xbd" "b");
}

/* A minimal report whose every string is hostile. */
static const char hostile[] =
"{\"schema\":\"iostorm.report/1\",\"target\":\"command '<script>alert(1)</script>'\","
"\"duration_s\":2,\"stopped_by\":\"<b>\",\"exit_status\":null,"
"\"verdict\":\"VERDICT: a & b <i>\",\"findings\":[{\"id\":\"x\\\"y\",\"severity\":\"HIGH\","
"\"summary\":\"<img src=x>\",\"evidence\":{\"<k>\":1},\"units\":{\"<k>\":\"<u>\"},"
"\"advice\":\"'quoted' & \\\"double\\\"\"}],"
"\"vfs\":{\"files\":1,\"dirs\":1},"
"\"files\":[{\"path\":\"/d/<a href=\\\"x\\\">&amp;\\ufffd\",\"type\":\"file\",\"size\":10,"
"\"reads\":1,\"max_byte_read\":9}],"
"\"dirs\":[{\"path\":\"/d/<dir>\"}],"
"\"thread_groups\":[{\"name\":\"<worker>\",\"threads\":1,\"cpu_ns\":1}],"
"\"block\":{\"devices\":[{\"name\":\"<dev>\",\"dev\":\"1:2\"}]},"
"\"lost\":{\"total\":0},\"timeline\":{\"points\":[]}}";

TEST(html_page_escapes_report_strings)
{
	FILE *in = fmemopen((void *)hostile, sizeof(hostile) - 1, "r"), *out;
	char *page = NULL;
	size_t len = 0;
	json_t *root = NULL;

	REQUIRE(in);
	CHECK_EQ_INT(html__load(in, "hostile", 10, &root), 0);
	fclose(in);
	REQUIRE(root);
	out = open_memstream(&page, &len);
	REQUIRE(out);
	CHECK_EQ_INT(html__render(out, root, 10), 0);
	fclose(out);
	json_decref(root);
	REQUIRE(page);
	CHECK(!strstr(page, "<script"));
	CHECK(!strstr(page, "<img"));
	CHECK(!strstr(page, "<a href"));
	CHECK(!strstr(page, "<worker>"));
	CHECK(!strstr(page, "<dev>"));
	CHECK(!strstr(page, "<k>"));
	CHECK(strstr(page, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	CHECK(strstr(page, "/d/&lt;a href=&quot;x&quot;&gt;&amp;amp;\xef\xbf\xbd"));
	CHECK(strstr(page, "&#39;quoted&#39; &amp; &quot;double&quot;"));
	CHECK(strstr(page, "x&quot;y"));
	free(page);
}

TEST(html_load_rejects)
{
	static const char *const bad[] = { "not json", "[1]", "{\"schema\":\"other/1\"}", "{}" };
	json_t *root;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *in = fmemopen((void *)bad[i], strlen(bad[i]), "r");

		REQUIRE(in);
		CHECK_EQ_INT(html__load(in, "bad", 10, &root), HTML_EXIT_UNUSABLE);
		CHECK(!root);
		fclose(in);
	}
}

/*
 * A mapped dataset (3,000 faults read 11.7 MiB, 2,400 of 2,999 judged
 * random) and a code file whose path is hostile: the mapped figures, the
 * code count apart, the file's code tag, its path escaped.
 */
static const char mapped_report[] =
"{\"schema\":\"iostorm.report/1\",\"target\":\"pid 7 (python3)\",\"duration_s\":10,"
"\"vfs\":{\"files\":2,\"dirs\":0,"
"\"mapped\":{\"files\":1,\"fault_reads\":3000,\"fault_pages\":3000,\"fault_bytes\":12288000,"
"\"fault_reads_sequential\":599,\"fault_reads_random\":2400,\"fault_ns\":9000000000},"
"\"code\":{\"files\":1,\"opens\":4,\"reads\":2,\"read_bytes\":2048,\"ns\":1500000,"
"\"fault_pages\":0}},"
"\"files\":[{\"path\":\"/data/train.lmdb/data.mdb\",\"type\":\"file\",\"kind\":\"data\","
"\"size\":68719476736,\"fault_reads\":3000},"
"{\"path\":\"/usr/lib/<b>&x.so\",\"type\":\"file\",\"kind\":\"code\",\"size\":4096,"
"\"opens\":4,\"reads\":2,\"read_bytes\":2048,\"max_byte_read\":4095}],"
"\"lost\":{\"total\":0},\"timeline\":{\"points\":[]}}";

static char *render(const char *report, size_t len)
{
	FILE *in = fmemopen((void *)report, len, "r"), *out;
	char *page = NULL;
	size_t n = 0;
	json_t *root = NULL;
	int err;

	if (!in)
		return NULL;
	err = html__load(in, "mapped", 10, &root);
	fclose(in);
	if (err || !root)
		return NULL;
	out = open_memstream(&page, &n);
	if (out) {
		err = html__render(out, root, 10);
		fclose(out);
	}
	json_decref(root);
	if (err) {
		free(page);
		return NULL;
	}
	return page;
}

TEST(html_mapped_and_code)
{
	char *page = render(mapped_report, sizeof(mapped_report) - 1);
	const char *tag;

	REQUIRE(page);
	CHECK(strstr(page, "<section id=\"mapped\">"));
	CHECK(strstr(page, "faults that read from storage</th><td class=\"num\">3000</td>"));
	CHECK(strstr(page, "pages they brought in</th><td class=\"num\">3000 (11.7 MiB)</td>"));
	CHECK(strstr(page, "<td class=\"num\">80.0% of 2999</td>"));
	CHECK(strstr(page, "wait for the pages</th><td class=\"num\">9 s</td>"));
	/* Code apart: 2 regular files, 1 code, 1 record of the dataset (64 GiB). */
	CHECK(strstr(page, "not the dataset)</th><td class=\"num\">1</td>"));
	CHECK(strstr(page, "<td class=\"num\">4, 2, 2 KiB, 1.5 ms</td>"));
	CHECK(strstr(page, "code apart)</th><td class=\"num\">1</td>"));
	CHECK(strstr(page, "total size</th><td class=\"num\">64 GiB (68719476736 bytes)</td>"));
	/* The tag follows the code file's escaped path, and only it. */
	tag = strstr(page, "class=\"tag\">code<");
	REQUIRE(tag);
	CHECK(!strstr(tag + 1, "class=\"tag\">code<"));
	CHECK(strstr(page, "/usr/lib/&lt;b&gt;&amp;x.so <span class=\"tag\">code</span>"));
	CHECK(!strstr(page, "data.mdb <span"));
	CHECK(strstr(page, "<td class=\"num\">3000</td></tr>"));
	CHECK(!strstr(page, "<b>"));
	free(page);
}

/* No fault read mapped data: the section says so. */
TEST(html_mapped_none)
{
	static const char none[] = "{\"schema\":\"iostorm.report/1\",\"vfs\":{\"files\":0},"
				   "\"files\":[],\"lost\":{\"total\":0}}";
	char *page = render(none, sizeof(none) - 1);

	REQUIRE(page);
	CHECK(strstr(page, "<section id=\"mapped\"><h2>Mapped data (reads by page faults)</h2>\n"
		      "<p>No fault on a mapped data file read from storage.</p></section>"));
	free(page);
}

/*
 * Two loops in two workloads: one named by a hostile cgroup path, its
 * storage partial and without reads; one a process whose cgroup is not
 * known. Each named, escaped, with its loop; one loop draws no section.
 */
static const char loops_report[] =
"{\"schema\":\"iostorm.report/1\",\"duration_s\":10,\"vfs\":{\"files\":0},\"files\":[],"
"\"lost\":{\"total\":0},\"stall\":{\"data_wait_lower_bound\":true,\"loops\":["
"{\"how\":\"given\",\"consumer\":{\"tid\":8,\"pid\":7,\"comm\":\"<py>\"},\"wall_ns\":1000,"
"\"data_wait_ns\":500,\"on_cpu_ns\":500,\"share\":0.5,\"cause\":\"own_io\"},"
"{\"how\":\"fed\",\"consumer\":{\"tid\":9,\"pid\":9,\"comm\":\"trainer\"},\"wall_ns\":1000,"
"\"data_wait_ns\":100,\"receive_ns\":300,\"share\":0.1,\"cause\":null}],"
"\"workloads\":["
"{\"kind\":\"cgroup\",\"cgroup\":\"/a/<b>&c\",\"container_ids\":[],\"loops\":[0],"
"\"pids\":[7],\"share_max\":0.5,\"cause\":\"own_io\",\"storage\":{\"cgroups\":1,"
"\"partial\":true,\"opens\":3,\"stats\":0,\"reads\":0,\"read_bytes\":0,\"meta_s\":0.002,"
"\"opens_per_s\":0.3,\"reads_per_s\":0,\"read_avg_s\":null}},"
"{\"kind\":\"process\",\"cgroup\":null,\"container_ids\":[],\"loops\":[1],\"pids\":[9],"
"\"share_max\":0.1,\"cause\":null,\"storage\":null}]}}";

TEST(html_loops_by_workload)
{
	char *page = render(loops_report, sizeof(loops_report) - 1), *one;
	const char *a, *b;

	REQUIRE(page);
	CHECK(strstr(page, "<p>2 training loops (one per process: data-parallel ranks) in 2 "
		      "workloads; the one that waits most for data 50.0%, the least 10.0% (lower "
		      "bounds: the wakeups table was full, see lost)</p>"));
	a = strstr(page, "<h3>cgroup /a/&lt;b&gt;&amp;c</h3>");
	b = strstr(page, "<h3>pid 9</h3>");
	CHECK(a && b && a < b);		/* the worst first */
	CHECK(strstr(page, "<p>1 loop, it waits for data 50.0% (cause own_io); its I/O: 3 opens "
		      "(0.3/s), 0 reads (0/s) of 0 B, - a read, 2 ms in metadata calls (at least: "
		      "some cgroups were summed into other)</p>"));
	CHECK(strstr(page, "<p>1 loop, it waits for data 10.0%; its cgroup is not known</p>"));
	CHECK(strstr(page, "<td>&lt;py&gt; (tid 8, pid 7, given with --consumer)</td>"
		      "<td>own_io</td><td class=\"num\">1 µs</td><td class=\"num\">50.0%</td>"));
	/* A column some loop has (receiving batches), none none has (ranks, writes). */
	CHECK(strstr(page, "<th>receiving batches</th>"));
	CHECK(!strstr(page, "<th>waits for other ranks</th>"));
	CHECK(!strstr(page, "<th>waits on writes</th>"));
	CHECK(!strstr(page, "<py>") && !strstr(page, "<b>"));
	free(page);
	/* One loop: the verdict's, no section of its own. */
	one = render(mapped_report, sizeof(mapped_report) - 1);
	REQUIRE(one);
	CHECK(!strstr(one, "id=\"loops\""));
	free(one);
}
