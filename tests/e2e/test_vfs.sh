# VFS layer: exact counts against the workload's own tally.

# Launch with --: every one of 20,000 dataset files opened, read to EOF and
# closed by 8 threads is reported with exactly its opens, read calls and
# bytes (the storm of ../shared/KERNEL.md, at full size).
test_launch_reader_exact() {
	gen_data 20000 200
	"$IOSTORM" -q --json out.json -- "$WORKLOAD" read "$PWD/data" --threads 8 \
		--tally tally.txt >stdout.txt 2>stderr.txt || fail "iostorm exit $?: $(cat stderr.txt)"
	local dir=$PWD/data/
	expect_eq "files" "$(count_under out.json "$dir" )" 20000
	expect_eq "opens" "$(sum_under out.json "$dir" opens)" "$(tally tally.txt opens)"
	expect_eq "reads" "$(sum_under out.json "$dir" reads)" "$(tally tally.txt reads)"
	expect_eq "bytes" "$(sum_under out.json "$dir" read_bytes)" "$(tally tally.txt read_bytes)"
	expect_eq "closes" "$(sum_under out.json "$dir" closes)" "$(tally tally.txt closes)"
	expect_eq "lost" "$(jqr out.json .lost.total)" 0
	expect_eq "stopped_by" "$(jqr out.json .stopped_by)" target_exit
	expect_eq "exit_status" "$(jqr out.json .exit_status)" 0
}

# The syscall programs' second chance (vfs.bpf.c), loaded here as on a 7.x
# kernel (IOSTORM_SECOND_CHANCE=1): a copy of each syscall program attached
# after it, which counts a call only where the main program's run was
# skipped. This kernel skips none, so it must count nothing: 2,000 files
# by 8 threads, every figure exact, nothing rescued (on 7.x the guests'
# cold_read and preempt checks prove the rescues, tests/vm/).
test_second_chance_counts_once() {
	gen_data 2000 20
	IOSTORM_SECOND_CHANCE=1 "$IOSTORM" -q --json out.json -- "$WORKLOAD" read "$PWD/data" \
		--threads 8 --tally tally.txt >stdout.txt 2>stderr.txt ||
		fail "iostorm exit $?: $(cat stderr.txt)"
	local dir=$PWD/data/
	expect_eq "second chance" "$(jqr out.json .kernel.syscall_second_chance)" attached
	expect_eq "files" "$(count_under out.json "$dir" )" 2000
	for k in opens reads read_bytes closes; do
		expect_eq "$k" "$(sum_under out.json "$dir" $k)" "$(tally tally.txt $k)"
	done
	expect_eq "runs skipped" "$(jqr out.json .kernel.layers.syscalls.skipped_runs)" 0
	expect_eq "runs rescued" "$(jqr out.json .kernel.layers.syscalls.rescued_runs)" 0
	expect_eq "lost" "$(jqr out.json .lost.total)" 0
}

# Start a workload held at a FIFO gate and wait until it blocks there, so
# the tracer attaches before the measured phase. Sets WPID.
start_gated() {
	mkfifo gate
	"$WORKLOAD" "$@" --gate gate >tally.txt 2>wl.err &
	WPID=$!
	wait_at_gate "$WPID"
}

# Attach with -p to a gated workload; totals equal the tally exactly.
attach_and_check() {
	"$IOSTORM" -p "$WPID" -q --json out.json 2>stderr.txt &
	local ipid=$!
	wait_for stderr.txt "Ctrl-C to stop"
	echo go > gate
	wait "$WPID" || fail "workload failed: $(cat wl.err)"
	wait "$ipid" || fail "iostorm exit $?: $(cat stderr.txt)"
	for k in opens reads read_bytes closes stats; do
		expect_eq "vfs.$k" "$(jqr out.json .vfs.$k)" "$(tally tally.txt $k)"
	done
	# The files read, and the tally the workload writes to its stdout
	# (opened by the shell before the attach): written whole, never read.
	expect_eq "files" "$(jqr out.json .vfs.files)" "$(($(tally tally.txt files) + 1))"
	expect_eq "files written" "$(jqr out.json .vfs.files_written)" 1
	expect_eq "tally.txt's bytes" "$(sum_under out.json "$PWD/tally.txt" write_bytes)" \
		"$(wc -c < tally.txt)"
	expect_eq "lost" "$(jqr out.json .lost.total)" 0
	expect_eq "stopped_by" "$(jqr out.json .stopped_by)" target_exit
}

