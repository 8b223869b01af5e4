/* gen: write DIR/dNNNN/fNNNNNNN.jpg, pseudo-random files of --seed. */
#include "workload.h"

int cmd_gen(const char *dir)
{
	u64 i, size, bytes = 0, span = opt.max_size - opt.min_size + 1;
	u64 ndirs = opt.dirs ? opt.dirs : opt.files / 100 ? opt.files / 100 : 1;
	char path[PATH_MAX + 32];

	if (mkdir_p(dir))
		return 1;
	for (i = 0; i < ndirs; i++) {
		snprintf(path, sizeof(path), "%s/d%04llu", dir, i);
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			fail("create directory", path);
			return 1;
		}
	}
	rnd_seed(opt.seed);
	for (i = 0; i < opt.files; i++) {
		size = opt.min_size + (span ? rnd() % span : rnd());
		snprintf(path, sizeof(path), "%s/d%04llu/f%07llu.jpg",
			 dir, i % ndirs, i);
		if (write_file(path, size))
			return 1;
		bytes += size;
	}
	printf("generated %llu files, %llu bytes in %llu directories\n",
	       opt.files, bytes, ndirs);
	return 0;
}
