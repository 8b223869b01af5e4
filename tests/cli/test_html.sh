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

# A layer the kernel did not give is said under the header, with why; the
# golden report's kernel gave every layer, and its page says nothing of it.
test_html_layers_not_measured() {
	"$IOSTORM" html "$GOLDEN/report.json" -o all.html || fail "exit $?"
	! grep -q 'not measured on this kernel' all.html || fail "a layer said missing on the golden page"
	jq '.kernel.layers.faults = {measured: false, how: null, why: "no <tracepoint>"} |
	    .kernel.layers.fuse = {measured: false, how: null, why: "no fuse"} |
	    .vfs.mapped.fault_reads = null | .files[].fault_reads = null' \
		"$GOLDEN/report.json" >nm.json
	"$IOSTORM" html nm.json -o nm.html || fail "exit $?"
	grep -qF 'not measured on this kernel (6.12.118+deb12-amd64): faults: no &lt;tracepoint&gt;; fuse: no fuse</p>' nm.html ||
		fail "the page does not say which layers were not measured: $(grep -o 'class="meta">[^<]*' nm.html)"
	# Fault figures the kernel did not give are said so, never drawn as 0.
	grep -qF '<p>Faults on file mappings not measured on this kernel' nm.html ||
		fail "the mapped section does not say faults were not measured"
	! grep -q '<p>No fault on a mapped data file' nm.html || fail "unmeasured faults shown as none"
	[ "$(grep -c '<td class="num">not measured</td>' nm.html)" -ge 1 ] ||
		fail "the files' fault reads drawn as numbers"
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

# A report of 200,000 file records (~117 MB) is drawn in bounded memory:
# each record is parsed alone, summed and dropped unless among the top
# rows (parsed whole, it took 851 MB and failed here). The summary and the
# "more" row still count every record, as computed here from the records.
test_html_big_report_bounded_memory() {
	python3 - "$GOLDEN/report.json" >big.json 2>want.txt <<-'EOF_PY'
	import json, sys
	r = json.load(open(sys.argv[1]))
	proto = [f for f in r["files"] if f["type"] == "file" and f.get("kind") != "code"][0]
	r["files"] = []
	text = json.dumps(r)
	head, tail = text.split('"files": []', 1)
	sys.stdout.write(head + '"files": [')
	sizes, whole, partly, unread = [], 0, 0, 0
	for i in range(200000):
	    size = 1000 + (i * 7919) % 100000
	    reads = i % 5
	    mbr = None if not reads else (size - 1 if i % 3 else size // 2)
	    f = dict(proto, path="/data/d%03d/f%06d.jpg" % (i % 500, i), ino=i + 10,
	             size=size, reads=reads, max_byte_read=mbr,
	             kind="code" if i % 1000 == 0 else "data")
	    if f["kind"] == "data":
	        sizes.append(size)
	        if not reads: unread += 1
	        elif mbr + 1 >= 0.9 * size: whole += 1
	        else: partly += 1
	    sys.stdout.write((",\n" if i else "") + json.dumps(f))
	sys.stdout.write("]" + tail)
	sizes.sort()
	n = len(sizes)
	med = sizes[n // 2] if n % 2 else (sizes[n // 2 - 1] + sizes[n // 2]) / 2
	print(n, sum(sizes), med, whole, partly, unread, file=sys.stderr)
	EOF_PY
	[ "$(stat -c %s big.json)" -gt 100000000 ] || fail "big.json is small"
	(ulimit -v 200000 && "$IOSTORM" html big.json -o big.html) ||
		fail "html of a report with 200,000 files within 200 MB: exit $?"
	local n bytes med whole partly unread
	read -r n bytes med whole partly unread <want.txt
	row() { sed -n "s|.*<tr><th>$1</th><td class=\"num\">\([^<]*\)</td>.*|\1|p" big.html; }
	expect_eq "dataset records" "$(row 'dataset file records (regular and cache-only, code apart)')" "$n"
	expect_eq "total size" "$(row 'total size' | sed 's/.*(\([0-9]*\) bytes)/\1/')" "$bytes"
	expect_eq "read whole" "$(row 'read whole (to 90% of their size or more)')" "$whole"
	expect_eq "read in part" "$(row 'read in part')" "$partly"
	expect_eq "not read" "$(row 'not read')" "$unread"
	expect_eq "median size" "$(row 'median size')" \
		"$(awk -v m="$med" 'BEGIN { printf "%.3g KiB", m / 1024 }')"
	expect_eq "more files" "$(grep -o '… [0-9]* more' big.html | tail -1)" "… 199990 more"
}
