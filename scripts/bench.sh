#!/bin/bash
# The overhead benchmark docs/cost.md quotes: how much slower an ML-style input
# pipeline (many small files, read whole, random order, 8 threads) runs under
# iostorm, with a warm and a cold page cache, and what each BPF program costs.
#
# Every run goes through the same tiny wrapper, which times the workload alone
# (bash's EPOCHREALTIME, no fork), so two ratios are shown:
#   end-to-end     iostorm's command line as a user runs it: BPF load/attach,
#                  the workload, draining and writing the JSON report
#   workload-only  the workload's own wall time, traced vs untraced
# Untraced and traced runs alternate (A B A B ...) so drift hits both alike.
# kernel.bpf_stats_enabled is turned on only for three extra traced runs per
# case, which sample the per-program counters while iostorm is still attached
# (pooled: one run's figures move by +-20% here): the stats add a clock read
# per program run, so the timed runs go without.
#
# With --compare, each round also runs the workload under references, side
# by side, so iostorm's cost is set against the floor and against what users
# already have (make bench-refs builds them):
#   empty     two empty programs on sys_enter/sys_exit: the cost of tracing
#             every syscall before any work (scripts/bench/empty.bpf.c)
#   minimal   the least a latency tracer does: a task storage slot and a
#             clock read at each end, one histogram (scripts/bench/minimal.bpf.c)
#   bpftrace  a 5-probe bpftrace script of the kind users write
#             (scripts/bench/bpftrace.bt), when bpftrace is installed
# and ends with iostorm's targets against them (all from this one run):
#   added time      the warm storm's added workload time, iostorm / minimal
#   ns per syscall  handle_sys_enter + handle_sys_exit ns per run against
#                   minimal's two programs, from bpf_stats (three sample runs
#                   each, alternating: one moves by +-20%)
#   neighbour       a process that is not the target (dd bs=1, 2M reads and
#                   writes of /dev/zero) under `iostorm -p OTHER`, its added
#                   time against the empty reference's
#   cold            the cold storm's added share, iostorm - minimal
#   start           `iostorm -- true`, median of 5
#
# --blocks measures the building blocks instead (scripts/bench/blocks.bpf.c):
# a clock read, a task storage lookup, hash lookups and inserts, atomics,
# the fd walk, each in a program of its own on sys_enter, run by dd's 2M
# syscalls; each block's ns per run minus that of "nothing" (an empty
# program: bpf_stats' own cost) is its cost, the filter's included. Programs
# run one after another on each syscall: a block's cost moves by +-10 ns
# with its place and the machine's noise.
#
# --cpu-us N makes the workload spin N us of CPU after each file, as a loader
# decoding images does (a JPEG of ImageNet takes milliseconds): without it
# the loader does nothing but I/O syscalls, the worst case for any tracer.
#
# Usage: scripts/bench.sh [-n ROUNDS] [--files N] [--no-cold] [--style tf]
#                         [--cpu-us N] [--compare]
#        scripts/bench.sh --blocks
# Env:   BENCH_DIR  dataset cache and last JSON reports (/var/tmp/iostorm-bench)
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
}

rounds=5 files=20000 cold=1 style=posix compare=0 cpu_us=0 blocks=0 samples=3
while [ $# -gt 0 ]; do
	case $1 in
	-n) rounds=${2:?-n needs a number}; shift 2 ;;
	--files) files=${2:?--files needs a number}; shift 2 ;;
	--no-cold) cold=0; shift ;;
	--compare) compare=1; shift ;;
	--blocks) blocks=1; shift ;;
	--cpu-us) cpu_us=${2:?--cpu-us needs a number}; shift 2 ;;
	--style) style=${2:?--style needs posix or tf}; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "bench: unknown argument '$1' (try -h)" >&2; exit 2 ;;
	esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench: -n must be a positive integer" >&2; exit 2; }
