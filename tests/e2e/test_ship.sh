# What ships (docs/install.md): the static binary alone in an empty root
# traces a real workload, and the image (make image) run by a real
# container runtime with the DaemonSet's settings exports a container's
# series with podman's container id and exact counts.

# is_static BINARY: no program interpreter (the dynamic loader).
is_static() {
	! LC_ALL=C readelf -lW "$1" 2>/dev/null | grep -q "program interpreter"
}

# The static binary in a root that holds nothing else but /proc, /sys and
# /dev (mounted in a private mount namespace, gone with it): attached with
# -p to a workload outside, it counts the workload's opens, reads and bytes
# exactly, and serves /metrics on a numeric address (no NSS, no resolver)
# that promtool accepts, with the same counts.
test_ship_static_in_empty_root() {
	is_static "$IOSTORM" || skip "./iostorm is dynamically linked: make static (or STATIC=1)"
	command -v unshare >/dev/null || skip "no unshare"
	local port ipid spid k
	mkdir -p root/proc root/sys root/dev
	cp "$IOSTORM" root/iostorm
	expect_eq "the root holds" "$(cd root && find . -mindepth 1 | sort | tr '\n' ' ')" \
		"./dev ./iostorm ./proc ./sys "
	gen_data 300 3
	start_gated read "$PWD/data" --threads 2
	sleep 600 &	# keeps the target alive after the reader, for a scrape
	spid=$!
	kill_at_exit "$WPID" "$spid"
	port=$(free_port)
	unshare -m --propagation private sh -c "mount -t proc proc root/proc &&
		mount --rbind /sys root/sys && mount --rbind /dev root/dev &&
		exec chroot root /iostorm -p $WPID,$spid -q --json /out.json \
			--listen 127.0.0.1:$port" 2>stderr.txt &
	ipid=$!
	wait_for stderr.txt "Ctrl-C to stop"
	echo go >gate
	wait "$WPID" || fail "workload failed: $(cat wl.err)"
	sleep 2.5	# two drains
	http_get "$port" /metrics >metrics.txt || fail "GET /metrics: $(cat http.out)"
	if command -v promtool >/dev/null; then
		promtool check metrics <metrics.txt || fail "promtool check metrics"
	fi
	for k in opens reads read_bytes; do
		expect_eq "/metrics vfs $k" "$(prom_value metrics.txt "iostorm_vfs_${k}_total")" \
			"$(tally tally.txt $k)"
	done
	kill "$spid"
	wait "$ipid" || fail "iostorm exit $?: $(cat stderr.txt)"
	for k in opens reads read_bytes closes stats; do
		expect_eq "vfs.$k" "$(jqr root/out.json .vfs.$k)" "$(tally tally.txt $k)"
	done
	# The files read, and the tally written to the workload's stdout.
	expect_eq "files" "$(jqr root/out.json .vfs.files)" "$(($(tally tally.txt files) + 1))"
	expect_eq "lost" "$(jqr root/out.json .lost.total)" 0
	expect_eq "stopped_by" "$(jqr root/out.json .stopped_by)" target_exit
}

# podman as this machine needs it (../shared/KERNEL.md): runc, as crun
# refuses the hybrid cgroup layout; the cgroupfs manager; rlimits below the
# hard ones. IOSTORM_PODMAN overrides it.
ship_podman() {
	# shellcheck disable=SC2086 # words
	${IOSTORM_PODMAN:-podman --runtime runc --cgroup-manager=cgroupfs} "$@"
}

SHIP_ULIMITS=(--ulimit nofile=16384:16384 --ulimit nproc=4096:4096)

