# Reads through io_uring and Linux AIO, counted per file as read(2)'s are.
# fio reads 8 MiB in 16 KiB blocks at random from 200 files of 64 KiB
# (O_DIRECT, so every read is a request of its own) through psync, libaio
# and io_uring and io_uring's variants; iostorm's per-file counts, its
# interface figures and its async queue must agree with fio's own: its JSON
# totals and its I/O log (--write_iolog), which lists every read fio issued.
# Each traced run takes well under a second.

ASYNC_DEPTH=8

need_fio() {
	command -v fio >/dev/null || skip "fio not installed (scripts/deps.sh --test installs it)"
}

# async_job: JOB, fio's job on ./f without its engine: ASYNC_NRFILES files
# (200) of ASYNC_FILESIZE (64k).
async_job() {
	JOB=(--name=j --directory="$PWD/f" --nrfiles="${ASYNC_NRFILES:-200}"
		--filesize="${ASYNC_FILESIZE:-64k}" --bs=16k --rw=randread --direct=1 --io_size=8m)
}

# async_layout: the job's files, laid out untraced, so the traced runs only read.
async_layout() {
	need_fio
	mkdir f
	async_job
	fio "${JOB[@]}" --ioengine=psync --create_only=1 >/dev/null || fail "fio layout"
	sync
}

# async_run NAME ENGINE [FIO_ARGS...]: the job traced, through ENGINE at
# depth ASYNC_DEPTH: NAME.json (iostorm), NAME.fio.json (fio's report),
# NAME.iolog (every I/O fio issued).
async_run() {
	local name=$1 engine=$2
	shift 2
	async_job
	"$IOSTORM" -q -j "$name.json" -- fio "${JOB[@]}" --ioengine="$engine" \
		--iodepth=$ASYNC_DEPTH "$@" --write_iolog="$PWD/$name.iolog" \
		--output-format=json --output="$PWD/$name.fio.json" 2>"$name.err" ||
		fail "iostorm exit $?: $(cat "$name.err")"
}

# need_uring_opt OPT: this fio's io_uring engine has --OPT.
need_uring_opt() {
	need_fio
	fio --enghelp=io_uring 2>/dev/null | grep -q "^$1 " ||
		skip "$(fio --version) has no io_uring option --$1"
}

# need_uring_layer JSON: io_uring is measured, as it must be where the
# kernel has its tracepoints; skipped where iostorm says the kernel has none.
need_uring_layer() {
	local why
	if [ "$(jqr "$1" .kernel.layers.io_uring.measured)" != true ]; then
		why=$(jqr "$1" .kernel.layers.io_uring.why)
		[[ $why == "this kernel "* ]] && skip "io_uring not measured: $why"
		fail "io_uring not measured: $why"
	fi
	echo "  kernel.layers.io_uring.measured = true"
}

