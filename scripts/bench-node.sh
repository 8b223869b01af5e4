#!/bin/bash
# What finding training loops costs a node: `iostorm -a --listen` (as the
# DaemonSet runs it) over two training jobs and a busy neighbour, with loop
# finding and without it (IOSTORM_FALLBACKS=no_sched: no scheduler programs,
# no loop search; every other layer the same), side by side, the order
# alternating from round to round so drift hits both alike:
#   jobs       two tests/workload pipelines (2 readers, 2 decoders spinning
#              --cpu-us per file, 1 ms of compute a step) over a warm dataset
#              of 2,000 files of 16-40 KB, --epochs times; each one's steps
#              per second by its own clock
#   neighbour  `perf bench sched pipe` (two processes ping-ponging on a pipe:
#              a context switch and a wakeup each way), run again and again
#              while the jobs run: its round trips per second; dd bs=1 (bytes
#              per second) where perf is missing
#   iostorm    its own CPU (utime + stime) per second of the jobs' run: the
#              drains, the loop search, the exporter
# Then --samples runs with loop finding and kernel.bpf_stats_enabled on: the
# scheduler programs' (sched_switch, sched_waking, the interrupt flags) runs
# and CPU ns per second of wall time, every program's besides (the stats add
# a clock read to each run, so the timed runs go without).
#
# Usage: scripts/bench-node.sh [-n ROUNDS] [--epochs E] [--cpu-us N] [--samples S]
# Env:   BENCH_DIR  where the dataset is kept (/var/tmp/iostorm-bench)
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=3 epochs=10 cpu_us=100 samples=2
while [ $# -gt 0 ]; do
	case $1 in
	-n) rounds=${2:?-n needs a number}; shift 2 ;;
	--epochs) epochs=${2:?--epochs needs a number}; shift 2 ;;
	--cpu-us) cpu_us=${2:?--cpu-us needs a number}; shift 2 ;;
	--samples) samples=${2:?--samples needs a number}; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench-node: unknown argument '$1' (try -h)" >&2; exit 2 ;;
	esac
done
for v in "$rounds" "$epochs" "$samples"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "bench-node: -n, --epochs and --samples must be positive integers" >&2; exit 2; }
done
[[ $cpu_us =~ ^[0-9]+$ ]] || { echo "bench-node: --cpu-us must be a number of microseconds" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "bench-node: needs root (BPF, bpf_stats); try: sudo $0" >&2; exit 1; }
command -v bpftool >/dev/null && command -v jq >/dev/null ||
	{ echo "bench-node: needs bpftool and jq (scripts/deps.sh --test)" >&2; exit 1; }

bench=${BENCH_DIR:-/var/tmp/iostorm-bench}
data=$bench/node-f2000/data
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
tmp=$(mktemp -d /tmp/iostorm-bench-node.XXXXXX)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -INT -- "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	sysctl -qw kernel.bpf_stats_enabled="$old_stats" || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# Private copies: every round runs the same binaries, even if someone rebuilds.
cp ./iostorm .output/iostorm-workload "$tmp/"
iostorm=$tmp/iostorm workload=$tmp/iostorm-workload

if [ ! -f "$data/../.complete" ]; then
	echo "bench-node: generating 2,000 files under $data ..."
	rm -rf "$(dirname "$data")"
	"$workload" gen "$data" --files 2000 --dirs 20 --min-size 16384 --max-size 40960 >/dev/null
	touch "$data/../.complete"
