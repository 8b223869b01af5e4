# Paths in two views: a job in its own mount namespace (a dataset
# bind-mounted at /srv/data), in a chroot, and after pivot_root into a
# directory. Every file of the job is reported with its host path (which
# exists on the host with the same dev:ino) and its job path (which is
# what the job opened), counts exact; fd-only, stat-only and mmap-only
# files included. A mixed run keeps the host's and the job's views apart.

# views_on_exit CMD: run CMD when the test's subshell exits (CMD ends in || true).
views_on_exit() {
	VIEWS_ON_EXIT="$1; ${VIEWS_ON_EXIT:-}"
	trap 'eval "$VIEWS_ON_EXIT"' EXIT
}

# views_dataset DIR: DIR/img (the workload's 60 files), DIR/fd.bin (read
# through an fd opened before the attach), DIR/mm.bin (mapped through
# such an fd), DIR/st/s0..s4 (only stat()ed).
views_dataset() {
	"$WORKLOAD" gen "$1/img" --files 60 --dirs 3 >/dev/null || fail "gen"
	head -c 20000 /dev/urandom >"$1/fd.bin" &&
	head -c 40960 /dev/urandom >"$1/mm.bin" &&
	mkdir "$1/st" && for i in 0 1 2 3 4; do echo "$i" >"$1/st/s$i"; done ||
		fail "dataset"
}

# views_root DIR: a root for chroot or pivot_root: /usr bind-mounted by the
# job, lib, lib64 and bin as on Debian, /proc, /dev (whose null is a plain
# file), the workload, a dataset.
views_root() {
	mkdir -p "$1/usr" "$1/proc" "$1/old" "$1/data" "$1/dev" || fail "mkdir $1"
	ln -s usr/lib "$1/lib" && ln -s usr/lib64 "$1/lib64" && ln -s usr/bin "$1/bin" &&
		cp "$WORKLOAD" "$1/workload" || fail "root $1"
	views_dataset "$1/data"
}

# views_job DATA WORKLOAD GATE TALLY: the job's script, in its own view: an
# fd opened before the gate (iostorm attaches meanwhile), then a read of
# it, a mapping of another, stats, and the workload's reads.
views_job() {
	cat <<EOF
exec 3<$1/fd.bin 4<$1/mm.bin
read _ <$3
cat <&3 | wc -c >/dev/null
python3 -c 'import mmap; m = mmap.mmap(4, 0, prot=mmap.PROT_READ); print(sum(m[::4096]))' >/dev/null
stat $1/st/s0 $1/st/s1 $1/st/s2 $1/st/s3 $1/st/s4 >/dev/null
exec $2 read $1/img --threads 2 --tally $4 --tally-files
EOF
}

# views_trace PID OUT: attach to PID waiting at ./gate (host path GATE), open it.
views_trace() {
	wait_at_gate "$1"
	"$IOSTORM" -p "$1" -q -j "$2" 2>err.txt &
	local ipid=$!
	wait_for err.txt "Ctrl-C to stop"
	echo go >"$3"
	wait "$1" || fail "job"
	wait $ipid || fail "iostorm exit $?: $(cat err.txt)"
}

# views_rec OUT JOBPATH: the report's record of the file the job knew as JOBPATH.
views_rec() {
	jq -c --arg p "$2" '[.files[] | select(.job_path == $p)] | if length == 1 then .[0] else error("\(length) records") end' "$1" ||
		fail "$2: not one record with that job_path ($(jq -c '[.files[] | select(.view) | .job_path]' "$1"))"
}

