#!/bin/bash
# iostorm's test runner: unit tests and CLI tests (tests/cli/: the command
# line, diff on committed reports, the build's layers; no root), then BPF
# integration and end-to-end tests (tests/e2e/) that drive the real
# ./iostorm against workloads whose exact effect is known. Tests that need
# root or BTF are skipped, and counted as skipped, where those are missing.
#
# Usage: tests/run.sh [--fallbacks] [NAME]
#   NAME: a test's whole name runs that test alone (tests/run.sh
#     test_stall_torch_cpu_starved); any other word, every test whose name
#     holds it (tests/run.sh stall).
#   --fallbacks: then the exact-count tests again on the code paths older
#     kernels take, forced here (IOSTORM_FALLBACKS=$FALLBACKS, default
#     core_read,block_rq,prev_state,page_arg; docs/kernels.md): `make test`.
# Ends with the slowest groups and tests, the command that reruns each
# failed check, and "N passed, N failed, N skipped".
# IOSTORM_KEEP_LOGS=1 keeps a passed test's work directory and log too.
set -u
cd "$(dirname "$0")/.."

ROOT=$PWD
IOSTORM=$ROOT/iostorm
WORKLOAD=$ROOT/.output/iostorm-workload
GOLDEN=$ROOT/tests/fixtures/golden
WITH_FALLBACKS=0
if [ "${1:-}" = --fallbacks ]; then
	WITH_FALLBACKS=1
	shift
fi
PATTERN=${1:-}
FALLBACKS=${FALLBACKS:-core_read,block_rq,prev_state,page_arg}
PASSED=0
FAILED=0
SKIPPED=0
FAILED_NAMES=()
RERUNS=()
TIMES=()        # "SECONDS NAME GROUP" per test run
T_START=$EPOCHREALTIME

. tests/lib.sh

# Unit tests count one by one in the totals, from their own closing line.
# Under valgrind when it is installed: a read of uninitialised memory or a
# leak fails them (IOSTORM_VALGRIND=0 runs them bare, 4x faster). They run
# beside the CLI tests (unit_start, then unit_end before the end-to-end
# tests, which time things and get the machine to themselves): neither
# measures time, and each writes only files of its own.
unit_start() {
	UNIT_VG=()
	if [ "${IOSTORM_VALGRIND:-1}" != 0 ] && command -v valgrind >/dev/null; then
		UNIT_VG=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite)
	fi
	UNIT_OUT=$(mktemp /tmp/iostorm-unit-run.XXXXXX)
	(
		t0=$EPOCHREALTIME
		"${UNIT_VG[@]}" "$ROOT/.output/unit-tests" >"$UNIT_OUT" 2>&1
		echo "$? $(elapsed "$t0")" >"$UNIT_OUT.rc"
	) &
	UNIT_PID=$!
}

unit_end() {
	local out p f rc secs n="" vg="${UNIT_VG[*]:+${UNIT_VG[*]} }"
	wait "$UNIT_PID"
	out=$(cat "$UNIT_OUT")
	read -r rc secs <"$UNIT_OUT.rc"
	rm -f "$UNIT_OUT" "$UNIT_OUT.rc"
	echo
	echo "== unit tests${vg:+ (under valgrind)}, run beside the CLI tests"
	TIMES+=("$secs unit-tests unit")
	echo "$out" | sed '$d'
	read -r p _ f _ < <(echo "$out" | tail -n1)
	[[ $f =~ ^[0-9]+$ ]] || f=1
	if [ "$rc" != 0 ] || ! [[ $p =~ ^[0-9]+$ ]]; then
		echo "FAIL unit tests (exit $rc)"
		FAILED=$((FAILED + f))
		FAILED_NAMES+=(unit)
		for n in $(echo "$out" | sed -n 's/^FAIL \([a-z0-9_]*\)$/\1/p'); do
			RERUNS+=("$vg.output/unit-tests $n")
		done
		[ "$rc" = 0 ] || [ -n "$n" ] || RERUNS+=("$vg.output/unit-tests")
	fi
	[[ $p =~ ^[0-9]+$ ]] && PASSED=$((PASSED + p))
	echo "unit: $p passed, $f failed"
	echo
}

# elapsed T0: seconds since $EPOCHREALTIME was T0, to a tenth.
elapsed() {
	awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'
}

# A test runs when PATTERN is empty, is its whole name, or (when no test
# is named so) is in its name.
EXACT=0
selected() {
	[ -z "$PATTERN" ] && return 0
	if [ "$EXACT" = 1 ]; then
		[ "$1" = "$PATTERN" ]
	else
		[[ $1 == *$PATTERN* ]]
	fi
}

