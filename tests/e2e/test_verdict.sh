# The diagnosis: each scenario of the issue, built from generated data,
# gets the right findings. Findings are asserted, never timings. Uses
# on_exit, loop_fs and drop_caches from test_block.sh.

# finding FILE ID: the severity of finding ID in the JSON report, or "none".
finding() {
	jq -r --arg id "$2" '[.findings[] | select(.id == $id) | .severity][0] // "none"' "$1" ||
		fail "jq findings on $1"
}

# shm_fs: a fast private file system at mnt (a loop device on /dev/shm),
# whose reads a blkio cgroup can cap (capped_cgroup).
shm_fs() {
	[ -d /dev/shm ] || skip "no /dev/shm"
	loop_fs "/dev/shm/iostorm-verdict-$$.img"
}

# shm_fs holding a storm dataset of 1,200 files of 16-40 KB in 12 class
# directories.
storm_fs() {
	shm_fs
	"$WORKLOAD" gen mnt/data --files 1200 --dirs 12 --min-size 16384 \
		--max-size 40960 >/dev/null || fail "gen"
}

# capped_cgroup IOPS: a cgroup v1 blkio group capping reads of the loop
# device, like a cloud volume's IOPS limit. Sets CG.
capped_cgroup() {
	[ -w /sys/fs/cgroup/blkio/cgroup.procs ] || skip "no cgroup v1 blkio hierarchy"
	CG=/sys/fs/cgroup/blkio/iostorm-verdict-$$
	mkdir "$CG" || fail "mkdir $CG"
	on_exit "cg_remove $CG"
	echo "$LOOP_DEV $1" > "$CG/blkio.throttle.read_iops_device" || fail "throttle"
}

# cg_remove DIR: remove a cgroup once its last process has left it. Run
# from a failed test's EXIT trap under set -e, a bare `return` returns the
# status the trap began with (1), which ends the trap: the cleanups after
# it (the loop file system's umount, losetup -d, rm) never ran, and every
# failed capped test left its mount, loop device and image behind.
cg_remove() {
	local i
	for ((i = 0; i < 50; i++)); do
		rmdir "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "cannot remove $1: $(cat "$1/cgroup.procs" | tr '\n' ' ')" >&2
	return 0	# a cleanup: the test's verdict is its own
}

# traced_in_cgroup JSON ARGS...: the workload, in $CG, traced from its start.
traced_in_cgroup() {
	local json=$1
	shift
	"$IOSTORM" -q -j "$json" -- sh -c "echo \$\$ > $CG/cgroup.procs && exec $WORKLOAD $*" \
		2>stderr.txt || fail "iostorm exit $?: $(cat stderr.txt)"
}

# 1. Small-file random reads on IOPS-capped storage, cold cache.
test_verdict_storm_throttled() {
	storm_fs
	capped_cgroup 400
	drop_caches
	traced_in_cgroup out.json read "$PWD/mnt/data" --threads 8 --tally /dev/null
	expect_eq "small_file_storm" "$(finding out.json small_file_storm)" HIGH
	expect_eq "storage_bottleneck" "$(finding out.json storage_bottleneck)" HIGH
	expect_eq "layer" "$(jqr out.json .layers.verdict)" above_block
	jqr out.json .verdict | grep -q "storm" || fail "verdict: $(jqr out.json .verdict)"
}

# 2. The same data packed into shards read sequentially: no storm.
test_verdict_packed_shards() {
	storm_fs
	"$WORKLOAD" pack mnt/data --out mnt/shards --shard-size 8000000 >/dev/null ||
		fail "pack"
	capped_cgroup 400
	drop_caches
	traced_in_cgroup out.json read "$PWD/mnt/shards" --threads 2 --bufsize 1048576 \
		--tally /dev/null
	expect_eq "small_file_storm" "$(finding out.json small_file_storm)" none
	local sev
	sev=$(finding out.json storage_bottleneck)
	[ "$sev" != HIGH ] || fail "storage_bottleneck HIGH for shards"
}

# 3. The storm with a warm cache: the pattern is reported, storage is not
# the bottleneck.
test_verdict_storm_warm_cache() {
	storm_fs
	"$WORKLOAD" read mnt/data --tally /dev/null >/dev/null || fail "warm-up"
	"$IOSTORM" -q -j out.json -- "$WORKLOAD" read "$PWD/mnt/data" --threads 8 \
		--tally /dev/null 2>stderr.txt || fail "iostorm exit $?"
	local sev
	sev=$(finding out.json small_file_storm)
	[ "$sev" != none ] && [ "$sev" != HIGH ] || fail "small_file_storm: $sev"
	expect_eq "storage_bottleneck" "$(finding out.json storage_bottleneck)" OK
	expect_eq "layer" "$(jqr out.json .layers.verdict)" page_cache
}

# 4. A reader that spends its time computing on each file: CPU-bound.
test_verdict_cpu_bound() {
	gen_data 300 3
	"$WORKLOAD" read data --tally /dev/null >/dev/null || fail "warm-up"
	"$IOSTORM" -q -j out.json -- "$WORKLOAD" read "$PWD/data" --threads 2 \
		--cpu-us 3000 --tally /dev/null 2>stderr.txt || fail "iostorm exit $?"
	local sev
	sev=$(finding out.json cpu_bound)
	[ "$sev" = INFO ] || [ "$sev" = WARN ] || fail "cpu_bound: $sev"
	jqr out.json .verdict | grep -q "CPU" || fail "verdict: $(jqr out.json .verdict)"
}

# 5. Many more readers than the capped storage serves: more won't help.
test_verdict_too_many_readers() {
	storm_fs
	capped_cgroup 200
	drop_caches
	traced_in_cgroup out.json read "$PWD/mnt/data" --threads 64 --limit 600 --tally /dev/null
	local sev
	sev=$(finding out.json parallelism)
	[ "$sev" = WARN ] || [ "$sev" = INFO ] || fail "parallelism: $sev"
	jq -r '.findings[] | select(.id == "parallelism") | .advice' out.json |
		grep -q "will not help" || fail "parallelism: $(jq -c '.findings' out.json)"
}
