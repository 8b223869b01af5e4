/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The JSON report's schema (docs/json.md): what report/ writes, and what
 * diff/ and html/ accept.
 */
#ifndef LIB_SCHEMA_H
#define LIB_SCHEMA_H

#define IOSTORM_REPORT_SCHEMA	"iostorm.report/1"

#endif /* LIB_SCHEMA_H */
