# FUSE and network storage: iostorm's FUSE request counts against a FUSE
# file system's own tally, files per mount, and sshfs over an emulated
# network made (and torn down) by the test on this machine only.

FUSEFS=$ROOT/.output/iostorm-fusefs
FUSE_DELAY_US=2100

# fuse_on_exit CMD: as test_block.sh's on_exit, kept apart from it.
fuse_on_exit() {
	FUSE_ON_EXIT="$1; ${FUSE_ON_EXIT:-}"
	trap 'set +e; eval "$FUSE_ON_EXIT"' EXIT
}

# fusefs_mount DIR FILES DIRS [OPTION...]: the test file system at ./DIR,
# tallying into ./fusefs.tally when unmounted (fusefs_umount). OPTIONs
# (iostorm-fusefs's --size, --delay-us, --no-dtype) override the defaults.
fusefs_mount() {
	[ -x "$FUSEFS" ] || skip "iostorm-fusefs not built (libfuse3-dev missing)"
	[ -c /dev/fuse ] || skip "no /dev/fuse"
	local dir=$1 files=$2 dirs=$3 i
	shift 3
	mkdir -p "$dir"
	"$FUSEFS" "$PWD/$dir" --files "$files" --dirs "$dirs" --size 81920 \
		--delay-us $FUSE_DELAY_US "$@" --tally "$PWD/fusefs.tally" 2>fusefs.err &
	FUSEFS_PID=$!
	fuse_on_exit "fusermount3 -u -z $PWD/$dir 2>/dev/null; kill $FUSEFS_PID 2>/dev/null"
	for ((i = 0; i < 50; i++)); do
		grep -q " $PWD/$dir fuse.iostormfs " /proc/self/mounts && return 0
		sleep 0.1
	done
	fail "iostorm-fusefs did not mount: $(cat fusefs.err)"
}

# fusefs_umount DIR: unmount and wait for the daemon to write its tally.
fusefs_umount() {
	fusermount3 -u "$PWD/$1" || fail "fusermount3 -u $1"
	wait "$FUSEFS_PID" || fail "iostorm-fusefs exit $?"
	[ -s fusefs.tally ] || fail "no tally from iostorm-fusefs"
}

# The histogram slot of a value (bpf/hist_slot.h), for "within one bucket".
hist_slot() {
	awk -v v="$1" 'BEGIN { if (v < 16) { print v; exit }
		m = 0; x = v; while (x >= 2) { x = int(x / 2); m++ }
		print (m - 3) * 16 + int(v / 2 ^ (m - 4)) % 16 }'
}

# fuse_op FILE OPCODE FILTER: FILTER on OPCODE's entry of the first connection.
fuse_op() {
	jq -r --arg o "$2" "[.fuse.connections[0].ops[] | select(.opcode == \$o) | $3] | add // 0" "$1" ||
		fail "jq on $1"
}

# Every opcode the daemon tallied (FORGETs are not requests the tracepoints
# see: the kernel queues them apart) equals what iostorm saw end, plus
# those still in flight at the end.
expect_tally_equal() {
	local op n got
	while read -r op n; do
		case $op in FORGET|BATCH_FORGET) continue ;; esac
		got=$(fuse_op "$1" "$op" '.all.reqs + .inflight_end')
		expect_eq "$op requests (daemon's tally $n)" "$got" "$n"
	done < fusefs.tally
	expect_eq "opcodes seen by iostorm but not by the daemon" \
		"$(jq -r '.fuse.connections[0].ops[].opcode' "$1" | grep -vxFf <(awk '{print $1}' fusefs.tally) | tr '\n' ' ')" ""
}

