# The reference docs against what iostorm writes (the golden outputs, no
# root): every key of the JSON report's vfs, files[] and threads[] has its
# row in docs/json.md, every metric family its row in docs/metrics.md,
# every threshold its row (and default) in docs/findings.md. A key added
# to the output without its docs fails here.

# doc_section FILE HEADING: the lines from "## HEADING" to the next "## ".
doc_section() {
	awk -v h="## $2" 'index($0, h) == 1 { on = 1; print; next }
		on && /^## / { exit } on' "$1"
}

# expect_documented WHAT KEY TEXT: TEXT has a table row "| `KEY` |" or
# names KEY in backquotes within a row's first cell ("| `a`, `KEY` |").
expect_documented() {
	printf '%s\n' "$3" | grep -qE "^\| ([^|]*, )?\`$2\`(,[^|]*)? \|" ||
		fail "$1 '$2' has no row in its docs table"
}

test_docs_json_keys() {
	local doc=$ROOT/docs/json.md json=$GOLDEN/report.json sec k n=0
	# vfs: every leaf by dotted path under vfs (open_errnos' keys are errno names).
	sec=$(doc_section "$doc" '`vfs`')
	[ -n "$sec" ] || fail "no '## \`vfs\`' section in docs/json.md"
	for k in $(jqr "$json" '.vfs | paths(scalars) | select(.[0] != "open_errnos") |
			map(tostring) | join(".")'); do
		expect_documented "vfs key" "$k" "$sec"
		n=$((n + 1))
	done
	for k in mapped.files mapped.fault_reads code.files code.fault_pages; do
		jq -e ".vfs.$k != null" "$json" >/dev/null || fail "vfs.$k not in the golden report"
	done
	sec=$(doc_section "$doc" '`files`')
	for k in $(jqr "$json" '.files[0] | keys_unsorted[]'); do
		expect_documented "files[] key" "$k" "$sec"
		n=$((n + 1))
	done
	sec=$(doc_section "$doc" '`threads`')
	for k in $(jqr "$json" '.threads[0] | keys_unsorted[]'); do
		expect_documented "threads[] key" "$k" "$sec"
		n=$((n + 1))
	done
	echo "  $n keys documented"
}

test_docs_metric_families() {
	local doc=$ROOT/docs/metrics.md m n=0
	for m in $(awk '$1 == "#" && $2 == "TYPE" { print $3 }' "$GOLDEN/metrics.prom"); do
		grep -qE "^\| \`$m\` \|" "$doc" || fail "metric family '$m' has no row in docs/metrics.md"
		n=$((n + 1))
	done
	expect_cmp "metric families checked" "$n" '>' 30
}

test_docs_thresholds() {
	local doc=$ROOT/docs/findings.md name def n=0
	"$IOSTORM" --threshold list >list.txt || fail "--threshold list: exit $?"
	while IFS='=' read -r name def; do
		def=${def%% *}
		grep -qE "^\| \`$name\` \| $def \|" "$doc" ||
			fail "threshold '$name' (default $def) has no row in docs/findings.md"
		n=$((n + 1))
	done < <(awk '{ print $1 }' list.txt)
	expect_cmp "thresholds checked" "$n" '>' 30
}
