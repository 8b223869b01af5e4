# The HTML report of a real run: a two-phase job (cold reads behind an IOPS
# cap, then the same files warm) shows both phases in the timeline, whose
# points add up to the report's totals; `iostorm html` of its JSON equals
# --html byte for byte; headless Chromium renders it (no console error, not
# blank, every chart present) and an HTML checker finds no error. Uses
# loop_fs, on_exit and drop_caches of test_block.sh.

HTML_IDS="chart-throughput chart-ops chart-latency chart-util chart-waits chart-cache
chart-heatmap hist-read hist-open hist-block-total hist-block-queue hist-block-device
sizes-log2 sizes-decade chart-threads top-dirs top-files file-summary mapped lost verdict findings"

# The run: 200 files read cold at 300 IOPS, then 30 warm passes uncapped, 50 ms apart.
html_two_phase_run() {
	local cg=/sys/fs/cgroup/blkio/iostorm-html-$$
	loop_fs "/dev/shm/iostorm-html-$$.img"
	"$WORKLOAD" gen mnt/data --files 200 --dirs 4 --min-size 16384 --max-size 40960 \
		>/dev/null || fail "gen"
	mkdir "$cg" || fail "mkdir $cg"
	on_exit "rmdir $cg"
	echo "$LOOP_DEV 300" > "$cg/blkio.throttle.read_iops_device" || fail "throttle"
	drop_caches
	"$IOSTORM" -q --drain 0.2 -j out.json --html out.html -- sh -c "
		echo \$\$ > $cg/cgroup.procs &&
		$WORKLOAD read $PWD/mnt/data --threads 4 >/dev/null &&
		echo \$\$ > /sys/fs/cgroup/blkio/cgroup.procs && sleep 0.3 &&
		for i in \$(seq 30); do $WORKLOAD read $PWD/mnt/data --threads 4 >/dev/null; sleep 0.05; done" ||
		fail "iostorm exit $?"
}

# Points with reads: the first ones went to the device, the last ones did
# not (a cold point has a block read for most reads; a warm one may have a
# stray few, a page of a program's or the file system's, as CI once saw: 4
# for 1,632 reads).
check_phases() {
	local cold warm first last
	jq -c '.timeline.points[] | [.t_s, .reads, .blk_reads, .read_p99_ns]' out.json
	cold=$(jqr out.json '[.timeline.points[] | select(.reads > 0 and .blk_reads > 0)] | length')
	warm=$(jqr out.json '[.timeline.points[] | select(.reads > 0 and .blk_reads == 0)] | length')
	first=$(jqr out.json '[.timeline.points[] | select(.reads > 0)][0].blk_reads > 0')
	last=$(jqr out.json '[.timeline.points[] | select(.reads > 0)][-1] | .blk_reads * 100 < .reads')
	expect_cmp "cold points (reads from the device)" "$cold" '>=' 2
	expect_cmp "warm points (no block reads)" "$warm" '>=' 2
	expect_eq "the run starts cold" "$first" true
	expect_eq "the run ends warm" "$last" true
	# No block request in flight, no busy time: a warm point after a warm
	# point shows 0% util (a request whose end was missed once kept it at
	# 100% through the warm phase).
	local busy
	busy=$(jqr out.json '[.timeline.points as $p | range(1; $p | length) |
		select($p[.].blk_reads == 0 and $p[. - 1].blk_reads == 0) | $p[.].blk_util_pct] | max // 0')
	expect_cmp "%util of warm points without block reads" "$busy" '<' 1
	# The phases: the cold start and the warm rest apart, the first from
	# storage, the last from the page cache, marked on the page.
	jq -c '.phases[] | [.start_s, .end_s, .stall_share, .miss_share, .util]' out.json
	expect_cmp "phases" "$(jqr out.json '.phases | length')" '>=' 2
	expect_cmp "first phase from storage" "$(jqr out.json '.phases[0].miss_share')" '>=' 0.5
	expect_cmp "last phase from storage" "$(jqr out.json '.phases[-1].miss_share')" '<' 0.1
	grep -q '<section id="phases">' out.html || fail "no phases section in the page"
	grep -q '<line class="phase"' out.html || fail "no phase marked on the charts"
}