# containerd_seccomp OUT: podman's default seccomp profile as containerd's
# RuntimeDefault has it since containerd PR 7301 (1.7, late 1.6.x): bpf(2) and
# perf_event_open(2) allowed to CAP_BPF and CAP_PERFMON too, not only to
# CAP_SYS_ADMIN (podman 4.3's own profile refuses them: EPERM).
containerd_seccomp() {
	local in=/usr/share/containers/seccomp.json
	[ -r "$in" ] || in=/etc/containers/seccomp.json
	[ -r "$in" ] || fail "no podman seccomp profile to derive containerd's from"
	jq '.syscalls |= (map(.names -= ["bpf", "perf_event_open"] | select(.names | length > 0)) +
		[{ names: ["bpf", "perf_event_open"], action: "SCMP_ACT_ALLOW",
		   includes: { caps: ["CAP_SYS_ADMIN"] } },
		 { names: ["bpf"], action: "SCMP_ACT_ALLOW", includes: { caps: ["CAP_BPF"] } },
		 { names: ["perf_event_open"], action: "SCMP_ACT_ALLOW",
		   includes: { caps: ["CAP_PERFMON"] } }])' "$in" >"$1" ||
		fail "cannot write $1"
}

# manifest_run_opts MANIFEST: podman run's options for what the DaemonSet
# asks of the iostorm container: the host's PID namespace, its seccomp
# profile (RuntimeDefault as containerd's), only the capabilities it adds,
# a read-only root, no privilege escalation, its read-only host paths, its
# memory limit. One per line.
manifest_run_opts() {
	local m=$1 caps name mp host
	grep -q '^ *hostPID: true' "$m" && echo --pid=host
	grep -q 'seccompProfile: { type: Unconfined }' "$m" && echo --security-opt=seccomp=unconfined
	if grep -q 'seccompProfile: { type: RuntimeDefault }' "$m"; then
		containerd_seccomp "$PWD/containerd-seccomp.json"
		echo "--security-opt=seccomp=$PWD/containerd-seccomp.json"
	fi
	grep -q '^ *readOnlyRootFilesystem: true' "$m" && echo --read-only
	grep -q '^ *allowPrivilegeEscalation: false' "$m" && echo --security-opt=no-new-privileges
	grep -q 'drop: \["ALL"\]' "$m" && echo --cap-drop=all
	caps=$(sed -n 's/^ *add: \[\(.*\)\]/\1/p' "$m" | tr -d '" ' | tr 'A-Z' 'a-z')
	[ -n "$caps" ] && echo "--cap-add=$caps"
	sed -n 's/.*limits: { memory: \([0-9]*\)Mi }.*/--memory=\1m/p' "$m"
	while read -r name mp; do
		host=$(sed -n "s|^ *- { name: $name, hostPath: { path: \\([^ ]*\\) } }|\\1|p" "$m")
		[ -n "$host" ] && echo "--volume=$host:$mp:ro"
	done < <(sed -n 's/^ *- { name: \([a-z]*\), mountPath: \([^,]*\), readOnly: true }/\1 \2/p' "$m")
}

# cg_series FILE FAMILY CGROUP: the sample of one cgroup, 0 when the
# cgroup has no series yet (no I/O).
cg_series() {
	sed -n "s|^$2{cgroup=\"$3\",[^}]*} ||p" "$1" | grep . || echo 0
}

# ship_image: the image to test (IOSTORM_IMAGE, or make image's tag), or a
# skip where podman, runc or the image are missing. Sets IMAGE.
ship_image() {
	command -v podman >/dev/null && command -v runc >/dev/null ||
		skip "podman or runc not installed (scripts/deps.sh --test installs them)"
	local version
	version=$("$IOSTORM" --version | sed -n '1s/^iostorm //p')
	IMAGE=${IOSTORM_IMAGE:-localhost/iostorm:$version}
	ship_podman image exists "$IMAGE" || skip "no image $IMAGE: make image"
	grep -q "image: .*/iostorm:$version " "$ROOT/docs/deploy/iostorm-daemonset.yaml" ||
		fail "the DaemonSet does not name iostorm:$version"
}

