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
	expect_fail 3 "cannot use cgroup '$PWD/plain': not a cgroup v2 directory" \
		"$IOSTORM" --cgroup "$PWD/plain" -d 1
	if [ -d /sys/fs/cgroup/blkio ]; then
		expect_fail 3 "not a cgroup v2 directory (a cgroup v1 hierarchy)" \
			"$IOSTORM" --cgroup /sys/fs/cgroup/blkio -d 1
	fi
	expect_fail 3 "not a directory" "$IOSTORM" --cgroup "$POD/cgroup.procs" -d 1
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

# cg_pass CG GATE CMD...: one run of CMD (a workload taking --gate) in
# cgroup CG, started outside it, held at GATE (opened, its byte not yet
# read), moved into CG, then let go: what CG does is CMD's own work only
# (the dynamic loader's reads of libc and the gate's open stay outside).
# CMD must read in threads it starts after the gate: a thread's cgroup is
# the one it had when its counters of the interval were first used
# (bpf/thread.bpf.h).
cg_pass() {
	local cg=$1 gate=$2 pid nr k
	shift 2
	rm -f "$gate" && mkfifo "$gate" || return 1
	"$@" --gate "$gate" &
	pid=$!
	exec 5>"$gate"	# returns once CMD opened it too
	for ((k = 0; k < 200; k++)); do	# blocked in read(2): 0 on x86_64, 63 on arm64
		read -r nr _ <"/proc/$pid/syscall" 2>/dev/null
		{ [ "$nr" = 0 ] || [ "$nr" = 63 ]; } && break
		sleep 0.02
	done
	echo $pid >"$cg/cgroup.procs" || return 1
	echo go >&5
	exec 5>&-
	wait $pid
}

# alert_reader CG STOP TALLY CMD...: cg_pass CG CMD again and again until
# the file STOP exists, pass N tallied to TALLY.N. In the background.
alert_reader() {
	local cg=$1 stop=$2 t=$3 i=0
	shift 3
	while [ ! -e "$stop" ]; do
		i=$((i + 1))
		cg_pass "$cg" "$t.gate" "$@" --tally "$t.$i" || exit 1
	done
}

# alert_sum TALLY KEY: KEY summed over every pass's TALLY.N.
alert_sum() {
	local f s=0
	for f in "$1".[0-9]*; do s=$((s + $(tally "$f" "$2"))); done
	echo $s
}

