# Random job shapes (issue 46's differential harness, tests/shapes/run.sh):
# each seed draws threads and forked workers that make, read (read,
# pread64, readv, mmap, io_uring, Linux AIO), write, sync, rename, unlink
# and make again files (inode numbers reused) and directories on ext4, XFS,
# tmpfs and FUSE, half of them feeding a training loop; run under iostorm
# and again under strace, every file life compared between iostorm's JSON,
# the workload's tally and strace, the loop against its own clock. The
# harness prints what it compared and, for a seed that disagrees, each
# difference with both values and the command that reruns it alone.

# The seeds that found bugs, and those kept for what they cover
# (tests/shapes/seeds): every one agrees.
test_shapes_regression_seeds() {
	"$ROOT/tests/shapes/run.sh" --work "$PWD/w" --seeds "$ROOT/tests/shapes/seeds" ||
		shapes_failed $?
}

# Three new seeds, drawn from the clock: what the next bug looks like. A seed
# that fails here is printed with its rerun command; keep it in
# tests/shapes/seeds once its bug is understood.
test_shapes_new_seeds() {
	"$ROOT/tests/shapes/run.sh" --work "$PWD/w" --new 3 || shapes_failed $?
}

shapes_failed() {
	[ "$1" = 77 ] && skip "the shapes harness cannot run here (needs root)"
	fail "a shape disagreed (exit $1): its seed, differences and rerun command above"
}
