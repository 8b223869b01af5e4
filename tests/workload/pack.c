/* pack: DIR's files concatenated, in path order, into shards. */
#include "workload.h"

/* Append one file to the shard fd; returns bytes copied or -1. */
static long long pack_one(int out, const char *path, char *buf, size_t len)
{
	long long total = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return fail("open", path), -1;
	while ((n = read(fd, buf, len)) > 0) {
		if (write_all(out, buf, n, "shard")) {
			close(fd);
			return -1;
		}
		total += n;
	}
	close(fd);
	if (n < 0)
		return fail("read", path), -1;
	return total;
}

int cmd_pack(const char *dir)
{
	char name[PATH_MAX + 32], *buf = xalloc(malloc(1 << 20));
	u64 shard = 0, in_shard = 0;
	long long n;
	int out = -1;

	if (!opt.out)
		usage_error("pack needs --out SHARDDIR");
	if (mkdir_p(opt.out) || walk(dir))
		return 1;
	qsort(paths, nlist, sizeof(*paths), cmp_path);
	for (size_t i = 0; i < nlist; i++) {
		if (out < 0 || in_shard >= opt.shard_size) {
			if (out >= 0)
				close(out);
			snprintf(name, sizeof(name), "%s/shard-%05llu.bin", opt.out, shard++);
			out = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (out < 0)
				return fail("create", name);
			in_shard = 0;
		}
		n = pack_one(out, paths[i], buf, 1 << 20);
		if (n < 0)
			return 1;
		in_shard += n;
	}
	if (out >= 0)
		close(out);
	printf("packed %zu files into %llu shards\n", nlist, shard);
	free(buf);
	return 0;
}
