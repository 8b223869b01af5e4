# Prometheus metrics: the textfile (--prom-file) and /metrics (--listen),
# checked by promtool and scraped by a real Prometheus server on loopback.

# prom_value FILE SERIES: the value of one sample (name{labels} exactly).
prom_value() {
	awk -v s="$2" '$1 == s { print $2; found = 1 } END { exit !found }' "$1" ||
		fail "no sample '$2' in $1"
}

# A TCP port no socket has now (IPv4 or IPv6, any state), below the
# kernel's ephemeral range: a port in that range may be taken by an
# outgoing connection between this pick and the listener's bind (42009 was,
# once, and the exporter could not listen).
free_port() {
	local i p hex lo
	read -r lo _ </proc/sys/net/ipv4/ip_local_port_range
	[ "$lo" -gt 11000 ] || lo=32768
	for ((i = 0; i < 100; i++)); do
		p=$((10000 + RANDOM % (lo - 10000)))
		hex=$(printf '%04X' "$p")
		grep -qE "^ *[0-9]+: [0-9A-F]+:$hex " /proc/net/tcp /proc/net/tcp6 ||
			{ echo "$p"; return 0; }
	done
	fail "no free port"
}

# http_get PORT PATH: the body of GET http://127.0.0.1:PORT/PATH, with bash's
# /dev/tcp (no curl needed); fails on a status other than 200.
http_get() {
	local status
	exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
	printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$2" >&3
	cat <&3 >http.out
	exec 3<&-
	read -r _ status _ <http.out
	[ "$status" = 200 ] || return 1
	sed '1,/^\r$/d' http.out
}

# kill_at_exit PID...: kill and reap them when the test's subshell exits,
# failed or not (set -e holds in the trap too: nothing there may fail).
kill_at_exit() {
	# shellcheck disable=SC2064 # the pids, expanded now
	trap "kill $* 2>/dev/null || true; wait $* 2>/dev/null || true" EXIT
}

# prom_query PORT QUERY: the first value of an instant query (QUERY
# URL-encoded) to the Prometheus server on PORT; empty when there is none.
prom_query() {
	http_get "$1" "/api/v1/query?query=$2" 2>/dev/null |
		jq -r '.data.result[0].value[1] // empty' 2>/dev/null
}

need_promtool() {
	command -v promtool >/dev/null || skip "promtool not installed (Debian package prometheus)"
}

# same_as_json WHAT PROM_VALUE JQ_FILTER: a value of out.prom is out.json's.
same_as_json() {
	expect_eq "$1" "$2" "$(jqr out.json "$3")"
}

