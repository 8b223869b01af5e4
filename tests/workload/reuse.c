/*
 * reuse: files made, read and deleted, round after round, so that a file
 * system that frees inode numbers gives them to the next round's files:
 * one inode number, several files, each with its own exact counts.
 */
#include "workload.h"

#define REUSE_BUF	256

/*
 * Life k: create it with size bytes (an open and an fstat tallied, the
 * write not), close it, then read it whole REUSE_BUF bytes at a time; its
 * inode number into *ino.
 */
static int reuse_life(size_t k, size_t size, ino_t *ino)
{
	char buf[4096];
	struct stat st;
	int fd;

	memset(buf, 'r', sizeof(buf));
	fd = topen(k, open(paths[k], O_WRONLY | O_CREAT | O_EXCL, 0644));
	if (fd < 0)
		return -1;
	if (write_all(fd, buf, size, paths[k]) || tstat(k, fstat(fd, &st), "fstat") ||
	    tclose(k, fd))
		return -1;
	*ino = st.st_ino;
	return read_whole(k, buf, REUSE_BUF);
}

/* Lives of the rounds before round r holding inode number ino. */
static int seen_before(const ino_t *inos, size_t r, size_t n, ino_t ino)
{
	for (size_t k = 0; k < r * n; k++)
		if (inos[k] == ino)
			return 1;
	return 0;
}

int cmd_reuse(const char *dir)
{
	size_t n = opt.files, rounds = opt.rounds, r, i, k, reused = 0;
	ino_t *inos = xalloc(calloc(n * rounds, sizeof(*inos)));
	char name[64], line[64];
	int len, dfd;

	paths = xalloc(calloc(n * rounds, sizeof(*paths)));
	for (k = 0; k < n * rounds; k++) {
		snprintf(name, sizeof(name), "r%03zu-f%05zu", k / n, k % n);
		paths[k] = join(dir, name);
	}
	tally_alloc(n * rounds);
	if (mkdir_p(dir))
		return 1;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);	/* never closed: no close traced */
	if (dfd < 0) {
		fail("open", dir);
		return 1;
	}
	if (open_tally_and_gate())
		return 1;
	for (r = 0; r < rounds; r++) {
		/* Round r's files are r + 1 KiB: two lives of one number differ. */
		for (i = 0; i < n; i++)
			if (reuse_life(r * n + i, (r + 1) * 1024, &inos[r * n + i]))
				return 1;
		for (i = 0; i < n; i++) {
			reused += seen_before(inos, r, n, inos[r * n + i]);
			if (unlink(paths[r * n + i])) {
				fail("unlink", paths[r * n + i]);
				return 1;
			}
		}
		/* XFS frees a deleted inode later, in the background: now. */
		if (syncfs(dfd)) {
			fail("syncfs", dir);
			return 1;
		}
	}
	if (print_tally(n * rounds, 1))
		return 1;
	len = snprintf(line, sizeof(line), "reuse lives=%zu reused=%zu\n", n * rounds, reused);
	return write_all(ofd, line, len, opt.tally ? opt.tally : "stdout") ? 1 : 0;
}
