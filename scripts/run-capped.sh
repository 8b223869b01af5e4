#!/bin/bash
# run-capped.sh IOPS DIR CMD...: run CMD with its reads of DIR's disk capped
# at IOPS per second, as a cloud block volume caps them, by a cgroup v1
# blkio throttle (see ../shared/KERNEL.md). Runs uncapped, and says so,
# where there is no blkio hierarchy.
set -eu
iops=$1 dir=$2
shift 2
cg=/sys/fs/cgroup/blkio/iostorm-capped-$$
dev=$(stat -c '%Hd:%Ld' "$dir")
sys=$(readlink -f "/sys/dev/block/$dev")
[ -e "$sys/partition" ] && sys=$(dirname "$sys")
if [ -w /sys/fs/cgroup/blkio/cgroup.procs ] && mkdir "$cg" 2>/dev/null &&
   echo "$(cat "$sys/dev") $iops" > "$cg/blkio.throttle.read_iops_device"; then
	echo $$ > "$cg/cgroup.procs"
	"$@" && rc=0 || rc=$?
	echo $$ > /sys/fs/cgroup/blkio/cgroup.procs
	rmdir "$cg"
	exit "$rc"
fi
echo "run-capped: no cgroup v1 blkio throttle here: running uncapped" >&2
exec "$@"
