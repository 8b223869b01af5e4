# The fleet (issue 36): every training loop of a node, labelled by its
# workload. One node-wide `iostorm -a --listen`; jobs in kubelet-named and
# Slurm-named cgroup v2 trees (under CG2, test_container.sh), one starved
# behind a blkio cap (capped_cgroup, storm_fs: test_verdict.sh; on_exit:
# test_block.sh, the one EXIT trap of these tests). Each job's loop is
# tests/workload.c's pipeline, which times its own wait for each batch (its
# "loop" line).

# loops_tree DIR...: cgroup v2 directories under $CG2/iostorm-loops-PID, made
# now, removed at exit (their processes killed first). Sets POD.
loops_tree() {
	[ "$(stat -f -c %T "$CG2" 2>/dev/null)" = cgroup2fs ] || skip "no cgroup v2 at $CG2"
	POD=$CG2/iostorm-loops-$$
	local d
	for d in "$@"; do mkdir -p "$POD/$d" || fail "mkdir $POD/$d"; done
	on_exit "for c in \$(find $POD -depth -type d); do
		for p in \$(cat \$c/cgroup.procs 2>/dev/null); do kill -9 \$p 2>/dev/null || true; done; done;
		sleep 0.3; find $POD -depth -type d -exec rmdir {} + 2>/dev/null || true"
}

# loops_job V2 BLKIO TALLY ARGS...: the pipeline in v2 cgroup V2 (and the
# v1 blkio cgroup BLKIO unless ""), in the background: $! is its pid.
loops_job() {
	local v2=$1 blk=$2 tally=$3
	shift 3
	sh -c "echo \$\$ > $v2/cgroup.procs && ${blk:+echo \$\$ > $blk/cgroup.procs &&} \
		exec $WORKLOAD pipeline $* --tally $tally" &
}

# loop_metric FILE PID STATE: the value of the loop's series of state STATE.
loop_metric() {
	sed -n "s/^iostorm_loop_seconds_total{.*pid=\"$2\",.*state=\"$3\"} //p" "$1"
}

# loop_label FILE PID LABEL: the loop's LABEL, from its data_wait series.
loop_label() {
	grep "^iostorm_loop_seconds_total{.*pid=\"$2\",.*state=\"data_wait\"}" "$1" |
		sed -n "s/.*[{,]$3=\"\([^\"]*\)\".*/\1/p"
}

# loop_share_of FILE PID: data_wait over every state of the loop's series.
loop_share_of() {
	awk -v p="pid=\"$2\"," '/^iostorm_loop_seconds_total\{/ && index($0, p) {
		s += $NF; if (index($0, "state=\"data_wait\"")) d = $NF }
		END { if (s > 0) printf "%.4f\n", d / s }' "$1"
}

# scrape_while PORT PID...: /metrics every 0.5 s while any PID runs; the last
# page that has PID's loop is kept in m.PID (its series end when it exits).
scrape_while() {
	local port=$1 p alive
	shift
	while :; do
		alive=0
		for p in "$@"; do kill -0 "$p" 2>/dev/null && alive=1; done
		[ $alive = 1 ] || break
		http_get "$port" /metrics >m.now 2>/dev/null || { sleep 0.5; continue; }
		grep '^iostorm_loop_seconds_total{' m.now >>scrapes.txt || true
		for p in "$@"; do
			grep -q "^iostorm_loop_seconds_total{.*pid=\"$p\"," m.now && cp m.now "m.$p"
		done
		sleep 0.5
	done
}

