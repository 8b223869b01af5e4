# Does the training loop wait for data? The tf.data-like pipeline of
# tests/e2e/test_stall.sh times its own wait for each batch; iostorm's stall
# share, measured from outside, must be within 5 points of it: input-bound
# (cold, the data disk capped at 300 read IOPS by a cgroup-v1 blkio group)
# and compute-bound (warm cache, 20 ms a step).

# loop_share TALLY: the workload's own wait share, from its "loop" line.
loop_share() {
	sed -n 's/.*wait_share=\([0-9.]*\).*/\1/p' "$1" | tail -n1
}

check_stall_of() {
	check_eq "$1: consumer found" "$(jqr "$2" .stall.found)" true
	check_near "$1: stall share vs the loop's own clock" "$(jqr "$2" .stall.share)" \
		"$(loop_share "$3")" 0.05
}

check_stall() {
	local f0=$FAILED cg=/sys/fs/cgroup/blkio/iostorm-vm-$$ dev
	dev=$(cat "/sys/block/$DISK/dev")
	if mkdir "$cg" 2>/dev/null &&
		echo "$dev 300" >"$cg/blkio.throttle.read_iops_device" 2>/dev/null; then
		drop_caches
		traced stall-input -q --json in.json -- sh -c "echo \$\$ > $cg/cgroup.procs &&
			exec $WORKLOAD pipeline $DATA/data --limit 600 --readers 2 --decoders 2 \
			--cpu-us 100 --step-ms 1 --tally $PWD/in.txt" &&
			check_stall_of "input-bound (300 IOPS)" in.json in.txt &&
			check_cmp "input-bound: the loop's own share" "$(loop_share in.txt)" '>=' 0.5
	else
		flunk "input-bound: cannot cap $DISK ($dev) in a cgroup-v1 blkio group"
	fi
	rmdir "$cg" 2>/dev/null

	"$WORKLOAD" read "$DATA/data" --limit 300 --order sorted >/dev/null
	traced stall-compute -q --json cpu.json -- "$WORKLOAD" pipeline "$DATA/data" \
		--limit 300 --order sorted --readers 2 --decoders 2 --step-ms 20 \
		--tally "$PWD/cpu.txt" &&
		check_stall_of "compute-bound (warm)" cpu.json cpu.txt
	[ "$FAILED" = "$f0" ]
}
