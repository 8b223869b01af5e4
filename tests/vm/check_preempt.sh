# Path walks preempted on purpose (issue 47). On 7.x a tracepoint's
# programs run preemptibly: a syscall exit preempted in its path walk held
# a per-CPU buffer that any other run walking a path on that CPU (an
# io_uring completion, the syscall programs' second chance) could rewrite,
# giving a wrong path with nothing said. Here everything runs on CPU 0: a
# CPU-bound loop, a reader of 2 threads by read() over one tree and the
# io_uring loader over another (400 files each), each tree's directories under 10 levels
# (every file's first event in a new directory walks its path: the
# directory cache knows none of them yet). Every file's
# path in the report is one the readers read, with the reader's own counts
# (the read() reader's tally, file by file; the loader opened and read
# each of its files once), short by at most the runs the kernel skipped.

# preempt_tree DIR DIRS FILES: DIRS directories under 10 levels of
# 12-character names (the paths stay under 200 bytes: whole in the
# report), FILES files of 4 KiB in each. One mkdir, and files written by
# the shell itself: a process per file costs minutes in an emulated guest.
# Prints the deepest level.
preempt_tree() {
	local p=$1 i j fill dirs=()
	for i in $(seq 1 10); do
		p=$p/lv$i-abcdefgh
	done
	for i in $(seq 1 "$2"); do
		dirs+=("$p/leaf$i")	# no process substitution: a guest has no /dev/fd
	done
	mkdir -p "${dirs[@]}" || return 1
	printf -v fill '%4096s' ''
	for i in $(seq 1 "$2"); do
		for j in $(seq 1 "$3"); do
			printf '%s' "$fill" >"$p/leaf$i/f$j"
		done
	done
	echo "$p"
}

check_preempt() {
	local f0=$FAILED base=$PWD/pw b hog skipped n bad got want
	# Where the kernel runs its tracepoints' programs with preemption off
	# (before 7.x) no walk is preempted: cold_read covers the walks there.
	if ! "$IOSTORM" check 2>/dev/null | grep -q '^second chance: loaded'; then
		echo "     preempt: not run, this kernel's tracepoints run programs with preemption off"
		return 0
	fi
	command -v taskset >/dev/null || { flunk "preempt: no taskset (util-linux)"; return 1; }
	preempt_tree "$base/a" 200 2 >/dev/null || { flunk "preempt: tree a not made"; return 1; }
	b=$(preempt_tree "$base/b" 40 10) || { flunk "preempt: tree b not made"; return 1; }
	taskset -c 0 sh -c 'while :; do :; done' &
	hog=$!
	traced preempt -q -j p.json -- sh -c "taskset -c 0 $ROOT/.output/iostorm-uring $b/leaf* \
		--tally u.tally >/dev/null & taskset -c 0 $WORKLOAD read $base/a --threads 2 \
		--tally t.txt --tally-files; wait"
	kill "$hog" 2>/dev/null
	wait "$hog" 2>/dev/null
	[ -s p.json ] || { flunk "preempt: no report"; return 1; }
	skipped=$(jqr p.json '.kernel.layers.syscalls.skipped_runs + .kernel.layers.io_uring.skipped_runs')
	echo "     runs skipped (syscalls, io_uring): $skipped; rescued:" \
		"$(jqr p.json .kernel.layers.syscalls.rescued_runs)" \
		"($(jqr p.json .kernel.syscall_second_chance)); scratch busy:" \
		"$(jqr p.json .lost.scratch_buffers_busy)"

	# The read() reader's files: path and counts, file by file.
	n=$(grep -c '^file ' t.txt)
	grep '^file ' t.txt | sed 's/^file opens=\([0-9]*\) reads=\([0-9]*\) read_bytes=\([0-9]*\) .*path=\(.*\)$/\4\t\1\t\2\t\3/' |
		sort >want.tsv
	jq -r --arg p "$base/a/" '.files[] | select(.type == "file" and .path != null and
		(.path | startswith($p))) | [.path, .opens, .reads, .read_bytes] | @tsv' p.json |
		sort >got.tsv
	bad=$(sort want.tsv got.tsv | uniq -u | cut -f1 | sort -u | wc -l)
	check_eq_skipped "preempt: read() files with their path and counts right of $n" \
		"$((n - bad))" "$n" "$skipped"

	# The loader's files: each path one of its files, each opened once
	# (where io_uring is measured: not with no_uring forced).
	if kernel_has_layer io_uring; then
		find "$b" -type f | sort >want_b.txt
		jq -r --arg p "$base/b/" '.files[] | select(.type == "file" and .path != null and
			(.path | startswith($p)) and .opens == 1) | .path' p.json | sort >got_b.txt
		want=$(wc -l <want_b.txt)
		got=$(comm -12 want_b.txt got_b.txt | wc -l)
		check_eq_skipped "preempt: io_uring files with their path, opened once, of $want" \
			"$got" "$want" "$skipped"
	else
		echo "     io_uring not measured here: the loader's files unchecked"
	fi

	# No path anywhere that is not a file the readers have.
	jq -r --arg p "$base/" '.files[] | select(.path != null and (.path | startswith($p))) |
		.path' p.json | sort >all.txt
	find "$base" | sort >exist.txt
	check_eq "preempt: paths that are no file of the trees" \
		"$(comm -23 all.txt exist.txt | wc -l)" 0
	comm -23 all.txt exist.txt | head -3 | sed 's/^/       not a file: /'
	check_eq "preempt: lost, beyond the runs the kernel skipped" \
		"$(jqr p.json '.lost.total - .lost.prog_misses')" 0
	[ "$FAILED" = "$f0" ]
}