# views_check OUT TALLY HOSTDIR JOBDIR: the job's files in OUT, seen at
# JOBDIR by the job, are at HOSTDIR on the host: per-file counts equal the
# workload's tally, every host path names the same dev:ino on the host.
views_check() {
	local out=$1 t=$2 hd=$3 jd=$4 line jp rec k host want
	local -a files=(fd.bin mm.bin st/s0 st/s1 st/s2 st/s3 st/s4)
	while read -r line; do
		jp=${line##* path=}
		files+=("${jp#$jd/}")
		rec=$(views_rec "$out" "$jp")
		for k in opens reads read_bytes stats closes; do
			expect_eq "$jp $k" "$(jq -r ".$k" <<<"$rec")" \
				"$(echo "$line" | tr ' ' '\n' | sed -n "s/^$k=//p")"
		done
	done < <(grep '^file ' "$t")
	expect_eq "files the workload read" "$(grep -c '^file ' "$t")" 60
	for k in "${files[@]}"; do
		rec=$(views_rec "$out" "$jd/$k")
		host=$(jq -r .path <<<"$rec")
		expect_eq "$k on the host" "$host" "$hd/$k"
		want=$(stat -c '%d %i' "$hd/$k") || fail "stat $hd/$k"
		expect_eq "$k dev:ino" "$(python3 -c 'import os, sys; d, i = sys.argv[1].split(":"), sys.argv[2]
print(os.makedev(int(d[0]), int(d[1])), i)' "$(jq -r .dev <<<"$rec")" "$(jq -r .ino <<<"$rec")")" "$want"
	done
	rec=$(views_rec "$out" "$jd/fd.bin")
	expect_eq "fd.bin: read, never opened" "$(jq -c '[.opens, .read_bytes]' <<<"$rec")" "[0,20000]"
	rec=$(views_rec "$out" "$jd/mm.bin")
	expect_eq "mm.bin: mapped, never opened" "$(jq -c '[.opens, .mmaps]' <<<"$rec")" "[0,1]"
	for k in 0 1 2 3 4; do
		rec=$(views_rec "$out" "$jd/st/s$k")
		expect_eq "st/s$k: stat only" "$(jq -c '[.opens, .reads, (.stats > 0)]' <<<"$rec")" "[0,0,true]"
	done
	expect_eq "job files (regular) under $jd" \
		"$(jq --arg p "$jd/" '[.files[] | select(.type == "file" and (.job_path // "" | startswith($p)))] | length' "$out")" 67
	expect_eq "host paths under the job's view" \
		"$(jq --arg p "$jd/" '[.files[] | select(.path // "" | startswith($p))] | length' "$out")" 0
	expect_eq "lost" "$(jqr "$out" .lost.total)" 0
}

# A private mount namespace with the dataset bind-mounted at /srv/data (on
# a tmpfs over /srv, in that namespace only).
test_views_bind_mount() {
	command -v unshare >/dev/null && command -v python3 >/dev/null || skip "no unshare or python3"
	mkdir ds && views_dataset "$PWD/ds"
	mkfifo gate
	views_job /srv/data "$WORKLOAD" "$PWD/gate" "$PWD/tally" >job.sh
	unshare -m --propagation private sh -c "mount -t tmpfs iostorm-views /srv &&
		mkdir /srv/data && mount --bind $PWD/ds /srv/data && exec sh $PWD/job.sh" &
	views_trace $! out.json gate
	views_check out.json tally "$PWD/ds" /srv/data
}

# A chroot (in a mount namespace of its own, for /usr).
test_views_chroot() {
	command -v unshare >/dev/null && command -v python3 >/dev/null || skip "no unshare or python3"
	views_root "$PWD/R"
	mkfifo R/gate
	views_job /data /workload /gate /tally >R/job.sh
	unshare -m --propagation private sh -c "mount --bind /usr $PWD/R/usr &&
		exec chroot $PWD/R sh /job.sh" &
	views_trace $! out.json R/gate
	views_check out.json R/tally "$PWD/R/data" /data
	expect_eq "the job's root, named once" \
		"$(jq -r '[.views[] | select(.root == "'"$PWD/R"'")] | length' out.json)" 1
}

# pivot_root into a directory, the old root unmounted, as a container runtime does.
test_views_pivot_root() {
	command -v unshare >/dev/null && command -v python3 >/dev/null || skip "no unshare or python3"
	views_root "$PWD/P"
	mkfifo P/gate
	views_job /data /workload /gate /tally >P/job.sh
	unshare -m --propagation private sh -c "mount --bind $PWD/P $PWD/P &&
		mount --bind /usr $PWD/P/usr && cd $PWD/P && pivot_root . old &&
		mount -t proc proc /proc && umount -l /old && exec sh /job.sh" &
	views_trace $! out.json P/gate
	views_check out.json P/tally "$PWD/P/data" /data
}

# A host reader and a namespaced reader in one run: the host's files have
# no job path, the job's have theirs, and no host path is a job's.
test_views_mixed() {
	command -v unshare >/dev/null || skip "no unshare"
	"$WORKLOAD" gen hds --files 50 --dirs 2 >/dev/null &&
	"$WORKLOAD" gen jds --files 70 --dirs 2 >/dev/null || fail "gen"
	"$IOSTORM" -j out.json -- sh -c "$WORKLOAD read $PWD/hds --tally th --tally-files &
		unshare -m --propagation private sh -c 'mount -t tmpfs iostorm-views /srv &&
			mkdir /srv/data && mount --bind $PWD/jds /srv/data &&
			exec $WORKLOAD read /srv/data --tally tj --tally-files'; wait" >report.txt 2>err.txt ||
		fail "iostorm exit $?: $(cat err.txt)"
	local n
	n=$(jq --arg p "$PWD/hds/" '[.files[] | select(.type == "file" and (.path // "" | startswith($p)))] | length' out.json)
	expect_eq "host reader's files at host paths" "$n" "$(tally th files)"
	expect_eq "... none with a job path" "$(jq --arg p "$PWD/hds/" '[.files[] | select((.path // "" | startswith($p)) and .job_path)] | length' out.json)" 0
	n=$(jq --arg p "$PWD/jds/" '[.files[] | select(.type == "file" and (.path // "" | startswith($p)) and (.job_path // "" | startswith("/srv/data/")))] | length' out.json)
	expect_eq "job's files at host paths, with job paths" "$n" "$(tally tj files)"
	expect_eq "job paths as the job opened them" \
		"$(jq -r '.files[] | select(.type == "file" and (.job_path // "" | startswith("/srv/data/"))) | .job_path' out.json | sort)" \
		"$(sed -n 's/^file .* path=//p' tj | sort)"
	expect_eq "host paths that are a job's" "$(jq '[.files[] | select(.path // "" | startswith("/srv/data"))] | length' out.json)" 0
	expect_eq "reads" "$(sum_under out.json "$PWD/hds/" reads) $(sum_under out.json "$PWD/jds/" reads)" \
		"$(tally th reads) $(tally tj reads)"
	grep -q "^paths are the host's" report.txt || fail "the text report does not say which view"
	! grep "^/srv/data" report.txt || fail "a job path in the host's view"
	expect_screen report.txt
}

# iostorm itself in a chroot (as in a container or after kubectl exec), with
# the job in the same root: the host's paths are not in iostorm's root, but
# every file the job read is at its own path there, same device and inode:
# `path` names it (it was null), `job_path` as the job saw it.
test_views_iostorm_in_chroot() {
	command -v unshare >/dev/null || skip "no unshare"
	views_root "$PWD/R"
	mkdir -p R/sys R/iostorm-bin || fail "mkdir"
	cp "$IOSTORM" R/iostorm-bin/iostorm || fail "cp iostorm"
	unshare -m --propagation private sh -c "mount --bind /usr $PWD/R/usr &&
		mount --rbind /sys $PWD/R/sys && mount -t proc proc $PWD/R/proc &&
		mount --bind /dev $PWD/R/dev &&
		exec chroot $PWD/R /iostorm-bin/iostorm -q -j /out.json -- \
			/workload read /data/img --threads 2 --tally /tally" 2>err.txt ||
		fail "iostorm in the chroot: $(cat err.txt)"
	expect_eq "files the workload read" "$(tally R/tally files)" 60
	local k rec jp n=0
	for jp in $(jq -r '.files[] | select(.type == "file" and (.job_path // .path // "" | startswith("/data/img/"))) | .job_path // .path' R/out.json); do
		rec=$(views_rec R/out.json "$jp")
		[ "$(jq -r .path <<<"$rec")" = "$jp" ] || fail "$jp: path $(jq -r .path <<<"$rec")"
		n=$((n + 1))
	done
	expect_eq "files named at their path in iostorm's root" "$n" 60
}
