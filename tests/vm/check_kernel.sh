# What this kernel gives, as iostorm says it (`iostorm --check`, the JSON
# report's "kernel" object), against what the kernel has: tracefs for its
# tracepoints, its BTF for the kfunc bpf_rdonly_cast. Returns 2 when
# iostorm cannot trace here: the other checks would only repeat it.

LAYERS="syscalls page_cache faults block fuse sched io_uring"

# The fallbacks iostorm must use, no more and no fewer: those forced, and
# those the kernel needs. prev_state (sched_switch's argument, 5.18) and
# page_arg (the folio argument, 5.17) only when forced: the kernels booted
# here are newer.
expected_fallbacks() {
	{
		case ${IOSTORM_FALLBACKS:-} in
		all) printf '%s\n' core_read block_rq prev_state page_arg no_faults no_fuse no_uring ;;
		?*) echo "$IOSTORM_FALLBACKS" | tr , '\n' ;;
		esac
		bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null |
			grep -q "FUNC 'bpf_rdonly_cast'" || echo core_read
		has_event block/block_io_start || echo block_rq
		has_event filemap/mm_filemap_fault || echo no_faults
		has_event fuse/fuse_request_send || echo no_fuse
		has_event io_uring/io_uring_complete || echo no_uring
	} | sort -u | tr '\n' ' '
}

check_kernel() {
	local f0=$FAILED rc=0 l want got m
	"$IOSTORM" --check >check.txt 2>&1 || rc=$?
	if [ "$rc" != 0 ]; then
		flunk "iostorm --check: exit $rc: $(head -n 2 check.txt | tr '\n' ' ')"
	else
		for l in $LAYERS; do
			if grep -qw "$l" check.txt; then
				pass "iostorm --check names $l: $(grep -w -m1 "$l" check.txt)"
			else
				flunk "iostorm --check names $l: $(head -n1 check.txt)"
			fi
		done
	fi

	if ! traced load -q --json k.json -- /bin/true; then
		# libbpf's own words on what it refused.
		"$IOSTORM" -v -q --json /dev/null -- /bin/true 2>&1 |
			grep -iE 'extern|failed|not found|unknown|invalid|error' | tail -n 4 |
			sed 's/^/     /'
		return 2
	fi
	pass "loads and traces /bin/true"
	check_eq "kernel.release" "$(jqr k.json .kernel.release)" "$(uname -r)"
	for l in $LAYERS; do
		want=false
		kernel_has_layer "$l" && want=true
		m=$(jqr k.json ".kernel.layers.$l.measured")
		if [ "$m" = false ]; then
			got="$(jqr k.json ".kernel.layers.$l.why")"
			if [ -z "$got" ] || [ "$got" = null ]; then
				flunk "kernel.layers.$l: not measured, and no why"
			fi
		fi
		check_eq "kernel.layers.$l.measured ($(jqr k.json ".kernel.layers.$l.how // .kernel.layers.$l.why"))" "$m" "$want"
	done
	want=$(expected_fallbacks)
	got=$(jqr k.json '.kernel.fallbacks | if type == "array" then sort | unique | map(. + " ") | add // ""
		else "(no kernel.fallbacks list)" end')
	check_eq "kernel.fallbacks, exactly" "[ $got]" "[ $want]"
	[ "$FAILED" = "$f0" ]
}

# Is this kernel below iostorm's floor? Its BTF, the independent truth:
# no task storage maps (Linux 5.12 gave them to tracing programs; 5.15 is
# the floor iostorm states).
below_floor() {
	! bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null |
		grep -q "'BPF_MAP_TYPE_TASK_STORAGE'"
}

# Below the floor iostorm refuses clearly, names what is missing and the
# floor, exits 1, and never runs the command it was given.
check_floor() {
	local rc=0
	"$IOSTORM" check >check.txt 2>&1 || rc=$?
	check_eq "iostorm check exits 1 below the floor" "$rc" 1
	if grep -q "no task storage maps; iostorm needs Linux 5.15 or later" check.txt; then
		pass "iostorm check says why: $(grep -m1 'cannot trace' check.txt)"
	else
		flunk "iostorm check says why: $(head -n 2 check.txt | tr '\n' ' ')"
	fi
	rc=0
	"$IOSTORM" -q -j /dev/null -- touch ran >run.txt 2>&1 || rc=$?
	check_eq "iostorm -- CMD exits 1 below the floor" "$rc" 1
	if [ -e ran ]; then
		flunk "the command ran although iostorm could not trace"
	else
		pass "the command never ran"
	fi
	grep -q "iostorm needs Linux 5.15 or later" run.txt &&
		pass "iostorm -- CMD says why" || flunk "iostorm -- CMD: $(cat run.txt)"
}
