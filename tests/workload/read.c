/*
 * read: list and shuffle the files, wait at the gate, then read them in P
 * processes of T threads, as posix, tf or torch.
 */
#include "workload.h"

static size_t nread;
static char *bufs[MAX_THREADS];
static size_t proc_id, nprocs = 1;	/* this process reads proc_id + k * nprocs */
static size_t next_k;			/* next k, shared by its threads */

static void *read_thread(void *arg)
{
	char *buf = bufs[(size_t)arg];
	size_t i, took = 0;
	int err;

	for (;; took++) {
		i = proc_id + nprocs *
		    __atomic_fetch_add(&next_k, 1, __ATOMIC_RELAXED);
		if (i >= nread) {
			if (took)
				add(&tally->readers, 1);
			return NULL;
		}
		if (opt.style == STYLE_TF)
			err = pread_whole(i, buf, opt.bufsize);
		else
			err = read_whole(i, buf, opt.bufsize);
		if (err)
			return (void *)1;
		spin_us(opt.cpu_us, buf);
	}
}

static int read_proc(size_t p)
{
	proc_id = p;
	return in_threads(opt.threads, read_thread);
}

int cmd_read(const char *dir)
{
	size_t t;

	if (list_dataset(dir, &nread))
		return 1;
	for (t = 0; t < opt.threads; t++)
		bufs[t] = xalloc(malloc(opt.bufsize));
	if (open_tally_and_gate())
		return 1;
	if (opt.procs == 1 && opt.style != STYLE_TORCH) {
		if (read_proc(0))
			return 1;
	} else {
		nprocs = opt.procs;
		if (in_children(opt.procs, read_proc))
			return 1;
	}
	return print_tally(nread, opt.tally_files) ? 1 : 0;
}
