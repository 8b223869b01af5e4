# Containers: a pod-like cgroup v2 tree traced whole (--cgroup), the
# cgroups named in the report, the bad scopes refused.

CG2=/sys/fs/cgroup/unified

# ctr_on_exit CMD: run CMD when the test's subshell exits, failed or not;
# CMD must not fail the test (end it with || true).
ctr_on_exit() {
	CTR_ON_EXIT="$1; ${CTR_ON_EXIT:-}"
	trap 'eval "$CTR_ON_EXIT"' EXIT
}

# pod_tree NAME: $CG2/NAME with children c1 and c2, removed at exit with
# any process still in them killed.
pod_tree() {
	[ "$(stat -f -c %T "$CG2" 2>/dev/null)" = cgroup2fs ] || skip "no cgroup v2 at $CG2"
	POD=$CG2/$1
	mkdir -p "$POD/c1" "$POD/c2" || fail "mkdir $POD"
	ctr_on_exit "for c in $POD/c1 $POD/c2 $POD; do
		for p in \$(cat \$c/cgroup.procs 2>/dev/null); do kill -9 \$p 2>/dev/null; done; done;
		sleep 0.2; rmdir $POD/c1 $POD/c2 $POD 2>/dev/null || true"
}

# in_cgroup CG CMD...: CMD started in cgroup CG, in the background.
in_cgroup() {
	local cg=$1
	shift
	sh -c "echo \$\$ > $cg/cgroup.procs && exec \"\$@\"" sh "$@" &
}

