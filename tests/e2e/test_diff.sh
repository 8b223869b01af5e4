# iostorm diff and the example CI gate (scripts/ci-gate.sh) on real traces:
# a loader change that opens every file twice fails the gate; the same
# loader twice passes; unusable reports exit 3 and say why.

# diff_ci_gate ARGS...: the example CI recipe, with this build's iostorm.
diff_ci_gate() {
	IOSTORM=$IOSTORM "$ROOT/scripts/ci-gate.sh" "$@"
}

# The gate's limits that do not depend on timings: counts are exact.
DIFF_COUNT_LIMITS=(--no-default-limits
	--fail-on 'opens_per_file>+10%,reads_per_file>+10%,stats_per_file>+0.1')

# The acceptance test of the issue: a loader change that doubles the opens
# per file (here: two passes over the data in one job) fails the gate.
test_diff_gate_fails_doubled_opens() {
	local rc=0 opf
	gen_data 1000 10
	diff_ci_gate --update --new new.json baseline.json -- \
		"$WORKLOAD" read "$PWD/data" --threads 4 --tally /dev/null ||
		fail "baseline: exit $?"
	[ -f baseline.json ] || fail "no baseline written"
	diff_ci_gate --new new.json baseline.json -- sh -c \
		"'$WORKLOAD' read '$PWD/data' --threads 4 --tally /dev/null &&
		 '$WORKLOAD' read '$PWD/data' --threads 4 --tally /dev/null" \
		>out.txt 2>err.txt || rc=$?
	expect_eq "gate exit status" "$rc" 1
	grep -q "^REGRESSED: opens_per_file>+10%: opens_per_file 1\.[0-9]* -> 2\.[0-9]*" out.txt ||
		fail "opens_per_file not named: $(cat out.txt err.txt)"
	rc=0
	"$IOSTORM" diff baseline.json new.json >out.txt 2>err.txt || rc=$?
	expect_eq "diff exit status" "$rc" 1
	grep -q "opens_per_file" out.txt || fail "no opens_per_file: $(cat out.txt)"
	rc=0
	"$IOSTORM" diff --json baseline.json new.json >diff.json || rc=$?
	expect_eq "diff --json exit status" "$rc" 1
	expect_eq "result" "$(jqr diff.json .result)" regressed
	expect_eq "opens_per_file limit" \
		"$(jqr diff.json '.limits[] | select(.limit == "opens_per_file>+10%") | .result')" \
		regressed
	opf=$(jqr diff.json '.metrics[] | select(.name == "opens_per_file") | .new / .base')
	jq -en "$opf > 1.9 and $opf < 2.1" >/dev/null || fail "opens_per_file x$opf, not ~2"
	# Only the counts: the same verdict, whatever the timings did.
	rc=0
	"$IOSTORM" diff "${DIFF_COUNT_LIMITS[@]}" baseline.json new.json >out.txt || rc=$?
	expect_eq "counts-only exit status" "$rc" 1
}

# The same loader twice passes. Timings of two runs differ (page cache,
# noise), so the gate checks the exact figures only; a report against
# itself passes the defaults, timings included.
test_diff_gate_passes_same_loader() {
	local rc=0 k
	gen_data 1000 10
	for k in 1 2; do
		"$IOSTORM" -q --json "run$k.json" -- \
			"$WORKLOAD" read "$PWD/data" --threads 4 --tally "tally$k.txt" ||
			fail "trace $k: exit $?"
	done
	# The workload's own tally: both runs made the same calls.
	for k in opens reads read_bytes stats; do
		expect_eq "tally $k" "$(tally tally2.txt $k)" "$(tally tally1.txt $k)"
	done
	"$IOSTORM" diff "${DIFF_COUNT_LIMITS[@]}" run1.json run2.json >out.txt 2>err.txt ||
		fail "same loader: exit $?: $(cat out.txt err.txt)"
	grep -q "no regression" out.txt || fail "no verdict: $(cat out.txt)"
	grep -q "^opens_per_file .* =  >+10% *ok$" out.txt ||
		fail "opens_per_file not equal: $(grep opens_per_file out.txt)"
	"$IOSTORM" diff run1.json run1.json >out.txt 2>err.txt ||
		fail "a report against itself: exit $?: $(cat out.txt err.txt)"
	diff_ci_gate --new run3.json run1.json "${DIFF_COUNT_LIMITS[@]}" -- \
		"$WORKLOAD" read "$PWD/data" --threads 4 --tally /dev/null >out.txt 2>err.txt ||
		fail "gate on the same loader: exit $?: $(cat out.txt err.txt)"
}

# tf.data's POSIX file system stats every file before opening it: one more
# stat per file.
test_diff_tf_style_stats() {
	local rc=0
	gen_data 1000 10
	"$IOSTORM" -q --json base.json -- "$WORKLOAD" read "$PWD/data" --tally /dev/null ||
		fail "trace base"
	"$IOSTORM" -q --json tf.json -- "$WORKLOAD" read "$PWD/data" --style tf \
		--tally tally.txt || fail "trace tf"
	"$IOSTORM" diff "${DIFF_COUNT_LIMITS[@]}" base.json tf.json >out.txt 2>err.txt || rc=$?
	expect_eq "exit status" "$rc" 1
	grep -q "^REGRESSED: stats_per_file>+0.1:" out.txt ||
		fail "stats_per_file not named: $(cat out.txt)"
	grep -q "^REGRESSED: opens_per_file" out.txt && fail "opens_per_file named: $(cat out.txt)"
	expect_eq "stats added" \
		"$(( $(jqr tf.json .vfs.stats) - $(jqr base.json .vfs.stats) ))" \
		"$(tally tally.txt stats)"
}

# The CI recipe without a baseline says how to make one. (Unusable reports:
# tests/cli/test_diff.sh.)
test_diff_gate_without_baseline() {
	local rc=0
	gen_data 200 2
	diff_ci_gate --new n.json missing.json -- "$WORKLOAD" read "$PWD/data" --tally /dev/null \
		>out.txt 2>err.txt || rc=$?
	expect_eq "gate without baseline" "$rc" 3
	grep -q "create it with --update" err.txt || fail "gate: $(cat err.txt)"
}
