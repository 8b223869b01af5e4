# Hardening: bad targets, an iostorm killed while loading, output paths,
# capabilities without root. Each case once misbehaved (issue 15).

# A zombie (exited, not reaped) can never send an exit event: refused at once.
test_harden_zombie_target() {
	cat >zombie.py <<-'EOF'
	import os, time
	pid = os.fork()
	if pid == 0:
	    os._exit(0)
	print(pid, flush=True)
	time.sleep(60)
	EOF
	python3 zombie.py >zpid &
	local ppid=$! z
	wait_for zpid '^[0-9]'
	z=$(cat zpid)
	sleep 0.2
	expect_eq "state of $z" "$(awk '{print $3}' "/proc/$z/stat")" Z
	SECONDS=0
	expect_fail 1 "cannot attach to pid $z: it has exited (a zombie its parent $ppid has not reaped)" \
		timeout 10 "$IOSTORM" -p "$z" -q -j out.json
	[ "$SECONDS" -le 2 ] || fail "took ${SECONDS}s to refuse"
	[ ! -e out.json ] || fail "a report of a zombie was written"
	kill "$ppid"
}

# -p of a thread id: its process is traced (said), and tracing stops when it exits.
test_harden_thread_target() {
	cat >threads.py <<-'EOF'
	import os, threading, time
	t = threading.Thread(target=time.sleep, args=(3,))
	t.start()
	print(os.getpid(), t.native_id, flush=True)
	time.sleep(1.5)
	for _ in range(5):
	    open("/etc/hostname").read()
	t.join()
	EOF
	python3 threads.py >ids &
	local pid tid
	wait_for ids '^[0-9]* [0-9]'
	read -r pid tid <ids
	SECONDS=0
	timeout 20 "$IOSTORM" -p "$tid" -q -j out.json 2>err.txt || fail "exit $?: $(cat err.txt)"
	[ "$SECONDS" -le 6 ] || fail "ran ${SECONDS}s after the process exited"
	grep -q "pid $tid is a thread of process $pid: tracing process $pid" err.txt ||
		fail "stderr: $(cat err.txt)"
	expect_eq "stopped_by" "$(jqr out.json .stopped_by)" target_exit
	expect_eq "opens of /etc/hostname" \
		"$(jqr out.json '[.files[] | select(.path == "/etc/hostname") | .opens] | add')" 5
}

# -p of iostorm's own parent (a shell): iostorm does not count itself (its
# /proc scans), and stops when the parent exits.
test_harden_own_parent_target() {
	SECONDS=0
	IOSTORM=$IOSTORM bash -c '
		"$IOSTORM" -p $$ -d 30 -q -j out.json 2>err.txt & echo $! >ipid
		for i in $(seq 100); do grep -q "Ctrl-C" err.txt && break; sleep 0.1; done
		cat /etc/hostname >/dev/null; sleep 1'
	local ipid
	ipid=$(cat ipid)
	while kill -0 "$ipid" 2>/dev/null && [ "$SECONDS" -lt 20 ]; do
		sleep 0.1
	done
	kill -0 "$ipid" 2>/dev/null && fail "iostorm still runs after its parent exited"
	[ "$SECONDS" -le 8 ] || fail "took ${SECONDS}s to stop"
	expect_eq "stopped_by" "$(jqr out.json .stopped_by)" target_exit
	expect_eq "iostorm's threads" "$(jqr out.json '[.threads[] | select(.comm == "iostorm")] | length')" 0
	expect_eq "/proc/*/stat files" \
		"$(jqr out.json '[.files[] | select(.path // "" | test("^/proc/[0-9]+/stat$"))] | length')" 0
	expect_eq "hostname read by the target" \
		"$(jqr out.json '[.files[] | select(.path == "/etc/hostname")] | length')" 1
}

# iostorm killed (SIGKILL) while loading: the command held at the gate never runs.
test_harden_killed_while_loading() {
	local try ipid child
	for try in 1 2 3; do
		rm -f ran err.txt
		"$IOSTORM" -q -j out.json -- sh -c 'echo ran >ran' 2>err.txt &
		ipid=$!
		child=
		for i in $(seq 500); do
			child=$(pgrep -P "$ipid") && break
			sleep 0.01
		done
		[ -n "$child" ] || fail "no child of iostorm appeared"
		kill -KILL "$ipid"
		wait "$ipid" 2>/dev/null || true
		grep -q "Ctrl-C" err.txt || break	# killed before the banner, as wanted
	done
	grep -q "Ctrl-C" err.txt && fail "iostorm could not be killed before its banner"
	sleep 1.5
	[ ! -e ran ] || fail "the command ran untraced after iostorm was killed"
	local st
	st=$(ps -o stat= -p "$child" 2>/dev/null || true)
	[ -z "$st" ] || [[ $st == Z* ]] || fail "the held command $child is still alive ($st)"
}