test_fuse_requests_exact() {
	fusefs_mount mnt 200 2
	"$IOSTORM" -q -j r.json --prom-file m.prom -- "$WORKLOAD" read mnt --tally wl.txt --tally-files ||
		fail "iostorm exit $?"
	fusefs_umount mnt
	expect_tally_equal r.json
	# direct_io: one READ per read() (EOF reads too), bytes exactly.
	expect_eq "READ requests = read() calls" "$(fuse_op r.json READ .target.reqs)" \
		"$(tally wl.txt reads)"
	expect_eq "READ bytes = bytes read" "$(fuse_op r.json READ .target.out_bytes)" \
		"$(tally wl.txt read_bytes)"
	expect_eq "OPEN requests" "$(fuse_op r.json OPEN .target.reqs)" "$(tally wl.txt opens)"
	# The metrics say the same, per mount and opcode.
	expect_eq "metrics: READ requests" "$(sed -n 's/^iostorm_fuse_requests_total{.*opcode="READ",requester="target"} //p' m.prom)" \
		"$(tally wl.txt reads)"
	expect_eq "metrics: READ bytes" "$(sed -n 's/^iostorm_fuse_reply_bytes_total{.*opcode="READ"} //p' m.prom)" \
		"$(tally wl.txt read_bytes)"
	expect_eq "metrics: READ latency count" \
		"$(sed -n 's/^iostorm_fuse_request_latency_seconds_count{.*opcode="READ"} //p' m.prom)" \
		"$(tally wl.txt reads)"
	expect_eq "RELEASE requests" "$(fuse_op r.json RELEASE '.all.reqs + .inflight_end')" \
		"$(tally wl.txt closes)"
	local p50 d s
	p50=$(fuse_op r.json READ .latency.p50)
	d=$(( $(hist_slot $((p50 - 1))) - $(hist_slot $((FUSE_DELAY_US * 1000))) ))
	expect_cmp "READ p50 $p50 ns: buckets above the ${FUSE_DELAY_US} us delay" "$d" '<=' 1
	expect_cmp "READ p50 $p50 ns: buckets above the ${FUSE_DELAY_US} us delay" "$d" '>=' 0
	# The mount's totals are the workload's.
	s=".mounts[] | select(.fstype == \"fuse.iostormfs\")"
	expect_eq "mount files" "$(jqr r.json "$s | .files")" 200
	expect_eq "mount reads" "$(jqr r.json "$s | .reads")" "$(tally wl.txt reads)"
	expect_eq "mount read bytes" "$(jqr r.json "$s | .read_bytes")" "$(tally wl.txt read_bytes)"
	expect_eq "mount of a file" "$(jqr r.json '[.files[] | select(.type == "file" and .path != null and (.path | startswith("'"$PWD"'/mnt/")))][0].mount')" "$PWD/mnt"
	expect_eq "lost" "$(jqr r.json .lost.total)" 0
	expect_eq "verdict names the file system" \
		"$(jqr r.json '.findings[] | select(.id == "fuse_round_trips") | .id')" fuse_round_trips
	grep -q "fuse.iostormfs at $PWD/mnt" <(jqr r.json .verdict) ||
		fail "verdict does not name fuse.iostormfs: $(jqr r.json .verdict)"
	echo "  READ p50 $p50 ns; round trips per file $(jqr r.json '.fuse.connections[0].layers.round_trips_per_file')"
}

