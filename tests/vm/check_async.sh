# io_uring and Linux AIO: fio (Debian's) reads through each engine, and
# iostorm's per-file reads and bytes under its directory equal fio's own
# totals, as do the interface's figures; where the kernel's io_uring
# tracepoints cannot be used (or no_uring is forced), the io_uring figures
# are null and the layer is said not measured. Buffered reads of files fio
# lays out in the guest's tmpfs, and direct reads of the disk's 16 MiB file.

# fio_total FIO.json FIELD: fio's read total_ios or io_bytes.
fio_total() {
	jq -r ".jobs[0].read.$2" "$1" 2>/dev/null
}

# async_files NAME DIR BASE: the async reads of each file under DIR, those
# fio asked for: every read of each file went through the engine, the files'
# depth at submit is at most fio's iodepth (8), none is in flight at the end,
# and every file was known at its reads' submit. Where io_uring is not
# measured, a file's async figures are null (its io_uring reads would be
# missing from them), AIO's too.
# skipped_io REPORT: the runs of the syscall and io_uring programs the
# kernel skipped (lib.sh check_eq_skipped).
skipped_io() {
	jqr "$1" '.kernel.layers.syscalls.skipped_runs + .kernel.layers.io_uring.skipped_runs'
}

# check_depth WHAT JSON DEPTH: a file's deepest queue is at most fio's
# iodepth (8), exactly so when the kernel skipped no run of the programs
# that count reads in flight. Where it skipped some (7.x), a skipped
# completion leaves its read counted in flight: the report must say the
# maximum is an upper bound, and it may pass 8 by at most the runs skipped.
check_depth() {
	local skipped
	skipped=$(skipped_io "$2")
	if [ "${skipped:-0}" = 0 ]; then
		check_cmp "$1" "$3" '<=' 8
		check_eq "$1: said exact (file_depth_max_upper_bound)" \
			"$(jqr "$2" .vfs.async.file_depth_max_upper_bound)" false
	else
		check_cmp "$1 (8, or more by at most the $skipped runs the kernel skipped)" \
			"$3" '<=' $((8 + skipped))
		check_eq "$1: said an upper bound (file_depth_max_upper_bound)" \
			"$(jqr "$2" .vfs.async.file_depth_max_upper_bound)" true
	fi
}

async_files() {
	local name=$1 dir=$2 base=$3 j=$1.json
	if ! kernel_has_layer io_uring; then
		check_eq "$name: files' async reads not measured (null)" \
			"$(jq '[.files[] | select(.async_reads != null)] | length' "$j")" 0
		return 0
	fi
	check_eq_skipped "$name: async reads under $base = fio's" \
		"$(sum_under "$j" "$dir" async_reads)" "$(fio_total "$name.fio.json" total_ios)" \
		"$(skipped_io "$j")"
	check_eq "$name: files under $base whose async reads are not their reads" \
		"$(jq --arg p "$dir" '[.files[] | select(.path != null and (.path | startswith($p)))
			| select(.async_reads != .reads)] | length' "$j")" 0
	check_depth "$name: deepest file queue under $base" "$j" "$(jq --arg p "$dir" '[.files[] |
		select(.path != null and (.path | startswith($p))) | .async_depth_max] | max' "$j")"
	check_eq "$name: file reads in flight at the end" \
		"$(sum_under "$j" "$dir" async_inflight_end)" 0
	check_eq "$name: reads whose file was known only at completion" \
		"$(jqr "$j" .vfs.async.file_unresolved)" 0
}

async_engine() {
	local name=$1 dir=$2 base=$3 want iface
	shift 3
	traced "$name" -q -j "$name.json" -- fio --name=j --output-format=json \
		--output="$name.fio.json" --rw=randread --bs=16k --iodepth=8 "$@" || return 1
	want=$(fio_total "$name.fio.json" total_ios)
	case $name in *io_uring*)
		if ! kernel_has_layer io_uring; then
			check_eq "$name: io_uring reads not measured (null)" \
				"$(jqr "$name.json" .vfs.interfaces.io_uring.reads)" null
			check_eq "$name: io_uring layer said not measured" \
				"$(jqr "$name.json" .kernel.layers.io_uring.measured)" false
			check_eq "$name: files' async reads not measured (null)" \
				"$(jq '[.files[] | select(.async_reads != null)] | length' \
					"$name.json")" 0
			return 0
		fi
	esac
	check_eq_skipped "$name: reads under $base = fio's" \
		"$(sum_under "$name.json" "$dir" reads)" "$want" "$(skipped_io "$name.json")"
	check_eq_skipped "$name: 16 KiB blocks under $base = fio's" \
		"$(($(sum_under "$name.json" "$dir" read_bytes) / 16384))" \
		"$(($(fio_total "$name.fio.json" io_bytes) / 16384))" "$(skipped_io "$name.json")"
	check_eq "$name: in flight at the end" "$(jqr "$name.json" .vfs.async.in_flight_at_end)" 0
	case $name in
	*psync*)
		check_eq "$name: AIO reads" "$(jqr "$name.json" .vfs.interfaces.aio.reads)" 0
		check_eq "$name: read() reads cover fio's" "$(jqr "$name.json" \
			".vfs.interfaces.syscall.reads >= $want")" true
		return 0 ;;
	*libaio*) iface=aio ;;
	*) iface=io_uring ;;
	esac
	check_eq_skipped "$name: $iface reads = fio's" \
		"$(jqr "$name.json" ".vfs.interfaces.$iface.reads")" "$want" \
		"$(skipped_io "$name.json")"
	check_eq "$name: async reads untracked" "$(jqr "$name.json" .lost.async_untracked)" 0
	async_files "$name" "$dir" "$base"
}

