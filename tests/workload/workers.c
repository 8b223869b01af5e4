/* Threads, processes and decode-like CPU work. */
#include "workload.h"

#include <sys/wait.h>

static pthread_t tids[MAX_THREADS];
static volatile unsigned int sink_u;

/* Run fn((void *)k) in n threads, inline if n is 1; nonzero if one failed. */
int in_threads(size_t n, void *(*fn)(void *))
{
	size_t k, started;
	void *ret;
	int err = 0;

	if (n == 1)
		return fn((void *)0) != NULL;
	for (started = 0; started < n; started++) {
		err = pthread_create(&tids[started], NULL, fn, (void *)started);
		if (err) {
			errno = err;
			err = fail("create", "thread");
			break;
		}
	}
	for (k = 0; k < started; k++) {
		pthread_join(tids[k], &ret);
		err |= ret != NULL;
	}
	return err;
}

/* Run fn(k) in n forked children and wait for them; nonzero if one failed. */
int in_children(size_t n, int (*fn)(size_t))
{
	int status, err = 0;
	pid_t pid;
	size_t k;

	for (k = 0; k < n; k++) {
		pid = fork();
		if (pid < 0) {
			err = fail("fork", "child");
			break;
		}
		if (pid == 0)
			_exit(fn(k) ? 1 : 0);
	}
	while ((pid = wait(&status)) > 0) {
		if (WIFSIGNALED(status))
			fprintf(stderr, PROG ": child %d killed by signal %d\n",
				pid, WTERMSIG(status));
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			err = 1;
	}
	return err;
}

/* Decode-like CPU work: spin for us microseconds over the file's bytes. */
void spin_us(u64 us, const char *buf)
{
	struct timespec t0, t;
	unsigned int h = 0;

	if (!us)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);	/* vDSO: no syscall */
	do {
		for (int k = 0; k < 4096; k++)
			h = h * 31 + (unsigned char)buf[k & 1023];
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000LL + t.tv_nsec - t0.tv_nsec <
		 (long long)us * 1000);
	sink_u += h;
}
