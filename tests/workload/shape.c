/*
 * shape DIR --seed S --tag T: a job shape drawn from the seed (shape.h),
 * on the file systems mounted at DIR's directories, run, and tallied one
 * line per life of a file.
 */
#include "shape.h"

#include <dirent.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <signal.h>
#include <sys/wait.h>

#ifndef FUSE_SUPER_MAGIC
#define FUSE_SUPER_MAGIC	0x65735546
#endif
#define LIVES_PER_WORKER	(SHAPE_OPS + 8)

struct shape_root shape_roots[SHAPE_ROOTS];
size_t shape_nroots;
struct life *shape_lives;

static const char *const fs_names[] = { "ext4", "xfs", "tmpfs", "fuse", "other" };

/* What the seed drew for the whole job, and the shared clocks. */
static struct {
	size_t workers, nlives, first_worker_life;
	int proc[SHAPE_WORKERS];
	u64 ops[SHAPE_WORKERS];
	u64 reads[SHAPE_WORKERS];	/* a loop's: more reads after the ops */
	u64 cpu_us[SHAPE_WORKERS];	/* decode-like work after each of those */
	int favorite[SHAPE_WORKERS], only[SHAPE_WORKERS];
	int progress[SHAPE_WORKERS];	/* a loop's: a progress file after each read */
	int loop;
	u64 step_us;
	int items[2];		/* the loop's pipe: 'i' an item, 'e' a worker done */
	struct shape_clock *clocks;
	struct shape_clock loop_clock;	/* items, wait_ns (as write_ns), wall (busy_ns) */
	u64 loop_runq;			/* its time waiting for a CPU */
} plan;

u64 shape_rnd(struct shape_rng *r)		/* splitmix64 */
{
	u64 z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* lo..hi, both included. */
u64 shape_range(struct shape_rng *r, u64 lo, u64 hi)
{
	return lo + shape_rnd(r) % (hi - lo + 1);
}

u64 shape_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/*
 * Compute us microseconds of CPU (not of the wall: a step or a decode
 * preempted takes longer, as fixed work does, and never less CPU).
 */
static void spin_cpu_us(u64 us, char *buf)
{
	struct timespec t0, t;
	unsigned int h = 0;

	if (!us)
		return;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int k = 0; k < 4096; k++)
			h = h * 31 + (unsigned char)buf[k & 1023];
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000LL + t.tv_nsec - t0.tv_nsec <
		 (long long)us * 1000);
	buf[0] = h;
}

/* ROOT/TAG/wK/dD/fS into out; the directory itself when slot is SHAPE_SLOTS. */
char *shape_path(char *out, const struct shape_worker *w, size_t root, size_t dir, size_t slot)
{
	const char *top = shape_roots[root].top;

	if (slot == SHAPE_SLOTS)
		snprintf(out, SHAPE_PATH, "%s/w%zu/d%zu", top, w->k, dir);
	else
		snprintf(out, SHAPE_PATH, "%s/w%zu/d%zu/f%zu", top, w->k, dir, slot);
	return out;
}

/* ---- set-up, before any counted call */

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One root, DIR/NAME: its file system, and a read-only one's files. */
static int root_add(const char *dir, const char *name, size_t *nro)
{
	struct shape_root *root = &shape_roots[shape_nroots];
	struct statvfs sv;
	struct statfs sf;
	size_t before = nlist, i;

	root->path = join(dir, name);
	root->name = strrchr(root->path, '/') + 1;
	if (statfs(root->path, &sf) < 0 || statvfs(root->path, &sv) < 0)
		return fail("stat the file system of", root->path);
	root->fs = sf.f_type == EXT4_SUPER_MAGIC ? FS_EXT4 :
		   sf.f_type == XFS_SUPER_MAGIC ? FS_XFS :
		   sf.f_type == TMPFS_MAGIC ? FS_TMPFS :
		   sf.f_type == FUSE_SUPER_MAGIC ? FS_FUSE : FS_OTHER;
	/* the tests' FUSE file system is read-only */
	root->ro = root->fs == FS_FUSE || (sv.f_flag & ST_RDONLY);
	shape_nroots++;
	if (!root->ro)
		return 0;
	if (walk(root->path))
		return -1;
	qsort(paths + before, nlist - before, sizeof(*paths), cmp_name);
	root->nfiles = nlist - before < SHAPE_RO_FILES ? nlist - before : SHAPE_RO_FILES;
	for (i = 0; i < nlist - before; i++)
		if (i >= root->nfiles)
			free(paths[before + i]);
	nlist = before + root->nfiles;
	*nro += root->nfiles;
	return 0;
}

