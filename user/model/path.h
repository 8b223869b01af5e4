/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Lexical path helpers: no file system access, so they work on paths the
 * kernel saw in another mount namespace or that no longer exist.
 */
#ifndef PATH_H
#define PATH_H

/*
 * Normalize in place: collapse "//", drop "." components and trailing "/",
 * resolve ".." against the previous component. "/.." stays "/"; a relative
 * path keeps the leading ".." it cannot resolve; an empty result is ".".
 */
void path__normalize(char *path);

/*
 * The parent directory of path, malloc'd: "/a/b" -> "/a", "/a" -> "/",
 * "a" -> ".", and a tail kept after "…" with no "/" -> "…". NULL when out
 * of memory.
 */
char *path__dirname(const char *path);

#endif /* PATH_H */
