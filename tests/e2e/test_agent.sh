# iostorm as a node's agent (the DaemonSet's `iostorm -a --listen`): it runs
# for weeks, so no kernel table may fill with the trace's age. Uses
# free_port, http_get (test_prom.sh) and expect_near (test_stall.sh).

# rss_kib PID: the process's resident memory.
rss_kib() {
	sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status"
}

# A node's churn: 200 short threads and processes a second (one in ten a
# process), 50 of them writing a new 1 KiB file and reading it back, under
# `-a --listen`. Each life adds (sleeper, waker) pairs: iostorm 0.2 kept
# every pair for the whole trace in a 16,384-pair table, full here after
# ~40 s (lost.wakes_full); a training loop started later then had no
# pairs, and its data wait read 0 against its own clock's ~50%. Now the
# pairs are drained every interval and the threads' tables lose their
# exited threads: nothing is lost, the tables' high-water marks stay far
# below their sizes, memory is bounded, and the loop that starts a minute
# before the end agrees with its own clock. IOSTORM_AGENT_SECONDS stretches the run (the
# issue's 10 minutes: 600).
test_agent_long_run_churn() {
	local secs=${IOSTORM_AGENT_SECONDS:-120} port ipid cpid rss0 rss1 k high max
	port=$(free_port)
	gen_data 400
	"$WORKLOAD" read data >/dev/null || fail "warm the cache"
	mkdir churn
	"$IOSTORM" -a -q -j out.json --listen "127.0.0.1:$port" -i 10 --store-files 4096 \
		--consumer trainloop -d "$secs" >intervals.txt 2>err.txt &
	ipid=$!
	wait_for err.txt "Ctrl-C to stop"
	sleep 2
	rss0=$(rss_kib $ipid)
	"$WORKLOAD" churn churn --seconds $((secs - 10)) --tally churn.txt &
	cpid=$!
	# The old table is full by 60 s. The loop starts a minute before the
	# end: later, churn that wrapped pid_max (32,768 here: 3.6 times in
	# 10 minutes) would give its tids to other threads, and the store
	# (by tid) their names.
	sleep $((secs - 60))
	# The loop: one decoder spinning 4 ms a sample, 16 ms of compute a
	# batch of 8: it waits for about half its time, by its own clock. It
	# is named (--consumer): on a shared node -a sees other jobs' loops.
	cp "$WORKLOAD" trainloop
	./trainloop pipeline data --readers 1 --decoders 1 --cpu-us 4000 --step-ms 16 \
		--epochs 8 --names dec --tally "$PWD/t.txt" || fail "pipeline"
	http_get "$port" /metrics >metrics.txt || fail "GET /metrics"
	wait $cpid || fail "churn: $(cat churn.txt)"
	rss1=$(rss_kib $ipid)
	wait $ipid || fail "iostorm exit $?: $(cat err.txt)"
	cat churn.txt t.txt
	expect_eq "churn files" "$(sed -n 's/.*files=\([0-9]*\).*/\1/p' churn.txt)" \
		$(((secs - 10) * 50))
	for k in wakes_full forks_full recv_threads_full write_threads_full \
		 async_threads_full threads_map_full inflight; do
		expect_eq "lost.$k" "$(jqr out.json ".lost.$k")" 0
	done
	for k in wakes forks recv_threads write_threads async_threads async_files \
		 async_file_sums; do
		high=$(jqr out.json ".store.kernel_tables.$k.high")
		max=$(jqr out.json ".store.kernel_tables.$k.entries")
		echo "  table $k: high-water $high of $max"
		expect_cmp "$k high-water, half the table at most" "$high" '<=' $((max / 2))
	done
	echo "  wake pairs kept: $(jqr out.json .store.wake_pairs)," \
	     "high-water in the kernel: $(jqr out.json .store.wake_pairs_high)"
	echo "  RSS: $((rss0 / 1024)) MiB at the start, $((rss1 / 1024)) MiB at the end"
	expect_cmp "RSS at the end (KiB)" "$rss1" '<=' $((rss0 + 64 * 1024))
	expect_eq "data wait a lower bound" "$(jqr out.json .stall.data_wait_lower_bound)" false
	expect_eq "the loop found" "$(jqr out.json .stall.consumer.comm)" trainloop
	expect_near "loop share vs its clock" "$(jqr out.json .stall.share)" "$(loop_share t.txt)" 0.05
}
