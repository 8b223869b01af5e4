# Mapped datasets and start-up code: reads that are page faults (LMDB,
# np.memmap, Arrow), and a Python job's imports, which are not the dataset.
# Uses shm_fs and capped_cgroup from test_verdict.sh.

# file_cold FILE: drop FILE's pages from the page cache, and only its.
file_cold() {
	python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$1" || fail "fadvise $1"
}

# A 64 MiB file mapped before iostorm attaches (-p), madvise(MADV_RANDOM),
# 2,000 distinct pages touched cold in an order where no page follows the
# one before: exactly 2,000 faults read 2,000 pages from storage (mincore
# agrees), none of them sequential, the file is named from /proc/PID/maps,
# and the verdict is about mapped reads, not "too little file I/O". The
# file lives on a loop device capped at 1,000 reads a second (a cloud
# volume's limit), so the waits are the storage's on any machine: on a fast
# NVMe disk the faults alone took too little time for a verdict about them.
test_mapped_random_faults_exact() {
	local pages=2000 f
	shm_fs
	f=$PWD/mnt/data.mdb
	head -c $((64 << 20)) /dev/urandom >"$f" || fail "create $f"
	file_cold "$f"
	capped_cgroup 1000
	mkfifo gate
	sh -c "echo \$\$ > $CG/cgroup.procs && exec $WORKLOAD mapread $f --pages $pages --gate gate" \
		>tally.txt 2>wl.err &
	local wpid=$!
	wait_at_gate "$wpid"
	"$IOSTORM" -p "$wpid" --json out.json >report.txt 2>stderr.txt &
	local ipid=$!
	wait_for stderr.txt "Ctrl-C to stop"
	echo go >gate
	wait "$wpid" || fail "workload failed: $(cat wl.err)"
	wait "$ipid" || fail "iostorm exit $?: $(cat stderr.txt)"
	expect_eq "resident pages (mincore)" "$(sed -n 's/^mapped .*resident=//p' tally.txt)" $pages
	local sel=".files[] | select(.path == \"$f\")"
	expect_eq "file named" "$(jqr out.json "[$sel] | length")" 1
	expect_eq "kind" "$(jqr out.json "$sel | .kind")" data
	expect_eq "file fault_reads" "$(jqr out.json "$sel | .fault_reads")" $pages
	expect_eq "file fault_pages" "$(jqr out.json "$sel | .fault_pages")" $pages
	expect_eq "file sequential faults" "$(jqr out.json "$sel | .fault_reads_sequential")" 0
	expect_eq "file size" "$(jqr out.json "$sel | .size")" $((64 << 20))
	# The first fault of each drain interval has no predecessor: unclassified.
	local rand drains
	rand=$(jqr out.json "$sel | .fault_reads_random")
	drains=$(jqr out.json '.store.drains // 0')
	[ "$rand" -le $pages ] && [ "$rand" -ge $((pages - drains - 2)) ] ||
		fail "random faults $rand, expected $pages less one per drain ($drains)"
	expect_eq "vfs.mapped.fault_reads" "$(jqr out.json .vfs.mapped.fault_reads)" $pages
	expect_eq "vfs.mapped.fault_bytes" "$(jqr out.json .vfs.mapped.fault_bytes)" \
		$((pages * $(getconf PAGESIZE)))
	expect_eq "vfs.mapped.files" "$(jqr out.json .vfs.mapped.files)" 1
	[ "$(jqr out.json "$sel | .fault_ns")" -gt 0 ] || fail "no time waiting in faults"
	expect_eq "mapped_reads finding" \
		"$(jqr out.json '[.findings[] | select(.id == "mapped_reads")] | length')" 1
	expect_eq "little_io finding" \
		"$(jqr out.json '[.findings[] | select(.id == "little_io")] | length')" 0
	grep -q '^VERDICT: .*random reads through a file mapping' report.txt ||
		fail "verdict: $(grep VERDICT report.txt)"
	grep -q "^mapped    1 file read by $pages faults from storage, $pages pages" report.txt ||
		fail "no mapped line: $(grep -E '^(mapped|mappings)' report.txt)"
	expect_screen report.txt
	expect_eq "lost" "$(jqr out.json .lost.total)" 0
}

# A real python3 imports 1,200 modules of a package tree under site-packages
# (their .pyc read whole: a small-file storm by size and rate) and then reads
# 4 tar shards: the modules are code, counted on their own line and in
# vfs.code, and no small_file_storm is reported about the dataset.
test_python_imports_are_code() {
	local mods=1200 sp=$PWD/venv/lib/python3/site-packages
	mkdir -p "$sp/fakepkg" shards
	touch "$sp/fakepkg/__init__.py"
	for ((i = 0; i < mods; i++)); do
		echo "X = '$(printf '%0600d' "$i")'" >"$sp/fakepkg/m$i.py"
	done
	python3 -m compileall -q "$sp" >/dev/null || fail "compileall"
	for i in 0 1 2 3; do
		head -c $((16 << 20)) /dev/urandom >"shards/shard-$i.bin"
		tar -cf "shards/shard-$i.tar" -C shards "shard-$i.bin" || fail "tar"
		rm "shards/shard-$i.bin"
	done
	sync
	cat >job.py <<PY
import importlib, sys
sys.path.insert(0, "$sp")
for i in range($mods):
    importlib.import_module("fakepkg.m%d" % i)
for i in range(4):
    with open("$PWD/shards/shard-%d.tar" % i, "rb", buffering=0) as f:
        while f.read(262144):
            pass
PY
	"$IOSTORM" --json out.json -- /usr/bin/python3 job.py >report.txt 2>stderr.txt ||
		fail "iostorm exit $?: $(cat stderr.txt)"
	local pyc="[.files[] | select(.path != null and (.path | startswith(\"$sp/fakepkg/__pycache__/\")))]"
	expect_eq ".pyc files read" "$(jqr out.json "$pyc | map(select(.reads > 0)) | length")" \
		$((mods + 1))
	expect_eq ".pyc files that are data" \
		"$(jqr out.json "$pyc | map(select(.kind != \"code\")) | length")" 0
	expect_eq "shards that are data" "$(jqr out.json "[.files[] | select(.path != null and
		(.path | startswith(\"$PWD/shards/\")) and .kind == \"data\")] | length")" 4
	[ "$(jqr out.json .vfs.code.files)" -gt $((mods + 1)) ] ||
		fail "vfs.code.files $(jqr out.json .vfs.code.files), expected above $((mods + 1))"
	[ "$(jqr out.json .vfs.code.reads)" -gt $mods ] || fail "vfs.code.reads"
	expect_eq "small_file_storm finding" \
		"$(jqr out.json '[.findings[] | select(.id == "small_file_storm")] | length')" 0
	grep -q '^code      [0-9]* files (modules, libraries, system files)' report.txt ||
		fail "no code line in the report"
	expect_screen report.txt
}
