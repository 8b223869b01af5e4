# A cold read of the dataset on the data disk by 4 threads, launched with
# --: every file's opens, read calls and bytes equal the workload's own
# tally, and the target's block requests on the disk equal the kernel's
# /proc/diskstats delta for it (the disk is mounted read-only: nothing but
# the target reads it, nothing writes it).

check_cold_read() {
	local f0=$FAILED dir=$DATA/data/ bad n before after skipped
	drop_caches
	before=$(disk_stats)
	traced cold --json r.json -- "$WORKLOAD" read "$DATA/data" --threads 4 \
		--tally t.txt --tally-files || return 1
	after=$(disk_stats)

	# Per file, exactly.
	n=$(grep -c '^file ' t.txt)
	grep '^file ' t.txt | sed 's/^file opens=\([0-9]*\) reads=\([0-9]*\) read_bytes=\([0-9]*\) .*path=\(.*\)$/\4\t\1\t\2\t\3/' |
		sort >want.tsv
	jq -r --arg p "$dir" '.files[] | select(.type == "file" and .path != null and
		(.path | startswith($p))) | [.path, .opens, .reads, .read_bytes] | @tsv' r.json |
		sort >got.tsv
	# A kernel that skipped runs of the syscall programs (7.x: preemptible
	# tracepoints) leaves a count short by at most those runs, said.
	skipped=$(jqr r.json .kernel.layers.syscalls.skipped_runs)
	echo "     syscall runs skipped and lost: $skipped; skipped and run by the second" \
		"chance: $(jqr r.json .kernel.layers.syscalls.rescued_runs)" \
		"($(jqr r.json .kernel.syscall_second_chance))"
	bad=$(sort want.tsv got.tsv | uniq -u | cut -f1 | sort -u | wc -l)
	check_eq_skipped "files: per-file opens, reads, bytes right of $n" "$((n - bad))" "$n" \
		"$skipped"
	check_eq_skipped "files under $dir" "$(wc -l <got.tsv)" "$(tally t.txt files)" "$skipped"
	for k in opens reads closes; do
		check_eq_skipped "files: $k" "$(sum_under r.json "$dir" $k)" "$(tally t.txt $k)" \
			"$skipped"
	done
	if [ "$skipped" = 0 ]; then
		check_eq "files: read_bytes" "$(sum_under r.json "$dir" read_bytes)" \
			"$(tally t.txt read_bytes)"
	else
		check_cmp "files: read_bytes, a lower bound" "$(sum_under r.json "$dir" read_bytes)" \
			'<=' "$(tally t.txt read_bytes)"
	fi
	check_eq "lost, beyond the runs the kernel skipped" \
		"$(jqr r.json '.lost.total - .lost.prog_misses')" 0

	# Block requests, against the kernel's own count.
	local -a b a
	read -r -a b <<<"$before"
	read -r -a a <<<"$after"
	local reads apart bskipped
	bskipped=$(jqr r.json .kernel.layers.block.skipped_runs)
	reads=$(blk r.json .reads)
	apart=$(blk r.json '.unfinished.reads + .untracked.reads')
	echo "     $DISK diskstats: ${a[0]} - ${b[0]} reads, $((a[1] - b[1])) sectors; iostorm:" \
		"${reads:-no record of $DISK in block.devices}${reads:+ target reads, $apart counted apart}"
	check_cmp "block: diskstats reads of $DISK" "$((a[0] - b[0]))" '>' 0
	check_eq_skipped "block: target read requests + apart = diskstats" \
		"$((${reads:-0} + ${apart:-0}))" "$((a[0] - b[0]))" "$bskipped"
	if [ "$bskipped" = 0 ]; then
		check_eq "block: target read bytes = diskstats sectors * 512" \
			"$(blk r.json .read_bytes)" "$(((a[1] - b[1]) * 512))"
	else
		check_cmp "block: target read bytes <= diskstats sectors * 512" \
			"$(blk r.json .read_bytes)" '<=' "$(((a[1] - b[1]) * 512))"
	fi
	check_eq "block: iostorm's own diskstats reads" \
		"$(blk r.json .iostat.diskstats.reads)" "$((a[0] - b[0]))"
	check_eq "block: writes to the read-only disk" "$((a[2] - b[2]))" 0
	check_eq "block: not attributed" "$(blk r.json .unattributed.reqs)" 0
	[ "$FAILED" = "$f0" ]
}
