// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Lexical path normalization and dirname. */
#include <stdlib.h>
#include "model/path.h"
#include "unit.h"

static void check_norm(const char *in, const char *want)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", in);
	path__normalize(buf);
	CHECK_STR(buf, want);
}

TEST(path_normalize)
{
	check_norm("/", "/");
	check_norm("/..", "/");
	check_norm("/../..", "/");
	check_norm("/../a", "/a");
	check_norm("//", "/");
	check_norm("///a//b///", "/a/b");
	check_norm("/a/./b/.", "/a/b");
	check_norm("/a/b/..", "/a");
	check_norm("/a/b/../..", "/");
	check_norm("/a/b/../../..", "/");
	check_norm("/home/u/./data/../train//x.bin", "/home/u/train/x.bin");
	check_norm("/a/b/", "/a/b");
	check_norm("/.", "/");
	check_norm("/...", "/...");
	check_norm("/a/..b/.c", "/a/..b/.c");
	check_norm("a/b", "a/b");
	check_norm("a/..", ".");
	check_norm("", ".");
	check_norm(".", ".");
	check_norm("./a/", "a");
	check_norm("../a", "../a");
	check_norm("../../a/../b", "../../b");
	check_norm("a/../../b", "../b");
	check_norm("\xe2\x80\xa6tail/x/../y", "\xe2\x80\xa6tail/y");
}

static void check_dirname(const char *in, const char *want)
{
	char *d = path__dirname(in);

	CHECK_STR(d, want);
	free(d);
}

TEST(path_dirname)
{
	check_dirname("/a/b/c", "/a/b");
	check_dirname("/a/b/c/", "/a/b");
	check_dirname("/a", "/");
	check_dirname("/", "/");
	check_dirname("//a", "/");
	check_dirname("/a//b", "/a");
	check_dirname("a", ".");
	check_dirname("a/b", "a");
	check_dirname("\xe2\x80\xa6/x/y", "\xe2\x80\xa6/x");
	check_dirname("\xe2\x80\xa6/y", "\xe2\x80\xa6");
	check_dirname("\xe2\x80\xa6long-name", "\xe2\x80\xa6");
}