# Two pods (kubelet cgroupfs and systemd naming) and a Slurm step on one node, traced
# by one `iostorm -a --listen`: pod A's job reads a cold dataset behind a
# 300-IOPS cap, pod B's a warm one and computes 20 ms a step, the Slurm
# job (job_$$/step_0) a warm one too. Per job, its loop's series carry
# its pid, comm, cgroup, container_id, pod_uid and slurm_job, and its
# data-wait share is within 5 points of the job's own clock; after the
# jobs exit their series are gone and iostorm_loops_over_bound is 0.
test_loops_node_pods_and_slurm() {
	local ua ub ca cb sj=$$
	ua=$(run_uid 1) ub=$(run_uid 2) ca=$(run_cid 1 20) cb=$(run_cid 2 32)
	# Pod A named as kubelet's cgroupfs driver names it, pod B as its
	# systemd driver does (the uid's dashes escaped, the runtime's scope).
	local a=kubepods/burstable/pod$ua/$ca
	local b=kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${ub//-/_}.slice/cri-containerd-$cb.scope
	local s=slurmstepd.scope/job_$sj/step_0
	storm_fs
	capped_cgroup 300
	loops_tree "$a" "$b" "$s"
	local cga=$POD/$a cgb=$POD/$b cgs=$POD/$s
	"$WORKLOAD" gen mnt/warm --files 1200 --dirs 12 --min-size 16384 --max-size 40960 \
		>/dev/null || fail "gen"
	cat mnt/warm/*/* >/dev/null
	drop_caches 1 2>/dev/null || true
	cat mnt/warm/*/* >/dev/null
	local port ipid pa pb ps comm
	port=$(free_port)
	"$IOSTORM" -a --listen "127.0.0.1:$port" -j out.json >report.txt 2>err.txt &
	ipid=$!
	on_exit "{ kill $ipid; wait $ipid; } 2>/dev/null || true"
	wait_for err.txt "Ctrl-C to stop" 30
	loops_job "$cga" "$CG" "$PWD/ta.txt" "$PWD/mnt/data" --readers 2 --decoders 2 \
		--cpu-us 100 --step-ms 1
	pa=$!
	loops_job "$cgb" "" "$PWD/tb.txt" "$PWD/mnt/warm" --readers 2 --decoders 2 \
		--step-ms 20 --epochs 4
	pb=$!
	loops_job "$cgs" "" "$PWD/ts.txt" "$PWD/mnt/warm" --readers 2 --decoders 2 \
		--step-ms 20 --epochs 2
	ps=$!
	sleep 0.5
	comm=$(cat /proc/$pa/comm) || fail "job A ended at once: $(cat ta.txt)"
	scrape_while "$port" $pa $pb $ps
	wait $pa || fail "job A exit $?"
	wait $pb || fail "job B exit $?"
	wait $ps || fail "Slurm job exit $?"
	cat ta.txt tb.txt ts.txt | grep '^loop'
	local j pid file
	for j in a b s; do
		pid=$(eval echo \$p$j)
		[ -f "m.$pid" ] || fail "job $j (pid $pid): no iostorm_loop_seconds_total series: $(grep '^iostorm_loop' m.now)"
		expect_eq "job $j comm" "$(loop_label "m.$pid" "$pid" comm)" "$comm"
		expect_near "job $j share vs its own clock" "$(loop_share_of "m.$pid" "$pid")" \
			"$(loop_share "t$j.txt")" 0.05
	done
	expect_cmp "pod A's own share" "$(loop_share ta.txt)" '>=' 0.5
	expect_cmp "pod B's own share" "$(loop_share tb.txt)" '<=' 0.3
	expect_eq "pod A pod_uid" "$(loop_label "m.$pa" "$pa" pod_uid)" "$ua"
	expect_eq "pod A container_id" "$(loop_label "m.$pa" "$pa" container_id)" "$ca"
	expect_eq "pod A cgroup" "$(loop_label "m.$pa" "$pa" cgroup)" "${cga#$CG2}"
	expect_eq "pod A slurm_job" "$(loop_label "m.$pa" "$pa" slurm_job)" ""
	expect_eq "pod B pod_uid" "$(loop_label "m.$pb" "$pb" pod_uid)" "$ub"
	expect_eq "pod B container_id" "$(loop_label "m.$pb" "$pb" container_id)" "$cb"
	expect_eq "pod B cgroup" "$(loop_label "m.$pb" "$pb" cgroup)" "${cgb#$CG2}"
	expect_eq "Slurm job" "$(loop_label "m.$ps" "$ps" slurm_job)" "$sj"
	expect_eq "Slurm job's pod_uid" "$(loop_label "m.$ps" "$ps" pod_uid)" ""
	expect_eq "Slurm job's cgroup" "$(loop_label "m.$ps" "$ps" cgroup)" "${cgs#$CG2}"
	# The cause, judged live per drain window: the starved pod's is not none.
	local cause
	cause=$(sed -n "s/^iostorm_loop_cause{.*pid=\"$pa\",.*cause=\"\([a-z_]*\)\"} 1$/\1/p" "m.$pa")
	[ -n "$cause" ] && [ "$cause" != none ] || fail "pod A's cause: '$cause'"
	echo "  pod A's cause = $cause; pod B's = $(sed -n "s/^iostorm_loop_cause{.*pid=\"$pb\",.*cause=\"\([a-z_]*\)\"} 1$/\1/p" "m.$pb")"
	# One loop per job: no other series of these cgroups.
	for j in a b s; do
		local cg
		cg=$(eval echo \${cg$j})
		expect_eq "loops of job $j's cgroup" \
			"$(grep -c "^iostorm_loop_seconds_total{.*cgroup=\"${cg#$CG2}\",.*state=\"data_wait\"}" "m.$(eval echo \$p$j)")" 1
	done
	sleep 2.5	# a drain after the last exit, then a scrape
	http_get "$port" /metrics >end.txt || fail "GET /metrics"
	for j in a b s; do
		pid=$(eval echo \$p$j)
		expect_eq "job $j's series after its exit" \
			"$(grep -c "^iostorm_loop_seconds_total{.*pid=\"$pid\"," end.txt)" 0
	done
	# Counters: no loop's series ever went down from one scrape to the next.
	expect_eq "loop series that went down" "$(awk '{ k = $1; if (k in v && $2 < v[k]) n++; v[k] = $2 }
		END { print n + 0 }' scrapes.txt)" 0
	expect_eq "loops over the bound" \
		"$(sed -n 's/^iostorm_loops_over_bound //p' end.txt)" 0
	# The per-cgroup families name the Slurm job as its loop's series do:
	# its storage figures sum by slurm_job beside its loop's cause.
	local sopens
	sopens=$(sed -n "s|^iostorm_cgroup_opens_total{cgroup=\"${cgs#$CG2}\",.*slurm_job=\"$sj\"} ||p" end.txt)
	expect_cmp "the Slurm job's cgroup's opens, by slurm_job" "$sopens" '>=' 2400
	expect_cmp "the Slurm job's cgroup's opens, by slurm_job" "$sopens" '<=' 2450
	kill -INT $ipid
	wait $ipid || fail "iostorm exit $?"
	# The JSON report's loops name the same workloads (exited loops too).
	local q='.stall.loops[] | select(.workload != null) | select(.workload'
	expect_eq "JSON: pod A's loop" \
		"$(jqr out.json "[$q.pod_uid == \"$ua\") | .consumer.pid] | map(tostring) | join(\",\")")" "$pa"
	expect_eq "JSON: pod B's loop" \
		"$(jqr out.json "[$q.container_id == \"$cb\") | .consumer.pid] | map(tostring) | join(\",\")")" "$pb"
	expect_eq "JSON: the Slurm job's loop" \
		"$(jqr out.json "[$q.slurm_job == \"$sj\") | .consumer.pid] | map(tostring) | join(\",\")")" "$ps"
	expect_near "JSON: pod A's share" \
		"$(jqr out.json "$q.pod_uid == \"$ua\") | .share")" "$(loop_share ta.txt)" 0.05
	cause=$(jqr out.json "$q.pod_uid == \"$ua\") | .cause")
	[ "$cause" != null ] && [ "$cause" != none ] || fail "JSON: pod A's cause: $cause"
	echo "  JSON causes: A $cause, B $(jqr out.json "$q.pod_uid == \"$ub\") | .cause"), Slurm $(jqr out.json "$q.slurm_job == \"$sj\") | .cause")"
	# The loops grouped by workload: each job's, with its loop and what its
	# cgroups read: every file of its data set once an epoch (the opens,
	# the bytes), and no more than its program's own libraries besides.
	local w e files bytes
	jq .stall out.json >stall.json || fail "jq .stall"	# the report is large with -a
	for j in a b s; do
		pid=$(eval echo \$p$j)
		case $j in
		a) w=".kind == \"pod\" and .pod_uid == \"$ua\""; e=1; files=mnt/data ;;
		b) w=".kind == \"pod\" and .pod_uid == \"$ub\""; e=4; files=mnt/warm ;;
		s) w=".kind == \"slurm_job\" and .slurm_job == \"$sj\""; e=2; files=mnt/warm ;;
		esac
		w=". as \$s | [.workloads[] | select($w)]"
		expect_eq "JSON: job $j's workloads" "$(jqr stall.json "$w | length")" 1
		expect_eq "JSON: job $j's workload's pids" \
			"$(jqr stall.json "$w[0].pids | map(tostring) | join(\",\")")" "$pid"
		expect_eq "JSON: job $j's workload's loops name its loop" \
			"$(jqr stall.json "$w[0].loops | map(\$s.loops[.].consumer.pid | tostring) | join(\",\")")" "$pid"
		expect_eq "JSON: job $j's workload's share is its loop's" \
			"$(jqr stall.json "$w[0] | (.share_max == \$s.loops[.loops[0]].share)")" true
		expect_eq "JSON: job $j's workload's cause is its loop's" \
			"$(jqr stall.json "$w[0] | (.cause == \$s.loops[.loops[0]].cause)")" true
		expect_eq "JSON: job $j's cgroup" "$(jqr stall.json "$w[0].cgroup")" \
			"$(eval echo \${cg$j#$CG2})"
		bytes=$(find "$files" -type f -printf '%s\n' | awk -v e=$e '{ s += $1 } END { print s * e }')
		local opens rb
		opens=$(jqr stall.json "$w[0].storage.opens")
		rb=$(jqr stall.json "$w[0].storage.read_bytes")
		echo "  job $j: opens $opens (files $((1200 * e))), read_bytes $rb (data $bytes)," \
			"$(jqr stall.json "$w[0].storage | \"\\(.reads_per_s) reads/s, \\(.read_avg_s) s a read\"")"
		expect_cmp "JSON: job $j's opens" "$opens" '>=' $((1200 * e))
		expect_cmp "JSON: job $j's opens" "$opens" '<=' $((1200 * e + 50))
		expect_cmp "JSON: job $j's bytes read" "$rb" '>=' "$bytes"
		expect_cmp "JSON: job $j's bytes read" "$rb" '<=' $((bytes + 1048576))
		expect_cmp "JSON: job $j's reads" "$(jqr stall.json "$w[0].storage.reads")" '>=' $((1200 * e))
	done
	expect_eq "JSON: pod B's container" "$(jqr stall.json "[.workloads[] |
		select(.pod_uid == \"$ub\") | .container_ids[]] | join(\",\")")" "$cb"
	# The text report: a line per workload, pod A's (the most waiting) first,
	# its loop under it; one screen.
	cat report.txt
	expect_screen report.txt
	local la lb ls
	la=$(grep -n "^  pod $ua: 1 loop, it waits for data [0-9.]*% (cause [a-z_]*); its" report.txt | cut -d: -f1)
	lb=$(grep -n "^  pod $ub: 1 loop, it waits for data" report.txt | cut -d: -f1)
	ls=$(grep -n "^  Slurm job $sj: 1 loop, it waits for data" report.txt | cut -d: -f1)
	[ -n "$la" ] && [ -n "$lb" ] && [ -n "$ls" ] || fail "report.txt: no line for each workload (A '$la', B '$lb', Slurm '$ls')"
	expect_cmp "pod A's line before pod B's" "$la" '<' "$lb"
	expect_cmp "pod A's line before the Slurm job's" "$la" '<' "$ls"
	grep -q "^training loops: [0-9]* (one per process: data-parallel ranks) in [0-9]* workloads" report.txt ||
		fail "report.txt: no workloads in its loops' line"
}