# The alert rules evaluated by a real Prometheus: two pods' containers read
# at once, one starved (its dataset behind a FUSE file system that answers
# each request after 2.1 ms), one fed (cached files, decode-like CPU work
# between them); Prometheus scrapes `iostorm -a --listen` every second and
# runs docs/prometheus/iostorm-rules.yml with 'for: 3s' instead of 5m:
# IostormPodFileIOWait (file I/O, information only) fires for the starved
# pod only, and each container's
# series in Prometheus equal its reader's own tally.
test_container_alert_in_prometheus() {
	command -v prometheus >/dev/null || skip "prometheus not installed (Debian package prometheus)"
	[ -x "$ROOT/.output/iostorm-fusefs" ] && [ -c /dev/fuse ] || skip "no iostorm-fusefs or /dev/fuse"
	pod_tree "iostorm-alert-$$"
	local ua ub ca cb
	ua=$(run_uid 1) ub=$(run_uid 2) ca=$(run_cid 1 16) cb=$(run_cid 2 16)
	local cga=$POD/kubepods/burstable/pod$ua/$ca cgb=$POD/kubepods/burstable/pod$ub/$cb
	mkdir -p "$cga" "$cgb" || fail "mkdir"
	ctr_on_exit "touch $PWD/stop; sleep 1; for c in $cga $cgb; do
		for p in \$(cat \$c/cgroup.procs 2>/dev/null); do kill -9 \$p 2>/dev/null; done;
		rmdir \$c \${c%/*} 2>/dev/null; done; rmdir $POD/kubepods/burstable $POD/kubepods 2>/dev/null || true"
	mkdir slow
	"$ROOT/.output/iostorm-fusefs" "$PWD/slow" --files 60 --dirs 2 --size 81920 \
		--delay-us 2100 --tally "$PWD/fusefs.tally" 2>fusefs.err &
	local fpid=$! i
	ctr_on_exit "fusermount3 -u -z $PWD/slow 2>/dev/null; kill $fpid 2>/dev/null || true"
	for ((i = 0; i < 50; i++)); do
		grep -q " $PWD/slow fuse.iostormfs " /proc/self/mounts && break
		sleep 0.1
	done
	"$WORKLOAD" gen fed --files 60 --dirs 2 >/dev/null || fail "gen"
	cat fed/*/* >/dev/null
	local port pport ipid ppid
	port=$(free_port)
	pport=$(free_port)
	[ "$port" != "$pport" ] || pport=$((port + 1))
	sed 's/^\(\s*\)for: 5m$/\1for: 3s/' "$ROOT/docs/prometheus/iostorm-rules.yml" >rules.yml
	grep -q 'for: 3s' rules.yml || fail "no 'for: 5m' in the rules"
	cat >prometheus.yml <<-EOF2
	global:
	  scrape_interval: 1s
	  evaluation_interval: 1s
	rule_files: ['$PWD/rules.yml']
	scrape_configs:
	  - job_name: iostorm
	    static_configs:
	      - targets: ['127.0.0.1:$port']
	EOF2
	promtool check config prometheus.yml >/dev/null || fail "promtool check config"
	"$IOSTORM" -a -q --listen "127.0.0.1:$port" 2>err.txt &
	ipid=$!
	prometheus --config.file=prometheus.yml --storage.tsdb.path="$PWD/tsdb" \
		--web.listen-address="127.0.0.1:$pport" >prometheus.log 2>&1 &
	ppid=$!
	ctr_on_exit "kill $ipid $ppid 2>/dev/null; wait $ipid $ppid 2>/dev/null || true"
	wait_for err.txt "Ctrl-C to stop"
	alert_reader "$cga" "$PWD/stop" "$PWD/ta" "$WORKLOAD" read "$PWD/slow" --threads 2 &
	local ra=$!
	alert_reader "$cgb" "$PWD/stop" "$PWD/tb" "$WORKLOAD" read "$PWD/fed" --threads 2 --cpu-us 20000 &
	local rb=$! alerts="" firing=""
	for ((i = 0; i < 90; i++)); do
		sleep 1
		kill -0 "$ppid" 2>/dev/null || fail "prometheus exited: $(tail -n 5 prometheus.log)"
		alerts=$(http_get "$pport" /api/v1/alerts) || continue
		# Of this run's pods: another run's may fire on the same node.
		firing=$(jq -r --arg a "$ua" --arg b "$ub" '[.data.alerts[] | select(.labels.alertname == "IostormPodFileIOWait" and .state == "firing" and (.labels.pod_uid == $a or .labels.pod_uid == $b)) | .labels.pod_uid] | join(",")' <<<"$alerts")
		[ -n "$firing" ] && break
	done
	expect_eq "IostormPodFileIOWait firing for" "$firing" "$ua"
	sleep 4		# the fed pod's rate has had as long as the starved one's
	alerts=$(http_get "$pport" /api/v1/alerts) || fail "GET /api/v1/alerts"
	expect_eq "alerts for the fed pod" \
		"$(jq '[.data.alerts[] | select(.labels.pod_uid == "'$ub'")] | length' <<<"$alerts")" 0
	touch stop
	wait $ra || fail "starved reader"
	wait $rb || fail "fed reader"
	sleep 3.5	# a drain, then a scrape
	http_get "$port" /metrics >metrics.txt || fail "GET /metrics"
	expect_eq "lost events" "$(awk '/^iostorm_lost_events_total/ { s += $2 } END { print s + 0 }' metrics.txt)" 0
	local c k q got
	for c in a b; do
		local cid
		[ $c = a ] && cid=$ca || cid=$cb
		for k in reads opens read_bytes; do
			q="iostorm_cgroup_${k}_total%7Bcontainer_id%3D%22$cid%22%7D"
			got=$(prom_query "$pport" "$q")
			expect_eq "pod $c $k in Prometheus" "$got" "$(alert_sum t$c "$k")"
		done
	done
	kill -INT $ipid
	wait $ipid || fail "iostorm exit $?"
}

# rss_kib PID: the resident anonymous memory of PID (heap, mmap()ed
# blocks; not its code, whose pages come in as paths are first run), KiB.
rss_kib() {
	awk '/^RssAnon:/ { print $2 }' "/proc/$1/status"
}

# rss_peak PID N: the most of PID's anonymous memory (KiB) in N samples
# 0.1 s apart. A drain's buffers come and go within it, so one sample at
# each point measured where the drains stood: 4,840 then 7,416 KiB (2,576
# KiB of growth) in 1 CI run; the peaks over two drains in the next run,
# 6,024 then 6,876 KiB.
rss_peak() {
	local i r max=0
	for ((i = 0; i < $2; i++)); do
		r=$(rss_kib "$1")
		[ "${r:-0}" -gt $max ] && max=$r
		sleep 0.1
	done
	echo $max
}

# mem_run STORE_FILES: an exporter on the pod (--listen, no report) while 12
# readers in turn read 5,000 distinct files each (60,000 in all, drained
# through a 4,096-file kernel map); prints its RSS (KiB) after the sixth
# reader (the warm-up: a store of 10,000 cut four times) and after the
# last, and leaves /metrics in metrics.txt. The bounded exporter's peak per
# reader, twice: 4.3, 6.3, 7.4, 7.3, 7.3, 6.5 ... 6.8 MiB at the twelfth,
# and 4.3, 5.0, 5.0, 5.9, 7.5, 7.5 ... 6.6: its allocator's high water
# settles by the fifth (after the fourth, 1 run in 10 read 2.3 MiB less
# than at the end).
mem_run() {
	local port ipid k warm
	port=$(free_port)
	"$IOSTORM" --cgroup "$POD" -q --listen "127.0.0.1:$port" --map-files 4096 \
		--store-files "$1" 2>err.txt &
	ipid=$!
	wait_for err.txt "Ctrl-C to stop"
	for k in $(seq 12); do
		cg_pass "$POD/c1" gate "$WORKLOAD" read "$PWD/d$k" --threads 2 --tally "t$1.$k" ||
			fail "reader $k"
		if [ $k = 6 ]; then
			warm=$(rss_peak $ipid 20)	# its last drain, and one more
		fi
	done
	echo "$warm $(rss_peak $ipid 25)"	# two drains
	http_get "$port" /metrics >metrics.txt || fail "GET /metrics"
	kill -INT $ipid
	wait $ipid || fail "iostorm exit $?"
}

# The exporter's memory stays flat with distinct files streaming through:
# with --store-files 10000, its RSS after 60,000 files is within 2 MiB of
# its RSS after 30,000, each the most over two drains (blocks of 64 KiB
# and more come and go with drains and the metrics page), while every
# count stays exact; with every file
# kept (--store-files 0) the same run grows by more than 8 MiB (30,000
# records: 10.3 and 11.0 MiB measured), so the measurement sees what it
# guards against.
test_container_exporter_memory_flat() {
	pod_tree "iostorm-mem-$$"
	local k r warm end
	for k in $(seq 12); do
		"$WORKLOAD" gen "d$k" --files 5000 --dirs 10 --min-size 64 --max-size 512 \
			>/dev/null || fail "gen"
	done
	read -r warm end < <(mem_run 10000)
	echo "  bounded: RSS ${warm} KiB after 30,000 files, ${end} KiB after 60,000"
	[ $((end - warm)) -le 2048 ] || fail "RSS grew by $((end - warm)) KiB with --store-files 10000"
	local rel=${POD#$CG2} reads=0
	for k in $(seq 12); do reads=$((reads + $(tally t10000.$k reads))); done
	expect_eq "c1 reads, exact" \
		"$(sed -n "s|^iostorm_cgroup_reads_total{cgroup=\"$rel/c1\",[^}]*} ||p" metrics.txt)" "$reads"
	r=$(sed -n 's/^iostorm_store_files{[^}]*} //p; s/^iostorm_store_files //p' metrics.txt)
	[ "$r" -le 10000 ] || fail "iostorm_store_files $r above 10000"
	local kept=$r
	r=$(sed -n 's/^iostorm_store_files_evicted_total{[^}]*} //p; s/^iostorm_store_files_evicted_total //p' metrics.txt)
	echo "  files: evicted $r, kept $kept"
	# Each of the 60,000 files was kept or evicted, but for those still in
	# the 4,096-file kernel map at the scrape, and those whose events found
	# the map full (counted lost: each such file lost one event at least;
	# a loaded machine's drains fell behind 2 readers of 5,000 tiny files
	# and lost 23,691 events, 54,095 files kept or evicted); the readers'
	# own libraries add a few.
	local full
	full=$(sed -n 's/^iostorm_lost_events_total{reason="files_map_full"} //p' metrics.txt)
	[[ $full =~ ^[0-9]+$ ]] || fail "no files_map_full in the metrics"
	echo "  files: lost events with the map full $full"
	[ $((r + kept)) -ge $((60000 - 4096 - full)) ] && [ $((r + kept)) -le 60100 ] ||
		fail "files evicted $r + kept $kept: expected 60,000 less at most 4,096 in the kernel and $full lost"
	expect_eq "files a lower bound" \
		"$(sed -n 's/^iostorm_vfs_files_lower_bound{[^}]*} //p; s/^iostorm_vfs_files_lower_bound //p' metrics.txt)" 1
	read -r warm end < <(mem_run 0)
	echo "  unbounded: RSS ${warm} KiB after 30,000 files, ${end} KiB after 60,000"
	[ $((end - warm)) -gt 8192 ] || fail "every file kept, yet RSS grew by only $((end - warm)) KiB"
}
