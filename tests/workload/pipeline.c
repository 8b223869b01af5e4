/* pipeline: readers -> decoders -> the training loop, tf.data-like. */
#include "workload.h"

#include <sys/prctl.h>

static size_t nread;
static char *bufs[MAX_THREADS];
static size_t next_k;			/* next file, shared by the readers */

/* A bounded queue of file indexes: a mutex and two condition variables. */
struct queue {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	size_t *v, cap, head, len;
	size_t closed_by;	/* producers that are done */
	size_t producers;
};

static struct queue raw_q, ready_q;

static void queue_init(struct queue *q, size_t cap, size_t producers)
{
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->not_empty, NULL);
	pthread_cond_init(&q->not_full, NULL);
	q->v = xalloc(calloc(cap, sizeof(*q->v)));
	q->cap = cap;
	q->producers = producers;
}

static void queue_push(struct queue *q, size_t i)
{
	pthread_mutex_lock(&q->lock);
	while (q->len == q->cap)
		pthread_cond_wait(&q->not_full, &q->lock);
	q->v[(q->head + q->len++) % q->cap] = i;
	pthread_cond_signal(&q->not_empty);
	pthread_mutex_unlock(&q->lock);
}

/* A producer is done: when all are, pops of an empty queue return 0. */
static void queue_close(struct queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed_by++;
	pthread_cond_broadcast(&q->not_empty);
	pthread_mutex_unlock(&q->lock);
}

static int queue_pop(struct queue *q, size_t *i)
{
	pthread_mutex_lock(&q->lock);
	while (!q->len && q->closed_by < q->producers)
		pthread_cond_wait(&q->not_empty, &q->lock);
	if (!q->len) {
		pthread_mutex_unlock(&q->lock);
		return 0;
	}
	*i = q->v[q->head];
	q->head = (q->head + 1) % q->cap;
	q->len--;
	pthread_cond_signal(&q->not_full);
	pthread_mutex_unlock(&q->lock);
	return 1;
}

static void *pipe_reader(void *arg)
{
	char *buf = bufs[(size_t)arg];
	size_t i;
	int err = 0;

	while (!err && (i = __atomic_fetch_add(&next_k, 1, __ATOMIC_RELAXED)) <
		       nread * opt.epochs) {
		i %= nread;
		err = read_whole(i, buf, opt.bufsize);
		if (!err)
			queue_push(&raw_q, i);
	}
	queue_close(&raw_q);
	return err ? (void *)1 : NULL;
}

/* Name the calling thread the k-th of --names, if there is one. */
static void name_thread(size_t k)
{
	const char *p = opt.names;
	char name[16];
	size_t n;

	for (; p && k; k--)
		p = (p = strchr(p, ',')) ? p + 1 : NULL;
	if (!p || !*p)
		return;
	n = strcspn(p, ",");
	snprintf(name, sizeof(name), "%.*s", (int)n, p);
	prctl(PR_SET_NAME, name);
}

static void *pipe_decoder(void *arg)
{
	char *buf = bufs[opt.readers + (size_t)arg];
	size_t i;

	name_thread((size_t)arg);

	while (queue_pop(&raw_q, &i)) {
		spin_us(opt.cpu_us, buf);
		queue_push(&ready_q, i);
	}
	queue_close(&ready_q);
	return NULL;
}

static u64 mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

static int disk_stat_fd = -1;

/*
 * " read_sectors=N" from --disk-stat (the third field of a block device's
 * stat file), or "" without it.
 */
static const char *disk_read_sectors(void)
{
	static char out[48];
	unsigned long long r[3];
	char buf[256];
	ssize_t n;

	out[0] = 0;
	if (disk_stat_fd < 0)
		return out;
	n = pread(disk_stat_fd, buf, sizeof(buf) - 1, 0);
	if (n < 0) {
		fail("read", opt.disk_stat);
		exit(1);
	}
	buf[n] = 0;
	if (sscanf(buf, "%llu %llu %llu", &r[0], &r[1], &r[2]) != 3) {
		fprintf(stderr, PROG ": '%s' is not a block device's stat\n", opt.disk_stat);
		exit(1);
	}
	snprintf(out, sizeof(out), " read_sectors=%llu", r[2]);
	return out;
}

/*
 * The training loop: a step takes a batch, then computes; its wait is
 * timed. With --epochs it marks the end of each epoch (the sample that
 * completes it taken) on its own clock: "epoch N end_ns=T", CLOCK_MONOTONIC.
 */
static int pipe_loop(void)
{
	u64 t0 = mono_ns(), t, wait = 0, steps = 0, wall, samples = 0;
	char line[200], buf[1024] = "";
	size_t i, got = 1;
	int n;

	while (got) {
		t = mono_ns();
		for (got = 0; got < opt.batch && queue_pop(&ready_q, &i); got++) {
			if (++samples % nread || samples / nread >= opt.epochs)
				continue;
			n = snprintf(line, sizeof(line), "epoch %llu end_ns=%llu%s\n",
				     samples / nread, mono_ns(), disk_read_sectors());
			if (write_all(ofd, line, n, "tally"))
				return 1;
		}
		wait += mono_ns() - t;
		if (!got)
			break;
		steps++;
		spin_us(opt.step_ms * 1000, buf);
	}
	wall = mono_ns() - t0;
	n = snprintf(line, sizeof(line), "loop steps=%llu wait_ns=%llu wall_ns=%llu "
		     "wait_share=%.4f%s\n", steps, wait, wall, wall ? (double)wait / wall : 0,
		     disk_read_sectors());
	return write_all(ofd, line, n, "tally");
}

int cmd_pipeline(const char *dir)
{
	pthread_t th[2 * MAX_THREADS];
	size_t nth = 0, k;
	int err = 0;
	void *ret;

	if (opt.readers + opt.decoders > MAX_THREADS)
		usage_error("--readers + --decoders is above %d", MAX_THREADS);
	if (list_dataset(dir, &nread))
		return 1;
	for (k = 0; k < opt.readers + opt.decoders; k++)
		bufs[k] = xalloc(malloc(opt.bufsize > 1024 ? opt.bufsize : 1024));
	queue_init(&raw_q, opt.queue, opt.readers);
	queue_init(&ready_q, opt.queue, opt.decoders);
	if (opt.disk_stat &&
	    (disk_stat_fd = open(opt.disk_stat, O_RDONLY | O_CLOEXEC)) < 0)
		return fail("open", opt.disk_stat);
	if (open_tally_and_gate())
		return 1;
	for (k = 0; k < opt.readers; k++)
		err |= pthread_create(&th[nth++], NULL, pipe_reader, (void *)k);
	for (k = 0; k < opt.decoders; k++)
		err |= pthread_create(&th[nth++], NULL, pipe_decoder, (void *)k);
	if (err) {
		errno = err;
		return fail("create", "thread");
	}
	err = pipe_loop();
	for (k = 0; k < nth; k++) {
		pthread_join(th[k], &ret);
		err |= ret != NULL;
	}
	return err || print_tally(nread, opt.tally_files) ? 1 : 0;
}
