# Does the training loop wait for data? Each workload times its own wait for
# the next batch (clock_gettime, time.perf_counter) and prints its share;
# iostorm's stall share, measured from outside, must agree within 5
# percentage points, and the verdict must follow it. Uses on_exit, loop_fs,
# drop_caches (test_block.sh), storm_fs, capped_cgroup and traced_in_cgroup
# (test_verdict.sh).

# expect_near WHAT A B TOL: |A - B| <= TOL.
expect_near() {
	awk -v a="$2" -v b="$3" -v t="$4" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }' ||
		fail "$1: $2 vs $3, more than $4 apart"
	echo "  $1: $2 vs $3 (within $4)"
}

# loop_share TALLY: the workload's own wait share, from its "loop" line.
loop_share() {
	sed -n 's/.*wait_share=\([0-9.]*\).*/\1/p' "$1" | tail -n1
}

# check_stall JSON TALLY HOW: iostorm's share agrees with the workload's.
check_stall() {
	expect_eq "consumer found" "$(jqr "$1" .stall.found)" true
	expect_eq "chosen as" "$(jqr "$1" .stall.how)" "$3"
	expect_near "stall share" "$(jqr "$1" .stall.share)" "$(loop_share "$2")" 0.05
}

# tf.data-like, input-bound: 2 readers on storage capped at 300 read IOPS,
# cold cache; the loop computes 1 ms per batch of 8.
test_stall_pipeline_input_bound() {
	storm_fs
	capped_cgroup 300
	drop_caches
	traced_in_cgroup out.json pipeline mnt/data --readers 2 --decoders 2 --cpu-us 100 \
		--step-ms 1 --tally "$PWD/t.txt"
	cat t.txt | head -1
	check_stall out.json t.txt root
	expect_cmp "own share" "$(loop_share t.txt)" '>=' 0.5
	expect_eq "input_bound" "$(finding out.json input_bound)" HIGH
	jqr out.json .verdict | grep -q "^VERDICT: the training loop waits for data" ||
		fail "verdict: $(jqr out.json .verdict)"
	expect_cmp "loader threads" "$(jqr out.json .stall.loader_threads)" '>=' 4
}

# tf.data-like, compute-bound: warm cache, 20 ms of compute per batch.
test_stall_pipeline_compute_bound() {
	storm_fs
	"$WORKLOAD" read mnt/data >/dev/null || fail "warm the cache"
	"$IOSTORM" -q -j out.json -- "$WORKLOAD" pipeline mnt/data --limit 800 --readers 2 \
		--decoders 2 --step-ms 20 --tally "$PWD/t.txt" 2>stderr.txt ||
		fail "iostorm exit $?: $(cat stderr.txt)"
	cat t.txt | head -1
	check_stall out.json t.txt root
	expect_eq "input_bound" "$(finding out.json input_bound)" OK
	jqr out.json .verdict | grep -q "^VERDICT: the loader keeps up" ||
		fail "verdict: $(jqr out.json .verdict)"
	[ "$(jqr out.json '[.findings[] | select(.severity == "HIGH")] | length')" = 0 ] ||
		fail "a HIGH finding while the loop does not wait: $(jqr out.json .verdict)"
}

# A pure reader: every thread reads, none computes: no consumer, and the
# verdict stays on the loader.
test_stall_pure_reader_no_consumer() {
	gen_data 2000 20
	"$IOSTORM" -q -j out.json -- "$WORKLOAD" read "$PWD/data" --threads 4 \
		--tally /dev/null 2>stderr.txt || fail "iostorm exit $?: $(cat stderr.txt)"
	expect_eq "consumer found" "$(jqr out.json .stall.found)" false
	jqr out.json .stall.why | grep -q "^no training loop found" || fail "$(jqr out.json .stall.why)"
	expect_eq "input_bound" "$(finding out.json input_bound)" none
}

