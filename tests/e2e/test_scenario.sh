# Every path a tracer must get right, per file: a file opened before the
# attach, openat through a dirfd, open relative to a chdir'd cwd, readv,
# pread64, preadv, preadv2 at the position and at an offset, the stat
# family, mmap, a failing open, threads and forked children.

# check_file JSON TALLY NAME: the file's counts equal its tally line.
check_file() {
	local path=$PWD/data/s/$3 line k
	line=$(grep " path=$path\$" "$2") || fail "no tally line for $path"
	jq -e --arg p "$path" '.files[] | select(.path == $p)' "$1" >file.json ||
		fail "$path not in the report (paths: $(jq -c '[.files[].path]' "$1"))"
	for k in opens reads read_bytes stats closes mmaps; do
		expect_eq "$3 $k" "$(jq -r ".$k" file.json)" \
			"$(echo "$line" | tr ' ' '\n' | sed -n "s/^$k=//p")"
	done
}

test_scenario_per_file_exact() {
	mkfifo gate
	"$WORKLOAD" scenario "$PWD/data" --gate gate >tally.txt 2>wl.err &
	local wpid=$!
	wait_at_gate "$wpid"
	"$IOSTORM" -p "$wpid" --json out.json >report.txt 2>stderr.txt &
	local ipid=$!
	wait_for stderr.txt "Ctrl-C to stop"
	echo go > gate
	wait "$wpid" || fail "workload: $(cat wl.err)"
	wait "$ipid" || fail "iostorm exit $?: $(cat stderr.txt)"
	for f in pre.bin a.bin b.bin sub/c.bin d.bin m.bin; do
		check_file out.json tally.txt "$f"
	done
	for k in opens open_errors reads read_bytes stats closes mmaps; do
		expect_eq "vfs.$k" "$(jqr out.json .vfs.$k)" "$(tally tally.txt $k)"
	done
	expect_eq "ENOENT" "$(jqr out.json .vfs.open_errnos.ENOENT)" 1
	# a.bin: one reader through a dirfd with readv, then 3 threads, each
	# reading from 0 to EOF in turn: 4 first reads at 0, the rest consecutive.
	jq --arg p "$PWD/data/s/a.bin" '.files[] | select(.path == $p)' out.json >a.json
	expect_eq "a.bin random" "$(jq .reads_random a.json)" 3
	expect_eq "a.bin size" "$(jq .size a.json)" 100000
	# m.bin is read through a mapping: 10 pages, each faulted at most once.
	local faults
	faults=$(jq --arg p "$PWD/data/s/m.bin" '.files[] | select(.path == $p) | .faults' out.json)
	[ "$faults" -ge 1 ] && [ "$faults" -le 10 ] || fail "m.bin faults $faults not in 1..10"
	expect_eq "lost" "$(jqr out.json .lost.total)" 0
	expect_screen report.txt
}
