/*
 * churn: what a node's agent sees for weeks: short threads and processes,
 * new small files written and read.
 */
#include "workload.h"

#include <sys/wait.h>
#include <time.h>

static const char *churn_dir;

/* One short life: maybe a new 1 KiB file written and read back, then 1 ms asleep. */
static int churn_life(unsigned long n, int with_file)
{
	struct timespec nap = { 0, 1000000 };
	char path[PATH_MAX], buf[1024];
	int fd, err = 0;

	if (with_file) {
		snprintf(path, sizeof(path), "%s/c%08lu", churn_dir, n);
		memset(buf, 'c', sizeof(buf));
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf))
			err = 1;
		if (fd >= 0)
			close(fd);
		fd = open(path, O_RDONLY);
		if (fd < 0 || read(fd, buf, sizeof(buf)) != sizeof(buf))
			err = 1;
		if (fd >= 0)
			close(fd);
	}
	nanosleep(&nap, NULL);
	return err;
}

static void *churn_thread(void *arg)
{
	unsigned long n = (unsigned long)arg;

	return churn_life(n >> 1, n & 1) ? (void *)1 : NULL;
}

int cmd_churn(const char *dir)
{
	u64 lives = opt.seconds * opt.rate, files = 0, procs = 0, threads = 0;
	struct timespec t0, next;
	char line[128];
	int err = 0, len, st;

	churn_dir = dir;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (u64 i = 0; i < lives && !err; i++) {
		/* Life i starts at t0 + i / rate; with a file when the file rate says. */
		int with_file = opt.file_rate && i * opt.file_rate / opt.rate !=
					(i + 1) * opt.file_rate / opt.rate;
		u64 at = i * 1000000000ULL / opt.rate;
		pthread_t th;
		void *ret;
		pid_t pid;

		next.tv_sec = t0.tv_sec + (t0.tv_nsec + at) / 1000000000ULL;
		next.tv_nsec = (t0.tv_nsec + at) % 1000000000ULL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		if (i % 10 == 9) {
			pid = fork();
			if (pid < 0)
				return fail("fork", dir);
			if (!pid)
				_exit(churn_life(i, with_file));
			if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
				err = 1;
			procs++;
		} else {
			if (pthread_create(&th, NULL, churn_thread, (void *)(i << 1 | with_file)))
				return fail("create", "thread");
			pthread_join(th, &ret);
			err = ret != NULL;
			threads++;
		}
		files += with_file;
	}
	len = snprintf(line, sizeof(line), "churn threads=%llu procs=%llu files=%llu\n",
		       (unsigned long long)threads, (unsigned long long)procs,
		       (unsigned long long)files);
	st = opt.tally ? open(opt.tally, O_WRONLY | O_CREAT | O_TRUNC, 0644) : 1;
	if (st < 0 || write_all(st, line, len, "tally"))
		err = 1;
	return err;
}
