# Does the training loop wait for data? The tf.data-like pipeline of
# tests/e2e/test_stall.sh times its own wait for each batch; iostorm's stall
# share, measured from outside, must be within 5 points of it: input-bound
# (cold, the data disk capped at 100 read IOPS by a cgroup-v1 blkio group)
# and decoder-bound (warm cache, one slow decoder: the cause named is the
# loader's CPU, and the run is one phase). iostorm's share runs from
# the consumer's start, the loop's from its first batch: under TCG the
# start (listing the files) is slow, so the runs are made long beside it.

# loop_share TALLY: the workload's own wait share, from its "loop" line.
loop_share() {
	sed -n 's/.*wait_share=\([0-9.]*\).*/\1/p' "$1" | tail -n1
}

check_stall_of() {
	check_eq "$1: consumer found" "$(jqr "$2" .stall.found)" true ||
		echo "     $(jqr "$2" .stall.why)"
	check_near "$1: stall share vs the loop's own clock" "$(jqr "$2" .stall.share)" \
		"$(loop_share "$3")" 0.05
}

check_stall() {
	local f0=$FAILED cg=/sys/fs/cgroup/blkio/iostorm-vm-$$ dev
	dev=$(cat "/sys/block/$DISK/dev")
	if mkdir "$cg" 2>/dev/null &&
		echo "$dev 100" >"$cg/blkio.throttle.read_iops_device" 2>/dev/null; then
		# Cold data, warm metadata: listing the files before the loop starts
		# costs no capped reads (under TCG it would be a large part of the run).
		drop_caches
		find "$DATA/data" -type f >/dev/null
		sync
		echo 1 >/proc/sys/vm/drop_caches
		# The programs' own pages back in (they come over 9p, slowly).
		mkdir empty
		sh -c "$WORKLOAD pipeline empty --tally /dev/null" 2>/dev/null
		if traced stall-input -q --json in.json -- sh -c "echo \$\$ > $cg/cgroup.procs &&
			exec $WORKLOAD pipeline $DATA/data --limit 800 --readers 2 --decoders 2 \
			--cpu-us 100 --step-ms 1 --tally $PWD/in.txt"; then
			check_stall_of "input-bound (100 IOPS)" in.json in.txt
			check_cmp "input-bound: the loop's own share" "$(loop_share in.txt)" '>=' 0.5
		fi
	else
		flunk "input-bound: cannot cap $DISK ($dev) in a cgroup-v1 blkio group"
	fi
	rmdir "$cg" 2>/dev/null

	# Decoder-bound, warm: 1 decoder at 100 ms a sample feeds a loop that
	# takes 1 a step and computes 50 ms: it waits about half its time. (A
	# loop that almost never waits is "no consumer found" to iostorm.) Long
	# steps of one sample: the loop's CPU inside its wait (a queue pop and
	# its futex calls, a millisecond a step under TCG), which its clock
	# counts and iostorm does not (docs/stall.md, "Does the training loop wait
	# for data?"), stays small beside the wait (with 8 samples of 2 ms a
	# step, 5-10 points under the loop's clock).
	"$WORKLOAD" read "$DATA/data" --limit 40 --order sorted >/dev/null
	traced stall-decode -q --json dec.json -- "$WORKLOAD" pipeline "$DATA/data" \
		--limit 40 --order sorted --readers 1 --decoders 1 --cpu-us 100000 --batch 1 \
		--step-ms 50 --tally "$PWD/dec.txt" &&
		check_stall_of "decoder-bound (warm, 1 decoder)" dec.json dec.txt &&
		check_eq "decoder-bound: why (input_cause)" \
			"$(jqr dec.json '[.findings[] | select(.id == "input_cause") | .summary |
				test("^the loader is CPU-(bound|starved): ")][0]')" true &&
		check_eq "decoder-bound: a steady run is one phase" \
			"$(jqr dec.json '.phases | length')" 1
	[ "$FAILED" = "$f0" ]
}