# check_async NAME KIND: NAME's reads of ./f, through KIND (syscall, aio or
# io_uring), are fio's, file by file summed, and on KIND's interface only.
check_async() {
	local j=$1.json fj=$1.fio.json kind=$2 ios bytes dir=$PWD/f/
	[ "$kind" = io_uring ] && need_uring_layer "$j"
	ios=$(jqr "$fj" '.jobs[0].read.total_ios')
	bytes=$(jqr "$fj" '.jobs[0].read.io_bytes')
	expect_cmp "fio's reads" "$ios" '>' 0
	expect_eq "files under f/" "$(count_under "$j" "$dir")" "$(ls f | wc -l)"
	expect_eq "reads under f/ = fio's total_ios" "$(sum_under "$j" "$dir" reads)" "$ios"
	expect_eq "read_bytes under f/ = fio's io_bytes" "$(sum_under "$j" "$dir" read_bytes)" "$bytes"
	local k
	for k in io_uring aio; do
		if [ "$k" = "$kind" ]; then
			expect_eq "vfs.interfaces.$k.reads" "$(jqr "$j" ".vfs.interfaces.$k.reads")" "$ios"
			expect_eq "vfs.interfaces.$k.read_bytes" \
				"$(jqr "$j" ".vfs.interfaces.$k.read_bytes")" "$bytes"
			expect_eq "latency.$k.count" "$(jqr "$j" ".latency.$k.count")" "$ios"
		else
			expect_eq "vfs.interfaces.$k.reads" "$(jqr "$j" ".vfs.interfaces.$k.reads")" 0
			expect_eq "vfs.interfaces.$k.read_bytes" \
				"$(jqr "$j" ".vfs.interfaces.$k.read_bytes")" 0
			expect_eq "latency.$k.count" "$(jqr "$j" ".latency.$k.count")" 0
		fi
	done
	if [ "$kind" = syscall ]; then
		# fio also reads /proc, /sys and its libraries with read(2).
		expect_cmp "vfs.interfaces.syscall.reads" \
			"$(jqr "$j" .vfs.interfaces.syscall.reads)" '>=' "$ios"
		expect_cmp "vfs.interfaces.syscall.read_bytes" \
			"$(jqr "$j" .vfs.interfaces.syscall.read_bytes)" '>=' "$bytes"
		expect_eq "vfs.async.reads" "$(jqr "$j" .vfs.async.reads)" 0
	else
		expect_eq "vfs.async.reads" "$(jqr "$j" .vfs.async.reads)" "$ios"
		expect_cmp "vfs.async.depth_mean" "$(jqr "$j" .vfs.async.depth_mean)" '>' 1
		expect_cmp "vfs.async.depth_mean" "$(jqr "$j" .vfs.async.depth_mean)" '<=' $ASYNC_DEPTH
		# Owned by fio's job thread, the submitter: not by an io-wq
		# worker or the SQPOLL thread (iou-wrk-*, iou-sqp-*).
		expect_eq "threads' async_reads" "$(jqr "$j" '[.threads[].async_reads] | add')" "$ios"
		expect_eq "the owner of them all" "$(jqr "$j" "[.threads[] |
			select(.async_reads == $ios and .reads >= $ios) | .comm] | .[0]")" fio
		expect_cmp "its depth mean" "$(jqr "$j" "[.threads[] |
			select(.async_reads == $ios) | .async_depth_mean] | .[0]")" '>' 1
	fi
	expect_eq "vfs.async.in_flight_at_end" "$(jqr "$j" .vfs.async.in_flight_at_end)" 0
	expect_eq "vfs.async.untracked" "$(jqr "$j" .vfs.async.untracked)" 0
	expect_eq "lost.async_untracked" "$(jqr "$j" .lost.async_untracked)" 0
	expect_eq "lost.async_reqs_full" "$(jqr "$j" .lost.async_reqs_full)" 0
	expect_eq "lost.aio_batch" "$(jqr "$j" .lost.aio_batch)" 0
}

# pread(2): the reference, on the syscall interface.
test_async_psync() {
	async_layout
	async_run r psync
	check_async r syscall
}

# io_submit(2)/io_getevents(2), 8 in flight.
test_async_libaio() {
	async_layout
	async_run r libaio
	check_async r aio
}

# io_uring, the submitting thread entering the ring itself.
test_async_io_uring() {
	async_layout
	async_run r io_uring
	check_async r io_uring
}

# Registered files (IOSQE_FIXED_FILE): the SQEs name an index into the
# ring's file table, not an fd. fio calls this --registerfiles (it has no
# --fixedfiles).
test_async_io_uring_registerfiles() {
	need_uring_opt registerfiles
	async_layout
	async_run r io_uring --registerfiles=1
	check_async r io_uring
}

# A kernel thread (SQPOLL) submits, not the job's own thread.
test_async_io_uring_sqthread_poll() {
	need_uring_opt sqthread_poll
	async_layout
	async_run r io_uring --sqthread_poll=1
	check_async r io_uring
}

# Registered buffers: IORING_OP_READ_FIXED instead of IORING_OP_READ.
test_async_io_uring_fixedbufs() {
	need_uring_opt fixedbufs
	async_layout
	async_run r io_uring --fixedbufs=1
	check_async r io_uring
}