fi
cat "$data"/*/* >/dev/null	# warm: the jobs wait on their pipelines, not on the disk

# The neighbour, in a session of its own (so its children stop with it):
# ops per second of each run it completes, one a line, into $1.
if command -v perf >/dev/null; then
	nb_what="perf bench sched pipe, round trips/s"
	nb_cmd='while :; do perf bench sched pipe -l 20000 2>/dev/null |
		sed -n "s/^ *\([0-9]*\) ops\/sec$/\1/p"; done'
else
	nb_what="dd bs=1 of /dev/zero, bytes/s"
	nb_cmd='while :; do t0=${EPOCHREALTIME/./}
		dd if=/dev/zero of=/dev/null bs=1 count=200000 2>/dev/null
		echo $((200000 * 1000000 / (${EPOCHREALTIME/./} - t0))); done'
fi

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# run_case on|off OUT [sample]: one run of the node; OUT.j1, OUT.j2 (the
# jobs' tallies), OUT.nb (the neighbour's rates), OUT.cpu (iostorm's CPU
# seconds per second), and with sample OUT.before/OUT.after (bpftool) and
# OUT.wall (ns).
run_case() {
	local mode=$1 out=$2 sample=${3:-} ipid nbpid j1 j2 c0 c1 t0 t1 port
	port=$((20000 + RANDOM % 20000))
	[ -n "$sample" ] && sysctl -qw kernel.bpf_stats_enabled=1
	if [ "$mode" = off ]; then
		IOSTORM_FALLBACKS=no_sched "$iostorm" -a -q --listen "127.0.0.1:$port" 2>"$out.err" &
	else
		"$iostorm" -a -q --listen "127.0.0.1:$port" 2>"$out.err" &
	fi
	ipid=$!
	pids+=("$ipid")
	until grep -qs "Ctrl-C to stop" "$out.err"; do
		kill -0 "$ipid" 2>/dev/null || { cat "$out.err" >&2; exit 1; }
		sleep 0.05
	done
	setsid bash -c "$nb_cmd" >"$out.nb" &
	nbpid=$!
	pids+=("-$nbpid")
	sleep 0.3
	[ -n "$sample" ] && bpftool prog show -j >"$out.before"
	t0=${EPOCHREALTIME/./}
	c0=$(cpu_ticks "$ipid")
	"$workload" pipeline "$data" --readers 2 --decoders 2 --cpu-us "$cpu_us" --step-ms 1 \
		--epochs "$epochs" --tally "$out.j1" &
	j1=$!
	"$workload" pipeline "$data" --readers 2 --decoders 2 --cpu-us "$cpu_us" --step-ms 1 \
		--epochs "$epochs" --tally "$out.j2" &
	j2=$!
	wait "$j1" && wait "$j2" || { echo "bench-node: a job failed ($mode)" >&2; exit 1; }
	c1=$(cpu_ticks "$ipid")
	t1=${EPOCHREALTIME/./}
	if [ -n "$sample" ]; then
		bpftool prog show -j >"$out.after"
		grep -h '^prog_id:' /proc/"$ipid"/fdinfo/* | awk '{ print $2 }' | sort -un >"$out.ids"
	fi
	echo $(((t1 - t0) * 1000)) >"$out.wall"
	kill -- "-$nbpid" 2>/dev/null || true
	wait "$nbpid" 2>/dev/null || true
	kill -INT "$ipid"
	wait "$ipid" || { echo "bench-node: iostorm exit $? ($mode): $(cat "$out.err")" >&2; exit 1; }
	pids=()
	[ -n "$sample" ] && sysctl -qw kernel.bpf_stats_enabled="$old_stats"
	awk -v c=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" -v us=$((t1 - t0)) \
		'BEGIN { printf "%.4f\n", c / hz / (us / 1e6) }' >"$out.cpu"
}

# steps_per_s TALLY: the job's steps per second by its own clock.
steps_per_s() {
	sed -n 's/^loop steps=\([0-9]*\) .*wall_ns=\([0-9]*\) .*/\1 \2/p' "$1" |
		awk '{ printf "%.1f\n", $1 / ($2 / 1e9) }'
}
mean() { awk '{ s += $1; n++ } END { if (n) printf "%.1f\n", s / n; else print "-" }'; }
# median [FORMAT]: of the numbers on stdin, one a line.
median() { sort -n | awk -v f="${1:-%.1f}" '{ v[NR] = $1 } END { if (!NR) { print "-"; exit }
	printf f "\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "node: $(nproc) CPUs, kernel $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "two pipelines (--epochs $epochs --cpu-us $cpu_us) and a neighbour ($nb_what)"
echo "under 'iostorm -a --listen', with loop finding (on) and IOSTORM_FALLBACKS=no_sched (off)"
printf '\n%-5s %-4s %10s %10s %14s %12s\n' round mode "job1 st/s" "job2 st/s" neighbour "iostorm CPU"
for ((r = 1; r <= rounds; r++)); do
	if ((r % 2)); then order="on off"; else order="off on"; fi
	for m in $order; do
		run_case "$m" "$tmp/r$r-$m"
		printf '%-5s %-4s %10s %10s %14s %11.2f%%\n' "$r" "$m" "$(steps_per_s "$tmp/r$r-$m.j1")" \
			"$(steps_per_s "$tmp/r$r-$m.j2")" "$(mean <"$tmp/r$r-$m.nb")" \
			"$(awk '{ print $1 * 100 }' "$tmp/r$r-$m.cpu")"
	done
done

# Per round, on / off of each figure; the median over the rounds.
echo
echo "on / off, the median of $rounds rounds (each round's)"
ratio_of() {	# FIGURE-COMMAND: per round, on's / off's
	local r a b
	for ((r = 1; r <= rounds; r++)); do
		a=$($1 "$tmp/r$r-on") b=$($1 "$tmp/r$r-off")
		awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "%.3f\n", a / b }'
	done
}
j1() { steps_per_s "$1.j1"; }
j2() { steps_per_s "$1.j2"; }
nb() { mean <"$1.nb"; }
for f in j1:"job 1 steps/s" j2:"job 2 steps/s" nb:"neighbour"; do
	printf '  %-16s %s  (%s)\n' "${f#*:}" "$(ratio_of "${f%%:*}" | median %.3f)" \
		"$(ratio_of "${f%%:*}" | tr '\n' ' ' | sed 's/ $//')"