# The points add up to the report's totals, exactly.
check_sums() {
	expect_eq "timeline reads" "$(jqr out.json '[.timeline.points[].reads] | add')" \
		"$(jqr out.json .vfs.reads)"
	expect_eq "timeline bytes" "$(jqr out.json '[.timeline.points[].read_bytes] | add')" \
		"$(jqr out.json .vfs.read_bytes)"
	expect_eq "timeline opens" "$(jqr out.json '[.timeline.points[].opens] | add')" \
		"$(jqr out.json .vfs.opens)"
	expect_eq "timeline cache pages" "$(jqr out.json '[.timeline.points[].cache_pages] | add')" \
		"$(jqr out.json .vfs.cache_pages)"
	expect_eq "timeline block reads" "$(jqr out.json '[.timeline.points[].blk_reads] | add')" \
		"$(jqr out.json .layers.block_total.count)"
	expect_eq "timeline block read bytes" \
		"$(jqr out.json '[.timeline.points[].blk_read_bytes] | add // 0')" \
		"$(jqr out.json '[.block.devices[].read_bytes] | add // 0')"
	expect_eq "timeline read latencies" \
		"$(jqr out.json '[.timeline.points[].read_lat_log2[]] | add')" \
		"$(jqr out.json .latency.read.count)"
}

# Chromium draws it: no console message, a picture with ink, every element by id.
check_browser() {
	local stats id t0 t1
	command -v chromium >/dev/null || skip "chromium not installed (scripts/deps.sh --test)"
	t0=$(date +%s%N)
	chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
		--enable-logging=stderr --v=0 --window-size=1000,1800 \
		--screenshot="$PWD/page.png" "file://$PWD/out.html" >chromium.log 2>&1 ||
		fail "chromium exit $?: $(tail -5 chromium.log)"
	t1=$(date +%s%N)
	echo "  chromium rendered $(wc -c <out.html) bytes in $(((t1 - t0) / 1000000)) ms"
	! grep -E 'CONSOLE|Uncaught|Refused to|ERR_' chromium.log ||
		fail "console messages above"
	read -r _ _ colours inked < <(/usr/bin/python3 "$ROOT/tests/png_stats.py" page.png) ||
		fail "page.png unreadable"
	echo "  page.png: $colours colours, $inked of the pixels inked"
	expect_cmp "colours in the picture" "$colours" '>' 20
	expect_cmp "inked share of the picture" "$(awk -v v="$inked" 'BEGIN { print v * 100 }')" '>' 2
	chromium --headless=new --no-sandbox --disable-gpu --dump-dom "file://$PWD/out.html" \
		>dom.html 2>/dev/null || fail "chromium --dump-dom"
	for id in $HTML_IDS; do
		grep -q "id=\"$id\"" dom.html || fail "no element '$id' in the rendered page"
	done
}

# An HTML checker: html5lib's parse errors (HTML5), then tidy's.
check_html() {
	if /usr/bin/python3 -c 'import html5lib' 2>/dev/null; then
		/usr/bin/python3 -c '
import html5lib, sys
p = html5lib.HTMLParser(strict=False)
p.parse(open(sys.argv[1], "rb").read())
for e in p.errors:
	print("html5lib:", e)
sys.exit(1 if p.errors else 0)' out.html || fail "html5lib found errors"
		echo "  html5lib: no errors"
	elif command -v tidy >/dev/null; then
		tidy -q -e out.html || fail "tidy found errors"
		echo "  tidy: no errors"
	else
		skip "no HTML checker (python3-html5lib or tidy)"
	fi
}

test_html_two_phase_run() {
	[ -w /sys/fs/cgroup/blkio/cgroup.procs ] || skip "no cgroup v1 blkio hierarchy"
	[ -d /dev/shm ] || skip "no /dev/shm"
	html_two_phase_run
	check_phases
	check_sums
	"$IOSTORM" html out.json -o again.html || fail "iostorm html exit $?"
	cmp out.html again.html || fail "iostorm html of the JSON differs from --html"
	echo "  iostorm html == --html ($(wc -c <out.html) bytes)"
	[ -z "${IOSTORM_KEEP_HTML:-}" ] || cp out.html out.json "$IOSTORM_KEEP_HTML"/
	check_html
	check_browser
}

# --json to a FIFO with --html: the page is drawn from a JSON of its own (a
# FIFO cannot be read back: opening it to read waited for a new writer, and
# iostorm hung at exit), and the reader gets the whole document.
test_html_json_to_fifo() {
	mkfifo j.fifo
	cat j.fifo >got.json &
	local cat=$!
	timeout 60 "$IOSTORM" -q -j j.fifo --html out.html -- cat /etc/hostname >/dev/null ||
		fail "iostorm exit $? (124: hung)"
	wait "$cat" || fail "the reader: exit $?"
	expect_eq "the JSON through the FIFO" "$(jqr got.json .schema)" iostorm.report/1
	grep -q '</html>' out.html || fail "no page"
}