# iolog_files LOG: "path reads read_bytes consecutive sequential random" for
# each file fio read, from its I/O log (version 2: "file action [off len]";
# version 3 puts a timestamp first), sorted. The classes are Darshan's, as
# iostorm counts them (file_stats in bpf/iostorm.h, file_classify in
# user/model/store.c): against the end of the file's previous read, the
# first read against offset 0, where only offset 0 is sequential.
iolog_files() {
	awk 'NR == 1 { s = ($3 == 3) ? 1 : 0; next }
	$(2 + s) == "read" {
		f = $(1 + s); o = $(3 + s); l = $(4 + s)
		n[f]++; b[f] += l
		if (f in end) {
			if (o == end[f]) c[f]++
			if (o >= end[f]) q[f]++; else r[f]++
		} else if (o == 0) {
			c[f]++; q[f]++
		} else {
			r[f]++
		}
		end[f] = o + l
	}
	END { for (f in n) printf "%s %d %d %d %d %d\n", f, n[f], b[f], c[f], q[f], r[f] }' "$1" |
		sort
}

# json_files JSON: the same, from iostorm's files[] under ./f.
json_files() {
	jq -r --arg p "$PWD/f/" '.files[] | select(.type == "file" and (.path // "" | startswith($p))
		and .reads > 0) | "\(.path) \(.reads) \(.read_bytes) \(.reads_consecutive) \(.reads_sequential) \(.reads_random)"' \
		"$1" | sort
}

# The same blocks read through psync, libaio and io_uring (fio draws its
# offsets from the same default seed whatever the engine, which its I/O logs
# must show first) are the same files[]: each file's reads, bytes and read
# classes equal those of fio's log, the same for the three engines.
test_async_same_files_each_engine() {
	async_layout
	local e
	for e in psync libaio io_uring; do
		async_run "$e" "$e"
		iolog_files "$e.iolog" >"$e.fio.txt"
		json_files "$e.json" >"$e.ios.txt"
	done
	need_uring_layer io_uring.json
	expect_cmp "files fio read" "$(wc -l <psync.fio.txt)" '>' 100
	expect_eq "fio's reads in its log" "$(awk '{ n += $2 } END { print n }' psync.fio.txt)" \
		"$(jqr psync.fio.json '.jobs[0].read.total_ios')"
	for e in libaio io_uring; do
		cmp -s psync.fio.txt "$e.fio.txt" ||
			fail "fio read other blocks through $e than through psync (its seed?): $(diff psync.fio.txt "$e.fio.txt" | head -5)"
		echo "  fio's blocks through $e = through psync"
	done
	for e in psync libaio io_uring; do
		cmp -s "$e.fio.txt" "$e.ios.txt" ||
			fail "$e: iostorm's files (>) are not fio's (<): $(diff "$e.fio.txt" "$e.ios.txt" | head -10)"
		echo "  $e: $(wc -l <"$e.ios.txt") files, each with fio's reads, bytes and classes"
	done
	for e in libaio io_uring; do
		cmp -s psync.ios.txt "$e.ios.txt" ||
			fail "iostorm's files through $e (>) differ from psync's (<): $(diff psync.ios.txt "$e.ios.txt" | head -10)"
		echo "  iostorm's files through $e = through psync"
	done
}