# ship_caps_dropped NAME: the exporter in container NAME says it holds no
# capability while serving, and its /proc status agrees (CAP_BPF alone
# where the kernel reads maps only with it, before 5.19).
ship_caps_dropped() {
	local pid eff
	ship_podman logs "$1" 2>&1 | grep -qE "capabilities held while tracing: (none|CAP_BPF)$" ||
		fail "the exporter does not say it dropped its capabilities: $(ship_podman logs "$1" 2>&1 | tail -3)"
	pid=$(ship_podman inspect -f '{{.State.Pid}}' "$1")
	eff=$(sed -n 's/^CapEff:\t//p' "/proc/$pid/status")
	case $eff in 0000000000000000 | 0000008000000000) ;; *) fail "the exporter's CapEff is $eff" ;; esac
	grep -q '^NoNewPrivs:.1' "/proc/$pid/status" || fail "the exporter lacks no_new_privs"
}

# ship_exporter NAME PORT: IMAGE run by podman as the DaemonSet says (its
# settings, its args on PORT, host network) as container NAME, removed at
# exit; returns once it traces.
ship_exporter() {
	local name=$1 port=$2 manifest=$ROOT/docs/deploy/iostorm-daemonset.yaml i
	local -a opts args
	mapfile -t opts < <(manifest_run_opts "$manifest")
	echo "  DaemonSet settings: ${opts[*]}"
	[[ " ${opts[*]} " == *" --pid=host "* ]] && [[ " ${opts[*]} " == *" --cap-add="* ]] &&
		[[ " ${opts[*]} " == *":/sys/kernel/btf:ro "* ]] &&
		[[ " ${opts[*]} " == *":/sys/fs/cgroup:ro "* ]] || fail "settings not found in $manifest"
	mapfile -t args < <(sed -n 's/^ *args: \[\(.*\)\]/\1/p' "$manifest" | tr -d '"' |
		tr ',' '\n' | sed "s/^ *//; s/:9436\$/:$port/")
	expect_eq "exporter args" "${args[*]}" "-a -q --listen 127.0.0.1:$port"
	on_exit "ship_podman rm -f -t 0 $name >/dev/null 2>&1 || true"
	ship_podman run -d --name "$name" --network=host "${SHIP_ULIMITS[@]}" "${opts[@]}" \
		"$IMAGE" "${args[@]}" >"$name.id" || fail "podman run $IMAGE"
	for ((i = 0; i < 100; i++)); do
		if ship_podman logs "$name" 2>&1 | grep -q "Ctrl-C to stop"; then
			ship_caps_dropped "$name"
			return 0
		fi
		[ "$(ship_podman inspect -f '{{.State.Running}}' "$name")" = true ] ||
			fail "the exporter exited: $(ship_podman logs "$name" 2>&1 | tail -5)"
		sleep 0.2
	done
	fail "the exporter did not start: $(ship_podman logs "$name" 2>&1 | tail -5)"
}

# v2_cgroup PID: the process's cgroup v2 path.
v2_cgroup() {
	sed -n 's/^0::\(.*\)/\1/p' "/proc/$1/cgroup"
}