[[ $files =~ ^[1-9][0-9]*$ ]] || { echo "bench: --files must be a positive integer" >&2; exit 2; }
[[ $cpu_us =~ ^[0-9]+$ ]] || { echo "bench: --cpu-us must be a number of microseconds" >&2; exit 2; }
[[ $style == posix || $style == tf ]] || { echo "bench: --style must be posix or tf" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (BPF, drop_caches, bpf_stats); try: sudo $0" >&2; exit 1; }
# blocks_table: each building block's ns per run, and its cost over an empty program.
blocks_table() {
	local log old pid t
	for t in jq bpftool; do
		command -v "$t" >/dev/null || { echo "bench: needs $t" >&2; exit 1; }
	done
	[ -e .output/bench/blocks.bpf.o ] || { echo "bench: run 'make bench-refs' first" >&2; exit 1; }
	log=$(mktemp)
	old=$(sysctl -n kernel.bpf_stats_enabled)
	.output/bench/bench-load .output/bench/blocks.bpf.o >"$log" 2>&1 &
	pid=$!
	until grep -q 'attached$' "$log"; do
		kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
		sleep 0.05
	done
	sysctl -qw kernel.bpf_stats_enabled=1
	bpftool prog show -j >"$log.before"
	dd if=/dev/zero of=/dev/null bs=1 count=1000000 2>/dev/null
	bpftool prog show -j >"$log.after"
	sysctl -qw kernel.bpf_stats_enabled="$old"
	kill -INT "$pid"
	wait "$pid" || true
	echo "building blocks, one program each on sys_enter, run by dd's 2M syscalls (bpf_stats on):"
	jq -r -n --slurpfile b "$log.before" --slurpfile a "$log.after" '
		($b[0] | map({key: (.id | tostring), value: .}) | from_entries) as $B
		| [$a[0][] | select($B[.id | tostring]) | select(.name | test("^(filter|ktime|task_storage|hash_|array_|atomic_|percpu_|bitmap_|fd_to|probe_read|tgid_|nothing|one_helper)"))
		   | {n: .name, ns: ((.run_time_ns - $B[.id | tostring].run_time_ns) / (.run_cnt - $B[.id | tostring].run_cnt + 1e-9))}] as $p
		| ($p[] | select(.n == "nothing") | .ns) as $z
		| "  block               ns/run   over \"nothing\" (bpf_stats alone)",
		  ($p[] | select(.n != "nothing") | "  \(.n | . + (" " * (18 - length)))  \(.ns | floor | tostring | (" " * (6 - length)) + .)   \(.ns - $z | floor) ns")'
	rm -f "$log" "$log.before" "$log.after"
}
[ "$blocks" = 1 ] && { blocks_table; exit 0; }

for b in ./iostorm .output/iostorm-workload; do
	[ -x "$b" ] || { echo "bench: $b missing; run 'make all' first" >&2; exit 1; }
done
for t in jq bpftool; do
	command -v "$t" >/dev/null || { echo "bench: needs $t (apt-get install -y $t)" >&2; exit 1; }
done
refs=()
if [ "$compare" = 1 ]; then
	for b in .output/bench/bench-load .output/bench/empty.bpf.o .output/bench/minimal.bpf.o; do
		[ -e "$b" ] || { echo "bench: $b missing; run 'make bench-refs' first" >&2; exit 1; }
	done
	refs=(empty minimal)
	if command -v bpftrace >/dev/null; then
		refs+=(bpftrace)
	else
		echo "bench: bpftrace not installed (apt-get install -y bpftrace): its reference is skipped" >&2
	fi
fi

bench=${BENCH_DIR:-/var/tmp/iostorm-bench}
dirs=$((files / 100 > 0 ? files / 100 : 1))
set_dir="$bench/f$files-d$dirs"
data="$set_dir/data"
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
tmp=$(mktemp -d /tmp/iostorm-bench.XXXXXX)
ref_pid=""
cleanup() {
	# A reference left attached would slow everything after it.
	if [ -n "$ref_pid" ]; then
		kill -INT "$ref_pid" 2>/dev/null || true
		wait "$ref_pid" 2>/dev/null || true
	fi
	sysctl -qw kernel.bpf_stats_enabled="$old_stats" || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# Private copies: every round runs the same binaries, even if someone rebuilds.
if [ -n "$(find bpf user Makefile -newer ./iostorm 2>/dev/null | head -1)" ]; then
	echo "bench: WARNING: ./iostorm is older than its sources; run 'make all' to measure the current code" >&2
fi
cp ./iostorm "$tmp/iostorm"
cp .output/iostorm-workload "$tmp/iostorm-workload"
iostorm=$tmp/iostorm workload=$tmp/iostorm-workload
if [ "$compare" = 1 ]; then
	cp .output/bench/bench-load .output/bench/empty.bpf.o .output/bench/minimal.bpf.o \
		scripts/bench/bpftrace.bt "$tmp/"
fi

# ---- dataset: generated once, reused when the marker says it is complete
if [ ! -f "$set_dir/.complete" ]; then
	echo "bench: generating $files files in $dirs directories under $data ..."
	rm -rf "$set_dir"
	mkdir -p "$set_dir"
	"$workload" gen "$data" --files "$files" --dirs "$dirs" >/dev/null
	sync
	touch "$set_dir/.complete"
fi
data=$(realpath "$data")
wl=("$workload" read "$data" --threads 8 --order random --style "$style" --cpu-us "$cpu_us" --tally /dev/null)

# The wrapper: times the workload alone into $1; with a sample prefix in $2,
# also snapshots every BPF program and the ids iostorm ($PPID) holds, before
# and after, while iostorm is still attached.
cat >"$tmp/wrap.sh" <<'EOF'
#!/bin/bash
tfile=$1 sample=$2; shift 2
if [ "$sample" != - ]; then bpftool prog show -j >"$sample.before"; fi
t0=${EPOCHREALTIME/./}
"$@" && rc=0 || rc=$?
t1=${EPOCHREALTIME/./}
if [ "$sample" != - ]; then
	bpftool prog show -j >"$sample.after"
	grep -h '^prog_id:' /proc/"$PPID"/fdinfo/* | awk '{print $2}' | sort -un >"$sample.ids"
fi
echo $((t1 - t0)) >"$tfile"
exit "$rc"
EOF
chmod +x "$tmp/wrap.sh"

drop_caches() { sync; echo 3 >/proc/sys/vm/drop_caches; }
now_us() { echo "${EPOCHREALTIME/./}"; }

# run_ref REF OUT_PREFIX: the workload's time (OUT.wl, us) under a reference
# of --compare, attached before the timing starts and detached after.
run_ref() {
	local ref=$1 out=$2 rc=0
	if [ "$ref" = bpftrace ]; then
		bpftrace -B line "$tmp/bpftrace.bt" >"$out.log" 2>&1 &
	else
		"$tmp/bench-load" "$tmp/$ref.bpf.o" >"$out.log" 2>&1 &
	fi
	ref_pid=$!
	# -s: the log exists only once the background shell has opened it
	until grep -qs 'attached$' "$out.log"; do
		kill -0 "$ref_pid" 2>/dev/null || { echo "bench: $ref failed:" >&2; cat "$out.log" >&2; exit 1; }
		sleep 0.05
	done
	"$tmp/wrap.sh" "$out.wl" - "${wl[@]}" || rc=$?
	kill -INT "$ref_pid" 2>/dev/null || true	# bpftrace stops on SIGINT only
	wait "$ref_pid" || true
	ref_pid=""
	[ "$rc" -eq 0 ] || { echo "bench: run failed (exit $rc) under $ref" >&2; exit 1; }
}

# ref_sample REF OUT: one workload run under REF with bpf_stats on; OUT gets
# "enter_ns exit_ns" per run of REF's two syscall programs.
ref_sample() {
	local ref=$1 out=$2
	sysctl -qw kernel.bpf_stats_enabled=1
	"$tmp/bench-load" "$tmp/$ref.bpf.o" >"$out.log" 2>&1 &
	ref_pid=$!
	until grep -qs 'attached$' "$out.log"; do sleep 0.05; done
	bpftool prog show -j >"$out.before"
	"$tmp/wrap.sh" "$out.wl" - "${wl[@]}"
	bpftool prog show -j >"$out.after"
	kill -INT "$ref_pid" 2>/dev/null || true
	wait "$ref_pid" || true
	ref_pid=""
	sysctl -qw kernel.bpf_stats_enabled="$old_stats"
	jq -r -n --slurpfile b "$out.before" --slurpfile a "$out.after" --arg p "${ref}_" '
		($b[0] | map({key: (.id | tostring), value: .}) | from_entries) as $B
		| [$a[0][] | select(.name | startswith($p)) | select($B[.id | tostring])
		   | {n: .name, r: (.run_cnt - $B[.id | tostring].run_cnt),
		      t: (.run_time_ns - $B[.id | tostring].run_time_ns)}] as $p
		| [($p[] | select(.n | endswith("enter")) | .t / (.r + 1e-9)),
		   ($p[] | select(.n | endswith("exit")) | .t / (.r + 1e-9))] | @tsv' >"$out"
}

# neighbour MODE OUT: the wall time (us, into OUT.us) of dd bs=1 over /dev/zero, 2M reads
# and 2M writes, in a process outside the target: untraced (none), under the
# empty reference, or under `iostorm -p $other_pid`.
neighbour() {
	local mode=$1 out=$2 t0 pid=""
	case $mode in
	empty)
		"$tmp/bench-load" "$tmp/empty.bpf.o" >"$out.log" 2>&1 &
		pid=$!
		until grep -qs 'attached$' "$out.log"; do sleep 0.05; done ;;
	iostorm)
		"$iostorm" -p "$other_pid" --json "$out.json" >/dev/null 2>"$out.log" &
		pid=$!
		until grep -qs 'tracing' "$out.log"; do
			kill -0 "$pid" 2>/dev/null || { cat "$out.log" >&2; exit 1; }
			sleep 0.05
		done ;;
	esac
	ref_pid=$pid
	t0=$(now_us)
	dd if=/dev/zero of=/dev/null bs=1 count=2000000 2>/dev/null
	echo $(($(now_us) - t0)) >"$out.us"
	if [ -n "$pid" ]; then
		kill -INT "$pid" 2>/dev/null || true
		wait "$pid" || true
	fi
	ref_pid=""
}

# run_one MODE(u|t) OUT_PREFIX [SAMPLE_PREFIX]: writes OUT.e2e and OUT.wl (us)
run_one() {
	local mode=$1 out=$2 sample=${3:--} t0 t1 rc=0
	t0=$(now_us)
	if [ "$mode" = u ]; then
		"$tmp/wrap.sh" "$out.wl" - "${wl[@]}" || rc=$?
	else
		"$iostorm" -q --json "$out.json" -- "$tmp/wrap.sh" "$out.wl" "$sample" "${wl[@]}" \
			2>"$out.err" || rc=$?
	fi
	t1=$(now_us)
	if [ "$rc" -ne 0 ]; then
		echo "bench: run failed (exit $rc): $mode ${wl[*]}" >&2
		[ -f "$out.err" ] && cat "$out.err" >&2
		exit 1
	fi
	echo $((t1 - t0)) >"$out.e2e"
}

# stats FILE...: "median min max" in ms of the us values in FILEs
stats() {
	cat "$@" | sort -n | awk '{v[NR] = $1 / 1000}
		END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		     printf "%.1f %.1f %.1f\n", m, v[1], v[NR]}'
}

# check_json FILE: "lost vfs_opens dataset_files dataset_opens"
check_json() {
	jq -r --arg d "$data/" '[.lost.total, .vfs.opens,
		([.files[] | select(.type == "file" and ((.path // "") | startswith($d)))] | length, (map(.opens) | add // 0))]
		| @tsv' "$1"
}

# prog_delta PREFIX: PREFIX.prog, per program "name runs ns" over one sample run
prog_delta() {
	local ids
	ids=$(jq -R -s 'split("\n") | map(select(length > 0) | tonumber)' "$1.ids")
	jq -r -n --slurpfile b "$1.before" --slurpfile a "$1.after" --argjson ids "$ids" '
		($b[0] | map({key: (.id | tostring), value: .}) | from_entries) as $B
		| $a[0][] | select(.id as $i | $ids | index($i))
		| [.name, ((.run_cnt // 0) - ($B[.id | tostring].run_cnt // 0)),
		   ((.run_time_ns // 0) - ($B[.id | tostring].run_time_ns // 0))] | @tsv' >"$1.prog"
}

# per_program CASE PREFIX N: the per-program cost over the sample runs
# PREFIX1..PREFIXN, pooled (runs and time summed) into PREFIX.prog
per_program() {
	local k wl_us=0
	for ((k = 1; k <= $3; k++)); do
		prog_delta "$2$k"
		wl_us=$((wl_us + $(cat "$2$k.wl")))
	done
	for ((k = 1; k <= $3; k++)); do cat "$2$k.prog"; done |
		awk -F'\t' '{r[$1] += $2; t[$1] += $3} END {for (n in r) printf "%s\t%d\t%d\n", n, r[n], t[n]}' |
		sort -t$'\t' -k3,3nr >"$2.prog"
	local wl_ms
	wl_ms=$(awk -v u="$wl_us" 'BEGIN {printf "%.1f", u / 1000}')
	printf '\nper-program cost (%s, %d runs with bpf_stats on, pooled; workload %s ms in all):\n' \
		"$1" "$3" "$wl_ms"
	printf '  %-28s %10s %10s %8s\n' program runs "total(ms)" ns/run
	awk -F'\t' -v wl="$wl_ms" '
		{ printf "  %-28s %10d %10.1f %8.0f\n", $1, $2, $3 / 1e6, $2 ? $3 / $2 : 0; r += $2; t += $3 }
		END { printf "  %-28s %10d %10.1f %8.0f\n", "total", r, t / 1e6, r ? t / r : 0
		      printf "  BPF time = %.1f%% of the workload wall time (CPU time summed over all CPUs,\n", wl ? t / 1e4 / wl : 0
		      printf "  every process on the system; programs filter on the target inside)\n" }' "$2.prog"
}

# iostorm's fixed cost: load, verify and attach the BPF programs, report an empty run.
for i in 1 2 3 4 5; do
	t0=$(now_us)
	"$iostorm" -q --json "$tmp/empty.json" -- true 2>/dev/null
	echo $(($(now_us) - t0)) >"$tmp/empty-$i.e2e"
done
read -r fixed _ _ < <(stats "$tmp"/empty-*.e2e)

# cpu_snap: "busy ticks of the machine (user+nice+system), ticks used by this script and its children"
cpu_snap() {
	echo "$(awk '/^cpu /{print $2 + $3 + $4}' /proc/stat)" \
		"$(cut -d')' -f2 /proc/$$/stat | awk '{print $12 + $13 + $14 + $15}')"
}
cpu0=$(cpu_snap) wall0=$(now_us)
declare -a summary
prog_out=""
other=$(pgrep -x iostorm | tr '\n' ' ' || true)
echo "bench: $files files in $dirs dirs ($data), style $style, 8 threads, $cpu_us us of CPU per file, $rounds rounds"
echo "bench: iostorm $(git describe --always --dirty 2>/dev/null || echo '?'), kernel $(uname -r), $(nproc) CPUs"
[ -z "$other" ] || echo "bench: WARNING: other iostorm processes are running ($other): their BPF programs slow every run"
hdr() { printf '%-5s %-20s %-20s %-20s %-20s %6s %7s %4s %s\n' "$@"; }
table=""
cases=(warm)
[ "$cold" = 1 ] && cases+=(cold)
for c in "${cases[@]}"; do
	if [ "$c" = warm ]; then
		echo "bench: warm-up: one untraced and one traced run (discarded) ..." >&2
		run_one u "$tmp/warmup-u"
		run_one t "$tmp/warmup-t"
	fi
	for ((i = 1; i <= rounds; i++)); do
		echo "bench: $c round $i/$rounds ..." >&2
		[ "$c" = cold ] && drop_caches
		run_one u "$tmp/$c-u-$i"
		[ "$c" = cold ] && drop_caches
		run_one t "$tmp/$c-t-$i"
		for r in "${refs[@]}"; do
			[ "$c" = cold ] && drop_caches
			run_ref "$r" "$tmp/$c-$r-$i"
		done
	done
	read -r um umin umax < <(stats "$tmp/$c"-u-*.wl)
	read -r ue uemin uemax < <(stats "$tmp/$c"-u-*.e2e)
	read -r te temin temax < <(stats "$tmp/$c"-t-*.e2e)
	read -r tw twmin twmax < <(stats "$tmp/$c"-t-*.wl)
	lost_all=0 opens_ok=1 opens_note=""
	for ((i = 1; i <= rounds; i++)); do
		read -r lost vopens nfiles dopens < <(check_json "$tmp/$c-t-$i.json")
		lost_all=$((lost_all + lost))
		[ "$nfiles" -eq "$files" ] && [ "$dopens" -eq "$files" ] || opens_ok=0
		opens_note="$vopens/$nfiles/$dopens"
	done
	cp "$tmp/$c-t-$rounds.json" "$bench/last-$c.json"
	[ "$opens_ok" = 1 ] && opens_note+=" ok" || opens_note+=" MISMATCH (expected $files dataset files, 1 open each)"
	e2e_ratio=$(awk -v a="$te" -v b="$ue" 'BEGIN {printf "%.3f", a / b}')
	wl_ratio=$(awk -v a="$tw" -v b="$um" 'BEGIN {printf "%.3f", a / b}')
	table+=$(hdr "$c" "$ue [$uemin-$uemax]" "$um [$umin-$umax]" "$te [$temin-$temax]" \
		"$tw [$twmin-$twmax]" "$e2e_ratio" "$wl_ratio" "$lost_all" "$opens_note")$'\n'
	summary+=("$(awk -v r="$wl_ratio" -v e="$e2e_ratio" -v c="$c" -v n="$rounds" 'BEGIN {
		printf "%s-cache overhead: %+.1f%% (workload wall time, median of %d); %+.1f%% end-to-end incl. iostorm start-up and report",
		c, (r - 1) * 100, n, (e - 1) * 100 }')")
	declare -g "med_${c}_u=$um" "med_${c}_t=$tw"
	for r in "${refs[@]}"; do
		read -r rw rmin rmax < <(stats "$tmp/$c-$r"-*.wl)
		declare -g "med_${c}_${r}=$rw"
		summary+=("$(awk -v a="$rw" -v b="$um" -v c="$c" -v r="$r" -v lo="$rmin" -v hi="$rmax" 'BEGIN {
			printf "  reference %-9s %s cache: %+.1f%% (workload %.1f ms [%.1f-%.1f])",
			r, c, (a / b - 1) * 100, a, lo, hi }')")
	done
	[ "$lost_all" -eq 0 ] || summary+=("WARNING: $c: $lost_all events lost in the traced runs")
	[ "$opens_ok" = 1 ] || summary+=("WARNING: $c: dataset opens in the reports do not match $files files")

	# Extra traced runs with bpf_stats on, sampled while iostorm is attached,
	# alternating with minimal's when comparing: one sample moved by +-20%.
	for ((k = 1; k <= samples; k++)); do
		echo "bench: $c: per-program sample run $k/$samples ..." >&2
		sysctl -qw kernel.bpf_stats_enabled=1
		[ "$c" = cold ] && drop_caches
		run_one t "$tmp/$c-s$k" "$tmp/$c-s$k"
		sysctl -qw kernel.bpf_stats_enabled="$old_stats"
		if [ "$c" = warm ] && [ "$compare" = 1 ]; then
			echo "bench: warm: minimal's per-program sample run $k/$samples ..." >&2
			ref_sample minimal "$tmp/warm-minimal-s$k"
		fi
	done
	prog_out+=$(per_program "$c" "$tmp/$c-s" "$samples")$'\n'
done

# A process that is not the target, next to a traced one (sleep: no syscalls).
if [ "$compare" = 1 ]; then
	sleep infinity &
	other_pid=$!
	for ((i = 1; i <= rounds; i++)); do
		echo "bench: neighbour round $i/$rounds ..." >&2
		for m in none empty iostorm; do
			neighbour "$m" "$tmp/nb-$m-$i"
		done
	done
	kill "$other_pid"
	wait "$other_pid" 2>/dev/null || true
fi

# targets_table: iostorm against the references, the figures of issue 11.
# The med_<case>_<run> medians are set by declare -g in the cases' loop.
# shellcheck disable=SC2154
targets_table() {
	local ie ix me mx nn ne ni
	read -r ie ix < <(awk -F'\t' '$1 == "handle_sys_enter" {e = $3 / $2} $1 == "handle_sys_exit" {x = $3 / $2}
		END {print e, x}' "$tmp/warm-s.prog")
	# minimal's samples pooled as iostorm's are: the mean of their per-run costs
	read -r me mx < <(for ((k = 1; k <= samples; k++)); do cat "$tmp/warm-minimal-s$k"; done |
		awk '{e += $1; x += $2} END {print e / NR, x / NR}')
	read -r nn _ _ < <(stats "$tmp"/nb-none-*.us)
	read -r ne _ _ < <(stats "$tmp"/nb-empty-*.us)
	read -r ni _ _ < <(stats "$tmp"/nb-iostorm-*.us)
	echo
	echo "iostorm against the references, this run (medians; targets of issue 11):"
	printf '  %-44s %-18s %-22s %7s  %s\n' measure iostorm reference ratio target
	awk -v u="$med_warm_u" -v t="$med_warm_t" -v m="$med_warm_minimal" 'BEGIN {
		printf "  %-44s %-18s %-22s %7.2f  %s\n", "warm storm: added workload time",
		sprintf("%+.1f ms", t - u), sprintf("minimal %+.1f ms", m - u), (t - u) / (m - u), "<= 1.5" }'
	awk -v ie="$ie" -v ix="$ix" -v me="$me" -v mx="$mx" 'BEGIN {
		printf "  %-44s %-18s %-22s %7.2f  %s\n", "sys_enter + sys_exit, ns per run (bpf_stats)",
		sprintf("%.0f + %.0f ns", ie, ix), sprintf("minimal %.0f + %.0f ns", me, mx),
		(ie + ix) / (me + mx), "<= 1.5" }'
	awk -v n="$nn" -v e="$ne" -v i="$ni" 'BEGIN {
		printf "  %-44s %-18s %-22s %7.2f  %s\n", "neighbour (dd bs=1, 4M syscalls): added time",
		sprintf("%+.1f ms", i - n), sprintf("empty %+.1f ms", e - n), (i - n) / (e - n), "<= 1 (noise)" }'
	if [ "$cold" = 1 ]; then
		awk -v u="$med_cold_u" -v t="$med_cold_t" -v m="$med_cold_minimal" 'BEGIN {
			printf "  %-44s %-18s %-22s %+6.1fpp  %s\n", "cold storm: added workload time",
			sprintf("%+.1f%%", (t / u - 1) * 100), sprintf("minimal %+.1f%%", (m / u - 1) * 100),
			(t - m) / u * 100, "<= +2 pp" }'
	fi
	awk -v f="$fixed" 'BEGIN {
		printf "  %-44s %-18s %-22s %7s  %s\n", "start: iostorm -- true (median of 5)",
		sprintf("%.0f ms", f), "-", "-", "< 300 ms" }'
	echo "  (bpf_stats adds its own clock reads to every run, ~50 ns here: compare ns per run side by side only)"
}
echo
hdr "" "untraced e2e ms" "untraced workload" "traced e2e ms" "traced workload" ratio: "" "" ""
hdr case "median [min-max]" "median [min-max]" "median [min-max]" "median [min-max]" e2e wl-only lost "opens: vfs/dataset files/dataset opens"
printf '%s' "$table"
echo "(e2e: whole command line, traced one incl. BPF load/attach, drain and JSON report; workload: wall time"
echo " of the workload alone, timed inside the same wrapper in both; ratios are traced/untraced medians;"
echo " opens: vfs.opens incl. directories and shared libraries / dataset files in the report / their opens)"
printf '%s' "$prog_out"
echo
printf '%s\n' "${summary[@]}"
echo "(iostorm's fixed cost, '-- true' traced: $fixed ms median of 5: BPF load, verify, attach, exit)"
echo "(last traced JSON reports in $bench/last-*.json)"
[ "$compare" = 1 ] && targets_table
read -r other_s other_pct < <(cpu_snap | awk -v a="$cpu0" -v t="$(($(now_us) - wall0))" -v n="$(nproc)" \
	-v hz="$(getconf CLK_TCK)" '{split(a, x, " "); o = (($1 - x[1]) - ($2 - x[2])) / hz; printf "%.1f %.0f\n", o, o * 1e8 / t / n}')
echo "(CPU used by other processes and kernel threads while this ran: $other_s s, $other_pct% of the machine)"
[ "$other_pct" -lt 10 ] || echo "WARNING: the machine was busy with other work: timings are noisy; rerun on a quiet machine"
