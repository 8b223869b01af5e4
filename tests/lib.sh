# Helpers for tests/{cli,e2e}/test_*.sh, sourced by tests/run.sh. Each test runs in a
# subshell inside its own temporary directory; fail() ends it.

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "$*"
	exit 77
}

# expect_eq WHAT ACTUAL EXPECTED
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
	echo "  $1 = $2"
}

# NUM: what the numeric helpers take; null, '' or a word is no number (awk
# would compare it as a string, and "null" > 0 holds there).
NUM='^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$'

# expect_cmp WHAT A OP B: a numeric comparison (awk), e.g. expect_cmp x 3 '>=' 2.
expect_cmp() {
	[[ $2 =~ $NUM ]] && [[ $4 =~ $NUM ]] &&
		awk -v a="$2" -v b="$4" "BEGIN { exit !(a $3 b) }" ||
		fail "$1: got '$2', expected $3 $4"
	echo "  $1 = $2 ($3 $4)"
}

# expect_fail CODE PATTERN CMD...: CMD exits CODE and says PATTERN on stderr.
expect_fail() {
	local code=$1 pattern=$2 rc=0
	shift 2
	"$@" >out.txt 2>err.txt || rc=$?
	expect_eq "exit status of $*" "$rc" "$code"
	grep -q -- "$pattern" err.txt || fail "stderr lacks '$pattern': $(cat err.txt)"
}

# expect_screen REPORT: the default text report is one screen, at most 50
# lines of at most 100 columns (terminal columns: "µ" and "…" are one).
expect_screen() {
	local lines cols
	lines=$(wc -l <"$1")
	cols=$(LC_ALL=C.UTF-8 wc -L <"$1")
	[ "$lines" -le 50 ] && [ "$cols" -le 100 ] ||
		fail "$1 is not one screen: $lines lines, widest $cols columns: $(cat "$1")"
	echo "  $1: $lines lines, widest $cols columns (<= 50, <= 100)"
}

# jqr FILE FILTER: one raw value from a JSON file.
jqr() {
	jq -r "$2" "$1" || fail "jq '$2' on $1"
}

# tally FILE KEY: a value from the workload's "total ..." line.
tally() {
	grep '^total ' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# wait_for FILE PATTERN [SECONDS]: wait until FILE has a line matching PATTERN.
wait_for() {
	local i
	for ((i = 0; i < ${3:-20} * 10; i++)); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "timed out waiting for '$2' in $1: $(cat "$1" 2>/dev/null)"
}

# A dataset of N small files in ./data, generated once per test.
gen_data() {
	"$WORKLOAD" gen data --files "$1" ${2:+--dirs $2} >/dev/null || fail "gen"
	sync
}

# Sum a per-file JSON key over the regular files under a directory prefix.
sum_under() {
	jq --arg p "$2" "[.files[] | select(.type == \"file\" and .path != null and (.path | startswith(\$p))) | .$3] | add // 0" "$1"
}

count_under() {
	jq --arg p "$2" '[.files[] | select(.type == "file" and .path != null and (.path | startswith($p)))] | length' "$1"
}

# wait_at_gate PID: wait until PID blocks in openat(2) of its gate FIFO
# (syscall 257 on x86_64, 56 on arm64), before the measured phase.
wait_at_gate() {
	local i nr
	for ((i = 0; i < 200; i++)); do
		read -r nr _ < "/proc/$1/syscall" 2>/dev/null
		{ [ "$nr" = 257 ] || [ "$nr" = 56 ]; } && return 0
		sleep 0.05
	done
	fail "pid $1 did not reach its gate"
}

# Names of this run's workloads, made from the suite's pid ($$: run.sh's in
# every test): under `-a` a test sees every pod of the node, and two runs
# of the suite at once on one machine must not share a pod, a container or
# a Slurm job, or each would count the other's loops as its own.
# run_uid N: pod uid N, 8-4-4-4-12 hex as kubelet writes one.
run_uid() {
	printf '%08x-%04x-4000-8000-%012x\n' "$$" "$1" "$$"
}

# run_cid N DIGITS: container id N, DIGITS hex digits (12 or more: shorter
# is no container's id to the cgroup parser).
run_cid() {
	printf '%08x%0*x\n' "$$" $(($2 - 8)) "$1"
}
