# iostorm html on committed reports (tests/fixtures/golden/report.json): no
# root, no tracing. The page equals the golden one; every exit status of
# `iostorm html --help`.

# expect_html CODE PATTERN ARGS...: `iostorm html ARGS` exits CODE, says PATTERN.
expect_html() {
	local code=$1 pattern=$2 rc=0
	shift 2
	"$IOSTORM" html "$@" >out.txt 2>err.txt || rc=$?
	expect_eq "exit status of html $*" "$rc" "$code"
	grep -qF -- "$pattern" err.txt || fail "stderr lacks '$pattern': $(cat err.txt)"
}

test_html_fixture() {
	"$IOSTORM" html "$GOLDEN/report.json" -o x.html || fail "exit $?"
	cmp x.html "$GOLDEN/report.html" || fail "the page differs from the golden one"
	# The default output: REPORT.json -> REPORT.html; '-' in, '-' out.
	cp "$GOLDEN/report.json" run.json
	"$IOSTORM" html run.json || fail "default output: exit $?"
	cmp run.html x.html || fail "run.html differs"
	"$IOSTORM" html - <run.json >stdout.html || fail "stdin: exit $?"
	cmp stdout.html x.html || fail "stdin to stdout differs"
	# A FIFO is written in place, as --json's.
	mkfifo page.fifo
	cat page.fifo >fifo.html &
	"$IOSTORM" html run.json -o page.fifo || fail "fifo: exit $?"
	wait
	cmp fifo.html x.html || fail "the FIFO's page differs"
	for id in chart-throughput chart-ops chart-latency chart-util chart-waits \
		chart-cache chart-heatmap hist-read hist-open hist-block-total \
		hist-block-queue hist-block-device sizes-log2 sizes-decade chart-threads \
		top-dirs top-files file-summary mapped lost; do
		grep -q "id=\"$id\"" x.html || fail "no element '$id'"
	done
	# Nothing to run, nothing fetched: no script, no src, href, url() or @import.
	! grep -qiE '<script|src=|href=|url\(|@import' x.html ||
		fail "a script or a fetch in the page: $(grep -oiE '<script|src=|href=|url\(|@import' x.html | head -3)"
	echo "  page: $(wc -c <x.html) bytes"
}

test_html_bad_input() {
	cp "$GOLDEN/report.json" run.json
	expect_html 3 "iostorm: cannot read 'none.json': No such file or directory" none.json
	echo "not json" >text.json
	expect_html 3 "iostorm: 'text.json' is not JSON: " text.json -o x.html
	jq '.schema = "iostorm.report/0"' run.json >old.json
	expect_html 3 "(schema 'iostorm.report/0', expected 'iostorm.report/1')" old.json -o x.html
	head -c 2000 run.json >cut.json
	expect_html 3 "iostorm: 'cut.json' is not JSON: " cut.json -o x.html
	[ ! -e x.html ] || fail "a page was written from a bad report"
	expect_html 4 "iostorm: cannot write 'no/such/dir/x.html': No such file or directory" \
		run.json -o no/such/dir/x.html
	touch file
	expect_html 4 "iostorm: cannot write 'file/x.html': Not a directory" run.json -o file/x.html
	expect_html 2 "html needs one report" 
	expect_html 2 "invalid --top '0'" -T 0 run.json
	expect_html 2 "Try 'iostorm html --help'" --bogus run.json
	"$IOSTORM" html --help >help.txt || fail "--help: exit $?"
	grep -q "^Exit status: 0 written, 2 a bad command line, 3 a report missing" help.txt ||
		fail "--help lacks the exit statuses"
}

# A full disk leaves no partial page and an older one intact (as --json's).
test_html_full_disk() {
	[ -w /dev/full ] || skip "no /dev/full"
	local rc=0
	"$IOSTORM" html "$GOLDEN/report.json" -o /dev/full 2>err.txt || rc=$?
	expect_eq "exit status to /dev/full" "$rc" 4
	grep -qF "iostorm: cannot write '/dev/full': No space left on device" err.txt ||
		fail "message: $(cat err.txt)"
}
