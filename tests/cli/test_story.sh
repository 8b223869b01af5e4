# One story (tests/check_story.py): the committed golden reports pass, and a
# report whose statements contradict fails, naming both statements. Every
# report a test makes is checked too (tests/run.sh, after each test).

STORY=$ROOT/tests/check_story.py

# story_fails RULE REPORT: the checker exits 1 on REPORT, naming RULE.
story_fails() {
	local rc=0
	python3 "$STORY" "$2" >out.txt 2>err.txt || rc=$?
	expect_eq "check_story exit on $2" "$rc" 1
	grep -q "($1)" err.txt || fail "no '$1' in: $(cat err.txt)"
	sed -n 2,3p err.txt
}

test_story_golden() {
	command -v python3 >/dev/null || skip "no python3"
	python3 "$STORY" "$GOLDEN/report.json" "$GOLDEN/report.txt" \
		"$GOLDEN/report-brief.txt" "$GOLDEN/nfs-report-brief.txt" ||
		fail "the golden reports contradict themselves"
	expect_fail 2 "is not an iostorm report" python3 "$STORY" "$GOLDEN/metrics.prom"
}

test_story_contradictions() {
	command -v python3 >/dev/null || skip "no python3"
	local g=$GOLDEN/report.json
	# Contradictory on purpose: kept out of the check every test's reports get.
	mkdir bad && touch bad/.story-skip && cd bad
	# The layer says page cache, page_cache says 95% came from storage.
	jq '.layers.verdict = "page_cache" |
	    .layers.finding = "reads are served from the page cache"' "$g" >cache.json
	story_fails cache-vs-storage cache.json
	grep -q "95% of the bytes read came from storage" err.txt || fail "second statement unnamed"
	# "no block requests" beside 1840 of them.
	jq '(.findings[] | select(.id == "storage_bottleneck") | .summary) |=
	    . + "; no block requests: the reads go through FUSE to fuse.sshfs"' "$g" >noblk.json
	story_fails no-block noblk.json
	grep -q "1840 block read requests" err.txt || fail "block count unnamed"
	# "storage keeps up" beside a slow device.
	jq '(.findings[] | select(.id == "storage_bottleneck") | .summary) =
	    "slow device: block await 1.9ms for requests of 4.0 KiB" |
	    .verdict = "VERDICT: storage keeps up"' "$g" >slow.json
	story_fails keeps-up-vs-slow slow.json
	# The verdict says storage-bound, storage_bottleneck is OK.
	jq '.verdict = "VERDICT: storage-bound, slow device (HIGH): 80% of loader thread time waits on I/O"' \
		"$g" >bound.json
	story_fails verdict-findings bound.json
	# Two shares of the bytes from storage.
	jq '(.findings[] | select(.id == "storage_bottleneck") | .summary) |=
	    . + " (12% of the bytes read came from storage)"' "$g" >share.json
	story_fails one-miss-share share.json
	# The text report alone: its layer line against its page-cache line.
	sed 's/^  => .*/  => reads are served from the page cache: storage brought few of the bytes read/' \
		"$GOLDEN/report.txt" >cache.txt
	story_fails cache-vs-storage cache.txt
	# A phase is a story of its own: its verdict against its findings, in
	# the JSON and in the text's PHASES section.
	jq '.phases[0].verdict = "VERDICT: storage keeps up"' "$g" >phase.json
	story_fails keeps-up-vs-slow phase.json
	grep -q "phase 1" err.txt || fail "the phase unnamed: $(cat err.txt)"
	awk '/^PHASES: / { p = 1 } p && /^     VERDICT: / && !done { print "     VERDICT: storage keeps up"; done = 1; next } { print }' \
		"$GOLDEN/report.txt" >phase.txt
	story_fails keeps-up-vs-slow phase.txt
}
