/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A JSON report read without holding its per-record lists. jansson holds
 * ~3.5 KiB per parsed file record, so a 1M-file report (~400 MB) would take
 * ~4 GB. A streaming filter in front of the parser passes everything but
 * the values of chosen top-level keys, which reach jansson as "[" + the
 * newlines they held + "]" (line numbers of parse errors stay right). A
 * chosen key may name a function that is given, one at a time, each object
 * or array element of its array value, as JSON text. The filter tracks
 * strings and nesting only: a value that does not balance runs to the end
 * and fails to parse.
 */
#ifndef LIB_JSKIM_H
#define LIB_JSKIM_H

#include <stddef.h>
#include <stdio.h>

/* A top-level key whose value is skimmed. */
struct jskim_key {
	const char *name;	/* at most 16 bytes */
	/*
	 * NULL: the value is dropped. Else called with each element of the
	 * array value (text, len: the element's JSON, not NUL-terminated);
	 * 0 goes on, -errno stops the load with that error.
	 */
	int (*elem)(const char *text, size_t len, void *arg);
	void *arg;
};

struct jskim;

/* A filter reading f, with the values of keys[0..n) skimmed; NULL: no memory. */
struct jskim *jskim__new(FILE *f, const struct jskim_key *keys, size_t n);
/*
 * The filtered text, as jansson's json_load_callback() asks for it:
 * json_load_callback(jskim__read, s, 0, &jerr). (size_t)-1 on an error.
 */
size_t jskim__read(void *buffer, size_t buflen, void *s);
/* The errno that stopped the filter (a failed read, an element function's), or 0. */
int jskim__err(const struct jskim *s);
void jskim__free(struct jskim *s);

#endif /* LIB_JSKIM_H */
