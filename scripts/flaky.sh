#!/bin/bash
# Rerun one check N times and print its pass rate: how a check that fails
# now and then is found, and how its mend is shown (docs/hacking.md).
#
# Usage: scripts/flaky.sh [-j JOBS] N TEST
#   TEST: an end-to-end or CLI test's name (tests/run.sh TEST), e.g.
#           scripts/flaky.sh 20 test_stall_torch_cpu_starved
#         unit:NAME, a unit test (.output/unit-tests NAME)
#         vm:LINE:CONCERN, a guest concern (tests/vm/run.sh CONCERN) booted
#           on LINE (6.1, 6.12, 7.2; LINE-fallbacks forces every fallback),
#           e.g. scripts/flaky.sh -j 2 20 vm:7.2:nfs
#   -j: guests booted at once (vm: only; default 1). Host tests run one at
#       a time: two beside each other would load the machine they measure.
#   IOSTORM_FALLBACKS in the environment is passed on.
# Each run's outcome as it ends; a failed run's log is kept and its failing
# lines shown. Ends with "TEST: P of N passed (R%)"; exits 0 when every run
# passed, 1 when one failed, 2 on bad usage.
set -u
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD

usage() {
	sed -n '4,17s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

JOBS=1
while getopts j:h o; do
	case $o in
	j) JOBS=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 2 ] || usage
N=$1
TEST=$2
[[ $N =~ ^[1-9][0-9]*$ ]] || { echo "flaky: N must be a positive count, not '$N'" >&2; exit 2; }
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || { echo "flaky: -j needs a positive count, not '$JOBS'" >&2; exit 2; }

LOGS=$(mktemp -d /tmp/iostorm-flaky.XXXXXX)
case $TEST in
vm:*:*)
	IFS=: read -r _ LINE CONCERN <<<"$TEST"
	ENVS=()
	case $LINE in
	*-fallbacks) LINE=${LINE%-fallbacks}; ENVS=(-e IOSTORM_FALLBACKS=all) ;;
	esac
	[ -n "${IOSTORM_FALLBACKS:-}" ] && ENVS=(-e "IOSTORM_FALLBACKS=$IOSTORM_FALLBACKS")
	scripts/vm/run.sh prepare "$LINE" || exit 2
	# run I: one boot, its own results share; passed when its checks all did.
	run() {
		scripts/vm/run.sh "$LINE" "${ENVS[@]}" -o "$LOGS/vm-$1" -- tests/vm/run.sh "$CONCERN" \
			>"$LOGS/$1.log" 2>&1 &&
			grep -q '^[1-9][0-9]* passed, 0 failed$' "$LOGS/$1.log"
	}
	failing() { grep -E '^FAIL|did not finish' "$1"; }
	;;
vm:*)
	echo "flaky: a guest check is vm:LINE:CONCERN, e.g. vm:7.2:async" >&2
	exit 2
	;;
unit:*)
	[ "$JOBS" = 1 ] || { echo "flaky: -j is for guests (vm:) only" >&2; exit 2; }
	NAME=${TEST#unit:}
	[ -x .output/unit-tests ] || { echo "flaky: no .output/unit-tests: make unit first" >&2; exit 2; }
	run() {
		.output/unit-tests "$NAME" >"$LOGS/$1.log" 2>&1 &&
			grep -q '^[1-9][0-9]* passed, 0 failed$' "$LOGS/$1.log"
	}
	failing() { grep -E '^FAIL|: ' "$1" | head -n 5; }
	;;
*)
	[ "$JOBS" = 1 ] || { echo "flaky: -j is for guests (vm:) only" >&2; exit 2; }
	grep -qs "^$TEST()" tests/cli/*.sh tests/e2e/*.sh ||
		{ echo "flaky: no test named '$TEST' in tests/cli or tests/e2e" >&2; exit 2; }
	run() {
		tests/run.sh "$TEST" >"$LOGS/$1.log" 2>&1 &&
			grep -q '^1 passed, 0 failed' "$LOGS/$1.log"
	}
	failing() { grep -E '^ *FAIL' "$1" | head -n 5; }
	;;
esac

echo "flaky: $TEST, $N runs${IOSTORM_FALLBACKS:+ (IOSTORM_FALLBACKS=$IOSTORM_FALLBACKS)}; logs in $LOGS"
PASSED=0
FAILED=0
T0=$SECONDS
# one I: run I, then its line.
one() {
	local t0=$SECONDS
	if run "$1"; then
		echo "run $1/$N: ok ($((SECONDS - t0)) s)"
		rm -rf "$LOGS/$1.log" "$LOGS/vm-$1"
		return 0
	fi
	echo "run $1/$N: FAIL ($((SECONDS - t0)) s; log $LOGS/$1.log)"
	failing "$LOGS/$1.log" | sed 's/^/    /'
	return 1
}
declare -A RUNNING=()
i=1
while [ "$i" -le "$N" ] || [ ${#RUNNING[@]} -gt 0 ]; do
	while [ "$i" -le "$N" ] && [ ${#RUNNING[@]} -lt "$JOBS" ]; do
		one "$i" &
		RUNNING[$!]=$i
		i=$((i + 1))
	done
	wait -n -p done_pid "${!RUNNING[@]}"
	rc=$?
	unset "RUNNING[$done_pid]"
	if [ "$rc" = 0 ]; then PASSED=$((PASSED + 1)); else FAILED=$((FAILED + 1)); fi
done
echo "flaky: $((SECONDS - T0)) s"
echo "$TEST: $PASSED of $N passed ($((100 * PASSED / N))%)"
[ "$FAILED" = 0 ] && [ "$PASSED" = "$N" ] && rmdir "$LOGS" 2>/dev/null
[ "$PASSED" = "$N" ]
