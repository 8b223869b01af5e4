# Page cache: every page a cold read brings in, exactly. The disk's file
# "big" read whole by cat with its pages dropped is its size in pages
# (ext4 adds many as large folios: a folio counted as one page, or with a
# folio order read from the wrong field, would fail this).

check_cache() {
	local f0=$FAILED big=$DATA/big pages
	pages=$(( ($(stat -c %s "$big") + 4095) / 4096 ))
	drop_caches
	traced cache --json c.json -- cat "$big" || return 1
	check_eq "cache pages of a cold $pages-page file" \
		"$(jqr c.json "[.files[] | select(.path == \"$big\") | .cache_pages] | add")" "$pages"
	check_eq "cache: lost" "$(jqr c.json .lost.total)" 0
	[ "$FAILED" = "$f0" ]
}
