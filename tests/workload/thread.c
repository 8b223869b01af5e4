/* thread: the measured calls all in a thread that is not the leader. */
#include "workload.h"

static void *thread_reader(void *arg)
{
	char *buf = xalloc(malloc(opt.bufsize));
	void *ret = NULL;

	(void)arg;
	if (open_tally_and_gate())
		ret = (void *)1;
	for (u64 k = 0; !ret && k < opt.times; k++)
		if (read_whole(0, buf, opt.bufsize))
			ret = (void *)1;
	free(buf);
	return ret;
}

int cmd_thread(const char *file)
{
	pthread_t th;
	void *ret;
	int err;

	paths = xalloc(calloc(1, sizeof(*paths)));
	paths[0] = xalloc(strdup(file));
	tally_alloc(1);
	err = pthread_create(&th, NULL, thread_reader, NULL);
	if (err) {
		errno = err;
		return fail("create", "thread");
	}
	pthread_join(th, &ret);
	return ret || print_tally(1, 0) ? 1 : 0;
}