# The textfile after a launched workload: promtool accepts it, and its
# counts are the JSON report's, which the VFS tests check against tallies.
test_prom_file_matches_json() {
	need_promtool
	local k reads
	gen_data 500 5
	echo 1 >/proc/sys/vm/drop_caches	# cold reads: block requests to count
	"$IOSTORM" -q --json out.json --prom-file out.prom -- "$WORKLOAD" read "$PWD/data" \
		--threads 4 >/dev/null 2>stderr.txt || fail "iostorm exit $?: $(cat stderr.txt)"
	promtool check metrics <out.prom >promtool.txt 2>&1 ||
		fail "promtool check metrics: $(cat promtool.txt)"
	[ -z "$(ls out.prom.tmp.* 2>/dev/null)" ] || fail "left: $(ls out.prom.tmp.*)"
	for k in opens reads read_bytes closes stats; do
		same_as_json "$k" "$(prom_value out.prom "iostorm_vfs_${k}_total")" ".vfs.$k"
	done
	same_as_json files "$(prom_value out.prom iostorm_vfs_files)" .vfs.files
	same_as_json "read latency count" \
		"$(prom_value out.prom iostorm_vfs_read_latency_seconds_count)" .vfs.reads
	same_as_json "read latency +Inf" "$(prom_value out.prom \
		'iostorm_vfs_read_latency_seconds_bucket{le="+Inf"}')" .vfs.reads
	same_as_json lost "$(awk '/^iostorm_lost_events_total/ { n += $2 } END { print n }' \
		out.prom)" .lost.total
	same_as_json "store files" "$(prom_value out.prom iostorm_store_files)" .store.files
	reads=$(awk '/^iostorm_block_requests_total\{.*op="read",who="target"/ { n += $2 }
		END { print n + 0 }' out.prom)
	[ "$reads" -gt 0 ] || fail "no block reads in out.prom"
	same_as_json "block reads" "$reads" '[.block.devices[].reads] | add // 0'
}

# Written every interval while tracing, replaced atomically.
test_prom_file_while_tracing() {
	need_promtool
	"$IOSTORM" -a -d 4 --prom-file out.prom >report.txt 2>stderr.txt &
	local ipid=$! i=0
	kill_at_exit "$ipid"
	wait_for stderr.txt "Ctrl-C to stop"
	while [ ! -s out.prom ] && ((i++ < 30)); do sleep 0.1; done
	[ -s out.prom ] || fail "no out.prom while tracing"
	cp out.prom live.prom
	promtool check metrics <live.prom || fail "promtool on the live file"
	wait "$ipid" || fail "iostorm exit $?: $(cat stderr.txt)"
	promtool check metrics <out.prom || fail "promtool on the final file"
	[ -z "$(ls out.prom.tmp.* 2>/dev/null)" ] || fail "temporary file left"
	expect_screen report.txt	# the whole machine's report too
}

# A full file system is named as such on the --prom-file path, while
# tracing and at the end, as --json names it (not "Input/output error").
test_prom_file_disk_full() {
	mkdir small
	mount -t tmpfs -o size=8k tmpfs small || skip "cannot mount tmpfs"
	head -c 8192 /dev/zero >small/filler 2>/dev/null || true
	local rc=0 left
	"$IOSTORM" -q -d 2 --prom-file small/out.prom -a >/dev/null 2>err.txt || rc=$?
	left=$(ls -A small)
	umount small
	expect_eq "exit status" "$rc" 4
	grep -q "cannot write 'small/out.prom': No space left on device" err.txt ||
		fail "stderr: $(cat err.txt)"
	grep -q "Input/output error" err.txt && fail "stderr: $(cat err.txt)"
	expect_eq "files left" "$left" filler
}

# /metrics while tracing: promtool accepts it; a port taken is a clear error.
test_prom_listen() {
	need_promtool
	local port ipid rc=0
	port=$(free_port)
	"$IOSTORM" -a -d 20 --listen "127.0.0.1:$port" >report.txt 2>stderr.txt &
	ipid=$!
	kill_at_exit "$ipid"
	wait_for stderr.txt "Ctrl-C to stop"
	local i
	for ((i = 0; i < 50; i++)); do
		http_get "$port" /metrics >metrics.txt 2>/dev/null && break
		sleep 0.1
	done
	grep -q '^iostorm_vfs_opens_total ' metrics.txt || fail "no metrics: $(cat http.out)"
	promtool check metrics <metrics.txt || fail "promtool check metrics on /metrics"
	"$IOSTORM" -a -d 1 --listen "127.0.0.1:$port" >/dev/null 2>busy.txt || rc=$?
	expect_eq "exit status on a busy port" "$rc" 1
	grep -q "iostorm: cannot listen on '127.0.0.1:$port': Address already in use" busy.txt ||
		fail "stderr: $(cat busy.txt)"
	kill -INT "$ipid"
	wait "$ipid" || fail "iostorm exit $?: $(cat stderr.txt)"
}

# /metrics under pressure, on loopback only (tests/http_stress.py): 200
# idle connections from 20 addresses, 64 sending their headers one byte
# every 2 s, 100 from one address, a reconnect loop; a scrape every 0.2 s
# (a new connection, then two on a kept-alive one) answers 200 within 1 s
# throughout, keep-alive holds, iostorm's RSS grows by less than 24 MiB.
# Everything stops by itself: the clients after 12 s, iostorm after 20.
test_prom_listen_under_pressure() {
	command -v python3 >/dev/null || skip "python3 not installed"
	local port ipid spid rc=0
	port=$(free_port)
	sleep 60 &	# a quiet target: the clients' own syscalls are not traced
	spid=$!
	timeout 40 "$IOSTORM" -d 20 --listen "127.0.0.1:$port" -p "$spid" \
		>report.txt 2>stderr.txt &
	ipid=$!
	kill_at_exit "$ipid" "$spid"
	wait_for stderr.txt "Ctrl-C to stop"
	for ((i = 0; i < 30; i++)); do
		http_get "$port" /metrics >/dev/null 2>&1 && break
		sleep 0.1
	done
	timeout 30 python3 "$ROOT/tests/http_stress.py" "$port" --seconds 12 \
		--pid "$(pgrep -P "$ipid" -x iostorm || echo "$ipid")" >stress.json || rc=$?
	cat stress.json
	expect_eq "stress exit status" "$rc" 0
	expect_eq "failed or late scrapes" "$(jqr stress.json .failed)" 0
	[ "$(jqr stress.json .scrapes)" -ge 100 ] || fail "too few scrapes"
	expect_eq "responses with Connection: close" "$(jqr stress.json .connection_close)" 0
	[ "$(jqr stress.json .kept_alive)" -gt 0 ] || fail "no scrape on a kept-alive connection"
	[ "$(jqr stress.json .hog.hog_dropped)" -gt 0 ] || fail "one address kept all its connections"
	[ "$(jqr stress.json .slow.slow_dropped)" -gt 0 ] || fail "no slow client was timed out"
	[ $(($(jqr stress.json .rss_max_kb) - $(jqr stress.json .rss_start_kb))) -lt 24576 ] ||
		fail "RSS grew from $(jqr stress.json .rss_start_kb) to $(jqr stress.json .rss_max_kb) KiB"
	echo "  scrape latency max $(jqr stress.json .latency_max_s) s"
	kill -INT "$ipid"
	wait "$ipid" || fail "iostorm exit $?: $(cat stderr.txt)"
}

# A real Prometheus scrapes iostorm on loopback every second: the target is
# up and an iostorm_ series is stored, within 20 s.
test_prom_scraped_by_prometheus() {
	command -v prometheus >/dev/null ||
		skip "prometheus not installed (Debian package prometheus)"
	local port pport ipid ppid i up="" opens=""
	port=$(free_port)
	pport=$(free_port)
	[ "$port" != "$pport" ] || pport=$((port + 1))
	cat >prometheus.yml <<-EOF
	global:
	  scrape_interval: 1s
	scrape_configs:
	  - job_name: iostorm
	    scrape_interval: 1s
	    static_configs:
	      - targets: ['127.0.0.1:$port']
	EOF
	"$IOSTORM" -a -d 60 --listen "127.0.0.1:$port" >report.txt 2>stderr.txt &
	ipid=$!
	prometheus --config.file=prometheus.yml --storage.tsdb.path="$PWD/tsdb" \
		--web.listen-address="127.0.0.1:$pport" >prometheus.log 2>&1 &
	ppid=$!
	kill_at_exit "$ipid" "$ppid"
	wait_for stderr.txt "Ctrl-C to stop"
	# up{job="iostorm"} and iostorm_vfs_opens_total{job="iostorm"}, URL-encoded.
	for ((i = 0; i < 40; i++)); do
		sleep 0.5
		kill -0 "$ppid" 2>/dev/null || fail "prometheus exited: $(tail -n 5 prometheus.log)"
		up=$(prom_query "$pport" 'up%7Bjob%3D%22iostorm%22%7D')
		opens=$(prom_query "$pport" 'iostorm_vfs_opens_total%7Bjob%3D%22iostorm%22%7D')
		[ "$up" = 1 ] && [ -n "$opens" ] && break
	done
	expect_eq "up{job=\"iostorm\"}" "$up" 1
	[ -n "$opens" ] || fail "no iostorm_vfs_opens_total stored: $(tail -n 5 prometheus.log)"
	echo "  iostorm_vfs_opens_total = $opens"
	kill -INT "$ipid"
	wait "$ipid" || fail "iostorm exit $?: $(cat stderr.txt)"
}

# The serving exporter holds no capability (CAP_BPF alone on a kernel that
# checks it on map reads, before 5.19), in every thread, with no_new_privs,
# and says so; its counts stay exact (the workload's own tally), on
# --listen unix:PATH scraped with curl --unix-socket; the socket goes at
# the stop.
test_prom_caps_dropped_counts_exact() {
	command -v curl >/dev/null || skip "curl not installed"
	local ipid spid k f eff
	gen_data 300 3
	start_gated read "$PWD/data" --threads 2
	sleep 600 &	# keeps the target alive after the reader, for a scrape
	spid=$!
	"$IOSTORM" -p "$WPID,$spid" -q --json out.json --listen "unix:$PWD/m.sock" 2>stderr.txt &
	ipid=$!
	kill_at_exit "$WPID" "$spid" "$ipid"
	wait_for stderr.txt "Ctrl-C to stop"
	grep -qE "^iostorm: capabilities held while tracing: (none|CAP_BPF)$" stderr.txt ||
		fail "stderr: $(cat stderr.txt)"
	for f in /proc/"$ipid"/task/*/status; do
		eff=$(sed -n 's/^CapEff:\t//p' "$f")
		case $eff in
		0000000000000000) ;;
		0000008000000000) grep -q "tracing: CAP_BPF$" stderr.txt || fail "CAP_BPF held, not said" ;;
		*) fail "thread $f: CapEff $eff" ;;
		esac
		expect_eq "CapPrm of $f" "$(sed -n 's/^CapPrm:\t//p' "$f")" "$eff"
		expect_eq "CapInh of $f" "$(sed -n 's/^CapInh:\t//p' "$f")" 0000000000000000
		expect_eq "CapAmb of $f" "$(sed -n 's/^CapAmb:\t//p' "$f")" 0000000000000000
		expect_eq "NoNewPrivs of $f" "$(sed -n 's/^NoNewPrivs:\t//p' "$f")" 1
	done
	expect_cmp "threads of iostorm" "$(ls /proc/"$ipid"/task | wc -l)" '>=' 2	# the server's
	echo "  CapEff $eff in each of $(ls /proc/"$ipid"/task | wc -l) threads"
	echo go >gate
	wait "$WPID" || fail "workload failed: $(cat wl.err)"
	sleep 2.5	# two drains
	curl -sf --unix-socket m.sock http://localhost/metrics >metrics.txt ||
		fail "curl --unix-socket m.sock: exit $?"
	for k in opens reads read_bytes; do
		expect_eq "/metrics vfs $k" "$(prom_value metrics.txt "iostorm_vfs_${k}_total")" \
			"$(tally tally.txt $k)"
	done
	expect_eq "series dropped" "$(prom_value metrics.txt iostorm_series_dropped_total)" 0
	kill "$spid"
	wait "$ipid" || fail "iostorm exit $?: $(cat stderr.txt)"
	for k in opens reads read_bytes closes stats; do
		expect_eq "vfs.$k" "$(jqr out.json .vfs.$k)" "$(tally tally.txt $k)"
	done
	expect_eq "lost" "$(jqr out.json .lost.total)" 0
	[ ! -e m.sock ] || fail "the socket was left"
}

# A node with more labelled series than --max-series: the page holds at
# most that many, the rest are counted in iostorm_series_dropped_total, the
# unlabelled families are all there, and promtool accepts it.
test_prom_series_bound() {
	command -v curl >/dev/null || skip "curl not installed"
	need_promtool
	local ipid labelled dropped
	"$IOSTORM" -a -d 6 -q --max-series 20 --listen "unix:$PWD/m.sock" 2>stderr.txt &
	ipid=$!
	kill_at_exit "$ipid"
	wait_for stderr.txt "Ctrl-C to stop"
	sleep 2.5	# two drains
	curl -sf --unix-socket m.sock http://localhost/metrics >metrics.txt || fail "curl: exit $?"
	promtool check metrics <metrics.txt || fail "promtool check metrics"
	# Labelled: a sample with a label other than le (training_job: none here).
	labelled=$(grep -v '^#' metrics.txt | grep '{' | grep -cvE '^[a-z_:]+\{le="[^"]*"\} ')
	dropped=$(prom_value metrics.txt iostorm_series_dropped_total)
	echo "  labelled series $labelled, dropped so far $dropped"
	expect_cmp "labelled series" "$labelled" '<=' 20
	expect_cmp "series dropped" "$dropped" '>' 0
	grep -q '^iostorm_vfs_opens_total ' metrics.txt || fail "an unlabelled family is missing"
	grep -q '^iostorm_vfs_read_latency_seconds_count ' metrics.txt ||
		fail "an unlabelled histogram is missing"
	wait "$ipid" || fail "iostorm exit $?: $(cat stderr.txt)"
}
