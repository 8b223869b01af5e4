# Launchers, relays and runtime daemons are never the loop (issue 46): a
# PyTorch job that calls MPI_Init (tests/train.py --mpi, as a job importing
# mpi4py does) and logs a line every step, run under a process that relays
# its output: mpirun, or a Python parent. The loop is the job's; its own
# clock and iostorm's share agree within 5 points. Uses torch_fs,
# check_stall and loop_share (test_stall.sh), storm_fs, capped_cgroup
# (test_verdict.sh) and drop_caches (test_block.sh).

# check_relayed JSON [RELAY]: one loop, the job's python main thread, chosen
# as fed (not the traced process: the relay), within 5 points of its clock,
# its set-up left out; no thread named as the pattern RELAY on its loader
# side.
check_relayed() {
	echo "  loops: $(jqr "$1" '[.stall.loops[] | "\(.consumer.comm) \(.consumer.pid) \(.share)"] | join(", ")')"
	echo "  setup_ns $(jqr "$1" .stall.setup_ns); $(jqr "$1" .verdict)"
	expect_eq "loops" "$(jqr "$1" '.stall.loops | length')" 1
	expect_eq "the loop" "$(jqr "$1" .stall.consumer.comm)" python3
	check_stall "$1" t.txt fed
	[ -z "${2:-}" ] || expect_eq "relays on the loader side" "$(jqr "$1" \
		"[.stall.wakers[] | select(.loader and (.name | test(\"$2\")))] | length")" 0
	expect_cmp "set-up left out, ns" "$(jqr "$1" .stall.setup_ns)" '>' 0
}

# mpirun_job PIPES: the job under `mpirun -np 1`, as storage benchmarks
# launch one, in $CG, traced from its start: 4 workers, 640 JPEGs, 20 ms
# of compute and a log line a step. Open MPI gives the rank a pty where it
# can, and pipes where it cannot, as in a container without one: with
# PIPES (1) /dev/ptmx is hidden in a private mount namespace.
mpirun_job() {
	command -v mpirun >/dev/null ||
		skip "mpirun not installed (apt-get install openmpi-bin; scripts/deps.sh --test)"
	local hide=""
	if [ "$1" = 1 ]; then
		command -v unshare >/dev/null || skip "unshare not installed (util-linux)"
		hide="unshare -m sh -c 'mount --bind /dev/null /dev/ptmx && exec \"\$0\" \"\$@\"'"
	fi
	torch_fs 640
	capped_cgroup 100
	drop_caches
	cat >launch.sh <<-LAUNCH
	echo \$\$ > $CG/cgroup.procs
	exec $hide mpirun --allow-run-as-root -np 1 $PYTHON $ROOT/tests/train.py train mnt/img \
		--mpi --workers 4 --batch 16 --step-sleep-ms 20 --log-every-step --tally $PWD/t.txt
	LAUNCH
	"$IOSTORM" -q -j out.json -- sh launch.sh >job.txt 2>ios.txt ||
		fail "iostorm exit $?: $(cat ios.txt)"
	cat t.txt
	expect_eq "steps logged through mpirun" "$(grep -c '^step ' job.txt)" 40
	check_relayed out.json '^(mpirun|orted|sh|unshare)$'
	expect_eq "kinds of Open MPI's session files" "$(jqr out.json '[.files[] |
		select((.path // "") | test("/ompi\\.[^/]*/")) | .kind] | unique | join(",")')" code
}

# Over pipes, cold behind a 100-IOPS cap: mpirun reads each line from the
# rank's pipe and writes it on, so the rank (a reader: its imports) ended a
# sleep of mpirun's at every step: mpirun was "the training loop" ("waits
# for data 99.8%"), and the rank, below it, was never judged.
test_stall_torch_under_mpirun() {
	mpirun_job 1
}

# Over Open MPI's pty, the rank's lines reach mpirun from the tty layer's
# kworker (nobody's wakeup): the rank was found, but Open MPI's files under
# /tmp (PMIx's store, hwloc's topology), faulted in at MPI_Init, were its
# first data read, so its imports counted as the loop's time (0.557 against
# its clock's 0.682).
test_stall_torch_under_mpirun_pty() {
	mpirun_job 0
}

# A logging parent: a Python process that runs the job with its output on a
# pipe and writes each line on (python3 as well: no name tells it from the
# job). Warm cache, 2 workers, 40 steps of 8 images and 40 ms of compute
# (a loop of 3 s: its set-up is cut at a 0.1 s drain). The relay ends no
# sleep of the job's and takes one at each line; the job's workers feed the
# job: the relay is no loop, by what it does. On a loaded machine the job,
# once a loop, ended the relay's sleeps as a rank would: the relay was a
# rank waiting for it in every other round of the loops' choice.
test_stall_torch_logging_parent() {
	torch_fs 320
	"$PYTHON" "$ROOT/tests/train.py" train mnt/img --workers 2 --steps 2 >/dev/null ||
		fail "warm the cache"
	cat >relay.py <<-'RELAY'
	import subprocess, sys
	job = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE)
	for line in job.stdout:
	    sys.stdout.buffer.write(line)
	    sys.stdout.flush()
	sys.exit(job.wait())
	RELAY
	"$IOSTORM" -q -j out.json -- "$PYTHON" relay.py "$PYTHON" "$ROOT/tests/train.py" train \
		mnt/img --workers 2 --batch 8 --step-sleep-ms 40 --log-every-step \
		--tally "$PWD/t.txt" >job.txt 2>ios.txt || fail "iostorm exit $?: $(cat ios.txt)"
	cat t.txt
	expect_eq "steps logged through the relay" "$(grep -c '^step ' job.txt)" 40
	check_relayed out.json
}

# A wrapper script: the demo's scripts/run-capped.sh runs a dozen short
# commands (stat, cat, sed, mkdir) and then the job as its child, and
# waits for it. Each command reads a file and wakes the shell at its exit:
# the shell was "woken by the loader" as often as a loop, computed 2% of
# the little time the job left it, and was taken for the loop in 4 demo
# runs of 6 (99.8% against the job's clock's 96.4%), the job's own loop
# below it never judged. A wakeup by an exiting thread hands nothing over
# (WAKER_EXIT): the shell is no loop. Here 16 commands before the job, 4
# after, the job a tf.data-like pipeline behind a 300-IOPS cap.
test_stall_pipeline_under_wrapper_script() {
	storm_fs
	capped_cgroup 300
	drop_caches
	cat >wrap.sh <<-WRAP
	echo \$\$ > $CG/cgroup.procs
	for i in 1 2 3 4 5 6 7 8; do cat /etc/hostname >/dev/null; stat /etc/passwd >/dev/null; done
	$WORKLOAD pipeline mnt/data --readers 2 --decoders 2 --cpu-us 100 --step-ms 1 \
		--tally $PWD/t.txt
	rc=\$?
	for i in 1 2 3 4; do cat /etc/hostname >/dev/null; done
	exit \$rc
	WRAP
	"$IOSTORM" -q -j out.json -- sh wrap.sh 2>ios.txt || fail "iostorm exit $?: $(cat ios.txt)"
	cat t.txt | head -1
	echo "  loops: $(jqr out.json '[.stall.loops[] | "\(.consumer.comm) \(.share)"] | join(", ")')"
	expect_eq "loops" "$(jqr out.json '.stall.loops | length')" 1
	expect_eq "the loop" "$(jqr out.json .stall.consumer.comm)" iostorm-workloa
	check_stall out.json t.txt fed
}