test_attach_threads_exact() {
	gen_data 20000 200
	start_gated read "$PWD/data" --threads 8
	attach_and_check
}

# TensorFlow-like: stat + open + pread64 to EOF + close, on 4 threads.
test_attach_tf_style_exact() {
	gen_data 1500 15
	start_gated read "$PWD/data" --threads 4 --style tf
	attach_and_check
	expect_eq "stats >= files" "$(jqr out.json '.vfs.stats')" 1500
}

# PyTorch-like: 4 forked DataLoader workers, forked after the attach.
test_attach_forked_workers_exact() {
	gen_data 2000 20
	start_gated read "$PWD/data" --style torch --procs 4
	attach_and_check
	expect_eq "threads seen" "$(jqr out.json '[.threads[] | select(.reads > 0)] | length')" 4
}

# A thread's counters live in its task storage and are drained by an
# iterator after a flip of the set the programs write; an exiting thread
# leaves its sets in a hash map. With a drain every 50 ms (the loop's
# tick), 60 runs of 2 processes of 3 reader threads each (360 threads
# exiting, many while a drain is under way): the threads' counters sum to
# the global counters, kept apart per CPU, and the readers' to the
# workload's own tallies, exactly.
test_thread_counters_exact_across_drains() {
	gen_data 300 3
	"$IOSTORM" -q --drain 0.02 --json out.json -- sh -c "for i in \$(seq 60); do
		$WORKLOAD read $PWD/data --procs 2 --threads 3 --cpu-us 200 --tally tally.\$i ||
		exit 1; done" 2>stderr.txt || fail "iostorm exit $?: $(cat stderr.txt)"
	local k f sum
	[ "$(jqr out.json .store.drains)" -ge 8 ] || fail "only $(jqr out.json .store.drains) drains"
	for k in opens reads read_bytes stats; do
		expect_eq "threads' $k = vfs.$k" \
			"$(jqr out.json "[.threads[].$k] | add")" "$(jqr out.json .vfs.$k)"
	done
	for k in reads read_bytes; do
		sum=0
		for f in tally.*; do sum=$((sum + $(tally "$f" "$k"))); done
		expect_eq "readers' $k = the tallies'" "$(jqr out.json "[.threads[] |
			select(.comm == \"iostorm-workloa\" and .tid != .pid) | .$k] | add")" "$sum"
	done
	# 360 threads, less any that started after the others took every file
	# (200 us of work per file leaves 10 ms for a thread to start).
	sum=0
	for f in tally.*; do sum=$((sum + $(tally "$f" readers))); done
	expect_cmp "threads that took a file" "$sum" '>=' 180
	expect_eq "reader threads" "$(jqr out.json "[.threads[] |
		select(.comm == \"iostorm-workloa\" and .tid != .pid and .reads > 0)] | length")" "$sum"
	expect_eq "lost" "$(jqr out.json .lost.total)" 0
}

# Workers that already exist when iostorm attaches are found from /proc.
test_attach_existing_children() {
	gen_data 1000 10
	mkfifo gate
	# A parent shell whose 3 children each read a third, all held at the gate.
	(
		for i in 0 1 2; do
			"$WORKLOAD" read "$PWD/data" --order sorted --limit 1000 \
				--gate gate >"tally.$i" &
		done
		wait
	) &
	local ppid=$! i
	sleep 0.2
	for i in $(pgrep -P "$ppid"); do wait_at_gate "$i"; done
	"$IOSTORM" -p "$ppid" -q --json out.json 2>stderr.txt &
	local ipid=$!
	wait_for stderr.txt "Ctrl-C to stop"
	# One writer opens the FIFO for all three readers; one byte each.
	printf xxx > gate
	wait "$ppid"
	wait "$ipid" || fail "iostorm exit $?: $(cat stderr.txt)"
	local want=$(( $(tally tally.0 reads) + $(tally tally.1 reads) + $(tally tally.2 reads) ))
	expect_eq "reads of 3 existing children" "$(sum_under out.json "$PWD/data/" reads)" "$want"
	expect_eq "lost" "$(jqr out.json .lost.total)" 0
}

# A kernel files map smaller than the dataset, and no periodic drain in
# sight: iostorm drains when the map is half full, so 3,000 files pass
# through 1,024 slots with nothing lost (without it, under 1,024 get a
# record and the rest are counted as lost).
test_small_map_drains_early() {
	gen_data 3000 30
	"$IOSTORM" -q --map-files 1024 --drain 1000 --json out.json -- "$WORKLOAD" read \
		"$PWD/data" --threads 1 --cpu-us 400 --tally tally.txt >stdout.txt 2>stderr.txt ||
		fail "iostorm exit $?: $(cat stderr.txt)"
	expect_eq "files" "$(count_under out.json "$PWD/data/")" 3000
	expect_eq "reads" "$(sum_under out.json "$PWD/data/" reads)" "$(tally tally.txt reads)"
	expect_eq "lost" "$(jqr out.json .lost.total)" 0
	# 3,000 files through 1,024-entry maps with no scheduled drain: early ones.
	expect_cmp "early drains" "$(jqr out.json .store.drains)" '>=' 3
	# The small table was the one in use: 2 x 1,024 x 576 B, not 2 x 18.9 MB,
	# so the maps hold about 32 MiB less than with the default (the baseline).
	local maps default
	maps=$(jqr out.json .store.kernel_maps_bytes)
	default=$(sed -n 's/^maps_memlock //p' "$ROOT/tests/baselines/bpf.txt")
	[ "$maps" -gt 0 ] && [ "$maps" -lt $((default - (30 << 20))) ] ||
		fail "kernel maps $maps bytes, default $default: --map-files 1024 not in use"
}

# A full files table, exactly: iostorm is stopped (SIGSTOP: no drain) while
# a reader goes through 1,500 files with a table of 1,024 slots. The files
# that found a slot have exact counts, every event of the others is counted
# in lost.files_map_full, and nothing else is lost. The reader's first
# touches of code after the gate (faults on its binary and libc, which have
# no slot once the table is full) are lost too: exactly the faults the
# totals have and no record has, plus at most the pages added to the cache
# with no record (an event adds one page or a folio of several); and so is
# its tally's write to its stdout (a file) at the end.
test_full_table_lost_exact() {
	gen_data 1500 5
	start_gated read "$PWD/data" --threads 1 --order sorted
	"$IOSTORM" -p "$WPID" -q --map-files 1024 --drain 1000 --json out.json 2>stderr.txt &
	local ipid=$! dir=$PWD/data/ files want got lost
	wait_for stderr.txt "Ctrl-C to stop"
	kill -STOP "$ipid"
	printf x >gate
	wait "$WPID" || fail "workload exit $?"
	kill -CONT "$ipid"
	wait "$ipid" || fail "iostorm exit $?: $(cat stderr.txt)"
	files=$(count_under out.json "$dir")
	expect_cmp "files with a slot" "$files" '<=' 1024
	expect_cmp "files with a slot" "$files" '>=' 900
	want=$(( $(tally tally.txt opens) + $(tally tally.txt reads) + $(tally tally.txt closes) ))
	got=$(( $(sum_under out.json "$dir" opens) + $(sum_under out.json "$dir" reads) +
		$(sum_under out.json "$dir" closes) ))
	lost=$(jqr out.json .lost.files_map_full)
	local faults pages writes
	faults=$(jq '.vfs.faults - ([.files[].faults // 0] | add // 0)' out.json)
	pages=$(jq '.vfs.cache_pages - ([.files[].cache_pages // 0] | add // 0)' out.json)
	writes=$(jq '.vfs.writes - ([.files[].writes // 0] | add // 0)' out.json)
	expect_cmp "writes lost" "$writes" '<=' 1
	expect_cmp "lost - data events, faults and writes lost" \
		"$((lost - (want - got) - faults - writes))" '>=' 0
	expect_cmp "lost - data events, faults and writes lost" \
		"$((lost - (want - got) - faults - writes))" '<=' "$pages"
	expect_cmp "data events lost" "$((want - got))" '>' 0
	expect_eq "lost.total" "$(jqr out.json .lost.total)" "$lost"
	expect_eq "files_lower_bound" "$(jqr out.json .vfs.files_lower_bound)" true
	# Each file with a slot has all its opens, closes and bytes.
	expect_eq "files read whole" "$(jq --arg p "$dir" '[.files[] | select(.type == "file"
		and (.path // "" | startswith($p))) | select(.opens != 1 or .closes != 1
		or .read_bytes != .size)] | length' out.json)" 0
}

# One file claimed by every CPU at once: four readers of the same 300 files
# in the same order, released by one gate, race for each file's slot. Each
# file has one slot (file_slots, one per file in one interval, equals the
# files recorded) and exact counts.
test_one_file_claimed_by_many_cpus() {
	gen_data 300 3
	mkfifo gate
	(
		for i in 0 1 2 3; do
			"$WORKLOAD" read "$PWD/data" --order sorted --threads 1 \
				--gate gate >"tally.$i" &
		done
		wait
	) &
	local ppid=$! i dir=$PWD/data/
	sleep 0.2
	for i in $(pgrep -P "$ppid"); do wait_at_gate "$i"; done
	"$IOSTORM" -p "$ppid" -q --drain 1000 --json out.json 2>stderr.txt &
	local ipid=$!
	wait_for stderr.txt "Ctrl-C to stop"
	printf xxxx >gate
	wait "$ppid"
	wait "$ipid" || fail "iostorm exit $?: $(cat stderr.txt)"
	expect_eq "files" "$(count_under out.json "$dir")" 300
	expect_eq "files opened 4 times" "$(jq --arg p "$dir" '[.files[] | select(.type == "file"
		and (.path // "" | startswith($p))) | select(.opens == 4 and .closes == 4)] | length' \
		out.json)" 300
	local want=0
	for i in 0 1 2 3; do want=$((want + $(tally "tally.$i" reads))); done
	expect_eq "reads" "$(sum_under out.json "$dir" reads)" "$want"
	expect_eq "file_slots" "$(jqr out.json .store.file_slots)" "$(jqr out.json .store.files)"
	expect_eq "lost" "$(jqr out.json .lost.total)" 0
}

# A directory renamed during the trace: a file opened after the rename, once
# the directory-path cache entry expired (2 s), is reported at its new path.
test_renamed_directory_new_path() {
	mkdir -p data/old
	echo one >data/old/a
	echo two >data/old/b
	"$IOSTORM" -q --json out.json -- bash -c \
		'cat data/old/a >/dev/null && mv data/old data/new && sleep 2.5 && cat data/new/b >/dev/null' \
		2>stderr.txt || fail "iostorm exit $?: $(cat stderr.txt)"
	expect_eq "a, read before" "$(jq -r --arg p "$PWD/data/old/a" '[.files[] | select(.path == $p)] | length' out.json)" 1
	expect_eq "b, read after" "$(jq -r --arg p "$PWD/data/new/b" '[.files[] | select(.path == $p)] | length' out.json)" 1
}

# A dataset in an overlayfs (a container image's layers): reads fill the
# page cache of the file underneath, on the layer's device; those pages are
# still counted on the file read (>= 90% of its bytes, as readahead may
# stop short), not in a record of their own.
# Every page a cold read brings into the page cache, exactly: 64 MiB read
# whole by cat after its pages were dropped are 16,384 pages of 4 KiB. ext4
# here adds them mostly as large folios (~400 events for the file), each
# counted by its pages: a folio counted as one page would fail this.
test_cache_pages_exact() {
	head -c $((64 << 20)) /dev/urandom >big || fail "write big"
	sync
	drop_caches 1
	"$IOSTORM" -q --json out.json -- cat big >/dev/null 2>err.txt ||
		fail "iostorm exit $?: $(cat err.txt)"
	expect_eq "cache pages of big" \
		"$(jqr out.json "[.files[] | select(.path == \"$PWD/big\") | .cache_pages] | add")" 16384
	expect_eq "lost" "$(jqr out.json .lost.total)" 0
}

# A block device read raw fills the device's own page cache: 16 MiB read
# whole from a loop device with its cache dropped are 4,096 pages, on one
# record of type "device" named by the device, in no mount, and in the
# metrics.
test_device_cache_pages_exact() {
	command -v losetup >/dev/null || skip "losetup not installed"
	truncate -s 16M img || fail "truncate"
	LOOP=$(losetup -f --show img) || skip "no free loop device"
	on_exit "losetup -d $LOOP"
	local dev sel pages
	dev=$(cat "/sys/block/${LOOP#/dev/}/dev")
	command -v udevadm >/dev/null && udevadm settle 2>/dev/null
	blockdev --flushbufs "$LOOP" || fail "blockdev --flushbufs"
	drop_caches 1
	"$IOSTORM" -q --json out.json --prom-file out.prom -- cat "$LOOP" >/dev/null 2>err.txt ||
		fail "iostorm exit $?: $(cat err.txt)"
	# cat's own start may read a page of the root file system's metadata.
	sel=".files[] | select(.type == \"device\" and .dev == \"$dev\")"
	expect_eq "records of $dev" "$(jqr out.json "[$sel] | length")" 1
	expect_eq "its pages" "$(jqr out.json "$sel | .cache_pages")" 4096
	pages=$(jqr out.json .vfs.device_cache_pages)
	expect_eq "vfs.device_cache_pages = the devices' pages" "$pages" \
		"$(jqr out.json '[.files[] | select(.type == "device") | .cache_pages] | add')"
	expect_eq "the metric's bytes" \
		"$(sed -n 's/^iostorm_page_cache_device_added_bytes_total //p' out.prom)" $((pages * 4096))
	expect_eq "mounts of it" "$(jqr out.json "[.mounts[] | select(.dev == \"$dev\")] | length")" 0
	expect_eq "lost" "$(jqr out.json .lost.total)" 0
}

# A cold read of small files on ext4 reads the file system's metadata
# (inode tables, directory blocks) through the device's own cache: those
# pages are counted on the device, the files' on the files, and together
# they are every page the target added. The text says which device and
# what the top-files table's records are, in the header's terms (--full:
# the mappings line and the top files' table are the full report's).
test_metadata_pages_on_the_device() {
	loop_fs
	"$WORKLOAD" gen mnt/data --files 300 --dirs 3 >/dev/null || fail "gen"
	# Mounted again: the journal holds recent metadata past drop_caches.
	umount mnt && mount -o noatime "$LOOP" mnt || fail "mount $LOOP again"
	drop_caches
	"$IOSTORM" --full --json out.json -T 5 -- "$WORKLOAD" read "$PWD/mnt/data" \
		--tally tally.txt >report.txt 2>stderr.txt || fail "iostorm exit $?: $(cat stderr.txt)"
	local sel=".files[] | select(.type == \"device\" and .dev == \"$LOOP_DEV\")" meta
	meta=$(jqr out.json "$sel | .cache_pages")
	expect_cmp "metadata pages on $LOOP_NAME" "$meta" '>' 0
	expect_eq "vfs.device_cache_pages = the devices' pages" \
		"$(jqr out.json .vfs.device_cache_pages)" \
		"$(jqr out.json '[.files[] | select(.type == "device") | .cache_pages] | add')"
	expect_eq "pages of every record = vfs.cache_pages" \
		"$(jqr out.json '[.files[].cache_pages] | add')" "$(jqr out.json .vfs.cache_pages)"
	expect_eq "mounts without a mount point" \
		"$(jqr out.json '[.mounts[] | select(.mount_point == null)] | length')" 0
	grep -q "file system metadata, in the device cache of .*\\b$LOOP_NAME\\b" report.txt ||
		fail "no metadata on the mappings line: $(grep mappings report.txt)"
	local files dirs all
	files=$(jqr out.json .vfs.files)
	dirs=$(jqr out.json .vfs.dirs)
	all=$(jqr out.json '.files | length')
	grep -q "more of $all: $files files, $dirs directories" report.txt ||
		fail "top files' last line: $(grep 'more of' report.txt)"
	expect_eq "lost" "$(jqr out.json .lost.total)" 0
}

test_overlay_cache_pages() {
	mkdir lower upper work merged
	"$WORKLOAD" gen lower/data --files 300 --dirs 3 >/dev/null || fail "gen"
	mount -t overlay overlay -o "lowerdir=$PWD/lower,upperdir=$PWD/upper,workdir=$PWD/work" \
		merged 2>/dev/null || skip "cannot mount an overlayfs here"
	on_exit "umount $PWD/merged || umount -l $PWD/merged"
	drop_caches
	"$IOSTORM" -q --json out.json -- "$WORKLOAD" read "$PWD/merged/data" --threads 2 \
		--tally tally.txt >stdout.txt 2>stderr.txt || fail "iostorm exit $?: $(cat stderr.txt)"
	local dir=$PWD/merged/data/ pages bytes
	expect_eq "files" "$(count_under out.json "$dir")" 300
	expect_eq "reads" "$(sum_under out.json "$dir" reads)" "$(tally tally.txt reads)"
	pages=$(sum_under out.json "$dir" cache_pages)
	bytes=$(tally tally.txt read_bytes)
	# At least 90% of the bytes (readahead may stop short), at most one
	# partial page more per file (pages counted twice would exceed it).
	[ $((pages * 4096 * 10)) -ge $((bytes * 9)) ] &&
		[ $((pages * 4096)) -le $((bytes + 300 * 4096)) ] ||
		fail "cache pages on the files: $pages pages for $bytes bytes read"
	echo "  cache pages on the files = $pages ($bytes bytes read)"
	expect_eq "lost" "$(jqr out.json .lost.total)" 0
}

# btrfs: stat() reports the subvolume's device, opens and the page cache
# the file system's. A TensorFlow-style loader (stat, open, pread64) still
# gets one record per file, holding both its stats and its opens.
test_btrfs_stat_and_open_one_record() {
	command -v mkfs.btrfs >/dev/null || skip "no mkfs.btrfs (apt-get install btrfs-progs)"
	grep -qw btrfs /proc/filesystems || skip "no btrfs in this kernel"
	truncate -s 512M img
	mkfs.btrfs -q -f img >/dev/null 2>&1 || fail "mkfs.btrfs"
	mkdir mnt
	mount -o loop img mnt || skip "cannot mount a btrfs image on a loop device"
	on_exit "umount $PWD/mnt || umount -l $PWD/mnt"
	"$WORKLOAD" gen mnt/data --files 200 --dirs 2 >/dev/null || fail "gen"
	"$IOSTORM" -q --json out.json -- "$WORKLOAD" read "$PWD/mnt/data" --threads 2 \
		--style tf --tally tally.txt >stdout.txt 2>stderr.txt ||
		fail "iostorm exit $?: $(cat stderr.txt)"
	local dir=$PWD/mnt/data/
	expect_eq "files" "$(count_under out.json "$dir")" 200
	expect_eq "opens" "$(sum_under out.json "$dir" opens)" "$(tally tally.txt opens)"
	expect_eq "stats" "$(sum_under out.json "$dir" stats)" "$(tally tally.txt stats)"
	expect_eq "records with stats but no opens" "$(jq --arg p "$dir" \
		'[.files[] | select((.path // "") | startswith($p)) | select(.opens == 0)] | length' \
		out.json)" 0
	expect_eq "lost" "$(jqr out.json .lost.total)" 0
}

# Launched through a shell wrapper that execs the job (issue 25): the script,
# which bash opens and reads, is code, like a module; the dataset's count
# stays exact. The wrapper lives next to the data, where nothing else would
# call it code, and is run by its PATH name, as a user would.
test_launch_wrapper_script_is_code() {
	gen_data 300 3
	mkdir bin
	printf '#!/bin/bash\n# put the job in its place, then become it\nexport WRAPPED=1\nexec "$@"\n' \
		>bin/wrapper.sh
	chmod +x bin/wrapper.sh
	PATH=$PWD/bin:$PATH "$IOSTORM" -q --json out.json -- wrapper.sh "$WORKLOAD" read \
		"$PWD/data" >tally.txt 2>stderr.txt || fail "iostorm exit $?: $(cat stderr.txt)"
	local script=$PWD/bin/wrapper.sh
	expect_eq "the wrapper's kind" \
		"$(jqr out.json "[.files[] | select(.path == \"$script\") | .kind] | join(\",\")")" code
	expect_cmp "the wrapper's reads" \
		"$(jqr out.json "[.files[] | select(.path == \"$script\") | .reads] | add")" '>' 0
	# The data files: the dataset's, and the tally the workload writes to
	# its stdout (a file, written once, never read).
	expect_eq "the tally's writes" \
		"$(jqr out.json "[.files[] | select(.path == \"$PWD/tally.txt\") | .writes] | add")" 1
	expect_eq "data files (vfs.files - vfs.code.files)" \
		"$(jqr out.json '.vfs.files - .vfs.code.files')" "$(($(tally tally.txt files) + 1))"
	expect_eq "named data files read" "$(jqr out.json '[.files[] | select(.type == "file" and
		.kind == "data" and .path != null and .reads > 0)] | length')" \
		"$(tally tally.txt files)"
	expect_eq "exit_status" "$(jqr out.json .exit_status)" 0
}

# Inode numbers freed and given to new files (issue 46): ext4 gives a
# deleted file's number to the next file made in its directory; XFS gives
# 55-74 of 80 here, once a syncfs() made it free the deleted inodes (in
# the background otherwise: a run without it once reused none). The reuse
# workload makes 40 files a round (r + 1 KiB in round r), creates, fstats,
# reads and deletes them, 3 rounds. The numbers were reused (its fstat saw
# them: else this test would prove nothing), and each file is a record of
# its own at its own path with exactly its opens, stats, reads, bytes and
# closes: none added to the earlier file that had its number. LOST: the
# losses that must be 0 (under -a, the node's other processes may lose a
# syscall in flight: a thread that exits as it starts one).
reuse_expect() {
	local json=$1 tally=$2 lost=$3 dir=$PWD/mnt/reuse/ lives reused
	lives=$(sed -n 's/^reuse lives=\([0-9]*\) .*/\1/p' "$tally")
	reused=$(sed -n 's/^reuse .* reused=\([0-9]*\)$/\1/p' "$tally")
	expect_eq "lives" "$lives" 120
	expect_cmp "lives whose inode number an earlier one had" "$reused" '>=' 10
	expect_eq "records" "$(count_under "$json" "$dir")" "$lives"
	expect_cmp "inode numbers with more than one record" "$(jq --arg p "$dir" \
		'[.files[] | select(.type == "file" and (.path // "" | startswith($p)))] |
		group_by(.ino) | map(select(length > 1)) | length' "$json")" '>=' 5
	sed -n 's/^file opens=\([0-9]*\) reads=\([0-9]*\) read_bytes=\([0-9]*\) stats=\([0-9]*\) closes=\([0-9]*\) mmaps=[0-9]* path=\(.*\)$/\6 \1 \4 \2 \3 \5/p' \
		"$tally" | sort >want.txt
	jq -r --arg p "$dir" '.files[] | select(.type == "file" and (.path // "" | startswith($p))) |
		"\(.path) \(.opens) \(.stats) \(.reads) \(.read_bytes) \(.closes)"' "$json" |
		sort >got.txt
	expect_eq "files in the tally" "$(wc -l <want.txt)" "$lives"
	diff want.txt got.txt >diff.txt ||
		fail "records (path opens stats reads bytes closes) differ from the tally: $(head -20 diff.txt)"
	echo "  every file: path, opens, stats, reads, bytes and closes as the tally"
	expect_eq "$lost" "$(jqr "$json" "$lost")" 0
}

test_reused_inode_attach_exact() {
	loop_fs
	reuse_attach
}

# The same on XFS, whose generations are its own (random at allocation).
test_reused_inode_xfs_attach_exact() {
	command -v mkfs.xfs >/dev/null || skip "no mkfs.xfs (apt-get install xfsprogs)"
	grep -qw xfs /proc/filesystems || modprobe xfs 2>/dev/null || skip "no xfs in this kernel"
	truncate -s 512M img
	mkfs.xfs -q img || fail "mkfs.xfs"
	mkdir mnt
	mount -o loop img mnt || skip "cannot mount an XFS image on a loop device"
	on_exit "umount $PWD/mnt || umount -l $PWD/mnt"
	reuse_attach
}

# The reuse workload in mnt, attached to with -p at its gate.
reuse_attach() {
	start_gated reuse "$PWD/mnt/reuse" --files 40 --rounds 3
	"$IOSTORM" -p "$WPID" -q --json out.json 2>stderr.txt &
	local ipid=$!
	wait_for stderr.txt "Ctrl-C to stop"
	echo go >gate
	wait "$WPID" || fail "workload failed: $(cat wl.err)"
	wait "$ipid" || fail "iostorm exit $?: $(cat stderr.txt)"
	reuse_expect out.json tally.txt .lost.total
}

test_reused_inode_all_exact() {
	loop_fs
	"$IOSTORM" -a -q --json out.json 2>stderr.txt &
	local ipid=$!
	wait_for stderr.txt "Ctrl-C to stop"
	"$WORKLOAD" reuse "$PWD/mnt/reuse" --files 40 --rounds 3 >tally.txt 2>wl.err ||
		fail "workload failed: $(cat wl.err)"
	kill -INT "$ipid"
	wait "$ipid" || fail "iostorm exit $?: $(cat stderr.txt)"
	reuse_expect out.json tally.txt .lost.files_map_full
}