# The project's io_uring loader (tests/uring.c): STATX, OPENAT, READs and
# CLOSE of each file of a class directory, counted per file and on the
# interface as its tally says.
async_meta() {
	local dir k want
	dir=$(ls -d "$DATA"/data/*/ | head -n 1)
	traced async-meta -q -j m.json -- "$ROOT/.output/iostorm-uring" "$dir" \
		--tally m.tally || return 1
	for k in opens stats reads read_bytes closes; do
		want=$(awk -v k=$k '$1 == k { print $2 }' m.tally)
		if kernel_has_layer io_uring; then
			check_eq_skipped "async-meta: $k under ${dir#"$DATA"/} = the loader's" \
				"$(sum_under m.json "$dir" $k)" "$want" "$(skipped_io m.json)"
		fi
	done
	if kernel_has_layer io_uring; then
		for k in opens stats closes; do
			check_eq_skipped "async-meta: io_uring $k = the loader's" \
				"$(jqr m.json ".vfs.interfaces.io_uring.$k")" \
				"$(awk -v k=$k '$1 == k { print $2 }' m.tally)" "$(skipped_io m.json)"
		done
		check_eq_skipped "async-meta: async reads under ${dir#"$DATA"/} = the loader's" \
			"$(sum_under m.json "$dir" async_reads)" \
			"$(awk '$1 == "reads" { print $2 }' m.tally)" "$(skipped_io m.json)"
		check_depth "async-meta: deepest file queue" m.json "$(jq --arg p "$dir" '[.files[] |
			select(.path != null and (.path | startswith($p))) | .async_depth_max] |
			max' m.json)"
		check_eq "async-meta: reads whose file was known only at completion" \
			"$(jqr m.json .vfs.async.file_unresolved)" 0
	else
		check_eq "async-meta: io_uring opens not measured (null)" \
			"$(jqr m.json .vfs.interfaces.io_uring.opens)" null
	fi
}

# The loader with --direct: each file opened into a fixed-file slot, its
# first READ linked to the open and submitted with it, the slot still empty
# then: one read a file found only at its completion, counted so, exactly.
async_direct() {
	local dir n
	kernel_has_layer io_uring || return 0
	dir=$(ls -d "$DATA"/data/*/ | sed -n 2p)
	n=$(ls "$dir" | wc -l)
	traced async-direct -q -j d.json -- "$ROOT/.output/iostorm-uring" "$dir" --direct \
		--tally d.tally || return 1
	check_eq_skipped "async-direct: async reads under ${dir#"$DATA"/} = the loader's" \
		"$(sum_under d.json "$dir" async_reads)" "$(awk '$1 == "reads" { print $2 }' d.tally)" \
		"$(skipped_io d.json)"
	check_eq "async-direct: reads whose file was known only at completion = files" \
		"$(jqr d.json .vfs.async.file_unresolved)" "$n"
	check_eq "async-direct: files with one such read" "$(jq --arg p "$dir" '[.files[] |
		select(.path != null and (.path | startswith($p))) | select(.async_unresolved == 1)] |
		length' d.json)" "$n"
}

check_async() {
	local f0=$FAILED d=$PWD/fio
	if ! command -v fio >/dev/null; then
		flunk "async: no fio (apt-get install fio)"
		return 1
	fi
	if kernel_has_layer io_uring; then
		check_eq "async: io_uring layer measured" "$("$IOSTORM" --check 2>&1 |
			awk '$1 == "io_uring" { print $2 }')" yes
	else
		check_eq "async: io_uring layer not measured" "$("$IOSTORM" --check 2>&1 |
			awk '$1 == "io_uring" { print $2 }')" no
	fi
	mkdir "$d"
	fio --name=j --directory="$d" --nrfiles=50 --filesize=64k --create_only=1 \
		--rw=randread >/dev/null 2>&1
	for e in psync libaio io_uring; do
		async_engine "async-$e" "$d/" fio/ --directory="$d" --nrfiles=50 \
			--filesize=64k --io_size=2m --ioengine="$e"
	done
	async_engine async-io_uring-sqpoll "$d/" fio/ --directory="$d" --nrfiles=50 \
		--filesize=64k --io_size=2m --ioengine=io_uring --sqthread_poll=1
	# Registered files: each read's file found at submit in the ring's
	# fixed-file table, whose layout differs between 6.1/6.12 and 6.13+.
	async_engine async-io_uring-registerfiles "$d/" fio/ --directory="$d" --nrfiles=4 \
		--filesize=64k --io_size=2m --ioengine=io_uring --registerfiles=1
	for e in libaio io_uring; do
		async_engine "async-$e-direct" "$DATA/big" big --filename="$DATA/big" \
			--readonly --direct=1 --io_size=4m --ioengine="$e"
	done
	async_meta
	async_direct
	[ "$FAILED" = "$f0" ]
}
