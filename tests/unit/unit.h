/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A tiny unit-test harness: TEST(name) { ... } registers a test before
 * main() runs; CHECK* report file:line and keep going, REQUIRE returns
 * from the test. tests/unit/main.c runs them all.
 */
#ifndef UNIT_H
#define UNIT_H

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
	struct unit_test *next;
};

void unit__register(struct unit_test *t);
/* Count a failed check of the running test and say where it is. */
void unit__fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define TEST(name)							\
	static void test_##name(void);					\
	static struct unit_test unit_##name = { #name, test_##name, NULL }; \
	__attribute__((constructor)) static void unit_register_##name(void) \
	{								\
		unit__register(&unit_##name);				\
	}								\
	static void test_##name(void)

#define CHECK(cond)							\
	do {								\
		if (!(cond))						\
			unit__fail(__FILE__, __LINE__, "CHECK(%s)", #cond); \
	} while (0)

#define REQUIRE(cond)							\
	do {								\
		if (!(cond)) {						\
			unit__fail(__FILE__, __LINE__, "REQUIRE(%s)", #cond); \
			return;						\
		}							\
	} while (0)

#define CHECK_EQ_U64(a, b)						\
	do {								\
		unsigned long long a_ = (a), b_ = (b);			\
		if (a_ != b_)						\
			unit__fail(__FILE__, __LINE__, "%s == %s: %llu != %llu", \
				   #a, #b, a_, b_);			\
	} while (0)

#define CHECK_EQ_INT(a, b)						\
	do {								\
		long long a_ = (a), b_ = (b);				\
		if (a_ != b_)						\
			unit__fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", \
				   #a, #b, a_, b_);			\
	} while (0)

#define CHECK_STR(a, b)							\
	do {								\
		const char *a_ = (a), *b_ = (b);			\
		if (!a_ || !b_ || strcmp(a_, b_))			\
			unit__fail(__FILE__, __LINE__, "%s == %s: '%s' != '%s'", \
				   #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
	} while (0)

/* |a - b| <= eps. */
#define CHECK_NEAR(a, b, eps)						\
	do {								\
		double a_ = (a), b_ = (b);				\
		if (!(fabs(a_ - b_) <= (eps)))				\
			unit__fail(__FILE__, __LINE__, "%s ~= %s: %g != %g", \
				   #a, #b, a_, b_);			\
	} while (0)

/* a equals b to 1e-9 of b (or of 1, near 0): the same double, computed another way. */
#define CHECK_REL(a, b)	CHECK_NEAR(a, b, 1e-9 * fmax(1, fabs((double)(b))))

#define CHECK_HAS(s, sub)						\
	do {								\
		const char *s_ = (s), *sub_ = (sub);			\
		if (!strstr(s_, sub_))					\
			unit__fail(__FILE__, __LINE__, "'%s' lacks '%s'", s_, sub_); \
	} while (0)

#endif /* UNIT_H */
