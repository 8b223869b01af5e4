# iostorm diff on committed reports (tests/fixtures/golden/report.json, the
# golden trace's): no root, no tracing. Every exit status of docs/diff.md.

# expect_diff CODE PATTERN ARGS...: `iostorm diff ARGS` exits CODE, says PATTERN.
expect_diff() {
	local code=$1 pattern=$2 rc=0
	shift 2
	"$IOSTORM" diff "$@" >out.txt 2>err.txt || rc=$?
	expect_eq "exit status of diff $*" "$rc" "$code"
	grep -qF -- "$pattern" err.txt || fail "stderr lacks '$pattern': $(cat err.txt)"
}

test_diff_fixture_same_passes() {
	"$IOSTORM" diff "$GOLDEN/report.json" "$GOLDEN/report.json" >out.txt ||
		fail "a report against itself: exit $?: $(cat out.txt)"
	"$IOSTORM" diff --json "$GOLDEN/report.json" "$GOLDEN/report.json" >d.json ||
		fail "--json: exit $?"
	expect_eq "result" "$(jqr d.json .result)" ok
}

test_diff_fixture_regression() {
	local rc=0
	jq '.vfs.opens *= 2' "$GOLDEN/report.json" >doubled.json
	"$IOSTORM" diff "$GOLDEN/report.json" doubled.json >out.txt 2>err.txt || rc=$?
	expect_eq "doubled opens" "$rc" 1
	grep -q "^REGRESSED: opens_per_file" out.txt || fail "not named: $(cat out.txt)"
}

test_diff_unusable_fixtures() {
	cp "$GOLDEN/report.json" new.json
	expect_diff 3 "iostorm: cannot read 'base.json': No such file or directory" \
		base.json new.json
	echo "not json" >text.json
	expect_diff 3 "iostorm: 'text.json' is not JSON: " text.json new.json
	jq '.schema = "iostorm.report/0"' new.json >old.json
	expect_diff 3 "iostorm: 'old.json' is not an iostorm report (schema" old.json new.json
	grep -qF "(schema 'iostorm.report/0', expected 'iostorm.report/1')" err.txt ||
		fail "schema message: $(cat err.txt)"
	head -c 2000 new.json >cut.json
	expect_diff 3 "iostorm: 'cut.json' is not JSON: " new.json cut.json
	jq '.target = "command /usr/bin/ruby other.rb" | .vfs.files *= 5' new.json >other.json
	expect_diff 3 "trace different workloads" new.json other.json
	expect_diff 2 "invalid limit 'opens_per_file'" --fail-on opens_per_file new.json new.json
	expect_diff 2 "Try 'iostorm diff --help'" new.json
}

# A report whose per-record arrays (threads, files, dirs, timeline, fuse)
# are large loads in bounded memory: the stream filter drops them unparsed
# (100,000 thread records, 25 MB, once took ~350 MB); the I/O wait share
# still comes from thread_groups.
test_diff_big_threads_bounded_memory() {
	python3 - "$GOLDEN/report.json" >big.json <<-'EOF_PY'
	import json, sys
	r = json.load(open(sys.argv[1]))
	t = r["threads"][0]
	r["threads"] = []
	text = json.dumps(r)
	head, tail = text.split('"threads": []', 1)
	sys.stdout.write(head + '"threads": [')
	sys.stdout.write(",\n".join(json.dumps(dict(t, tid=i)) for i in range(100000)))
	sys.stdout.write("]" + tail)
	EOF_PY
	[ "$(stat -c %s big.json)" -gt 20000000 ] || fail "big.json is small"
	(ulimit -v 150000 && "$IOSTORM" diff --json big.json "$GOLDEN/report.json" >d.json) ||
		fail "diff of a report with 100,000 threads within 150 MB: exit $?"
	expect_eq "io_wait_share from thread_groups" \
		"$(jqr d.json '.metrics[] | select(.name == "io_wait_share") | .base')" \
		"$(jqr "$GOLDEN/report.json" '[.thread_groups[] | .io_wait_ns] as $io |
			[.thread_groups[] | .cpu_ns + .io_wait_ns + .runq_ns + .sleep_ns] as $all |
			($io | add) / ($all | add) * 1e10 | round / 1e10')"
}

# --json holds every metric the text shows, even when a change is not a
# finite number (a base of 1e-320 opens: +inf% in the text).
test_diff_json_keeps_every_metric() {
	local all
	all=$("$IOSTORM" diff --json "$GOLDEN/report.json" "$GOLDEN/report.json" | jq -c '[.metrics[].name]')
	for v in 1e-320 5e-324 1e308 0; do
		jq ".vfs.opens = $v | .vfs.reads = $v" "$GOLDEN/report.json" >odd.json
		"$IOSTORM" diff --force odd.json "$GOLDEN/report.json" >text.txt || true
		"$IOSTORM" diff --force --json odd.json "$GOLDEN/report.json" >d.json || true
		expect_eq "metrics with a base of $v" "$(jq -c '[.metrics[].name]' d.json)" "$all"
		grep -q '^opens ' text.txt || fail "text lacks opens: $(cat text.txt)"
	done
}

# Phase against phase: both runs changed, so their phases pair up in order,
# shown (never gated); when only one changed, it says the runs are compared
# whole.
test_diff_phases() {
	[ "$(jqr "$GOLDEN/report.json" '.phases | length')" -ge 2 ] ||
		fail "the golden report has no phases"
	jq '.phases[0].stall_share = 0.1 | .phases[0].verdict = "VERDICT: changed"' \
		"$GOLDEN/report.json" >new.json
	"$IOSTORM" diff "$GOLDEN/report.json" new.json >out.txt || fail "diff exit $?"
	grep -q "^phases (BASE -> NEW): BASE 2, NEW 2$" out.txt || fail "$(cat out.txt)"
	grep -q "^  1  0.0-20.0 s -> 0.0-20.0 s: loop waits 54% -> 10%" out.txt ||
		fail "$(grep -A3 '^phases' out.txt)"
	grep -q "^     NEW  VERDICT: changed$" out.txt || fail "$(grep -A3 '^phases' out.txt)"
	"$IOSTORM" diff --json "$GOLDEN/report.json" new.json >d.json || fail "diff --json"
	expect_eq "phases paired" "$(jqr d.json '.phases | length')" 2
	expect_eq "phase 1 new stall" "$(jqr d.json '.phases[0].new.stall_share')" 0.1
	jq '.phases |= .[:1]' "$GOLDEN/report.json" >one.json
	"$IOSTORM" diff "$GOLDEN/report.json" one.json >out.txt || fail "diff exit $?"
	grep -q "^phases (BASE -> NEW): BASE 2, NEW 1; only one run changed" out.txt ||
		fail "$(cat out.txt)"
	expect_eq "no pairs" "$(jqr <("$IOSTORM" diff --json "$GOLDEN/report.json" one.json) '.phases | length')" 0
}
