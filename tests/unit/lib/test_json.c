// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The JSON writer: exact output, escaping, misuse, and jansson agreeing. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include "lib/json.h"
#include "unit.h"

/* Everything written by fn, as a malloc'd string; *err gets json__end's. */
static char *capture(void (*fn)(struct json *), int pretty, int *err)
{
	struct json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	json__init(&j, f, pretty);
	fn(&j);
	*err = json__end(&j);
	fclose(f);
	return buf;
}

/* jansson takes integers up to INT64_MAX only: the largest u64 is for us. */
static bool with_u64_max;

static void nested(struct json *j)
{
	json__begin_object(j);
	json__kv_u64(j, "a", 1);
	json__key(j, "b");
	json__begin_array(j);
	json__u64(j, 1);
	json__i64(j, -2);
	json__begin_object(j);
	json__key(j, "c");
	json__null(j);
	json__end_object(j);
	json__end_array(j);
	json__key(j, "d");
	json__begin_object(j);
	json__end_object(j);
	json__key(j, "e");
	json__begin_array(j);
	json__end_array(j);
	json__key(j, "f");
	json__bool(j, true);
	json__key(j, "g");
	json__bool(j, false);
	json__kv_double(j, "h", 1.5);
	json__kv_double(j, "nan", NAN);
	json__kv_double(j, "inf", -INFINITY);
	json__kv_u64(j, "max", with_u64_max ? ~0ULL : 1ULL << 62);
	json__kv_string(j, "null", NULL);
	json__kv_double(j, "tiny", 1e-300);
	json__end_object(j);
}

TEST(json_nesting_commas)
{
	json_error_t jerr;
	json_t *root;
	char *s;
	int err;

	with_u64_max = true;
	s = capture(nested, 0, &err);
	with_u64_max = false;
	REQUIRE(s);
	CHECK_EQ_INT(err, 0);
	CHECK_STR(s, "{\"a\":1,\"b\":[1,-2,{\"c\":null}],\"d\":{},\"e\":[],\"f\":true,"
		     "\"g\":false,\"h\":1.5,\"nan\":null,\"inf\":null,"
		     "\"max\":18446744073709551615,\"null\":null,\"tiny\":1e-300}\n");
	free(s);

	/* Pretty output parses to the same values. */
	s = capture(nested, 2, &err);
	REQUIRE(s);
	CHECK_EQ_INT(err, 0);
	root = json_loads(s, 0, &jerr);
	if (!root)
		fprintf(stderr, "jansson: %s at %d:%d in\n%s", jerr.text, jerr.line, jerr.column, s);
	REQUIRE(root);
	CHECK_EQ_INT(json_integer_value(json_object_get(root, "a")), 1);
	CHECK_EQ_INT(json_array_size(json_object_get(root, "b")), 3);
	CHECK_EQ_INT(json_integer_value(json_array_get(json_object_get(root, "b"), 1)), -2);
	CHECK(json_is_null(json_object_get(json_array_get(json_object_get(root, "b"), 2), "c")));
	CHECK(json_is_object(json_object_get(root, "d")));
	CHECK(json_is_true(json_object_get(root, "f")));
	CHECK(json_real_value(json_object_get(root, "h")) == 1.5);
	CHECK(json_is_null(json_object_get(root, "nan")));
	CHECK(json_is_null(json_object_get(root, "inf")));
	CHECK_EQ_U64(json_integer_value(json_object_get(root, "max")), 1ULL << 62);
	CHECK(json_real_value(json_object_get(root, "tiny")) == 1e-300);
	CHECK(strchr(s, '\n') < s + strlen(s) - 1);	/* more than one line */
	json_decref(root);
	free(s);
}

static const char *escape_in;

static void one_string(struct json *j)
{
	json__begin_array(j);
	json__string(j, escape_in);
	json__end_array(j);
}