# Labels on the local disk (ext4, where the test directory is), images on
# FUSE: each mount gets its own files, and the two are not mixed.
test_fuse_mixed_job() {
	[ "$(stat -f -c %T .)" = ext2/ext3 ] || skip "the test directory is not on ext4"
	fusefs_mount img 100 1
	"$WORKLOAD" gen labels --files 50 --dirs 1 --min-size 1024 --max-size 2048 >/dev/null ||
		fail "gen"
	"$IOSTORM" -q -j r.json -- sh -c "'$WORKLOAD' read labels --tally l.txt &&
		'$WORKLOAD' read img --tally i.txt" || fail "iostorm exit $?"
	fusefs_umount img
	local fuse=".mounts[] | select(.fstype == \"fuse.iostormfs\")" root
	root=$(df --output=target . | tail -n1)
	expect_eq "FUSE mount reads (images)" "$(jqr r.json "$fuse | .reads")" "$(tally i.txt reads)"
	expect_eq "FUSE mount bytes" "$(jqr r.json "$fuse | .read_bytes")" "$(tally i.txt read_bytes)"
	expect_eq "FUSE mount files" "$(jqr r.json "$fuse | .files")" 100
	expect_eq "labels' mount" "$(jqr r.json "[.files[] | select(.path != null and (.path | startswith(\"$PWD/labels/\")))] | map(.mount) | unique | join(\",\")")" "$root"
	expect_eq "labels' reads" "$(sum_under r.json "$PWD/labels/" reads)" "$(tally l.txt reads)"
	expect_eq "labels' bytes" "$(sum_under r.json "$PWD/labels/" read_bytes)" "$(tally l.txt read_bytes)"
	expect_eq "labels on ext4" "$(jqr r.json ".mounts[] | select(.mount_point == \"$root\") | .fstype")" ext4
	expect_tally_equal r.json
}

# sshfs from a network namespace over a veth pair, 1 ms of netem delay each
# way; sshd listens on the namespace's address only, with throwaway keys.
# A kernel without netem (CONFIG_NET_SCH_NETEM unset, as on the development
# VM) runs the test over the bare veth pair and says so: every assertion
# is on counts, none on latency.
SSH_NS=ios12s
SSH_HOST=10.212.12.1
SSH_PEER=10.212.12.2

sshfs_setup() {
	command -v sshfs >/dev/null && [ -x /usr/sbin/sshd ] || skip "sshfs or sshd not installed"
	ip netns add $SSH_NS || skip "cannot make a network namespace"
	# sshd's session processes live in the namespace too: end them all.
	fuse_on_exit "ip netns pids $SSH_NS | xargs -r kill; sleep 0.2; ip netns del $SSH_NS"
	ip link add ios12a type veth peer name ios12b || fail "veth"
	fuse_on_exit "ip link del ios12a 2>/dev/null"
	ip link set ios12b netns $SSH_NS || fail "veth into $SSH_NS"
	ip addr add $SSH_HOST/30 dev ios12a && ip link set ios12a up || fail "ios12a up"
	ip netns exec $SSH_NS sh -c "ip addr add $SSH_PEER/30 dev ios12b && ip link set ios12b up &&
		ip link set lo up" || fail "ios12b up"
	if tc qdisc add dev ios12a root netem delay 1ms 2>/dev/null; then
		ip netns exec $SSH_NS tc qdisc add dev ios12b root netem delay 1ms || fail "netem"
	else
		echo "  no netem in this kernel: veth without added delay"
	fi
	ssh-keygen -q -t ed25519 -N '' -f hostkey && ssh-keygen -q -t ed25519 -N '' -f userkey ||
		fail "ssh-keygen"
	cat > sshd_config <<-EOF
		ListenAddress $SSH_PEER:2212
		HostKey $PWD/hostkey
		AuthorizedKeysFile $PWD/userkey.pub
		PidFile $PWD/sshd.pid
		PermitRootLogin prohibit-password
		StrictModes no
		UsePAM no
		Subsystem sftp internal-sftp
	EOF
	mkdir -p /run/sshd
	ip netns exec $SSH_NS /usr/sbin/sshd -f "$PWD/sshd_config" -D -e 2>sshd.log &
	local sshd=$!
	fuse_on_exit "kill $sshd 2>/dev/null"
	mkdir mnt
	local i
	for ((i = 0; i < 50; i++)); do
		sshfs -o IdentityFile="$PWD/userkey",StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null \
			-o port=2212,direct_io,BatchMode=yes "root@$SSH_PEER:$PWD/data" mnt 2>sshfs.err && break
		sleep 0.1
	done
	grep -q " $PWD/mnt fuse.sshfs " /proc/self/mounts ||
		fail "sshfs did not mount: $(cat sshfs.err sshd.log)"
	fuse_on_exit "fusermount3 -u -z $PWD/mnt"
}

test_fuse_sshfs_netns() {
	gen_data 300 3
	sshfs_setup
	timeout 120 "$IOSTORM" -q -j r.json -- "$WORKLOAD" read mnt --tally wl.txt --tally-files ||
		fail "iostorm exit $?"
	local s=".mounts[] | select(.fstype == \"fuse.sshfs\")" f
	# Per file: opens, reads and bytes equal the workload's.
	while read -r _ opens reads bytes _ _ _ path; do
		f=$(jq -c --arg p "${path#path=}" '.files[] | select(.path == $p) | [.opens, .reads, .read_bytes]' r.json)
		[ "$f" = "[${opens#opens=},${reads#reads=},${bytes#read_bytes=}]" ] ||
			fail "${path#path=}: got $f, expected $opens $reads $bytes"
	done < <(grep '^file ' wl.txt)
	echo "  per-file opens, reads, bytes: $(grep -c '^file ' wl.txt) files exact"
	expect_eq "mount files" "$(jqr r.json "$s | .files")" 300
	expect_eq "mount reads" "$(jqr r.json "$s | .reads")" "$(tally wl.txt reads)"
	expect_eq "mount read bytes" "$(jqr r.json "$s | .read_bytes")" "$(tally wl.txt read_bytes)"
	# direct_io: READ replies carry exactly the bytes read() returned (no
	# readahead, no page cache); sshfs may split a read() into several READs.
	expect_eq "READ bytes = bytes read" "$(fuse_op r.json READ '.target.out_bytes + .background.out_bytes')" \
		"$(tally wl.txt read_bytes)"
	local op
	for op in OPEN READ RELEASE; do
		expect_cmp "$op requests" "$(fuse_op r.json $op .all.reqs)" '>=' 300
	done
	expect_eq "connection's file system" "$(jqr r.json '.fuse.connections[0].fstype')" fuse.sshfs
	grep -q "fuse.sshfs" <(jqr r.json .verdict) ||
		fail "verdict does not name fuse.sshfs: $(jqr r.json .verdict)"
	expect_eq "lost" "$(jqr r.json .lost.total)" 0
	echo "  $(jqr r.json .verdict)"
	jq -r '.fuse.connections[0].ops[] | "  \(.opcode) \(.all.reqs) p50 \(.latency.p50)"' r.json
}

# Order by first read: on a FUSE file system whose listing gives no file
# types, the loader stats every file in path order while it indexes the
# dataset (as ImageFolder does), then reads them shuffled. The stats come
# first for every file, yet the order iostorm judges is the reads': random.
test_fuse_order_first_read() {
	fusefs_mount fmnt 1200 12 --size 16384 --delay-us 100 --no-dtype
	"$IOSTORM" -q -j out.json -- "$WORKLOAD" read fmnt --threads 4 --tally "$PWD/t.txt" \
		2>stderr.txt || fail "iostorm exit $?: $(cat stderr.txt)"
	expect_eq "files read" "$(jqr out.json '[.files[] | select(.path != null and
		(.path | test("/f[0-9]+\\.jpg$")) and .reads > 0)] | length')" 1200
	expect_eq "files stat-ed before their first read" "$(jqr out.json '[.files[] |
		select(.path != null and (.path | test("/f[0-9]+\\.jpg$")) and .reads > 0 and
		.stats > 0 and .first_ts_ns < .first_read_ts_ns)] | length')" 1200
	expect_cmp "order (1 - |Spearman|)" "$(jqr out.json '.findings[] |
		select(.id == "small_file_storm") | .evidence.file_order_random')" '>=' 0.8
	jqr out.json '.findings[] | select(.id == "small_file_storm") | .summary' |
		grep -q "in random order" || fail "storm: $(jqr out.json '.findings[0].summary')"
}
