# Page cache: every page a cold read brings in, exactly. The disk's file
# "big" read whole by cat with its pages dropped is its size in pages
# (ext4 adds many as large folios: a folio counted as one page, or with a
# folio order read from the wrong field, would fail this).

check_cache() {
	local f0=$FAILED big=$DATA/big pages
	pages=$(( ($(stat -c %s "$big") + 4095) / 4096 ))
	drop_caches
	traced cache --json c.json -- cat "$big" || return 1
	check_eq_skipped "cache pages of a cold $pages-page file" \
		"$(jqr c.json "[.files[] | select(.path == \"$big\") | .cache_pages] | add")" "$pages" \
		"$(jqr c.json .kernel.layers.page_cache.skipped_runs)"
	check_eq "cache: lost, beyond the runs the kernel skipped" \
		"$(jqr c.json '.lost.total - .lost.prog_misses')" 0
	[ "$FAILED" = "$f0" ]
}

# The same on XFS, which adds a cold read's pages as large folios since 5.18:
# the folio's order is _folio_order before 6.6 and the low byte of _flags_1
# after (6.1 has a _flags_1 too, the first tail page's flags: read there,
# the count is wrong). A 16 MiB file written on a loop-mounted XFS in the
# guest's memory, the file system mounted again (so no page is cached),
# then read whole: its size in pages, and the folios it came in.
check_cache_xfs() {
	local f0=$FAILED img=$PWD/xfs.img mnt=$PWD/xfs pages=4096
	command -v mkfs.xfs >/dev/null || { flunk "cache (xfs): no mkfs.xfs: apt-get install xfsprogs"; return 1; }
	if ! { truncate -s 320M "$img" && mkfs.xfs -q "$img" && mkdir -p "$mnt" &&
		mount -o loop "$img" "$mnt"; }; then
		flunk "cache (xfs): cannot make and mount an XFS image"
		return 1
	fi
	dd if=/dev/urandom of="$mnt/f" bs=1M count=16 status=none
	umount "$mnt" && mount -o loop "$img" "$mnt" && drop_caches
	traced cache_xfs --json x.json -- cat "$mnt/f"
	check_eq_skipped "cache pages of a cold $pages-page file on XFS" \
		"$(jqr x.json "[.files[] | select(.path == \"$mnt/f\") | .cache_pages] | add")" $pages \
		"$(jqr x.json .kernel.layers.page_cache.skipped_runs)"
	check_eq "cache (xfs): lost, beyond the runs the kernel skipped" \
		"$(jqr x.json '.lost.total - .lost.prog_misses')" 0
	umount "$mnt"
	[ "$FAILED" = "$f0" ]
}
