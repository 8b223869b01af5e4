# Regression checks of iostorm itself, against baselines committed in
# tests/baselines/ (regenerate them with scripts/update-baselines.sh):
# - the scenario workload's report still diffs equal, count for count;
# - every BPF program still loads and attaches, and neither the verified
#   instruction counts nor the maps' memory grew past a margin.

SELFCHECK_BASELINES=${SELFCHECK_BASELINES:-$ROOT/tests/baselines}
# Margins, in percent, over tests/baselines/bpf.txt.
SELFCHECK_INSNS_MARGIN=20
SELFCHECK_MEMLOCK_MARGIN=20
# The figures of the scenario that are exact on any machine.
SELFCHECK_DIFF_LIMITS=(--no-default-limits --fail-on
'files>+0,files<-0,opens>+0,opens<-0,reads>+0,reads<-0,read_bytes>+0,read_bytes<-0,stats>+0,stats<-0,opens_per_file>+0,opens_per_file<-0,reads_per_file>+0,reads_per_file<-0,stats_per_file>+0,stats_per_file<-0,writes>+0,writes<-0')

# selfcheck_copy: private copies of the binaries (others may rebuild).
selfcheck_copy() {
	cp "$IOSTORM" "$WORKLOAD" "$PWD/" || fail "copy binaries"
	IOSTORM=$PWD/iostorm WORKLOAD=$PWD/iostorm-workload
}

# selfcheck_scenario OUT.json: trace the scenario workload as
# tests/e2e/test_scenario.sh does (attached with -p at its gate), in $PWD.
selfcheck_scenario() {
	local wpid ipid
	mkfifo gate
	"$WORKLOAD" scenario "$PWD/data" --gate gate >tally.txt 2>wl.err &
	wpid=$!
	wait_at_gate "$wpid"
	"$IOSTORM" -p "$wpid" -q --json "$1" 2>stderr.txt &
	ipid=$!
	wait_for stderr.txt "Ctrl-C to stop"
	echo go > gate
	wait "$wpid" || fail "workload: $(cat wl.err)"
	wait "$ipid" || fail "iostorm exit $?: $(cat stderr.txt)"
}

# selfcheck_strip REPORT.json: the machine-independent part of a report
# (totals only: no files/dirs/threads, no paths, pids or timings; no bytes
# written: the workload's tally, which holds timings).
selfcheck_strip() {
	jq '{schema, generated_by: "scripts/update-baselines.sh",
	     target: (.target | sub("^pid [0-9]+"; "pid 0")),
	     vfs: (.vfs | del(.rates, .read_ns, .meta_ns, .faults, .cache_pages, .write_ns,
			     .fsync_ns, .commit_ns, .write_bytes, .interfaces.syscall.write_bytes))}' "$1"
}

