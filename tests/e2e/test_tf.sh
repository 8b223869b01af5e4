# A real TensorFlow job (tests/tf_train.py): tf.data reads and decodes in a
# thread pool inside the training process, the loop waits in the
# iterator's GetNext on a condition variable a pool thread signals. Each
# run's own tally (files, bytes, its clock around next()) is the truth.
# TensorFlow comes from scripts/tf-venv.sh's venv; without it these tests
# skip. Uses loop_fs, drop_caches (test_block.sh), capped_cgroup, finding
# (test_verdict.sh), attach_and_release, check_stall, loop_share
# (test_stall.sh).

TF_VENV=${IOSTORM_TF_VENV:-/var/cache/iostorm-tf/venv}
TF_PY=$TF_VENV/bin/python

# tf_fs N [SIZE [tmpfs]]: N JPEGs of SIZExSIZE (128) pixels in 10 classes
# at mnt/img, on a private file system: an ext4 loop device, or a tmpfs
# (warm for good: another test's cache drop cannot make it cold).
tf_fs() {
	[ -x "$TF_PY" ] ||
		skip "no TensorFlow venv at $TF_VENV (scripts/tf-venv.sh or scripts/deps.sh --test)"
	[ -d /dev/shm ] || skip "no /dev/shm"
	if [ "${3:-}" = tmpfs ]; then
		mkdir mnt
		mount -t tmpfs -o size=512m "iostorm-tf-$$" mnt || fail "mount tmpfs"
		on_exit "umount $PWD/mnt"
	else
		loop_fs "/dev/shm/iostorm-tf-$$.img"
	fi
	local py=$TF_PY
	/usr/bin/python3 -c "import PIL" 2>/dev/null && py=/usr/bin/python3
	"$py" "$ROOT/tests/tf_train.py" gen mnt/img --images "$1" --size "${2:-128}" || fail "gen"
}

# tf_at_gate ARGS...: tests/tf_train.py train in $CG (capped) when set, in
# the background, held at ./gate once the pipeline stopped reading ahead.
tf_at_gate() {
	mkfifo gate
	sh -c "${CG:+echo \$\$ > $CG/cgroup.procs && }exec $TF_PY $ROOT/tests/tf_train.py \
		train --gate gate --ready ready --tally $PWD/t.txt $*" 2>tf.txt &
	TRAIN=$!
	on_exit "kill $TRAIN 2>/dev/null || true"
	for ((i = 0; i < 1200; i++)); do
		[ -f ready ] && return
		kill -0 "$TRAIN" 2>/dev/null || fail "tf_train.py ended: $(tail -n5 tf.txt)"
		sleep 0.1
	done
	fail "tf_train.py did not reach its gate"
}

# tally_of KEY: a figure of the job's own "loop" line in t.txt.
tally_of() {
	tr ' ' '\n' <t.txt | sed -n "s/^$1=//p"
}

# check_jpegs JSON [PASSES]: the files iostorm saw read under mnt/img are
# the ones the job read (files.txt when it lists them), each opened PASSES
# (1) times and read whole each time; their reads and bytes are the job's.
check_jpegs() {
	local dir=$PWD/mnt/img/ n=${2:-1}
	expect_eq "file reads" "$(jq --arg p "$dir" '[.files[] | select(.type == "file" and
		(.path // "" | startswith($p))) | .opens] | add // 0' "$1")" "$(tally_of files)"
	expect_eq "bytes read" "$(sum_under "$1" "$dir" read_bytes)" "$(tally_of bytes)"
	expect_eq "files not read whole $n times" "$(jq --arg p "$dir" --argjson n "$n" '[.files[] |
		select(.path // "" | startswith($p)) | select(.reads > 0) |
		select(.read_bytes != $n * .size or .opens != $n)] | length' "$1")" 0
	[ -f files.txt ] || return 0
	jq -r --arg p "$dir" '.files[] | select(.path // "" | startswith($p)) |
		select(.reads > 0) | .path' "$1" | sort >seen.txt
	sort -u files.txt >taken.txt
	expect_eq "the files the job read after the gate = iostorm's" \
		"$(comm -3 seen.txt taken.txt | wc -l)" 0
}

# tf_records N: mnt/img's N JPEGs packed by tests/tf_train.py into N/250
# TFRecord shards at mnt/rec.
tf_records() {
	"$TF_PY" "$ROOT/tests/tf_train.py" pack mnt/img mnt/rec --shards $(($1 / 250)) 2>tf.txt ||
		fail "pack: $(tail -n3 tf.txt)"
}

# check_tf_loop JSON: the loop is the job's main thread (never a pool
# thread), its data wait within 5 points of its own clock, and tf.data's
# threads, unnamed by TensorFlow, are its loader, grouped as "tf.data".
check_tf_loop() {
	check_stall "$1" t.txt root
	expect_eq "the loop's thread" "$(jqr "$1" .stall.consumer.tid)" "$(jqr "$1" .stall.consumer.pid)"
	expect_cmp "loader threads" "$(jqr "$1" .stall.loader_threads)" '>=' 2
	expect_eq "tf.data's threads in one group" "$(jqr "$1" '[.thread_groups[] |
		select(.name == "tf.data")] | length')" 1
	expect_cmp "tf.data's reads" "$(jqr "$1" '.thread_groups[] | select(.name == "tf.data") |
		.reads')" '>' 0
}