/* Parse ["..."] back with jansson; the decoded string, malloc'd. */
static char *roundtrip(const char *in, char **raw)
{
	json_error_t jerr;
	json_t *root;
	char *s, *out = NULL;
	int err;

	escape_in = in;
	s = capture(one_string, 0, &err);
	if (!s || err) {
		free(s);
		return NULL;
	}
	root = json_loads(s, 0, &jerr);
	if (root && json_is_string(json_array_get(root, 0)))
		out = strdup(json_string_value(json_array_get(root, 0)));
	else
		fprintf(stderr, "jansson: %s in %s", root ? "not a string" : jerr.text, s);
	json_decref(root);
	if (raw)
		*raw = s;
	else
		free(s);
	return out;
}

TEST(json_escaping)
{
	char all[128], *out, *raw;

	/* Every ASCII byte but NUL survives the round trip. */
	for (int c = 1; c < 128; c++)
		all[c - 1] = c;
	all[127] = '\0';
	out = roundtrip(all, &raw);
	CHECK_STR(out, all);
	CHECK(strstr(raw, "\\n") && strstr(raw, "\\t") && strstr(raw, "\\u0001") &&
	      strstr(raw, "\\u001f") && strstr(raw, "\\\"") && strstr(raw, "\\\\") &&
	      strstr(raw, "\\u007f"));
	for (char *p = raw; *p; p++)
		CHECK((unsigned char)*p >= 0x20 || *p == '\n');	/* no raw control bytes */
	free(out);
	free(raw);

	/* Valid UTF-8 passes as is: 2, 3 and 4 bytes. */
	out = roundtrip("caf\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x93\x81", NULL);
	CHECK_STR(out, "caf\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x93\x81");
	free(out);

	/* Invalid UTF-8: one U+FFFD per bad byte, the rest untouched. */
#define FFFD "\xef\xbf\xbd"
	out = roundtrip("a\xff" "b", NULL);
	CHECK_STR(out, "a" FFFD "b");
	free(out);
	out = roundtrip("\xc0\xaf", NULL);			/* overlong "/" */
	CHECK_STR(out, FFFD FFFD);
	free(out);
	out = roundtrip("\xed\xa0\x80", NULL);			/* surrogate */
	CHECK_STR(out, FFFD FFFD FFFD);
	free(out);
	out = roundtrip("x\xe2\x82", NULL);			/* cut short */
	CHECK_STR(out, "x" FFFD FFFD);
	free(out);
	out = roundtrip("\xf4\x90\x80\x80", NULL);		/* > U+10FFFF */
	CHECK_STR(out, FFFD FFFD FFFD FFFD);
	free(out);
	out = roundtrip("\x80" "ok", NULL);			/* lone continuation */
	CHECK_STR(out, FFFD "ok");
	free(out);
#undef FFFD
}

static void misuse_key_at_top(struct json *j)
{
	json__key(j, "a");
}

static void misuse_value_without_key(struct json *j)
{
	json__begin_object(j);
	json__u64(j, 1);
	json__end_object(j);
}

static void misuse_mismatch(struct json *j)
{
	json__begin_object(j);
	json__end_array(j);
}

static void misuse_unclosed(struct json *j)
{
	json__begin_array(j);
}

static void misuse_two_documents(struct json *j)
{
	json__u64(j, 1);
	json__u64(j, 2);
}

static void misuse_too_deep(struct json *j)
{
	for (int i = 0; i <= JSON_DEPTH_MAX; i++)
		json__begin_array(j);
}

TEST(json_misuse)
{
	void (*cases[])(struct json *) = {
		misuse_key_at_top, misuse_value_without_key, misuse_mismatch,
		misuse_unclosed, misuse_two_documents, misuse_too_deep,
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int err = 0;
		char *s = capture(cases[i], 0, &err);

		CHECK_EQ_INT(err, -EINVAL);
		free(s);
	}
}

TEST(json_write_error)
{
	FILE *f = fopen("/dev/full", "w");
	struct json j;

	REQUIRE(f);
	setvbuf(f, NULL, _IONBF, 0);
	json__init(&j, f, 0);
	json__begin_array(&j);
	CHECK_EQ_INT(json__string(&j, "x"), -ENOSPC);
	CHECK_EQ_INT(json__end_array(&j), -ENOSPC);	/* the first error sticks */
	CHECK_EQ_INT(json__end(&j), -ENOSPC);
	fclose(f);
}