# selfcheck_bpf_snapshot PID: iostorm's BPF programs and maps, from its
# fds: "prog NAME VERIFIED_INSNS" (sorted) and "maps_memlock BYTES" lines
# on stdout; per-map memory and unattached programs on stderr. Fails when
# a program has no link (it loaded but did not attach).
selfcheck_bpf_snapshot() {
	local pid=$1 progs maps linked id
	progs=$(grep -h '^prog_id:' /proc/$pid/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -un)
	[ -n "$progs" ] || fail "no BPF programs in /proc/$pid/fdinfo"
	# link fds name their program by prog_id too, next to a link_type line.
	linked=$(grep -l '^link_type:' /proc/$pid/fdinfo/* 2>/dev/null |
		xargs -r grep -h '^prog_id:' | awk '{print $2}' | sort -un)
	bpftool -j prog show >progs.json || fail "bpftool prog show"
	bpftool -j map show >maps.json || fail "bpftool map show"
	for id in $progs; do
		grep -qx "$id" <<<"$linked" ||
			fail "program $(jq -r --argjson i "$id" '.[] | select(.id == $i) | .name' progs.json) (id $id) is not attached"
	done
	# verified_insns from fdinfo (bpftool 7.1 does not print it).
	for f in /proc/$pid/fdinfo/*; do
		grep -q '^verified_insns:' "$f" 2>/dev/null || continue
		echo "$(awk '/^prog_id:/ {print $2}' "$f") $(awk '/^verified_insns:/ {print $2}' "$f")"
	done | sort -un | while read -r id n; do
		echo "$(jq -r --argjson i "$id" '.[] | select(.id == $i) | .name' progs.json) $n"
	done | sort | awk '{ c[$1]++; print "prog " $1 (c[$1] > 1 ? "#" c[$1] : "") " " $2 }'
	maps=$(grep -h '^map_id:' /proc/$pid/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -un | jq -sc .)
	jq -r --argjson ids "$maps" '[.[] | select(.id as $i | $ids | index($i))] |
		group_by(.name)[] | "map \(.[0].name) \(map(.bytes_memlock) | add)"' maps.json >&2
	jq -r --argjson ids "$maps" '"maps_memlock \([.[] | select(.id as $i | $ids | index($i)) | .bytes_memlock] | add)"' maps.json
}

# selfcheck_bpf_run OUT.txt: run iostorm -a briefly and snapshot it.
selfcheck_bpf_run() {
	local ipid
	# Until the snapshot is taken, then Ctrl-C: with a fixed -d, a loaded
	# machine's snapshot outlived iostorm and read no map (memlock null).
	"$IOSTORM" -a -q -j out.json 2>err.txt &
	ipid=$!
	wait_for err.txt "Ctrl-C to stop"
	selfcheck_bpf_snapshot "$ipid" >"$1" 2>maps.txt ||
		{ kill "$ipid"; fail "snapshot: $(tail -n 1 maps.txt)"; }
	kill -INT "$ipid"
	wait "$ipid" || fail "iostorm -a exit $?: $(cat err.txt)"
	grep -q '^maps_memlock [0-9][0-9]*$' "$1" || fail "snapshot without the maps' memory: $(cat "$1")"
}

test_selfcheck_scenario_baseline() {
	local base=$SELFCHECK_BASELINES/scenario.json rc=0
	[ -f "$base" ] || fail "no $base: run scripts/update-baselines.sh"
	local IOSTORM=$IOSTORM WORKLOAD=$WORKLOAD
	selfcheck_copy
	selfcheck_scenario out.json
	"$IOSTORM" diff "${SELFCHECK_DIFF_LIMITS[@]}" "$base" out.json >diff.txt 2>&1 || rc=$?
	cat diff.txt
	expect_eq "diff against the baseline: exit status" "$rc" 0
	# The gate can fail: one read more in the baseline is a regression.
	jq '.vfs.reads += 1' "$base" >off.json
	rc=0
	"$IOSTORM" diff "${SELFCHECK_DIFF_LIMITS[@]}" off.json out.json >diff.txt 2>&1 || rc=$?
	expect_eq "diff against baseline with reads+1: exit status" "$rc" 1
	grep -q "^REGRESSED: reads<-0" diff.txt || fail "reads not named: $(cat diff.txt)"
}

test_selfcheck_bpf_programs() {
	local base=$SELFCHECK_BASELINES/bpf.txt bad=0 name b n lim r
	[ -f "$base" ] || fail "no $base: run scripts/update-baselines.sh"
	command -v bpftool >/dev/null || skip "no bpftool"
	[ -z "${IOSTORM_FALLBACKS:-}" ] ||
		skip "the baselines are the default programs' (IOSTORM_FALLBACKS=$IOSTORM_FALLBACKS)"
	local IOSTORM=$IOSTORM WORKLOAD=$WORKLOAD
	selfcheck_copy
	selfcheck_bpf_run now.txt
	cat maps.txt
	printf '%-32s %10s %10s %10s  %s\n' program baseline now limit result
	for name in $( (awk '$1 == "prog" {print $2}' "$base"; awk '$1 == "prog" {print $2}' now.txt) | sort -u); do
		b=$(awk -v n="$name" '$1 == "prog" && $2 == n {print $3}' "$base")
		n=$(awk -v n="$name" '$1 == "prog" && $2 == n {print $3}' now.txt)
		if [ -z "$b" ]; then r="NEW (not in the baseline)"; bad=1; lim=-
		elif [ -z "$n" ]; then r="MISSING (did not load or attach)"; bad=1; lim=-
		else
			lim=$((b + b * SELFCHECK_INSNS_MARGIN / 100))
			if [ "$n" -gt "$lim" ]; then r="GREW"; bad=1; else r=ok; fi
		fi
		printf '%-32s %10s %10s %10s  %s\n' "$name" "${b:--}" "${n:--}" "$lim" "$r"
	done
	b=$(awk '$1 == "maps_memlock" {print $2}' "$base")
	n=$(awk '$1 == "maps_memlock" {print $2}' now.txt)
	lim=$((b + b * SELFCHECK_MEMLOCK_MARGIN / 100))
	if [ "$n" -gt "$lim" ]; then r="GREW"; bad=1; else r=ok; fi
	printf '%-32s %10s %10s %10s  %s\n' maps_memlock "$b" "$n" "$lim" "$r"
	# The memory iostorm states is what bpftool saw it hold, within 1%:
	# maps allocated on use (threads) hold fewer entries at the end.
	local said
	said=$(jqr out.json .store.kernel_maps_bytes)
	[ $(( (said - n) * 100 )) -le "$n" ] && [ $(( (n - said) * 100 )) -le "$n" ] ||
		fail "store.kernel_maps_bytes $said, bpftool saw $n"
	echo "  store.kernel_maps_bytes = $said (bpftool: $n)"
	[ "$bad" = 0 ] || fail "BPF programs or maps differ from $base (scripts/update-baselines.sh after a deliberate change)"
}