done
printf '  %-16s %s%% on, %s%% off (of one CPU, median)\n' "iostorm CPU" \
	"$(for ((r = 1; r <= rounds; r++)); do awk '{ print $1 * 100 }' "$tmp/r$r-on.cpu"; done | median %.2f)" \
	"$(for ((r = 1; r <= rounds; r++)); do awk '{ print $1 * 100 }' "$tmp/r$r-off.cpu"; done | median %.2f)"

# The programs' cost with loop finding, bpf_stats on, pooled over the samples.
for ((s = 1; s <= samples; s++)); do
	run_case on "$tmp/s$s" sample
	ids=$(jq -R -s 'split("\n") | map(select(length > 0) | tonumber)' "$tmp/s$s.ids")
	jq -r -n --slurpfile b "$tmp/s$s.before" --slurpfile a "$tmp/s$s.after" --argjson ids "$ids" '
		($b[0] | map({key: (.id | tostring), value: .}) | from_entries) as $B
		| $a[0][] | select(.id as $i | $ids | index($i)) | select($B[.id | tostring])
		| [.name, ((.run_cnt // 0) - ($B[.id | tostring].run_cnt // 0)),
		   ((.run_time_ns // 0) - ($B[.id | tostring].run_time_ns // 0))] | @tsv' >"$tmp/s$s.prog"
done
wall_ns=$(cat "$tmp"/s*.wall | awk '{ s += $1 } END { print s }')
echo
printf 'per program, with loop finding (%d runs with bpf_stats on, %.1f s in all; per second of wall time):\n' \
	"$samples" "$(awk -v w="$wall_ns" 'BEGIN { print w / 1e9 }')"
cat "$tmp"/s*.prog | awk -F'\t' '{ r[$1] += $2; t[$1] += $3 } END { for (n in r) printf "%s\t%d\t%d\n", n, r[n], t[n] }' |
	sort -t$'\t' -k3,3nr | awk -F'\t' -v w="$wall_ns" '
	BEGIN { printf "  %-28s %10s %12s %8s\n", "program", "runs/s", "CPU us/s", "ns/run" }
	function sched(n) { return n ~ /sched_(sw|wa)|_irq|softirq|timer/ }	# names cut at 15
	{ if ($2 == 0) next
	  printf "  %-28s %10.0f %12.1f %8.0f%s\n", $1, $2 / w * 1e9, $3 / w * 1e6, $3 / $2, sched($1) ? "  *" : ""
	  all += $3; if (sched($1)) { s += $3; sr += $2 } }
	END { printf "  * the scheduler programs: %.0f runs/s, %.1f us of CPU a second (%.3f%% of one CPU)\n", sr / w * 1e9, s / w * 1e6, s / w * 100
	      printf "  every program: %.1f us of CPU a second (%.3f%% of one CPU)\n", all / w * 1e6, all / w * 100 }'
echo "(bpf_stats adds a clock read to every run, ~50 ns here: the ns figures are upper bounds)"
