# A kernel that moved one field costs its layer, never the load: the build
# `make` puts in .output/degrade/ links one more program
# (tests/bpf/missing_field.bpf.c) that reads a field of struct request no
# kernel has, on a block tracepoint. That build must load every other
# layer, say the block layer is not measured and why (the report's header,
# the JSON kernel object, iostorm check, iostorm_layer_measured), show no
# block figure as a zero, and count the files exactly.

DEGRADED=$ROOT/.output/degrade/iostorm
MISSING="struct request has no field iostorm_no_such_field on this kernel"

test_degrade_one_layer_lost() {
	local f
	[ -x "$DEGRADED" ] || fail "no $DEGRADED: make all builds it"
	gen_data 300 3
	drop_caches
	"$DEGRADED" --json out.json --prom-file m.prom -- \
		"$WORKLOAD" read data --threads 2 --tally tally.txt --tally-files \
		>report.txt 2>err.txt || fail "exit $?: $(cat err.txt)"
	# The reason, everywhere it is read.
	# (the one screen wraps it at 100 columns: read with line breaks as spaces)
	tr -s ' \n' '  ' <report.txt |
		grep -qF "not measured on this kernel ($(uname -r)): block: $MISSING" ||
		fail "header: $(head -n 5 report.txt)"
	expect_eq "kernel.layers.block.measured" "$(jqr out.json .kernel.layers.block.measured)" false
	expect_eq "kernel.layers.block.why" "$(jqr out.json .kernel.layers.block.why)" "$MISSING"
	grep -q '^iostorm_layer_measured{layer="block"} 0$' m.prom ||
		fail "metrics: $(grep layer_measured m.prom)"
	# The other layers loaded and say so.
	for l in syscalls page_cache sched; do
		expect_eq "kernel.layers.$l.measured" "$(jqr out.json ".kernel.layers.$l.measured")" true
	done
	grep -q '^iostorm_layer_measured{layer="syscalls"} 1$' m.prom || fail "syscalls not 1"
	# No block figure is a zero: null, and said in the text.
	expect_eq "block.devices" "$(jqr out.json .block.devices)" null
	expect_eq "layers.block_total" "$(jqr out.json .layers.block_total)" null
	expect_eq "layers.verdict" "$(jqr out.json .layers.verdict)" unmeasured
	grep -q "^block devices: not measured on this kernel$" report.txt ||
		fail "no block line in the text"
	! grep -q "block read requests by the target" report.txt ||
		fail "a finding judged from the block layer it did not have"
	expect_screen report.txt
	# Every other layer counts exactly.
	for f in opens reads read_bytes closes; do
		expect_eq "data $f" "$(sum_under out.json "$PWD/data/" "$f")" \
			"$(grep '^file ' tally.txt | sed -n "s/.* $f=\([0-9]*\).*/\1/p" |
				awk '{ s += $1 } END { print s }')"
	done
	expect_eq "data files" "$(count_under out.json "$PWD/data/")" 300
	expect_cmp "page cache pages of the cold files" \
		"$(sum_under out.json "$PWD/data/" cache_pages)" '>' 0
	expect_eq "lost" "$(jqr out.json .lost.total)" 0
}

# iostorm check says the same as the tracer: the block layer "no" with the
# reason, every other program loaded and verified, exit 0.
test_degrade_check_agrees() {
	"$DEGRADED" check >check.txt || fail "check: exit $?: $(cat check.txt)"
	grep -qE "^  block +no +$MISSING$" check.txt || fail "check: $(cat check.txt)"
	grep -qE "^  fuse +yes " check.txt || fail "fuse: $(grep fuse check.txt)"
	grep -qE "^  handle_sys_exit +[1-9][0-9]* instructions verified" check.txt ||
		fail "handle_sys_exit not verified"
	! grep -qE "^  (test_missing_field|handle_block_)" check.txt ||
		fail "a block program loaded: $(grep -E 'test_missing|handle_block' check.txt)"
	# -v says which program took the layer down.
	"$DEGRADED" check -v >v.txt 2>&1 || fail "check -v: exit $?"
	grep -q "the block layer is not measured: $MISSING" v.txt || fail "-v does not say it"
}
