#!/bin/bash
# iostorm's test runner: unit tests and CLI tests (tests/cli/: the command
# line, diff on committed reports, the build's layers; no root), then BPF
# integration and end-to-end tests (tests/e2e/) that drive the real
# ./iostorm against workloads whose exact effect is known. Tests that need
# root or BTF are skipped, and counted as skipped, where those are missing.
#
# Usage: tests/run.sh [NAME_PATTERN]    e.g. tests/run.sh scenario
# IOSTORM_KEEP_LOGS=1 keeps a passed test's work directory and log too.
set -u
cd "$(dirname "$0")/.."

ROOT=$PWD
IOSTORM=$ROOT/iostorm
WORKLOAD=$ROOT/.output/iostorm-workload
GOLDEN=$ROOT/tests/fixtures/golden
PATTERN=${1:-}
PASSED=0
FAILED=0
SKIPPED=0
FAILED_NAMES=()

. tests/lib.sh

# Unit tests count one by one in the totals, from their own closing line.
# Under valgrind when it is installed: a read of uninitialised memory or a
# leak fails them (IOSTORM_VALGRIND=0 runs them bare, 4x faster).
run_unit() {
	local out p f vg=()
	if [ "${IOSTORM_VALGRIND:-1}" != 0 ] && command -v valgrind >/dev/null; then
		vg=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite)
	fi
	echo "== unit tests${vg:+ (under valgrind)}"
	out=$("${vg[@]}" "$ROOT/.output/unit-tests" 2>&1)
	local rc=$?
	echo "$out" | sed '$d'
	read -r p _ f _ < <(echo "$out" | tail -n1)
	[[ $f =~ ^[0-9]+$ ]] || f=1
	if [ "$rc" != 0 ] || ! [[ $p =~ ^[0-9]+$ ]]; then
		echo "FAIL unit tests (exit $rc)"
		FAILED=$((FAILED + f))
		FAILED_NAMES+=(unit)
	fi
	[[ $p =~ ^[0-9]+$ ]] && PASSED=$((PASSED + p))
	echo "unit: $p passed, $f failed"
	echo
}

can_trace() {
	[ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ]
}

# Run one test function in a fresh work directory; it fails by returning
# non-zero (see fail() in lib.sh) and is skipped by returning 77. Only
# tests/e2e/ needs root and BTF.
run_test() {
	local name=$1 needs_root=$2 rc
	[ -n "$PATTERN" ] && [[ $name != *$PATTERN* ]] && return
	if [ "$needs_root" = 1 ] && ! can_trace; then
		echo "SKIP $name (needs root and /sys/kernel/btf/vmlinux)"
		SKIPPED=$((SKIPPED + 1))
		return
	fi
	T=$(mktemp -d /tmp/iostorm-test.XXXXXX)
	(cd "$T" && set -e && "$name") >"$T/log" 2>&1
	rc=$?
	# One story: every report the test made, JSON or text, contradicts itself nowhere.
	if [ "$rc" = 0 ] && command -v python3 >/dev/null; then
		python3 "$ROOT/tests/check_story.py" --scan "$T" >>"$T/log" 2>&1 || rc=1
	fi
	# A failed test may leave its workload waiting at a gate.
	pkill -KILL -f -- "$T" 2>/dev/null
	case $rc in
	0)  echo "ok   $name"; PASSED=$((PASSED + 1))
	    [ "${IOSTORM_KEEP_LOGS:-0}" = 1 ] && echo "     (log: $T/log)" || rm -rf "$T" ;;
	77) echo "SKIP $name: $(tail -n1 "$T/log")"; SKIPPED=$((SKIPPED + 1)); rm -rf "$T" ;;
	*)  echo "FAIL $name (log: $T/log)"; sed 's/^/    /' "$T/log" | tail -n 40
	    FAILED=$((FAILED + 1)); FAILED_NAMES+=("$name") ;;
	esac
}

# Source a folder's tests; TESTS becomes the test functions it defined.
source_tests() {
	local before f
	before=$(declare -F | awk '{print $3}' | grep '^test_' | sort)
	for f in "$1"/test_*.sh; do
		. "$f"
	done
	TESTS=$(comm -13 <(echo "$before") <(declare -F | awk '{print $3}' | grep '^test_' | sort))
}

source_tests tests/cli
CLI_TESTS=$TESTS
source_tests tests/e2e
E2E_TESTS=$TESTS

[ -z "$PATTERN" ] && run_unit
for t in $CLI_TESTS; do
	run_test "$t" 0
done
for t in $E2E_TESTS; do
	run_test "$t" 1
done

echo
[ ${#FAILED_NAMES[@]} -gt 0 ] && echo "failed: ${FAILED_NAMES[*]}"
echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" = 0 ]
