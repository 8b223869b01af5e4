/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The findings tests' way to judge an evidence: the rules and the verdict
 * line over it (t NULL: the default thresholds), a finding by id, and a
 * figure of a finding by name (NAN when it cites none).
 */
#ifndef TESTS_UNIT_FINDINGS_JUDGED_H
#define TESTS_UNIT_FINDINGS_JUDGED_H

#include <math.h>
#include <string.h>
#include "findings/rules.h"

struct judged {
	struct finding f[FINDINGS_MAX];
	int n;
	char headline[384];
};

static inline void judge(const struct evidence *e, const struct thresholds *t, struct judged *j)
{
	struct thresholds def;

	if (!t) {
		thresholds__defaults(&def);
		t = &def;
	}
	j->n = judge__rules(e, t, j->f, FINDINGS_MAX);
	judge__headline(j->f, j->n, j->headline, sizeof(j->headline));
}

static inline const struct finding *get(const struct judged *j, const char *id)
{
	for (int i = 0; i < j->n; i++)
		if (!strcmp(j->f[i].id, id))
			return &j->f[i];
	return NULL;
}

static inline double figure(const struct finding *f, const char *name)
{
	const struct figure *g = finding__figure(f, name);

	return g ? g->value : NAN;
}

#endif /* TESTS_UNIT_FINDINGS_JUDGED_H */