# A loader of the project's own (tests/uring.c, liburing) does everything
# through io_uring, no read(), open(), stat() or close(): per file a STATX,
# an OPENAT, its bytes in 16 KiB READs 8 in flight, a CLOSE. iostorm's
# per-file opens, stats, reads, bytes and closes, and the interface's
# opens, stats and closes, equal the loader's tally; every file has its path.
test_async_io_uring_meta() {
	local uring=$ROOT/.output/iostorm-uring dir want n
	[ -x "$uring" ] || fail "no $uring: make all (liburing-dev, scripts/deps.sh --test)"
	"$WORKLOAD" gen data --files 60 --dirs 1 --min-size 20000 --max-size 90000 \
		>/dev/null || fail "gen"
	dir=$(ls -d "$PWD"/data/*/ | head -n 1)
	n=$(ls "$dir" | wc -l)
	"$IOSTORM" -q -j u.json -- "$uring" "$dir" --tally u.tally 2>u.err ||
		fail "iostorm exit $?: $(cat u.err)"
	need_uring_layer u.json
	expect_eq "files under the directory, each with its path" "$(count_under u.json "$dir")" "$n"
	for k in opens stats reads read_bytes closes; do
		want=$(awk -v k=$k '$1 == k { print $2 }' u.tally)
		expect_eq "$k under the directory = the loader's" "$(sum_under u.json "$dir" $k)" "$want"
	done
	expect_eq "loader's opens = its files" "$(awk '$1 == "opens" { print $2 }' u.tally)" "$n"
	for k in opens stats closes; do
		want=$(awk -v k=$k '$1 == k { print $2 }' u.tally)
		expect_eq "vfs.interfaces.io_uring.$k = the loader's" \
			"$(jqr u.json ".vfs.interfaces.io_uring.$k")" "$want"
	done
	expect_eq "vfs.interfaces.io_uring.reads = the loader's" \
		"$(jqr u.json .vfs.interfaces.io_uring.reads)" "$(awk '$1 == "reads" { print $2 }' u.tally)"
	expect_eq "files opened, read and closed once each" "$(jq --arg p "$dir" '[.files[] |
		select(.path != null and (.path | startswith($p))) |
		select(.opens != 1 or .stats != 1 or .closes != 1)] | length' u.json)" 0
	expect_eq "lost" "$(jqr u.json .lost.total)" 0
}

# Two fio jobs, forked processes, each with its own AIO context and iocbs:
# each read is matched to its own process's submit, none lost or crossed.
# (The requests are keyed with their process, as context ids and iocbs are
# user addresses; this run passes without that too: fio's two jobs did not
# happen to share an address here.)
test_async_libaio_forked_jobs() {
	local ios bytes
	async_layout
	async_job
	"$IOSTORM" -q -j r.json -- fio "${JOB[@]}" --ioengine=libaio --iodepth=$ASYNC_DEPTH \
		--numjobs=2 --output-format=json --output="$PWD/r.fio.json" 2>r.err ||
		fail "iostorm exit $?: $(cat r.err)"
	ios=$(jqr r.fio.json '[.jobs[].read.total_ios] | add')
	bytes=$(jqr r.fio.json '[.jobs[].read.io_bytes] | add')
	expect_eq "fio's jobs" "$(jqr r.fio.json '.jobs | length')" 2
	expect_eq "reads under f/ = both jobs' total_ios" "$(sum_under r.json "$PWD/f/" reads)" "$ios"
	expect_eq "read_bytes under f/ = both jobs' io_bytes" \
		"$(sum_under r.json "$PWD/f/" read_bytes)" "$bytes"
	expect_eq "vfs.interfaces.aio.reads" "$(jqr r.json .vfs.interfaces.aio.reads)" "$ios"
	expect_eq "two owners, one per job" "$(jqr r.json '[.threads[] | select(.async_reads > 0)] | length')" 2
	expect_eq "vfs.async.in_flight_at_end" "$(jqr r.json .vfs.async.in_flight_at_end)" 0
	expect_eq "lost.async_untracked" "$(jqr r.json .lost.async_untracked)" 0
}

# check_file_depth NAME: the async reads of each of fio's files, and their
# queue depth on the file: each file's async_reads equals its reads in
# fio's I/O log; its mean depth at submit is in (1, 8] (fio keeps 8 in
# flight over few files) and its max at most 8; none is in flight at the
# end, and every file was known at its reads' submit.
check_file_depth() {
	local j=$1.json dir=$PWD/f/
	need_uring_layer "$j"
	iolog_files "$1.iolog" | awk '{ print $1, $2 }' >"$1.fio.txt"
	jq -r --arg p "$dir" '.files[] | select(.path != null and (.path | startswith($p))
		and .reads > 0) | "\(.path) \(.async_reads)"' "$j" | sort >"$1.ios.txt"
	expect_eq "files fio read" "$(wc -l <"$1.fio.txt")" "${ASYNC_NRFILES:-200}"
	cmp -s "$1.fio.txt" "$1.ios.txt" ||
		fail "iostorm's async reads per file (>) are not fio's (<): $(diff "$1.fio.txt" "$1.ios.txt" | head -10)"
	echo "  each file's async_reads = its reads in fio's log: $(tr '\n' ' ' <"$1.ios.txt")"
	local sel='.files[] | select(.path != null and (.path | startswith($p)) and .reads > 0)'
	expect_eq "files whose mean depth at submit is not in (1, $ASYNC_DEPTH]" \
		"$(jq --arg p "$dir" "[$sel | select(.async_depth_mean <= 1 or
			.async_depth_mean > $ASYNC_DEPTH)] | length" "$j")" 0
	echo "  means: $(jq -r --arg p "$dir" "[$sel | .async_depth_mean] | map(. * 100 | round / 100) | join(\" \")" "$j")"
	expect_cmp "deepest file queue" "$(jq --arg p "$dir" "[$sel | .async_depth_max] | max" "$j")" \
		'<=' $ASYNC_DEPTH
	expect_cmp "shallowest file max" "$(jq --arg p "$dir" "[$sel | .async_depth_max] | min" "$j")" \
		'>' 1
	expect_eq "file reads in flight at the end" "$(sum_under "$j" "$dir" async_inflight_end)" 0
	expect_eq "file reads unresolved at submit" "$(sum_under "$j" "$dir" async_unresolved)" 0
	expect_eq "vfs.async.file_unresolved" "$(jqr "$j" .vfs.async.file_unresolved)" 0
	expect_cmp "vfs.async.file_depth_mean" "$(jqr "$j" .vfs.async.file_depth_mean)" '>' 1
	expect_cmp "vfs.async.file_depth_max" "$(jqr "$j" .vfs.async.file_depth_max)" '<=' $ASYNC_DEPTH
	expect_eq "lost.async_files_full" "$(jqr "$j" .lost.async_files_full)" 0
	expect_eq "vfs.async.in_flight_at_end" "$(jqr "$j" .vfs.async.in_flight_at_end)" 0
}

# Queue depth per file: 512 reads over 4 files of 1 MiB, 8 in flight; fio
# takes the files in turn, so each has about 2 in flight. One test per
# engine: AIO, io_uring entered by the job, with registered files (the
# file found in the ring's fixed-file table at submit), and with SQPOLL
# (the kernel's thread submits, with the process's fd table).
test_async_file_depth_libaio() {
	local ASYNC_NRFILES=4 ASYNC_FILESIZE=1m
	async_layout
	async_run r libaio
	check_file_depth r
}

test_async_file_depth_io_uring() {
	local ASYNC_NRFILES=4 ASYNC_FILESIZE=1m
	async_layout
	async_run r io_uring
	check_file_depth r
}

test_async_file_depth_io_uring_registerfiles() {
	local ASYNC_NRFILES=4 ASYNC_FILESIZE=1m
	need_uring_opt registerfiles
	async_layout
	async_run r io_uring --registerfiles=1
	check_file_depth r
}

test_async_file_depth_io_uring_sqthread_poll() {
	local ASYNC_NRFILES=4 ASYNC_FILESIZE=1m
	need_uring_opt sqthread_poll
	async_layout
	async_run r io_uring --sqthread_poll=1
	check_file_depth r
}

# The depth per file, exactly: the loader (tests/uring.c) reads each file
# in 4 KiB READs, 8 in flight, its first 8 (or all, when fewer) submitted
# in one io_uring_enter. The files are cached, so each read completes at
# once but its completion is posted only when the batch is in: the batch's
# k-th read finds k on its file, and a file of n chunks has its max depth
# exactly min(n, 8). Its async_reads are its n chunks.
test_async_file_depth_exact() {
	local uring=$ROOT/.output/iostorm-uring dir
	[ -x "$uring" ] || fail "no $uring: make all (liburing-dev, scripts/deps.sh --test)"
	"$WORKLOAD" gen data --files 40 --dirs 1 --min-size 8000 --max-size 60000 \
		>/dev/null || fail "gen"
	dir=$(ls -d "$PWD"/data/*/ | head -n 1)
	cat "$dir"* >/dev/null
	(cd "$dir" && stat -c '%n %s' *) | awk -v d="$dir" '{ n = int(($2 + 4095) / 4096)
		printf "%s%s %d %d\n", d, $1, n, n < 8 ? n : 8 }' | sort >want.txt
	"$IOSTORM" -q -j u.json -- "$uring" "$dir" --chunk 4096 --depth 8 --tally u.tally \
		2>u.err || fail "iostorm exit $?: $(cat u.err)"
	need_uring_layer u.json
	jq -r --arg p "$dir" '.files[] | select(.path != null and (.path | startswith($p))
		and .reads > 0) | "\(.path) \(.async_reads) \(.async_depth_max)"' u.json |
		sort >got.txt
	expect_eq "files read" "$(wc -l <got.txt)" 40
	expect_cmp "files of fewer than 8 chunks" "$(awk '$3 < 8' want.txt | wc -l)" '>' 0
	expect_cmp "files of 8 chunks or more" "$(awk '$3 == 8' want.txt | wc -l)" '>' 0
	cmp -s want.txt got.txt ||
		fail "per file async reads and max depth (>) are not the chunks and min(chunks, 8) (<): $(diff want.txt got.txt | head -10)"
	echo "  each file: async_reads = its chunks, async_depth_max = min(chunks, 8): $(awk '{ print $3 }' got.txt | sort -n | uniq -c | awk '{ printf "%s files at %s; ", $1, $2 }')"
	expect_eq "reads whose file was known only at completion" \
		"$(jqr u.json .vfs.async.file_unresolved)" 0
	expect_eq "file reads in flight at the end" "$(sum_under u.json "$dir" async_inflight_end)" 0
	expect_eq "lost" "$(jqr u.json .lost.total)" 0
}

