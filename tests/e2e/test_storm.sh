# A storm as fast as this machine makes one: 300,000 cached tiny files read
# whole by 4 threads (~200k new files/s on the 2-CPU VM). The drains are
# paced by the files map's fill rate and size (lib/pace.c): the default map
# keeps every file; a map of 4,096 keeps every file or, where a drain's own
# latency times the rate exceeds it, flags every file count as a lower
# bound: text, JSON, the storm finding and the metrics.

STORM_FILES=${IOSTORM_STORM_FILES:-300000}

# storm_run NAME [IOSTORM OPTIONS...]: trace the storm over ./data into
# NAME.txt, NAME.json, NAME.prom; prints files, lost, lower_bound.
storm_run() {
	local name=$1
	shift
	"$IOSTORM" "$@" --json "$name.json" --prom-file "$name.prom" -- "$WORKLOAD" read \
		"$PWD/data" --threads 4 --tally "$name.tally" >"$name.txt" 2>"$name.err" ||
		fail "iostorm exit $?: $(cat "$name.err")"
	jq -r --arg p "$PWD/data/" '[([.files[] | select(.type == "file" and .path != null
		and (.path | startswith($p)))] | length), .lost.files_map_full,
		.vfs.files_lower_bound, .duration_s, .store.drains // 0] | @tsv' "$name.json"
}

# Every file of the dataset has its record, exactly, or nothing claims to.
storm_check() {
	local name=$1 files lost lower dur
	read -r files lost lower dur _ < <(storm_run "$@")
	echo "  $name: $files of $STORM_FILES files, files_map_full $lost, traced ${dur}s"
	expect_screen "$name.txt"
	[ "$(jqr "$name.json" .vfs.opens)" -ge "$(tally "$name.tally" opens)" ] ||
		fail "$name: fewer opens than the workload's $(tally "$name.tally" opens)"
	if [ "$lost" = 0 ]; then
		expect_eq "$name: files" "$files" "$STORM_FILES"
		expect_eq "$name: lower bound flag" "$lower" false
		grep -q "at least" "$name.txt" && fail "$name: 'at least' without a loss"
		expect_eq "$name: metrics flag" "$(awk '$1 == "iostorm_vfs_files_lower_bound" { print $2 }' \
			"$name.prom")" 0
		return 0
	fi
	[ "$files" -lt "$STORM_FILES" ] || fail "$name: $lost lost yet $files files"
	expect_eq "$name: lower bound flag" "$lower" true
	grep -q "^files     at least [0-9]* distinct files" "$name.txt" ||
		fail "$name: text: $(grep '^files ' "$name.txt")"
	expect_eq "$name: metrics flag" "$(awk '$1 == "iostorm_vfs_files_lower_bound" { print $2 }' \
		"$name.prom")" 1
	jq -e '[.findings[] | select(.id == "small_file_storm")][0].summary |
		test("^small-file storm: at least ")' "$name.json" >/dev/null ||
		fail "$name: storm finding: $(jq -r '.findings[0].summary' "$name.json")"
	return 1
}

test_storm_300k_tiny_files() {
	local t0=$SECONDS
	# On a tmpfs of its own: cached by definition, and made and removed in
	# seconds (on ext4 here: 12-29 s to write, up to 60 s to remove).
	mkdir data
	mount -t tmpfs -o size=2g,nr_inodes=400k tmpfs data || skip "cannot mount tmpfs"
	# shellcheck disable=SC2064 # the path, expanded now
	trap "umount '$PWD/data' 2>/dev/null || true" EXIT
	"$WORKLOAD" gen data --files "$STORM_FILES" --min-size 16 --max-size 64 >/dev/null ||
		fail "gen"
	echo "  generated $STORM_FILES files in $((SECONDS - t0)) s"
	"$WORKLOAD" read data --threads 4 >/dev/null	# cached: the storm is CPU-bound
	# The default map must keep every file (a loss here is a failure).
	storm_check default || fail "default map: files lost"
	# 4,096 entries: exact, or every count flagged.
	storm_check small --map-files 4096 || echo "  small map: lower bound flagged everywhere"
	echo "  $((SECONDS - t0)) s in all"
}