# The rules evaluated by a real Prometheus (docs/prometheus/iostorm-rules.yml,
# `for: 10m` shortened to 3s): Prometheus scrapes `iostorm -a --listen` every
# second while pod A's job reads cold behind a 100-IOPS cap and pod B's warm
# one computes; IostormPodInputBound fires HIGH for pod A only, and the
# recorded share of pod A is its loop's own clock's within 5 points.
test_loops_alert_in_prometheus() {
	command -v prometheus >/dev/null || skip "prometheus not installed (Debian package prometheus)"
	local ua ub
	ua=$(run_uid 1) ub=$(run_uid 2)
	local a=kubepods/burstable/pod$ua/$(run_cid 1 20)
	local b=kubepods/burstable/pod$ub/$(run_cid 2 20)
	storm_fs
	capped_cgroup 100
	loops_tree "$a" "$b"
	"$WORKLOAD" gen mnt/warm --files 1200 --dirs 12 --min-size 16384 --max-size 40960 \
		>/dev/null || fail "gen"
	drop_caches
	cat mnt/warm/*/* >/dev/null
	local port pport ipid ppid pa pb i alerts="" high="" share
	port=$(free_port)
	pport=$(free_port)
	[ "$port" != "$pport" ] || pport=$((port + 1))
	sed 's/^\(\s*\)for: 10m$/\1for: 3s/' "$ROOT/docs/prometheus/iostorm-rules.yml" >rules.yml
	grep -q 'for: 3s' rules.yml || fail "no 'for: 10m' in the rules"
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
	"$IOSTORM" -a -q --listen "127.0.0.1:$port" 2>err.txt &
	ipid=$!
	prometheus --config.file=prometheus.yml --storage.tsdb.path="$PWD/tsdb" \
		--web.listen-address="127.0.0.1:$pport" >prometheus.log 2>&1 &
	ppid=$!
	on_exit "{ kill $ipid $ppid; wait $ipid $ppid; } 2>/dev/null || true"
	wait_for err.txt "Ctrl-C to stop" 30
	loops_job "$POD/$a" "$CG" "$PWD/ta.txt" "$PWD/mnt/data" --readers 2 --decoders 2 \
		--cpu-us 100 --step-ms 1
	pa=$!
	loops_job "$POD/$b" "" "$PWD/tb.txt" "$PWD/mnt/warm" --readers 2 --decoders 2 \
		--step-ms 20 --epochs 6
	pb=$!
	for ((i = 0; i < 60; i++)); do
		sleep 1
		kill -0 "$ppid" 2>/dev/null || fail "prometheus exited: $(tail -n 5 prometheus.log)"
		alerts=$(http_get "$pport" /api/v1/alerts) || continue
		# Of this run's pods: another run's may fire on the same node.
		high=$(jq -r --arg a "$ua" --arg b "$ub" '[.data.alerts[] | select(.labels.alertname == "IostormPodInputBound" and .labels.iostorm_severity == "HIGH" and .state == "firing" and (.labels.pod_uid == $a or .labels.pod_uid == $b)) | .labels.pod_uid] | join(",")' <<<"$alerts")
		[ -n "$high" ] && break
	done
	expect_eq "IostormPodInputBound HIGH firing for" "$high" "$ua"
	share=$(prom_query "$pport" "pod:iostorm_data_wait_share:max5m%7Bpod_uid%3D%22$ua%22%7D")
	wait $pa || fail "job A exit $?"
	grep '^loop' ta.txt
	expect_near "pod A's recorded share vs its own clock" "$share" "$(loop_share ta.txt)" 0.05
	wait $pb || fail "job B exit $?"
	grep '^loop' tb.txt
	alerts=$(http_get "$pport" /api/v1/alerts) || fail "GET /api/v1/alerts"
	expect_eq "HIGH alerts for pod B" \
		"$(jq '[.data.alerts[] | select(.labels.pod_uid == "'$ub'" and .labels.iostorm_severity == "HIGH")] | length' <<<"$alerts")" 0
	expect_cmp "pod B's own share" "$(loop_share tb.txt)" '<' 0.2
}
