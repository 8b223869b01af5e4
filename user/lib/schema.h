/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The JSON report's schema (docs/json.md): what report/ writes, and what
 * diff/ and html/ accept; and what its figures mean where a reader derives
 * one again (html/ counts the files read whole as the findings do).
 */
#ifndef LIB_SCHEMA_H
#define LIB_SCHEMA_H

#define IOSTORM_REPORT_SCHEMA	"iostorm.report/1"

/* A file read to this share of its size or more is read whole. */
#define WHOLE_SHARE		0.9

#endif /* LIB_SCHEMA_H */
