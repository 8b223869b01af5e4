#!/bin/bash
# run-capped.sh IOPS DIR CMD...: run CMD with its reads of DIR's disk capped
# at IOPS per second, as a cloud block volume caps them: by a cgroup v1
# blkio throttle where the blkio hierarchy is mounted (a hybrid layout), else
# by cgroup v2's io.max (Debian 12, Ubuntu 22.04+, RHEL 9, Amazon Linux
# 2023 run cgroup v2 only). The cgroup is made for CMD and removed after.
# Runs uncapped, and says so, where neither can be used.
set -eu
iops=$1 dir=$2
shift 2
dev=$(stat -c '%Hd:%Ld' "$dir")
sys=$(readlink -f "/sys/dev/block/$dev")
[ -e "$sys/partition" ] && sys=$(dirname "$sys")
disk=$(cat "$sys/dev")

# run_in CG HOME CMD...: CMD in cgroup CG, then this shell back in HOME (the
# cgroup it came from) and CG removed.
run_in() {
	local cg=$1 home=$2 rc
	echo $$ > "$cg/cgroup.procs"
	"${@:3}" && rc=0 || rc=$?
	echo $$ > "$home/cgroup.procs"
	rmdir "$cg"
	exit "$rc"
}

v1=/sys/fs/cgroup/blkio
if [ -w $v1/cgroup.procs ] && mkdir "$v1/iostorm-capped-$$" 2>/dev/null; then
	if echo "$disk $iops" > "$v1/iostorm-capped-$$/blkio.throttle.read_iops_device"; then
		run_in "$v1/iostorm-capped-$$" "$v1$(sed -n 's/^[0-9]*:blkio:\(.*\)/\1/p' /proc/self/cgroup)" "$@"
	fi
	rmdir "$v1/iostorm-capped-$$"
fi

# cgroup v2: the io controller must be enabled for the children of the root
# (in a hybrid layout blkio holds it, and v2 cannot have it).
v2=$(findmnt -n -t cgroup2 -o TARGET | head -n 1)
if [ -n "$v2" ] && grep -qw io "$v2/cgroup.controllers" 2>/dev/null; then
	grep -qw io "$v2/cgroup.subtree_control" || echo +io > "$v2/cgroup.subtree_control" || true
	if mkdir "$v2/iostorm-capped-$$" 2>/dev/null; then
		if echo "$disk riops=$iops" > "$v2/iostorm-capped-$$/io.max"; then
			run_in "$v2/iostorm-capped-$$" "$v2$(sed -n 's/^0::\(.*\)/\1/p' /proc/self/cgroup)" "$@"
		fi
		rmdir "$v2/iostorm-capped-$$"
	fi
fi
echo "run-capped: cannot cap reads here (no cgroup v1 blkio throttle, no cgroup v2 io" \
	"controller): running uncapped" >&2
exec "$@"