# A JPEG folder cold behind a 100-IOPS cap, attached mid-epoch (-p) to the
# custom loop: per-file reads exact, the loop found (its thread computes
# 1.7% of its time: TensorFlow computes in its pools) and input-bound, the
# cause storage.
test_tf_jpeg_capped_attached() {
	tf_fs 900
	capped_cgroup 100
	drop_caches
	tf_at_gate mnt/img --files "$PWD/files.txt"
	attach_and_release out.json
	check_jpegs out.json
	check_tf_loop out.json
	expect_cmp "own share" "$(loop_share t.txt)" '>=' 0.5
	expect_eq "input_bound" "$(finding out.json input_bound)" HIGH
	expect_eq "storage_bottleneck" "$(finding out.json storage_bottleneck)" HIGH
	expect_eq "waker tf.data is the loader" "$(jqr out.json '.stall.wakers[] |
		select(.name == "tf.data") | .loader')" true
	jqr out.json .verdict | grep -q "storage-bound" || fail "verdict: $(jqr out.json .verdict)"
}

# Keras fit, the same cold capped folder, attached: fit takes each batch
# inside the step's function, in TensorFlow's pool, which the loader wakes;
# the loop's thread sleeps through whole steps. Fed through its pool, the
# loop is found and its wait agrees with its clock around get_next.
test_tf_fit_capped_attached() {
	tf_fs 900
	capped_cgroup 100
	drop_caches
	tf_at_gate mnt/img --fit
	attach_and_release out.json
	check_jpegs out.json
	check_tf_loop out.json
	expect_cmp "data wait through the pool" "$(jqr out.json .stall.pool_data_wait_ns)" '>' 0
	expect_eq "input_bound" "$(finding out.json input_bound)" HIGH
}

# TFRecord shards, cold behind the same cap, launched (--): each shard read
# whole once in 1 MiB reads (interleave: several at once), no small-file
# storm; the loop counted from its data on (TensorFlow's import left out).
test_tf_records_capped_launched() {
	tf_fs 1500
	tf_records 1500
	capped_cgroup 100
	drop_caches
	"$IOSTORM" -q -j out.json -- sh -c "echo \$\$ > $CG/cgroup.procs && exec $TF_PY \
		$ROOT/tests/tf_train.py train mnt/rec --records --width 6 --tally $PWD/t.txt" \
		2>ios.txt || fail "iostorm exit $?: $(cat ios.txt)"
	cat t.txt
	local dir=$PWD/mnt/rec/
	expect_eq "shards read whole, once" "$(jq --arg p "$dir" '[.files[] | select(.path // "" |
		startswith($p)) | select(.read_bytes == .size and .opens == 1)] | length' out.json)" 6
	expect_eq "bytes read (the records and their framing)" \
		"$(sum_under out.json "$dir" read_bytes)" "$(tally_of bytes)"
	expect_eq "JPEGs read" "$(count_under out.json "$PWD/mnt/img/")" 0
	check_tf_loop out.json
	expect_cmp "set-up left out (s)" "$(jqr out.json '.stall.setup_ns / 1e9')" '>' 1
	expect_eq "small_file_storm" "$(finding out.json small_file_storm)" none
	expect_eq "shard reads in order" "$(sum_under out.json "$dir" reads_sequential)" \
		"$(sum_under out.json "$dir" reads)"
}

# JPEGs of 384x384 pixels in memory (tmpfs), read 4 times, decoded by a
# map with num_parallel_calls=1 (tf.data's default: one core decodes),
# launched: the loader is CPU-bound, its decoding thread busy all the time,
# and the verdict says so, never storage. (Pinned to one CPU with the loop,
# the loop is preempted 20% of its time, inside next() too, which its clock
# counts as waiting and iostorm as runnable: 5 points apart.)
test_tf_jpeg_decode_bound_launched() {
	tf_fs 500 384 tmpfs
	"$TF_PY" -c "import tensorflow" 2>/dev/null || fail "import tensorflow"	# warm
	"$IOSTORM" -q -j out.json -- "$TF_PY" "$ROOT/tests/tf_train.py" train mnt/img \
		--parallel 1 --repeat 4 --files "$PWD/files.txt" --tally "$PWD/t.txt" 2>ios.txt ||
		fail "iostorm exit $?: $(cat ios.txt)"
	cat t.txt
	check_jpegs out.json 4
	check_tf_loop out.json
	jqr out.json '.findings[] | select(.id == "input_cause") | .summary' >cause.txt
	grep -qE "^the loader is CPU-(starved|bound): " cause.txt ||
		fail "input_cause: '$(cat cause.txt)'; verdict: $(jqr out.json .verdict)"
	jqr out.json .verdict | grep -q "storage keeps up\|storage-bound" &&
		fail "verdict: $(jqr out.json .verdict)"
	echo "  $(jqr out.json .verdict)"
}
