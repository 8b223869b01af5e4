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