# The image as the DaemonSet runs it, under podman with runc: the exporter
# (the manifest's args on a free port, host network) sees a second
# container, built from busybox-static, read 200 files of 16 KiB with dd,
# one read each. Its series on /metrics, scraped from the host, carry the
# cgroup podman made and podman's own id as container_id, and grow by
# exactly the reads, bytes and opens of the reading (what the container
# did before it, runc's set-up included, is taken off by a scrape before).
test_ship_image_as_daemonset() {
	ship_image
	[ -x /bin/busybox ] && is_static /bin/busybox || skip "no static /bin/busybox (busybox-static)"
	local port n=200 size=16384 exp rdr
	port=$(free_port)
	exp=iostorm-ship-exp-$$
	rdr=iostorm-ship-rdr-$$
	# The reader's image: busybox-static alone, FROM scratch.
	mkdir bb && cp /bin/busybox bb/ &&
		printf 'FROM scratch\nCOPY busybox /bin/busybox\nENTRYPOINT ["/bin/busybox"]\n' >bb/Containerfile
	local bbimg=localhost/iostorm-test-busybox:$$
	ship_podman build -q --layers=false -t "$bbimg" bb >/dev/null || fail "podman build busybox"
	on_exit "ship_podman rmi -f $bbimg >/dev/null 2>&1 || true"
	on_exit "ship_podman rm -f -t 0 $rdr >/dev/null 2>&1 || true"
	ship_exporter "$exp" "$port"
	local i
	"$WORKLOAD" gen data --files $n --dirs 4 --min-size $size --max-size $size >/dev/null ||
		fail "gen"
	mkdir gates
	local -a files
	mapfile -t files < <(cd data && find . -type f | sed 's|^\./|/data/|' | sort)
	expect_eq "dataset files" "${#files[@]}" $n
	# Held until gates/go exists (polled by stat: no open, no read), then one
	# open and one read of each file (dd, forked by the shell, not run
	# again: strace shows openat and read once each), the loop's /dev/null
	# opened once; then held until gates/stop, so its cgroup is there for
	# the scrape.
	ship_podman run -d --name "$rdr" "${SHIP_ULIMITS[@]}" -v "$PWD/data:/data:ro" \
		-v "$PWD/gates:/gates:ro" "$bbimg" sh -c "
		while [ ! -e /gates/go ]; do sleep 0.1; done
		for f; do dd if=\$f bs=$size count=1; done >/dev/null 2>&1
		echo read done
		while [ ! -e /gates/stop ]; do sleep 0.1; done" sh "${files[@]}" >rdr.id ||
		fail "podman run the reader"
	local id cg
	id=$(ship_podman inspect -f '{{.Id}}' "$rdr")
	expect_eq "podman's id is the one run printed" "$id" "$(cat rdr.id)"
	cg=$(v2_cgroup "$(ship_podman inspect -f '{{.State.Pid}}' "$rdr")")
	echo "  reader container $id, cgroup v2 $cg"
	sleep 2.5	# two drains: what the container did so far is in the series
	http_get "$port" /metrics >before.txt || fail "GET /metrics: $(cat http.out)"
	touch gates/go
	for ((i = 0; i < 150; i++)); do
		ship_podman logs "$rdr" 2>/dev/null | grep -q "read done" && break
		sleep 0.2
	done
	ship_podman logs "$rdr" | grep -q "read done" || fail "the reader did not finish"
	sleep 2.5
	http_get "$port" /metrics >metrics.txt || fail "GET /metrics: $(cat http.out)"
	touch gates/stop
	command -v promtool >/dev/null && { promtool check metrics <metrics.txt || fail "promtool"; }
	grep "^iostorm_cgroup_[a-z_]*_total{cgroup=\"$cg\"," metrics.txt | sed 's/^/    /'
	expect_eq "container_id of $cg" \
		"$(sed -n "s|^iostorm_cgroup_reads_total{cgroup=\"$cg\",container_id=\"\\([0-9a-f]*\\)\".*|\\1|p" metrics.txt)" "$id"
	local f want
	for f in reads:$n read_bytes:$((n * size)) opens:$((n + 1)); do
		want=${f#*:}
		f=${f%%:*}
		expect_eq "$f by the reading" \
			$(($(cg_series metrics.txt "iostorm_cgroup_${f}_total" "$cg") -
			   $(cg_series before.txt "iostorm_cgroup_${f}_total" "$cg"))) "$want"
	done
	# Node-wide (-a); a call in flight at the attach may count once, before.
	lost() { awk '/^iostorm_lost_events_total/ { s += $2 } END { print s + 0 }' "$1"; }
	expect_eq "events lost on the node over the reading" $(($(lost metrics.txt) - $(lost before.txt))) 0
	ship_podman wait "$rdr" >/dev/null
	ship_podman stop -t 5 "$exp" >/dev/null
	expect_eq "the exporter's exit status on SIGTERM" "$(ship_podman inspect -f '{{.State.ExitCode}}' "$exp")" 0
}

# A training loop in a container of its own, seen by the image as the
# DaemonSet runs it: tests/workload's pipeline (2 readers, 2 decoders,
# 1 ms a step) in an image of the workload binary and the libraries it
# loads, FROM scratch, reading a cold dataset of 1,200 files of 16-40 KB
# behind a 300-IOPS cap (podman's --device-read-iops on the loop device,
# as a cloud volume's limit). On /metrics, scraped while it runs, the
# loop's series carry podman's id as container_id, the container's cgroup
# and the workload's comm, and its data-wait share is within 5 points of
# the loop's own clock; the loop waits more than half its time (the cap
# holds).
test_ship_image_loop_in_container() {
	ship_image
	local port exp job wlimg lib
	port=$(free_port)
	exp=iostorm-ship-exp-$$
	job=iostorm-ship-job-$$
	wlimg=localhost/iostorm-test-workload:$$
	# The workload's image: the binary and what ldd says it loads (nothing
	# when it is static).
	mkdir wl && cp "$WORKLOAD" wl/iostorm-workload
	for lib in $(ldd "$WORKLOAD" 2>/dev/null | grep -o '/[^ ]*'); do
		cp -L --parents "$lib" wl/ || fail "copy $lib"
	done
	printf 'FROM scratch\nCOPY . /\nENTRYPOINT ["/iostorm-workload"]\n' >wl/Containerfile
	ship_podman build -q --layers=false -t "$wlimg" wl >/dev/null || fail "podman build the workload"
	on_exit "ship_podman rmi -f $wlimg >/dev/null 2>&1 || true"
	on_exit "ship_podman rm -f -t 0 $job >/dev/null 2>&1 || true"
	storm_fs
	drop_caches
	ship_exporter "$exp" "$port"
	mkdir out
	ship_podman run -d --name "$job" "${SHIP_ULIMITS[@]}" --device-read-iops "$LOOP:300" \
		-v "$PWD/mnt/data:/data:ro" -v "$PWD/out:/out" "$wlimg" pipeline /data \
		--readers 2 --decoders 2 --cpu-us 100 --step-ms 1 --tally /out/t.txt >job.id ||
		fail "podman run the workload"
	local id pid cg
	id=$(cat job.id)
	pid=$(ship_podman inspect -f '{{.State.Pid}}' "$job")
	[ "$pid" -gt 0 ] 2>/dev/null || fail "the workload ended at once: $(ship_podman logs "$job" 2>&1 | tail -3)"
	cg=$(v2_cgroup "$pid")
	echo "  workload container $id, pid $pid, cgroup v2 $cg"
	scrape_while "$port" "$pid"
	expect_eq "the workload's exit status" "$(ship_podman wait "$job")" 0
	grep '^loop' out/t.txt || fail "no loop line: $(cat out/t.txt)"
	[ -f "m.$pid" ] || fail "no iostorm_loop_seconds_total series of pid $pid: $(grep '^iostorm_loop' m.now)"
	grep "^iostorm_loop_seconds_total{.*pid=\"$pid\"," "m.$pid" | sed 's/^/    /'
	expect_eq "the loop's container_id" "$(loop_label "m.$pid" "$pid" container_id)" "$id"
	expect_eq "the loop's cgroup" "$(loop_label "m.$pid" "$pid" cgroup)" "$cg"
	expect_eq "the loop's comm" "$(loop_label "m.$pid" "$pid" comm)" iostorm-workloa
	expect_near "the loop's share vs its own clock" "$(loop_share_of "m.$pid" "$pid")" \
		"$(loop_share out/t.txt)" 0.05
	expect_cmp "its own share" "$(loop_share out/t.txt)" '>=' 0.5
}
