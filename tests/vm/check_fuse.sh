# FUSE: where the kernel has the request tracepoints, iostorm's requests per
# opcode equal the test file system's own tally (tests/fusefs.c, as in
# tests/e2e/test_fuse.sh); where it has not, the layer is reported not
# measured, with no FUSE figure that is a silent zero. Either way the
# mount's read calls and bytes (the syscall layer) are exact.

# fuse_op FILE OPCODE FILTER: FILTER on OPCODE's entry of the first connection.
fuse_op() {
	jq -r --arg o "$2" "[.fuse.connections[0].ops[] | select(.opcode == \$o) | $3] | add // 0" \
		"$1" 2>/dev/null
}

check_fuse() {
	local f0=$FAILED pid i op n s skipped fskipped
	if [ ! -x "$FUSEFS" ] || [ ! -c /dev/fuse ]; then
		flunk "fuse: no $FUSEFS or /dev/fuse (libfuse3-dev, fuse3; the fuse module)"
		return 1
	fi
	mkdir mnt
	"$FUSEFS" "$PWD/mnt" --files 100 --dirs 1 --size 81920 --tally "$PWD/fusefs.tally" \
		2>fusefs.err &
	pid=$!
	for ((i = 0; i < 100; i++)); do
		grep -q " $PWD/mnt fuse.iostormfs " /proc/self/mounts && break
		sleep 0.1
	done
	traced fuse -j f.json -- "$WORKLOAD" read mnt --tally wl.txt
	fusermount3 -u "$PWD/mnt" || fusermount3 -u -z "$PWD/mnt"
	wait "$pid"
	[ -s f.json ] || return 1

	s=".mounts[] | select(.fstype == \"fuse.iostormfs\")"
	skipped=$(jqr f.json .kernel.layers.syscalls.skipped_runs)
	check_eq_skipped "fuse: mount's read calls" "$(jqr f.json "$s | .reads")" \
		"$(tally wl.txt reads)" "$skipped"
	if [ "$skipped" = 0 ]; then
		check_eq "fuse: mount's read bytes" "$(jqr f.json "$s | .read_bytes")" \
			"$(tally wl.txt read_bytes)"
	else
		check_cmp "fuse: mount's read bytes, a lower bound" \
			"$(jqr f.json "$s | .read_bytes")" '<=' "$(tally wl.txt read_bytes)"
	fi
	if kernel_has_layer fuse; then
		check_eq "fuse: layer measured" "$(jqr f.json .kernel.layers.fuse.measured)" true
		fskipped=$(jqr f.json .kernel.layers.fuse.skipped_runs)
		# FORGETs are queued apart from the requests the tracepoints see.
		while read -r op n; do
			case $op in FORGET|BATCH_FORGET) continue ;; esac
			check_eq_skipped "fuse: $op requests = the daemon's" \
				"$(fuse_op f.json "$op" '.all.reqs + .inflight_end')" "$n" "$fskipped"
		done <fusefs.tally
		check_eq_skipped "fuse: READ requests = read() calls" \
			"$(fuse_op f.json READ .target.reqs)" "$(tally wl.txt reads)" "$fskipped"
		if [ "$fskipped" = 0 ]; then
			check_eq "fuse: READ bytes = bytes read" \
				"$(fuse_op f.json READ .target.out_bytes)" "$(tally wl.txt read_bytes)"
		else
			check_cmp "fuse: READ bytes <= bytes read" \
				"$(fuse_op f.json READ .target.out_bytes)" '<=' "$(tally wl.txt read_bytes)"
		fi
	else
		echo "     FUSE not given: no fuse/fuse_request_send tracepoint, or forced off"
		check_eq "fuse: layer measured" "$(jqr f.json .kernel.layers.fuse.measured)" false
		check_eq "fuse: connections reported" "$(jqr f.json '.fuse.connections | length')" 0
		check_eq "fuse: FUSE figures in the JSON" \
			"$(jqr f.json '[.fuse | .. | numbers] | length')" 0
		if grep -q '^FUSE requests: ' fuse.out; then
			flunk "fuse: the text report shows FUSE requests: $(grep -A1 '^FUSE requests: ' fuse.out | tail -n1)"
		elif grep -qi 'fuse.*not measured\|not measured.*fuse' fuse.out; then
			pass "fuse: the text report says $(grep -i -m1 'fuse.*not measured\|not measured.*fuse' fuse.out)"
		else
			flunk "fuse: the text report does not say FUSE is not measured"
		fi
	fi
	[ "$FAILED" = "$f0" ]
}
