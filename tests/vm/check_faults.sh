# Mapped reads (LMDB, np.memmap): 1,000 distinct pages of the disk's file
# "big", mapped, madvise(MADV_RANDOM), touched cold in a scattered order by
# the workload's mapread: where the kernel has mm_filemap_fault, the file's
# fault reads and pages equal the pages mincore finds resident at the end;
# where it has not, the layer is not measured and the file's fault figures
# are not a silent zero.

check_faults() {
	local f0=$FAILED big=$DATA/big pages=1000 sel fp
	drop_caches
	traced faults --json m.json -- "$WORKLOAD" mapread "$big" --pages $pages \
		--tally "$PWD/m.txt" || return 1
	check_eq "faults: resident pages (mincore)" \
		"$(sed -n 's/^mapped .*resident=//p' m.txt)" $pages
	sel=".files[] | select(.path == \"$big\")"
	fp=$(jqr m.json "[$sel | .fault_pages] | add")
	if kernel_has_layer faults; then
		check_eq "faults: fault reads of big" "$(jqr m.json "[$sel | .fault_reads] | add")" $pages
		check_eq "faults: fault pages of big" "$fp" $pages
	else
		echo "     faults not given: no filemap/mm_filemap_fault tracepoint, or forced off"
		check_eq "faults: layer measured" "$(jqr m.json .kernel.layers.faults.measured)" false
		if [ "$fp" = 0 ]; then
			flunk "faults: fault pages of big are a silent 0"
		else
			pass "faults: fault pages of big, not measured: $fp"
		fi
	fi
	check_eq "faults: lost" "$(jqr m.json .lost.total)" 0
	[ "$FAILED" = "$f0" ]
}
