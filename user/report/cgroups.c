// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The cgroups that did I/O, each with the container it is: its path under
 * the cgroup2 mount and, parsed from it, the runtime's container id and the
 * pod uid. In the text report only when it tells something (more than one
 * cgroup, or a container); in the JSON always.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/json.h"
#include "report/report_int.h"

#define ID_SHORT	12	/* container ids as docker ps shows them */

static bool worth_text(struct cgroup_rec *const *v, size_t n)
{
	return n > 1 || (n == 1 && v[0]->name.container_id[0]);
}

static void text_row(FILE *out, const struct cgroup_rec *r)
{
	fprintf(out, "%8llu %8llu %9.1f %8.2f  ", (unsigned long long)r->io.opens,
		(unsigned long long)r->io.reads, r->io.read_bytes / 1048576.0,
		(r->io.read_ns + r->io.meta_ns) / 1e9);
	if (r->cgid == CGROUP_OTHER)
		fprintf(out, "(other cgroups)\n");
	else if (r->path)
		emit__safe(out, r->path), fputc('\n', out);
	else
		fprintf(out, "(cgroup id %llu, gone)\n", (unsigned long long)r->cgid);
	if (!r->name.container_id[0] && !r->name.pod_uid[0])
		return;
	fprintf(out, "%37s", "");
	if (r->name.pod_uid[0])
		fprintf(out, "pod %s  ", r->name.pod_uid);
	if (r->name.container_id[0])
		fprintf(out, "container %s%s%.*s", r->name.runtime,
			r->name.runtime[0] ? "://" : "", ID_SHORT, r->name.container_id);
	fputc('\n', out);
}

void report_cgroups__text(FILE *out, const struct report *r, size_t top)
{
	const struct cgroups *c = &r->t->cgroups;
	struct cgroup_rec **v = r->cgroups;
	size_t n = r->nr_cgroups;

	if (worth_text(v, n)) {
		fprintf(out, "\ncgroups that did I/O (containers), paths under the cgroup2 mount\n");
		fprintf(out, "%8s %8s %9s %8s  %s\n", "opens", "reads", "MiB", "I/O s", "cgroup");
		for (size_t i = 0; i < n && i < top; i++)
			text_row(out, v[i]);
		if (n > top)
			fprintf(out, ELLIPSIS " %zu more cgroups\n", n - top);
		if (c->folded)
			fprintf(out, "%llu cgroups summed into \"other\" (more than %zu)\n",
				(unsigned long long)c->folded, c->max ? c->max : CGROUPS_MAX);
	}
}

static void json_rec(struct json *j, const struct cgroup_rec *r)
{
	json__begin_object(j);
	json__key(j, "id");
	if (r->cgid == CGROUP_OTHER)
		json__null(j);
	else
		json__u64(j, r->cgid);
	json__key(j, "path");
	if (r->path)
		json__string(j, r->path);
	else
		json__null(j);
	json__kv_string(j, "runtime", r->name.runtime);
	json__kv_string(j, "container_id", r->name.container_id);
	json__kv_string(j, "pod_uid", r->name.pod_uid);
	json__kv_string(j, "qos", r->name.qos);
	json__kv_u64(j, "opens", r->io.opens);
	json__kv_u64(j, "stats", r->io.stats);
	json__kv_u64(j, "reads", r->io.reads);
	json__kv_u64(j, "read_bytes", r->io.read_bytes);
	json__kv_double(j, "read_s", r->io.read_ns / 1e9);
	json__kv_double(j, "meta_s", r->io.meta_ns / 1e9);
	json__kv_u64(j, "cache_pages", r->io.cache_pages);
	json__end_object(j);
}

void report_cgroups__json(struct json *j, const struct report *r)
{
	json__key(j, "cgroups");
	json__begin_array(j);
	for (size_t i = 0; i < r->nr_cgroups; i++)
		json_rec(j, r->cgroups[i]);
	json__end_array(j);
	json__kv_u64(j, "cgroups_folded", r->t->cgroups.folded);
}