# fio, the tool people check their storage with, is a pure reader too: its
# job process reads its files itself and computes a few percent beside
# (it was "the training loop (fio) waits for data 91%").
test_stall_fio_no_loop() {
	command -v fio >/dev/null || skip "fio not installed (scripts/deps.sh --test installs it)"
	mkdir f
	fio --name=r --directory="$PWD/f" --nrfiles=200 --filesize=64k --bs=16k \
		--rw=randread --io_size=8m --ioengine=psync --create_only=1 >/dev/null ||
		fail "fio layout"
	"$IOSTORM" -q -j out.json -- fio --name=r --directory="$PWD/f" --nrfiles=200 \
		--filesize=64k --bs=16k --rw=randread --io_size=8m --ioengine=psync \
		--output-format=json --output=fio.json 2>stderr.txt ||
		fail "iostorm exit $?: $(cat stderr.txt)"
	expect_eq "fio's reads = iostorm's" "$(jqr out.json '[.files[] |
		select((.path // "") | startswith("'"$PWD"'/f/")) | .reads] | add')" \
		"$(jqr fio.json '.jobs[0].read.total_ios')"
	expect_eq "consumer found" "$(jqr out.json .stall.found)" false
	expect_eq "input_bound" "$(finding out.json input_bound)" none
}

# ---- a real PyTorch training loop (tests/train.py) ----

PYTHON=/usr/bin/python3	# Debian's, with python3-torch and python3-torchvision

# torch_fs [N [SIZE]]: N (600) JPEGs of SIZExSIZE (128) pixels in 10 classes
# on a private file system.
torch_fs() {
	"$PYTHON" -c "import torch, torchvision" 2>/dev/null ||
		skip "python3-torch or python3-torchvision not installed"
	[ -d /dev/shm ] || skip "no /dev/shm"
	loop_fs "/dev/shm/iostorm-stall-$$.img"
	"$PYTHON" "$ROOT/tests/train.py" gen mnt/img --images "${1:-600}" --size "${2:-128}" ||
		fail "gen"
}

# train_in_cgroup ARGS...: tests/train.py train in $CG (capped), run from
# its start in the background, held at ./gate once its workers exist.
train_at_gate() {
	mkfifo gate
	sh -c "${CG:+echo \$\$ > $CG/cgroup.procs && }exec $PYTHON $ROOT/tests/train.py \
		train mnt/img --gate gate --ready ready --tally $PWD/t.txt $*" &
	TRAIN=$!
	on_exit "kill $TRAIN 2>/dev/null || true"
	for ((i = 0; i < 300; i++)); do
		[ -f ready ] && return
		sleep 0.1
	done
	fail "train.py did not reach its gate"
}

# attach_and_release JSON: iostorm -p the trainer (its workers included),
# open the gate as soon as it traces, and wait for the trainer to end.
attach_and_release() {
	"$IOSTORM" -q -j "$1" -p "$(cat ready)" 2>ios.txt &
	local ios=$!
	wait_for ios.txt "tracing" 30
	echo >gate
	wait "$TRAIN" || fail "train.py exit $?"
	wait "$ios" || fail "iostorm exit $?: $(cat ios.txt)"
	cat t.txt
}

# Input-bound: 2 workers read cold JPEGs from storage capped at 100 read
# IOPS; attached with -p once the workers exist. (At 300 IOPS the loop's
# own clock said 0.06-0.45 on a machine whose CPU computes slower: the job
# was no longer input-bound, for the old build as for this one.)
test_stall_torch_input_bound_attached() {
	torch_fs 700
	capped_cgroup 100
	drop_caches
	train_at_gate --workers 2 --batch 16
	attach_and_release out.json
	check_stall out.json t.txt root
	expect_cmp "own share" "$(loop_share t.txt)" '>=' 0.5
	expect_eq "input_bound" "$(finding out.json input_bound)" HIGH
	jqr out.json '.stall.wakers[] | select(.loader) | .name' | grep -q python ||
		fail "the workers are not the loader: $(jqr out.json .stall.wakers)"
}

# A batch that takes longer than the DataLoader's 5 s wait for it
# (MP_STATUS_CHECK_INTERVAL: it times out, looks at its workers, and waits
# again): one worker reads 24 cold JPEGs a batch at 4 read IOPS, so each
# batch is 6 s or more. Every wait is the loader's: the timed-out part too.
# The loop also sleeps 1 s a step (time.sleep: a timer ends it too, and the
# next wait the worker ends, but it is no wait for data: were it charged
# to the worker, the share would be ~0.15 above the loop's clock).
test_stall_torch_batch_past_timeout() {
	torch_fs 72
	capped_cgroup 4
	drop_caches
	train_at_gate --workers 1 --batch 24 --step-sleep-ms 1000
	attach_and_release out.json
	expect_cmp "the loop's longest wait for a batch, ms" \
		"$(sed -n 's/.*longest_wait_ns=\([0-9]*\).*/\1/p' t.txt | awk '{ print int($1 / 1e6) }')" '>' 5000
	check_stall out.json t.txt root
	expect_eq "input_bound" "$(finding out.json input_bound)" HIGH
}

# Compute-bound: a wider model on a warm cache; launched with --.
test_stall_torch_compute_bound_launched() {
	torch_fs
	"$PYTHON" "$ROOT/tests/train.py" train mnt/img --workers 2 --steps 2 >/dev/null ||
		fail "warm the cache"
	"$IOSTORM" -q -j out.json -- "$PYTHON" "$ROOT/tests/train.py" train mnt/img \
		--workers 2 --width 6 --tally "$PWD/t.txt" 2>ios.txt ||
		fail "iostorm exit $?: $(cat ios.txt)"
	cat t.txt
	check_stall out.json t.txt root
	[ "$(finding out.json input_bound)" != HIGH ] || fail "input-bound: $(jqr out.json .verdict)"
	[ "$(jqr out.json '[.findings[] | select(.severity == "HIGH")] | length')" = 0 ] ||
		fail "a HIGH finding while the loop does not wait: $(jqr out.json .verdict)"
}

# num_workers=0: the training loop reads the files itself, so its data wait
# is its own file I/O; next() also decodes, which iostorm counts as
# computing. Compared with the loop's own clock around its file reads, and
# at most its clock around next().
test_stall_torch_no_workers() {
	torch_fs 1000
	capped_cgroup 300
	drop_caches
	train_at_gate --workers 0 --batch 16 --width 3
	attach_and_release out.json
	expect_eq "chosen as" "$(jqr out.json .stall.how)" root
	expect_near "stall share vs own file I/O" "$(jqr out.json .stall.share)" \
		"$(sed -n 's/.*io_share=\([0-9.]*\).*/\1/p' t.txt)" 0.05
	expect_cmp "stall share <= own wait share + 0.05" "$(jqr out.json .stall.share)" '<=' \
		"$(awk -v s="$(loop_share t.txt)" 'BEGIN { print s + 0.05 }')"
	expect_eq "loader wakeups" "$(jqr out.json .stall.loader_wakeups)" 0
	expect_cmp "own file I/O" "$(jqr out.json .stall.own_io_ns)" '>' 0
}

# The CI gate: a loader change that makes the training loop wait (one
# decoder, 3 ms a sample, instead of two fast ones) fails on stall_share.
test_stall_diff_gate() {
	gen_data 400 4
	"$WORKLOAD" read "$PWD/data" >/dev/null || fail "warm the cache"
	"$IOSTORM" -q -j base.json -- "$WORKLOAD" pipeline "$PWD/data" --decoders 2 \
		--step-ms 5 --tally "$PWD/t1.txt" 2>/dev/null || fail "base"
	"$IOSTORM" -q -j new.json -- "$WORKLOAD" pipeline "$PWD/data" --decoders 1 \
		--cpu-us 3000 --step-ms 5 --tally "$PWD/t2.txt" 2>/dev/null || fail "new"
	cat t1.txt t2.txt | grep loop
	local rc=0
	"$IOSTORM" diff base.json new.json >out.txt 2>err.txt || rc=$?
	expect_eq "diff exit status" "$rc" 1
	grep -q "^REGRESSED: stall_share>+10pp" out.txt || fail "$(cat out.txt err.txt)"
}

# Wakers by thread name (issue 25): the loop is fed by five decoders named
# python3.11 and w-1..w-4. The numbered ones are one pool, "w-"; the version
# is kept whole (it was cut to "python3."). Drains every 0.2 s: a thread's
# name is its last drain's, after the decoder renamed itself.
test_stall_waker_names() {
	gen_data 400 4
	"$WORKLOAD" read "$PWD/data" >/dev/null || fail "warm the cache"
	"$IOSTORM" -q --drain 0.2 -j out.json -- "$WORKLOAD" pipeline "$PWD/data" \
		--decoders 5 --names python3.11,w-1,w-2,w-3,w-4 --cpu-us 3000 \
		--tally "$PWD/t.txt" 2>ios.txt || fail "iostorm exit $?: $(cat ios.txt)"
	jqr out.json '.stall.wakers' | tr -d ' \n'; echo
	expect_eq "consumer found" "$(jqr out.json .stall.found)" true
	expect_eq "thread group w-" \
		"$(jqr out.json '[.thread_groups[] | select(.name == "w-") | .threads] | add')" 4
	expect_eq "thread group python3.11" \
		"$(jqr out.json '[.thread_groups[] | select(.name == "python3.11") | .threads] | add')" 1
	expect_eq "waker python3.11" \
		"$(jqr out.json '[.stall.wakers[] | select(.name == "python3.11") | .threads] | add')" 1
	expect_eq "waker w- threads" \
		"$(jqr out.json '[.stall.wakers[] | select(.name == "w-") | .threads] | add')" 4
	expect_eq "names cut or left numbered" "$(jqr out.json \
		'[(.stall.wakers[], .thread_groups[]) | .name | select(test("^python3\\.$|^w-[0-9]"))] | length')" 0
}

# A loop that reads its own data through io_uring (tests/uring.c), 1,200
# files cold behind a 300-IOPS cap, computing 3 ms a file: its wait in
# io_uring_enter is its wait for data, as its own clock around the wait says.
test_stall_io_uring_loop() {
	local uring=$ROOT/.output/iostorm-uring dirs
	[ -x "$uring" ] || fail "no $uring: make all (liburing-dev, scripts/deps.sh --test)"
	storm_fs
	capped_cgroup 300
	drop_caches
	dirs=$(ls -d "$PWD"/mnt/data/*/ | tr '\n' ' ')
	"$IOSTORM" -q -j out.json -- sh -c "echo \$\$ > $CG/cgroup.procs && exec $uring $dirs \
		--cpu-us 3000 --tally $PWD/t.txt" 2>stderr.txt ||
		fail "iostorm exit $?: $(cat stderr.txt)"
	grep '^loop' t.txt
	expect_eq "io_uring reads = the loop's" "$(jqr out.json .vfs.interfaces.io_uring.reads)" \
		"$(awk '$1 == "reads" { print $2 }' t.txt)"
	check_stall out.json t.txt root
	# The loop waits 32% in most runs here and 10% in some (the cap bit
	# less: not understood yet); either way iostorm must agree with it.
	expect_cmp "own share" "$(loop_share t.txt)" '>=' 0.05
}

# ---- data-parallel ranks (issue 21) ----

# ddp_at_gate "RANK0 ARGS" "RANK1 ARGS": two ranks of a data-parallel job
# (tests/train.py --ddp) started as torchrun starts them (RANK, WORLD_SIZE,
# MASTER_ADDR and MASTER_PORT on loopback; gloo) by a shell that waits for
# both, in $CG when set; each held at ./gate once its workers exist.
ddp_at_gate() {
	mkfifo gate
	cat >launch.sh <<-LAUNCH
	export WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$((20000 + $$ % 20000))
	RANK=0 $PYTHON $ROOT/tests/train.py train mnt/img --ddp --gate gate --ready ready.0 \
		--tally $PWD/t0.txt $1 &
	RANK=1 $PYTHON $ROOT/tests/train.py train mnt/img --ddp --gate gate --ready ready.1 \
		--tally $PWD/t1.txt $2 &
	wait
	LAUNCH
	sh -c "${CG:+echo \$\$ > $CG/cgroup.procs && }exec sh launch.sh" &
	TRAIN=$!
	on_exit "kill $TRAIN 2>/dev/null || true"	# run_test kills the ranks (their tally paths)
	for ((i = 0; i < 600; i++)); do
		[ -f ready.0 ] && [ -f ready.1 ] && return
		sleep 0.1
	done
	fail "the ranks did not reach their gate"
}

# ddp_trace JSON: iostorm -p the launching shell (ranks and workers
# included); the gate opens for both ranks (held open for writing, so
# neither can miss it) once iostorm traces.
ddp_trace() {
	"$IOSTORM" -q -j "$1" -p "$TRAIN" 2>ios.txt &
	local ios=$!
	wait_for ios.txt "tracing" 30
	exec 3<>gate
	printf xx >&3
	wait "$TRAIN" || fail "the ranks exit $?"
	exec 3>&-
	wait "$ios" || fail "iostorm exit $?: $(cat ios.txt)"
	cat t0.txt t1.txt
}

# check_ranks JSON: one loop per rank, the launcher none, and each rank's
# share within 5 points of its own clock.
check_ranks() {
	local r pid
	expect_eq "loops" "$(jqr "$1" '.stall.loops | length')" 2
	for r in 0 1; do
		pid=$(cat ready.$r)
		expect_near "rank $r (pid $pid) share" \
			"$(jqr "$1" ".stall.loops[] | select(.consumer.pid == $pid) | .share")" \
			"$(loop_share t$r.txt)" 0.05
	done
	expect_eq "headline = the loop that waits most" "$(jqr "$1" .stall.share)" \
		"$(jqr "$1" '[.stall.loops[].share] | max')"
}

# Warm cache, rank 1 60 ms slower a step (a slower GPU): both wait little
# for data; rank 0 waits for rank 1 in the all-reduce, which is no data wait.
test_stall_ddp_slow_rank() {
	torch_fs 400
	"$PYTHON" "$ROOT/tests/train.py" train mnt/img --workers 2 --steps 2 >/dev/null ||
		fail "warm the cache"
	ddp_at_gate "--workers 2 --batch 8" "--workers 2 --batch 8 --step-sleep-ms 60"
	ddp_trace out.json
	check_ranks out.json
	expect_cmp "rank 0 waits for rank 1" \
		"$(jqr out.json ".stall.loops[] | select(.consumer.pid == $(cat ready.0)) | .rank_wait_ns")" \
		'>' "$(jqr out.json ".stall.loops[] | select(.consumer.pid == $(cat ready.0)) | .data_wait_ns")"
	[ "$(finding out.json input_bound)" != HIGH ] || fail "input-bound: $(jqr out.json .verdict)"
}

# Cold, storage capped at 100 read IOPS, balanced: both ranks wait for data.
test_stall_ddp_capped() {
	torch_fs 500
	capped_cgroup 100
	drop_caches
	ddp_at_gate "--workers 2 --batch 8" "--workers 2 --batch 8"
	ddp_trace out.json
	check_ranks out.json
	expect_eq "input_bound" "$(finding out.json input_bound)" HIGH
	jqr out.json .verdict | grep -q "^VERDICT: the slowest of 2 training loops waits for data" ||
		fail "verdict: $(jqr out.json .verdict)"
}

# ---- wrappers (issue 21): no loop where there is none ----

# strace over a pure reader: strace is woken by the reader at every stop
# and computes decoding them, but it resumes the reader from its ptrace
# stops: a tracer, never a loop (it was "the training loop (strace)").
test_stall_strace_no_loop() {
	command -v strace >/dev/null || skip "strace not installed (scripts/deps.sh --test installs it)"
	gen_data 1000 10
	"$IOSTORM" -q -j out.json -- strace -f -qq -o /dev/null "$WORKLOAD" read "$PWD/data" \
		--threads 2 --tally /dev/null 2>stderr.txt || fail "iostorm exit $?: $(cat stderr.txt)"
	expect_eq "consumer found" "$(jqr out.json .stall.found)" false
	expect_eq "loops" "$(jqr out.json '.stall.loops | length')" 0
}

# strace over a training loop: the loop is the traced process's, never
# strace. Its ptrace stops are other waits (strace's own cost), so its share
# is below its own clock's, which counts the stops inside next() (63% vs
# 82% here): not compared.
test_stall_strace_over_loop() {
	command -v strace >/dev/null || skip "strace not installed (scripts/deps.sh --test installs it)"
	gen_data 400 4
	"$WORKLOAD" read "$PWD/data" >/dev/null || fail "warm the cache"
	"$IOSTORM" -q -j out.json -- strace -f -qq -o /dev/null "$WORKLOAD" pipeline \
		"$PWD/data" --decoders 1 --cpu-us 3000 --step-ms 5 --tally "$PWD/t.txt" \
		2>stderr.txt || fail "iostorm exit $?: $(cat stderr.txt)"
	grep loop t.txt
	expect_eq "loops" "$(jqr out.json '.stall.loops | length')" 1
	expect_eq "the loop" "$(jqr out.json .stall.consumer.comm)" iostorm-workloa
	expect_eq "chosen as" "$(jqr out.json .stall.how)" fed
}

# A shell that runs the loop and waits for it is no loop either.
test_stall_shell_wrapper() {
	gen_data 400 4
	"$WORKLOAD" read "$PWD/data" >/dev/null || fail "warm the cache"
	"$IOSTORM" -q -j out.json -- sh -c "$WORKLOAD pipeline $PWD/data --decoders 1 \
		--cpu-us 3000 --step-ms 5 --tally $PWD/t.txt; true" 2>stderr.txt ||
		fail "iostorm exit $?: $(cat stderr.txt)"
	expect_eq "loops" "$(jqr out.json '.stall.loops | length')" 1
	expect_eq "the loop" "$(jqr out.json .stall.consumer.comm)" iostorm-workloa
	expect_eq "chosen as" "$(jqr out.json .stall.how)" fed
	expect_near "stall share" "$(jqr out.json .stall.share)" "$(loop_share t.txt)" 0.05
}

# shim_python3: ./shim/python3, a launcher of pyenv's shape: a bash script
# that works the interpreter out (basename, readlink, dirname, subshells,
# a file it may read), then execs it.
shim_python3() {
	mkdir shim
	cat >shim/python3 <<-'SHIM'
	#!/usr/bin/env bash
	set -e
	program="$(basename "$0")"
	root="$(dirname "$(readlink -f "$0")")"
	version="$(cd "$root" && cat .python-version 2>/dev/null || echo system)"
	prefix="$(if [ "$version" = system ]; then dirname "$(dirname "$(readlink -f /usr/bin/"$program")")"; fi)"
	exec "$prefix/bin/$program" "$@"
	SHIM
	chmod +x shim/python3
}

# input_cause: the first words of its summary, or "none".
cause() {
	jqr "$1" '[.findings[] | select(.id == "input_cause") | .summary | split(":")[0]][0] // "none"'
}

# A Python loop whose reader thread sleeps 12 ms a file (tests/pipe.py),
# launched directly and through the shim. The shim's helpers live a few
# milliseconds before the job's program begins, all on CPU: they were the
# loader's threads ("its 4 threads"), readlink its busiest (97%), and the
# cause "the loader is CPU-bound" where launched directly it is "prefetch
# too short". The same cause and the same loader both ways.
test_stall_shim_launcher() {
	local run
	gen_data 400 4
	"$WORKLOAD" read "$PWD/data" >/dev/null || fail "warm the cache"
	shim_python3
	"$IOSTORM" -q -j direct.json -- "$PYTHON" "$ROOT/tests/pipe.py" data --sleep-ms 12 \
		--step-ms 4 --tally "$PWD/direct.txt" 2>stderr.txt ||
		fail "iostorm exit $?: $(cat stderr.txt)"
	"$IOSTORM" -q -j shim.json -- shim/python3 "$ROOT/tests/pipe.py" data --sleep-ms 12 \
		--step-ms 4 --tally "$PWD/shim.txt" 2>stderr.txt ||
		fail "iostorm exit $?: $(cat stderr.txt)"
	for run in direct shim; do
		echo "  $run: $(jqr $run.json .verdict)"
		check_stall $run.json $run.txt root
	done
	expect_cmp "shim processes traced" \
		"$(jqr shim.json '[.threads[] | select(.comm | test("^(bash|readlink|basename|dirname|cat)$"))] | length')" '>=' 5
	expect_eq "cause" "$(cause direct.json)" "prefetch too short"
	expect_eq "cause through the shim" "$(cause shim.json)" "$(cause direct.json)"
	expect_eq "loader threads (the reader)" "$(jqr shim.json .stall.loader_threads)" 1
	expect_eq "loader threads, direct" "$(jqr direct.json .stall.loader_threads)" 1
	expect_eq "loader processes" "$(jqr shim.json \
		'.findings[] | select(.id == "input_cause") | .evidence.loader_procs')" 0
	jqr shim.json '.findings[] | select(.id == "input_cause") | .summary' |
		grep -qE "busiest \((bash|readlink|basename|dirname|cat|env)\)" &&
		fail "a shim process named as the busiest: $(jqr shim.json .verdict)"
	return 0
}

# ---- a mapped dataset (issue 21) ----

# LMDB-like: the images packed in one file that each DataLoader worker maps
# (MADV_RANDOM) and copies out, cold, behind a 150-IOPS cap: the workers only
# fault, and they are the loader; the loop is found and its share agrees
# with its clock; the faults' wait against the block time shows the cap
# above the device, as read()'s does. (At 300 IOPS the loop's own share was
# 0.43 in 1 run of 20 while other work took the CPU: its compute slowed,
# and the shape was no longer input-bound; iostorm's 0.397 still agreed.)
test_stall_torch_mapped() {
	torch_fs 1200 64
	"$PYTHON" "$ROOT/tests/train.py" pack mnt/img mnt/data.pack || fail "pack"
	capped_cgroup 150
	drop_caches
	train_at_gate --mmap mnt/data.pack --workers 2 --batch 8
	attach_and_release out.json
	check_stall out.json t.txt root
	expect_cmp "own share" "$(loop_share t.txt)" '>=' 0.5
	expect_cmp "loader threads" "$(jqr out.json .stall.loader_threads)" '>=' 2
	expect_cmp "faults that read" "$(jqr out.json .layers.fault.count)" '>' 300
	expect_eq "layer verdict" "$(jqr out.json .layers.verdict)" above_block
	expect_eq "input_bound" "$(finding out.json input_bound)" HIGH
}

# The same shape attached cold before epoch 2, as one attaches to a job
# that runs: 4 workers, images of 320x320 (22 pages each); epoch 1 runs
# warm untraced, then the cache is dropped and iostorm attaches. The loop
# waits ~98% for data and computes ~1.4% of the traced time (launched, its
# imports made it 5%): it was "no consumer found". Its waits in the
# per-tensor socket handshake (the worker's sender is held up by its
# faults) are sleeps the workers end, not I/O wait of its own.
test_stall_torch_mapped_attached_cold() {
	torch_fs 200 320
	"$PYTHON" "$ROOT/tests/train.py" pack mnt/img mnt/data.pack || fail "pack"
	capped_cgroup 300
	train_at_gate --mmap mnt/data.pack --workers 4 --batch 8 --epochs 2 --gate-epoch 2
	drop_caches
	attach_and_release out.json
	echo "  $(jqr out.json .verdict)"
	check_stall out.json t.txt root
	expect_cmp "own share" "$(loop_share t.txt)" '>=' 0.5	# 93-98% here; 84% at load 12
	expect_cmp "woken by the loader" "$(jqr out.json .stall.loader_wait_ns)" '>' \
		"$(jqr out.json '.stall.data_wait_ns * 0.9')"
	expect_cmp "faults that read" "$(jqr out.json .layers.fault.count)" '>' 1000
	expect_eq "input_bound" "$(finding out.json input_bound)" HIGH
	expect_eq "mapped_reads" "$(finding out.json mapped_reads)" HIGH
	expect_eq "input_cause (storage explains)" "$(finding out.json input_cause)" none
}

# ---- a loop short of CPU (issue 21) ----

# Warm cache, 4 workers decoding on 2 CPUs, attached after the workers were
# forked: the loop is the main thread, never a worker (their parents come
# from /proc at the attach), and its share agrees with its clock: most of
# its wait is its own CPU taking each batch (a pipe read, then per tensor a
# unix-socket handshake, SCM_RIGHTS and an mmap of the shared memory), the
# receive bursts of bpf/recv.bpf.h (1-3% without them, against 12-13%).
test_stall_torch_cpu_starved() {
	torch_fs 800
	"$PYTHON" "$ROOT/tests/train.py" train mnt/img --workers 2 --steps 2 >/dev/null ||
		fail "warm the cache"
	train_at_gate --workers 4 --batch 16
	attach_and_release out.json
	expect_eq "loops" "$(jqr out.json '.stall.loops | length')" 1
	check_stall out.json t.txt root
	expect_cmp "receiving batches" "$(jqr out.json .stall.receive_ns)" '>' 0
	expect_cmp "handshakes" "$(jqr out.json .stall.handshake_ns)" '>' 0
	expect_cmp "handshakes, of the loader wait" "$(jqr out.json .stall.handshake_ns)" '<=' \
		"$(jqr out.json .stall.loader_wait_ns)"
	# Input-bound from the page cache: the cause is CPU, the loader's or
	# the loop's own taking each batch; never storage.
	if [ "$(finding out.json input_bound)" != OK ]; then
		jqr out.json .verdict |
			grep -qE "because (the loader is CPU-|the loop's CPU goes to receiving)" ||
			fail "verdict: $(jqr out.json .verdict)"
	fi
	echo "  $(jqr out.json .verdict)"
}

# input_cause, CPU: a warm pipeline whose 4 decoders spin 3 ms a sample,
# all pinned to one CPU with the loop: the loop waits for decoded samples
# while the decoders wait for the CPU. The verdict says the loader is short
# of CPU (starved or bound, by their run-queue share), never storage.
test_stall_cause_cpu_pinned() {
	storm_fs
	"$WORKLOAD" read mnt/data >/dev/null || fail "warm the cache"
	"$IOSTORM" -q -j out.json -- taskset -c 0 "$WORKLOAD" pipeline mnt/data --limit 400 \
		--readers 1 --decoders 4 --cpu-us 3000 --step-ms 1 --tally "$PWD/t.txt" \
		2>stderr.txt || fail "iostorm exit $?: $(cat stderr.txt)"
	cat t.txt | head -1
	check_stall out.json t.txt root
	expect_cmp "own share" "$(loop_share t.txt)" '>=' 0.2
	jqr out.json '.findings[] | select(.id == "input_cause") | .summary' >cause.txt
	grep -qE "^the loader is CPU-(starved|bound): " cause.txt ||
		fail "input_cause: '$(cat cause.txt)'; verdict: $(jqr out.json .verdict)"
	jqr out.json .verdict | grep -q "(input-bound, [A-Z]*) because the loader is CPU-" ||
		fail "verdict: $(jqr out.json .verdict)"
	jqr out.json .verdict | grep -q "storage keeps up" && fail "verdict: $(jqr out.json .verdict)"
	expect_cmp "loader waiting for a CPU" \
		"$(jqr out.json '.findings[] | select(.id == "input_cause") | .evidence.loader_runq_share')" '>=' 0.2
	echo "  $(jqr out.json .verdict)"
}

# input_cause, too few readers: one reader thread on a FUSE file system
# that answers each request after 3 ms and serves requests in parallel
# (a network store): the loop waits, the reader is on I/O nearly all the
# time with one read in flight. The cause is too few readers; the storage
# finding says the reads are slow; the loop's share agrees with its clock.
test_stall_cause_few_readers() {
	fusefs_mount fmnt 150 3 --size 1048576 --delay-us 3000
	"$IOSTORM" -q -j out.json -- "$WORKLOAD" pipeline fmnt --readers 1 --decoders 1 \
		--step-ms 40 --tally "$PWD/t.txt" 2>stderr.txt ||
		fail "iostorm exit $?: $(cat stderr.txt)"
	cat t.txt | head -1
	check_stall out.json t.txt root
	jqr out.json '.findings[] | select(.id == "input_cause") | .summary' |
		grep -q "^too few readers for the latency: " ||
		fail "input_cause: $(jqr out.json '.findings[] | select(.id == "input_cause")')"
	expect_cmp "readers suggested" \
		"$(jqr out.json '.findings[] | select(.id == "input_cause") | .evidence.readers_suggested')" '>=' 2
	jqr out.json .verdict | grep -q "because too few readers for the latency" ||
		fail "verdict: $(jqr out.json .verdict)"
	echo "  $(jqr out.json .verdict)"
}