/* DIR's directories, by name: the roots. */
static int roots_find(const char *dir, size_t *nro)
{
	struct dirent **ents;
	struct stat st;
	char *p;
	int n, i, ret = 0;

	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0)
		return fail("list", dir);
	for (i = 0; i < n; i++) {
		p = join(dir, ents[i]->d_name);
		if (!ret && ents[i]->d_name[0] != '.' && !stat(p, &st) && S_ISDIR(st.st_mode)) {
			if (shape_nroots == SHAPE_ROOTS)
				ret = fail("use more than 8 roots in", dir);
			else
				ret = root_add(dir, ents[i]->d_name, nro);
		}
		free(p);
		free(ents[i]);
	}
	free(ents);
	if (!ret && !shape_nroots)
		ret = fail("find a root (a directory) in", dir);
	return ret;
}

/* Lives: the read-only roots' files first, then each worker's range. */
static int lives_alloc(size_t nro)
{
	size_t r, i, k = 0;
	struct stat st;
	struct life *l;

	plan.first_worker_life = nro;
	plan.nlives = nro + plan.workers * LIVES_PER_WORKER;
	shape_lives = mmap(NULL, plan.nlives * sizeof(*l), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	plan.clocks = mmap(NULL, SHAPE_WORKERS * sizeof(*plan.clocks), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	xalloc(shape_lives == MAP_FAILED || plan.clocks == MAP_FAILED ? NULL : shape_lives);
	for (r = 0; r < shape_nroots; r++) {
		shape_roots[r].first_life = k;
		for (i = 0; i < shape_roots[r].nfiles; i++, k++) {
			l = &shape_lives[k];
			if (stat(paths[k], &st) < 0)
				return fail("stat", paths[k]);
			snprintf(l->path, sizeof(l->path), "%s", paths[k]);
			snprintf(l->now, sizeof(l->now), "%s", paths[k]);
			l->size = st.st_size;
			l->root = r;
		}
	}
	return 0;
}

/*
 * The job drawn from the seed: workers, their kinds and lengths, the loop
 * and its step, the reads the workers feed it.
 */
static void plan_draw(void)
{
	static const u64 steps[] = { 2000, 4000 }, cpu[] = { 0, 4000, 16000 };
	struct shape_rng r = { opt.seed };
	u64 items = 0;
	size_t k;

	plan.workers = shape_range(&r, 1, SHAPE_WORKERS);
	for (k = 0; k < plan.workers; k++) {
		plan.proc[k] = shape_rnd(&r) % 2;
		plan.ops[k] = shape_range(&r, 12, SHAPE_OPS - 8);
		plan.reads[k] = shape_range(&r, 40, 120);
		plan.cpu_us[k] = cpu[shape_rnd(&r) % 3];
		plan.favorite[k] = shape_favorite(&r);
		plan.only[k] = shape_rnd(&r) % 2;
		plan.progress[k] = shape_rnd(&r) % 2;
	}
	plan.loop = shape_rnd(&r) % 2;
	plan.step_us = steps[shape_rnd(&r) % 2];
	if (!plan.loop)
		memset(plan.reads, 0, sizeof(plan.reads));
	/*
	 * The loop computes 2.5 s at most, and 2 ms an item at least: a step
	 * under 1 ms between pipe reads is a burst of receiving to iostorm
	 * (docs/stall.md, receive_ns), not computing.
	 */
	for (k = 0; k < plan.workers; k++)
		items += plan.reads[k] + plan.ops[k] / 3;
	if (items && plan.step_us * items > 2500000)
		plan.step_us = 2500000 / items > 2000 ? 2500000 / items : 2000;
}

/* ---- the workers and the loop */

static void item(const struct shape_worker *w, char c)
{
	if (w->items_fd >= 0 && write(w->items_fd, &c, 1) != 1)
		fail("write", "the loop's pipe");
}

static int worker_run(size_t k)
{
	struct shape_worker *w = xalloc(calloc(1, sizeof(*w)));
	u64 t0 = shape_now_ns(), i, n = plan.ops[k] + plan.reads[k];
	size_t r, d, s;
	int ret;

	w->k = k;
	w->r.s = opt.seed ^ (0x9e3779b97f4a7c15ULL * (k + 1));
	for (r = 0; r < SHAPE_ROOTS; r++)
		for (d = 0; d < SHAPE_DIRS; d++)
			for (s = 0; s < SHAPE_SLOTS; s++)
				w->slot[r][d][s] = -1;
	w->next_life = plan.first_worker_life + k * LIVES_PER_WORKER;
	w->last_life = w->next_life + LIVES_PER_WORKER;
	w->buf = xalloc(calloc(1, SHAPE_BUF));
	w->clock = &plan.clocks[k];
	w->clock->tid = gettid();
	w->items_fd = plan.loop ? plan.items[1] : -1;
	w->favorite = plan.favorite[k];
	w->only = plan.only[k];
	w->progress_life = -1;
	w->async = shape_async_new();
	ret = w->async ? shape_setup(w) : -1;
	/* a loop's worker starts and ends with a read: the loop waits for data */
	for (i = 0; ret >= 0 && i < n; i++) {
		ret = shape_op(w, plan.loop && (i == 0 || i >= plan.ops[k]));
		if (ret == 1 && i >= plan.ops[k]) {
			spin_cpu_us(plan.cpu_us[k], w->buf);
			if (plan.progress[k] && shape_progress(w))
				ret = -1;
		}
		if (ret == 1)
			item(w, 'i');
	}
	w->clock->busy_ns = shape_now_ns() - t0;
	item(w, 'e');
	shape_async_free(w->async);
	free(w->buf);
	free(w);
	return ret < 0 ? -1 : 0;
}

static void *worker_thread(void *arg)
{
	return worker_run((size_t)arg) ? (void *)1 : NULL;
}

static void on_child(int sig)
{
	(void)sig;		/* only to end the loop's read: EINTR */
}

/* Has a worker process ended other than by exiting 0? It stays a zombie. */
static int child_failed(void)
{
	siginfo_t si = { 0 };

	if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || !si.si_pid)
		return 0;
	if (si.si_code == CLD_EXITED && si.si_status == 0)
		return 0;
	fprintf(stderr, PROG ": worker process %d ended (%s %d)\n", si.si_pid,
		si.si_code == CLD_EXITED ? "exit" : "signal", si.si_status);
	return 1;
}

/*
 * The calling thread's time waiting for a CPU so far, ns (the second field
 * of /proc/thread-self/schedstat), or 0 where the kernel keeps none.
 */
static u64 run_delay_ns(void)
{
	unsigned long long on_cpu, delay;
	char buf[128];
	ssize_t n;
	int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return sscanf(buf, "%llu %llu", &on_cpu, &delay) == 2 ? delay : 0;
}

/*
 * The training loop: it takes an item and computes step_us, item after
 * item, timing its wait for each, until every worker is done; and its time
 * waiting for a CPU (its wait for an item holds the part after a wakeup). A
 * worker process that dies (SIGCHLD ends the read) ends it too.
 */
static int shape_loop(void)
{
	struct sigaction sa = { .sa_handler = on_child };	/* no SA_RESTART */
	u64 t0 = shape_now_ns(), t;
	char c, buf[1024] = "";
	size_t done = 0;
	ssize_t n;

	sigaction(SIGCHLD, &sa, NULL);
	plan.loop_runq = run_delay_ns();
	while (done < plan.workers) {
		t = shape_now_ns();
		while ((n = read(plan.items[0], &c, 1)) < 0 && errno == EINTR)
			if (child_failed())
				return -1;
		if (n != 1)
			return fail("read", "the loop's pipe");
		plan.loop_clock.write_ns += shape_now_ns() - t;
		done += c == 'e';
		if (c == 'i') {
			plan.loop_clock.items++;
			spin_cpu_us(plan.step_us, buf);
		}
	}
	plan.loop_clock.busy_ns = shape_now_ns() - t0;
	plan.loop_runq = run_delay_ns() - plan.loop_runq;
	return 0;
}

static int workers_run(void)
{
	pthread_t tid[SHAPE_WORKERS];
	int thread[SHAPE_WORKERS] = { 0 }, status, err = 0;
	size_t k;
	void *ret;
	pid_t pid;

	sigset_t chld;

	/* SIGCHLD for the loop's thread alone: a worker thread's reads go on */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &chld, NULL);
	if (plan.loop && pipe2(plan.items, O_CLOEXEC) < 0)
		return fail("make", "the loop's pipe");
	for (k = 0; k < plan.workers && !err; k++) {
		if (!plan.proc[k]) {
			err = pthread_create(&tid[k], NULL, worker_thread, (void *)k);
			thread[k] = !err;
			continue;
		}
		pid = fork();
		if (pid == 0)
			_exit(worker_run(k) ? 1 : 0);
		err = pid < 0;
	}
	if (err)
		return fail("start", "a worker");
	pthread_sigmask(SIG_UNBLOCK, &chld, NULL);
	if (plan.loop)
		err = shape_loop();
	for (k = 0; k < plan.workers; k++) {
		if (thread[k] && (pthread_join(tid[k], &ret) || ret))
			err = -1;
	}
	while ((pid = wait(&status)) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			err = -1;
	return err;
}

/* ---- the tally */

static int lives_print(FILE *m)
{
	const struct life *l;
	size_t i;

	for (i = 0; i < plan.nlives; i++) {
		l = &shape_lives[i];
		if (!l->opens && !l->reads && !l->writes && !l->mmaps)
			continue;
		fprintf(m, "life fs=%s opens=%llu reads=%llu read_bytes=%llu async_reads=%llu "
			"async_bytes=%llu writes=%llu write_bytes=%llu fsyncs=%llu mmaps=%llu "
			"size=%llu hist=%s now=%s path=%s\n",
			fs_names[shape_roots[l->root].fs], l->opens, l->reads, l->read_bytes,
			l->async_reads, l->async_bytes, l->writes, l->write_bytes, l->fsyncs,
			l->mmaps, l->size, l->hist[0] ? l->hist : "-",
			l->now[0] ? l->now : "-", l->path);
	}
	return 0;
}

static int shape_print(void)
{
	const struct shape_clock *c = &plan.loop_clock;
	size_t k, len;
	char *buf;
	FILE *m = xalloc(open_memstream(&buf, &len));
	int ret;

	fprintf(m, "shape seed=%llu pid=%d workers=%zu loop=%d step_us=%llu roots=", opt.seed,
		getpid(), plan.workers, plan.loop, plan.step_us);
	for (k = 0; k < shape_nroots; k++)
		fprintf(m, "%s%s:%s%s", k ? "," : "", shape_roots[k].name,
			fs_names[shape_roots[k].fs], shape_roots[k].ro ? ":ro" : "");
	fprintf(m, "\n");
	for (k = 0; k < plan.workers; k++)
		fprintf(m, "worker k=%zu kind=%s tid=%llu ops=%llu reads=%llu read=%s%c "
			"cpu_us=%llu progress=%d busy_ns=%llu write_ns=%llu\n", k,
			plan.proc[k] ? "process" : "thread", plan.clocks[k].tid, plan.ops[k],
			plan.reads[k], plan.only[k] ? "only" : "mostly",
			SHAPE_READS[plan.favorite[k]],
			plan.cpu_us[k], plan.progress[k] && plan.loop, plan.clocks[k].busy_ns,
			plan.clocks[k].write_ns);
	if (plan.loop && !opt.plan)
		fprintf(m, "loop items=%llu wait_ns=%llu wall_ns=%llu wait_share=%.4f runq_ns=%llu\n",
			c->items, c->write_ns, c->busy_ns,
			c->busy_ns ? (double)c->write_ns / c->busy_ns : 0, plan.loop_runq);
	lives_print(m);
	xalloc(fclose(m) ? NULL : buf);
	ret = write_all(ofd, buf, len, opt.tally ? opt.tally : "stdout");
	free(buf);
	return ret;
}

int cmd_shape(const char *dir)
{
	char *root = realpath(dir, NULL);
	size_t nro = 0, r;

	if (!root)
		return fail("open", dir), 1;
	plan_draw();
	if (roots_find(root, &nro) || lives_alloc(nro))
		return 1;
	for (r = 0; r < shape_nroots; r++) {
		shape_roots[r].top = join(shape_roots[r].path, opt.tag);
		if (!shape_roots[r].ro && !opt.plan && mkdir(shape_roots[r].top, 0755) < 0)
			return fail("make directory", shape_roots[r].top), 1;
	}
	if (opt.plan)
		return shape_print() ? 1 : 0;
	if (open_tally_and_gate() || workers_run())
		return 1;
	return shape_print() ? 1 : 0;
}
