// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The text report. By default one screen (brief.c); with --full (or -v)
 * every table, iostat/biolatency-like: totals, distributions, the busiest
 * files, directories and threads, and always the count of what was lost.
 */
#include <errno.h>
#include <stdio.h>
#include "report/report_int.h"

int report__print_text(FILE *out, const struct report *r, const struct report_opts *o)
{
	size_t top = o && o->top > 0 ? o->top : REPORT_TOP_DEFAULT;
	const struct trace *t = r->t;
	int err = 0;

	if (!o || !o->full) {
		err = report_brief__text(out, r, top);
		goto out_flush;
	}
	report_header__text(out, r);
	report_kernel__text(out, r);
	report_findings__text(out, r);
	report_stall__text(out, r);
	report_phases__text(out, r, 2);
	if (trace__empty(t)) {
		fprintf(out, "\nno file I/O by the target was seen\n");
		report_block__text(out, r);
		fputc('\n', out);
	} else {
		fputc('\n', out);
		report_vfs__text(out, r);
		report_mounts__text(out, r);
		report_block__text(out, r);
		report_fuse__text(out, r);
		report_nfs__text(out, r);
		err = report_lists__text(out, r, top);
		if (!err)
			report_cgroups__text(out, r, top);
		fputc('\n', out);
	}
	report_lost__text(out, r, true);
out_flush:
	errno = 0;
	if (fflush(out) || ferror(out))
		return errno ? -errno : -EIO;
	return err;
}
