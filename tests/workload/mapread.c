/* mapread: a mapped dataset read in random page order. */
#include "workload.h"

#include <sys/mman.h>

static pthread_t tids[MAX_THREADS];

static struct {
	volatile const unsigned char *base;
	u64 npages, stride, page;
	volatile unsigned long sum;
} mr;

/*
 * Touch i = lo .. hi-1 of the sequence page(i) = i * stride mod npages:
 * stride and npages coprime give distinct pages; each step jumps by stride
 * (~npages/3) or by stride - npages (backwards), so in one thread no page
 * follows or repeats the one before it.
 */
static void *mapread_thread(void *arg)
{
	u64 t = (u64)(uintptr_t)arg, n = opt.pages / opt.threads;
	u64 lo = t * n, hi = t == opt.threads - 1 ? opt.pages : lo + n;
	unsigned long sum = 0;

	for (u64 i = lo; i < hi; i++)
		sum += mr.base[(i * mr.stride % mr.npages) * mr.page];
	mr.sum += sum;
	return NULL;
}

static u64 gcd(u64 a, u64 b)
{
	while (b) {
		u64 r = a % b;

		a = b;
		b = r;
	}
	return a;
}

static u64 mapread_resident(void)
{
	unsigned char *vec = xalloc(calloc(mr.npages, 1));
	u64 n = 0;

	if (mincore((void *)mr.base, mr.npages * mr.page, vec) < 0)
		return free(vec), ~0ULL;
	for (u64 i = 0; i < mr.npages; i++)
		n += vec[i] & 1;
	free(vec);
	return n;
}

int cmd_mapread(const char *file)
{
	struct stat st;
	u64 resident;
	int fd, err = 0;

	mr.page = sysconf(_SC_PAGESIZE);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		return fail("open", file);
	mr.npages = st.st_size / mr.page;
	if (opt.pages > mr.npages / 4 || opt.threads > opt.pages)
		usage_error("--pages is above a quarter of %s's %llu pages", file, mr.npages);
	mr.base = mmap(NULL, mr.npages * mr.page, PROT_READ, MAP_SHARED, fd, 0);
	if (mr.base == MAP_FAILED)
		return fail("mmap", file);
	close(fd);
	if (madvise((void *)mr.base, mr.npages * mr.page, MADV_RANDOM) < 0)
		return fail("madvise", file);
	/*
	 * Where transparent huge pages are "always" and the file system caches
	 * large folios (ext4 since 6.16, XFS), khugepaged collapses a mapped
	 * extent that has a page in it, reading its other 511 pages itself, on
	 * its own clock (every 10 s): pages no fault of ours read, found
	 * resident by the faults after it (7.2: 3,037 resident of 1,000
	 * touched, 600 fault reads). The shape here is one read per fault.
	 */
	if (madvise((void *)mr.base, mr.npages * mr.page, MADV_NOHUGEPAGE) < 0 && errno != EINVAL)
		return fail("madvise", file);
	for (mr.stride = mr.npages / 3 + 7; gcd(mr.stride, mr.npages) != 1; mr.stride++)
		;
	if (open_tally_and_gate())
		return 1;
	for (u64 t = 0; t < opt.threads; t++)
		err |= pthread_create(&tids[t], NULL, mapread_thread, (void *)(uintptr_t)t);
	for (u64 t = 0; t < opt.threads && !err; t++)
		pthread_join(tids[t], NULL);
	if (err)
		return fail("create", "thread");
	resident = mapread_resident();
	dprintf(ofd, "mapped pages=%llu resident=%llu\n", opt.pages, resident);
	return resident == ~0ULL ? fail("mincore", file) : 0;
}