# A read whose file is not there at its submit: the loader opens each file
# into a fixed-file slot and submits its first READ of that slot linked to
# the OPENAT, in one io_uring_enter (--direct). That READ's file is found
# only at its completion: it counts in the file's async_reads and in
# async_unresolved and vfs.async.file_unresolved (one per file, exactly),
# in no depth. The other reads are submitted once the slot is filled: found
# at submit, up to 7 at once (8 in flight, the first one's completion not
# yet taken), so a file of n chunks has its max depth exactly min(n - 1, 7).
test_async_file_unresolved() {
	local uring=$ROOT/.output/iostorm-uring dir
	[ -x "$uring" ] || fail "no $uring: make all (liburing-dev, scripts/deps.sh --test)"
	"$WORKLOAD" gen data --files 30 --dirs 1 --min-size 8000 --max-size 60000 \
		>/dev/null || fail "gen"
	dir=$(ls -d "$PWD"/data/*/ | head -n 1)
	cat "$dir"* >/dev/null
	(cd "$dir" && stat -c '%n %s' *) | awk -v d="$dir" '{ n = int(($2 + 4095) / 4096)
		printf "%s%s %d 1 %d\n", d, $1, n, n - 1 < 7 ? n - 1 : 7 }' | sort >want.txt
	"$IOSTORM" -q -j u.json -- "$uring" "$dir" --chunk 4096 --depth 8 --direct \
		--tally u.tally 2>u.err || fail "iostorm exit $?: $(cat u.err)"
	need_uring_layer u.json
	jq -r --arg p "$dir" '.files[] | select(.path != null and (.path | startswith($p))
		and .reads > 0) | "\(.path) \(.async_reads) \(.async_unresolved) \(.async_depth_max)"' \
		u.json | sort >got.txt
	expect_eq "files read" "$(wc -l <got.txt)" 30
	cmp -s want.txt got.txt ||
		fail "per file async reads, unresolved and max depth (>) are not chunks, 1 and min(chunks - 1, 7) (<): $(diff want.txt got.txt | head -10)"
	echo "  each file: async_reads = its chunks, async_unresolved = 1, async_depth_max = min(chunks - 1, 7)"
	expect_eq "vfs.async.file_unresolved = the files" "$(jqr u.json .vfs.async.file_unresolved)" 30
	expect_eq "vfs.interfaces.io_uring.reads = the loader's" \
		"$(jqr u.json .vfs.interfaces.io_uring.reads)" "$(awk '$1 == "reads" { print $2 }' u.tally)"
	expect_eq "file reads in flight at the end" "$(sum_under u.json "$dir" async_inflight_end)" 0
	expect_eq "lost" "$(jqr u.json .lost.total)" 0
}

# The per-file async tables hold what is live, not the trace's files: with
# --map-files 1024 they have 1,024 entries each, and the loader (as in
# test_async_file_depth_exact) reads 2,500 files through io_uring, 300 us
# of compute after each, with no scheduled drain (--drain 1000): the early
# drains of the files table take each interval's async reads out of the
# kernel and its files' counts at 0. Every file's async_reads is its chunks
# and its max depth min(chunks, 8), exactly, and nothing is lost.
test_async_files_bounded_across_drains() {
	local uring=$ROOT/.output/iostorm-uring dir n=2500
	[ -x "$uring" ] || fail "no $uring: make all (liburing-dev, scripts/deps.sh --test)"
	"$WORKLOAD" gen data --files $n --dirs 1 --min-size 3000 --max-size 40000 \
		>/dev/null || fail "gen"
	dir=$(ls -d "$PWD"/data/*/ | head -n 1)
	cat "$dir"* >/dev/null
	(cd "$dir" && stat -c '%n %s' *) | awk -v d="$dir" '{ n = int(($2 + 4095) / 4096)
		printf "%s%s %d %d\n", d, $1, n, n < 8 ? n : 8 }' | sort >want.txt
	"$IOSTORM" -q --map-files 1024 --drain 1000 -j u.json -- "$uring" "$dir" --chunk 4096 \
		--depth 8 --cpu-us 300 --tally u.tally 2>u.err || fail "iostorm exit $?: $(cat u.err)"
	need_uring_layer u.json
	jq -r --arg p "$dir" '.files[] | select(.path != null and (.path | startswith($p))
		and .reads > 0) | "\(.path) \(.async_reads) \(.async_depth_max)"' u.json |
		sort >got.txt
	expect_eq "files read" "$(wc -l <got.txt)" $n
	cmp -s want.txt got.txt ||
		fail "per file async reads and max depth (>) are not the chunks and min(chunks, 8) (<): $(diff want.txt got.txt | head -10)"
	echo "  each file: async_reads = its chunks, async_depth_max = min(chunks, 8)"
	expect_eq "async reads, all files = the loader's reads" \
		"$(sum_under u.json "$dir" async_reads)" "$(awk '$1 == "reads" { print $2 }' u.tally)"
	local k
	for k in async_files async_file_sums; do
		expect_eq "store.kernel_tables.$k.entries" \
			"$(jqr u.json ".store.kernel_tables.$k.entries")" 1024
		expect_cmp "store.kernel_tables.$k.high" \
			"$(jqr u.json ".store.kernel_tables.$k.high")" '<' 1024
	done
	expect_cmp "early drains" "$(jqr u.json .store.drains)" '>=' 3
	expect_eq "lost.async_files_full" "$(jqr u.json .lost.async_files_full)" 0
	expect_eq "lost.async_file_sums_full" "$(jqr u.json .lost.async_file_sums_full)" 0
	expect_eq "file reads in flight at the end" "$(sum_under u.json "$dir" async_inflight_end)" 0
	expect_eq "lost" "$(jqr u.json .lost.total)" 0
}
