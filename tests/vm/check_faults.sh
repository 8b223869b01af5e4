# Mapped reads (LMDB, np.memmap): 1,000 distinct pages of the disk's file
# "big", mapped, madvise(MADV_RANDOM, MADV_NOHUGEPAGE: khugepaged reads
# no page for it), touched cold in a scattered order by
# the workload's mapread: where the kernel has mm_filemap_fault, the file's
# fault reads and pages equal the pages mincore finds resident at the end;
# where it has not, the layer is not measured and the file's fault figures
# are not a silent zero.

check_faults() {
	local f0=$FAILED big=$DATA/big pages=1000 sel fp skipped
	drop_caches
	# khugepaged scanning every 50 ms, not 10 s: a mapping it may collapse
	# (huge pages "always") is collapsed within the run, every run.
	local khp=/sys/kernel/mm/transparent_hugepage/khugepaged/scan_sleep_millisecs khs=
	[ -w "$khp" ] && khs=$(cat "$khp") && echo 50 > "$khp"
	traced faults --json m.json -- "$WORKLOAD" mapread "$big" --pages $pages \
		--tally "$PWD/m.txt"
	local rc=$?
	[ -n "$khs" ] && echo "$khs" > "$khp"
	[ $rc = 0 ] || return 1
	check_eq "faults: resident pages (mincore)" \
		"$(sed -n 's/^mapped .*resident=//p' m.txt)" $pages
	sel=".files[] | select(.path == \"$big\")"
	fp=$(jqr m.json "[$sel | .fault_pages] | add")
	if kernel_has_layer faults; then
		skipped=$(jqr m.json .kernel.layers.faults.skipped_runs)
		check_eq_skipped "faults: fault reads of big" \
			"$(jqr m.json "[$sel | .fault_reads] | add")" $pages "$skipped"
		check_eq_skipped "faults: fault pages of big" "$fp" $pages "$skipped"
	else
		echo "     faults not given: no filemap/mm_filemap_fault tracepoint, or forced off"
		check_eq "faults: layer measured" "$(jqr m.json .kernel.layers.faults.measured)" false
		# The file has its record (its mmap), and every fault figure is null.
		check_eq "faults: records of big" "$(jqr m.json "[$sel] | length")" 1
		check_cmp "faults: mmaps of big" "$(jqr m.json "[$sel | .mmaps] | add")" '>=' 1
		check_eq "faults: fault figures of big, not measured" \
			"$(jqr m.json "[$sel | .faults, .fault_reads, .fault_pages, .fault_ns] | tojson")" \
			"[null,null,null,null]"
		check_eq "faults: vfs.mapped's, not measured" \
			"$(jqr m.json '[.vfs.faults, .vfs.mapped.fault_reads, .vfs.mapped.fault_pages] | tojson')" \
			"[null,null,null]"
	fi
	check_eq "faults: lost, beyond the runs the kernel skipped" \
		"$(jqr m.json '.lost.total - .lost.prog_misses')" 0
	[ "$FAILED" = "$f0" ]
}