can_trace() {
	[ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ]
}

# Run one test function in a fresh work directory; it fails by returning
# non-zero (see fail() in lib.sh) and is skipped by returning 77. Only
# tests/e2e/ needs root and BTF.
run_test() {
	local name=$1 needs_root=$2 rc t0=$EPOCHREALTIME label=$1 rerun
	selected "$name" || return
	if [ -n "${IOSTORM_FALLBACKS:-}" ] && [ "$WITH_FALLBACKS" = 1 ]; then
		label="$name [IOSTORM_FALLBACKS=$IOSTORM_FALLBACKS]"
		rerun="IOSTORM_FALLBACKS=$IOSTORM_FALLBACKS tests/run.sh $name"
	else
		rerun="tests/run.sh $name"
		[ -n "${IOSTORM_FALLBACKS:-}" ] && rerun="IOSTORM_FALLBACKS=$IOSTORM_FALLBACKS $rerun"
	fi
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
	TIMES+=("$(elapsed "$t0") $name ${GROUP_OF[$name]:-?}")
	case $rc in
	0)  echo "ok   $label"; PASSED=$((PASSED + 1))
	    [ "${IOSTORM_KEEP_LOGS:-0}" = 1 ] && echo "     (log: $T/log)" || rm -rf "$T" ;;
	77) echo "SKIP $label: $(tail -n1 "$T/log")"; SKIPPED=$((SKIPPED + 1)); rm -rf "$T" ;;
	*)  echo "FAIL $label (log: $T/log)"; sed 's/^/    /' "$T/log" | tail -n 40
	    FAILED=$((FAILED + 1)); FAILED_NAMES+=("$label"); RERUNS+=("$rerun") ;;
	esac
}

# Where the time went: the ten slowest groups (a test file, the unit
# tests) and the ten slowest tests, so the next person sees what to speed up.
timings() {
	[ ${#TIMES[@]} -gt 0 ] || return 0
	echo
	echo "time: $(elapsed "$T_START") s in all; the slowest groups:"
	printf '%s\n' "${TIMES[@]}" | awk '{ t[$3] += $1; n[$3]++ }
		END { for (g in t) printf "%8.1f s  %-28s %d run(s)\n", t[g], g, n[g] }' |
		sort -rn | head -n 10
	echo "the slowest tests:"
	printf '%s\n' "${TIMES[@]}" | sort -rn | head -n 10 |
		awk '{ printf "%8.1f s  %s\n", $1, $2 }'
}

# Source a folder's tests; TESTS becomes the test functions it defined.
declare -A GROUP_OF=()
source_tests() {
	local before f t
	before=$(declare -F | awk '{print $3}' | grep '^test_' | sort)
	for f in "$1"/test_*.sh; do
		. "$f"
	done
	TESTS=$(comm -13 <(echo "$before") <(declare -F | awk '{print $3}' | grep '^test_' | sort))
	shopt -s extdebug
	for t in $TESTS; do
		f=$(declare -F "$t" | awk '{print $3}')
		GROUP_OF[$t]=${f#"$ROOT"/tests/}
	done
	shopt -u extdebug
}

source_tests tests/cli
CLI_TESTS=$TESTS
source_tests tests/e2e
E2E_TESTS=$TESTS

for t in $CLI_TESTS $E2E_TESTS; do
	[ "$t" = "$PATTERN" ] && EXACT=1
done
[ -z "$PATTERN" ] && unit_start
for t in $CLI_TESTS; do
	run_test "$t" 0
done
[ -z "$PATTERN" ] && unit_end
for t in $E2E_TESTS; do
	run_test "$t" 1
done
# The older kernels' paths: the exact-count tests again, forced.
if [ "$WITH_FALLBACKS" = 1 ]; then
	echo
	echo "== the exact-count tests on the older kernels' paths (IOSTORM_FALLBACKS=$FALLBACKS)"
	export IOSTORM_FALLBACKS=$FALLBACKS
	for t in $E2E_TESTS; do
		[[ $t == *exact* ]] && run_test "$t" 1
	done
	unset IOSTORM_FALLBACKS
fi

timings
echo
if [ ${#FAILED_NAMES[@]} -gt 0 ]; then
	echo "failed: ${FAILED_NAMES[*]}"
	echo "rerun each alone:"
	printf '  %s\n' "${RERUNS[@]}"
fi
echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" = 0 ]