# A pod (parent) whose two containers read their own datasets, and a
# process that moves into the pod mid-trace: every file counted exactly,
# each container's reads on its own cgroup.
test_container_cgroup_subtree() {
	pod_tree "iostorm-pod-$$"
	"$WORKLOAD" gen d1 --files 100 --dirs 2 >/dev/null &&
	"$WORKLOAD" gen d2 --files 60 --dirs 2 >/dev/null &&
	"$WORKLOAD" gen d3 --files 40 --dirs 1 >/dev/null || fail "gen"
	mkfifo g1 g2 g3
	in_cgroup "$POD/c1" "$WORKLOAD" read "$PWD/d1" --threads 2 --gate g1 --tally t1
	local p1=$!
	in_cgroup "$POD/c2" "$WORKLOAD" read "$PWD/d2" --gate g2 --tally t2
	local p2=$!
	"$WORKLOAD" read "$PWD/d3" --gate g3 --tally t3 &
	local p3=$!
	wait_at_gate $p1; wait_at_gate $p2; wait_at_gate $p3
	"$IOSTORM" --cgroup "$POD" -q -j out.json 2>err.txt &
	local ipid=$!
	wait_for err.txt "Ctrl-C to stop"
	echo g >g1; echo g >g2
	wait $p1 $p2 || fail "readers"
	echo $p3 >"$POD/c2/cgroup.procs" || fail "move $p3"
	echo g >g3
	wait $p3 || fail "mover"
	kill -INT $ipid
	wait $ipid || fail "iostorm exit $?"
	local d
	for d in 1 2 3; do
		expect_eq "d$d files" "$(count_under out.json "$PWD/d$d/" )" "$(tally t$d files)"
		expect_eq "d$d opens" "$(sum_under out.json "$PWD/d$d/" opens)" "$(tally t$d opens)"
		expect_eq "d$d reads" "$(sum_under out.json "$PWD/d$d/" reads)" "$(tally t$d reads)"
		expect_eq "d$d bytes" "$(sum_under out.json "$PWD/d$d/" read_bytes)" "$(tally t$d read_bytes)"
	done
	local rel=${POD#$CG2}
	cgr() { jq -r --arg p "$1" "[.cgroups[] | select(.path == \$p) | .$2] | add // 0" out.json; }
	expect_eq "c1 reads" "$(cgr "$rel/c1" reads)" "$(tally t1 reads)"
	expect_eq "c2 reads (its reader and the mover)" "$(cgr "$rel/c2" reads)" \
		$(($(tally t2 reads) + $(tally t3 reads)))
	expect_eq "cgroups with I/O" "$(jqr out.json '.cgroups | length')" 2
	expect_eq "lost" "$(jqr out.json .lost.total)" 0
}

# What is not a cgroup v2 directory exits 1 and says so; two scopes exit 2.
test_container_cgroup_errors() {
	pod_tree "iostorm-bad-$$"
	mkdir plain
	expect_fail 1 "cannot use cgroup '$PWD/plain': not a cgroup v2 directory" \
		"$IOSTORM" --cgroup "$PWD/plain" -d 1
	if [ -d /sys/fs/cgroup/blkio ]; then
		expect_fail 1 "not a cgroup v2 directory (a cgroup v1 hierarchy)" \
			"$IOSTORM" --cgroup /sys/fs/cgroup/blkio -d 1
	fi
	expect_fail 1 "not a directory" "$IOSTORM" --cgroup "$POD/cgroup.procs" -d 1
	expect_fail 2 "give only one of -p, -a, --cgroup" "$IOSTORM" -a --cgroup "$POD" -d 1
	expect_fail 2 "give only one of -p, -a, --cgroup" "$IOSTORM" -p 1 --cgroup "$POD" -d 1
	expect_fail 2 "give one cgroup" "$IOSTORM" --cgroup "$POD/c1" --cgroup "$POD/c2" -d 1
}

# One directory bind-mounted twice in the job's mount namespace: files
# opened through each mount keep that mount's path as the job's (the kernel's cache of directory paths is keyed by the
# mount too), though the directory is one dentry.
test_container_bind_mount_dir_cache() {
	command -v unshare >/dev/null || skip "no unshare"
	"$WORKLOAD" gen data --files 40 --dirs 1 >/dev/null || fail "gen"
	mkdir mA mB
	local dir
	dir=$(basename data/*)
	ls "data/$dir" | head -20 >first
	ls "data/$dir" | tail -20 >second
	"$IOSTORM" -q -j out.json -- unshare -m --propagation private sh -c "
		mount --bind $PWD/data $PWD/mA && mount --bind $PWD/data $PWD/mB || exit 1
		for f in \$(cat first); do cat $PWD/mA/$dir/\$f >/dev/null; done
		for f in \$(cat second); do cat $PWD/mB/$dir/\$f >/dev/null; done" ||
		fail "iostorm exit $?"
	# The mounts are the job's own: the job's paths name them, the host's
	# name the directory they show.
	local jp='[.files[] | select(.type == "file" and (.job_path // "" | startswith($p)))] | length'
	expect_eq "files through mA" "$(jq --arg p "$PWD/mA/$dir/" "$jp" out.json)" 20
	expect_eq "files through mB" "$(jq --arg p "$PWD/mB/$dir/" "$jp" out.json)" 20
	expect_eq "the same files on the host" "$(count_under out.json "$PWD/data/$dir/")" 40
}

# The exporter: two "containers" reading at once, each one's series equal
# its own tally; promtool accepts the page.
test_container_exporter_series() {
	pod_tree "iostorm-exp-$$"
	"$WORKLOAD" gen d1 --files 120 --dirs 2 >/dev/null &&
	"$WORKLOAD" gen d2 --files 80 --dirs 2 >/dev/null || fail "gen"
	local port ipid
	port=$(free_port)
	"$IOSTORM" -a -q --listen "127.0.0.1:$port" 2>err.txt &
	ipid=$!
	wait_for err.txt "Ctrl-C to stop"
	in_cgroup "$POD/c1" "$WORKLOAD" read "$PWD/d1" --threads 2 --tally t1
	local p1=$!
	in_cgroup "$POD/c2" "$WORKLOAD" read "$PWD/d2" --threads 2 --tally t2
	wait $p1 $! || fail "readers"
	sleep 2.5	# two drains
	http_get "$port" /metrics >metrics.txt || fail "GET /metrics"
	kill -INT $ipid
	wait $ipid || fail "iostorm exit $?"
	command -v promtool >/dev/null && { promtool check metrics <metrics.txt || fail "promtool"; }
	local rel=${POD#$CG2} c f
	for c in 1 2; do
		for f in reads read_bytes opens; do
			expect_eq "c$c $f" "$(sed -n "s|^iostorm_cgroup_${f}_total{cgroup=\"$rel/c$c\",[^}]*} ||p" metrics.txt)" \
				"$(tally t$c $f)"
		done
	done
}
