#!/bin/bash
# Checks that prove iostorm's figures true inside a booted kernel, run in
# each guest by scripts/vm/test.sh (as root, in this tree, over 9p), each
# against an independent truth: the workload's own tally, the kernel's
# /proc/diskstats, the file's size in pages, the training loop's own clock,
# the FUSE daemon's tally, fio's own totals, the NFS client's own
# /proc/self/mountstats and netem's delay, and tracefs for which hooks
# the kernel has.
# Prints a line per check, then "N passed, N failed".
#
# Usage: tests/vm/run.sh [CONCERN...]  (kernel cold_read cache faults stall fuse async preempt nfs,
#   and nfs_torch: the NFS check's PyTorch loop alone, for scripts/flaky.sh;
#   floor alone below iostorm's floor: the clear refusal)
#   IOSTORM_VM_DATA: the dataset's mount (/run/iostorm-vm/data, scripts/vm/disk.sh)
#   IOSTORM_FALLBACKS: passed on to iostorm (forces the older kernels' paths)
set -u
cd "$(dirname "$0")/../.." || exit 1

ROOT=$PWD
IOSTORM=$ROOT/iostorm
WORKLOAD=$ROOT/.output/iostorm-workload
# shellcheck disable=SC2034 # used by check_fuse.sh
FUSEFS=$ROOT/.output/iostorm-fusefs
DATA=${IOSTORM_VM_DATA:-/run/iostorm-vm/data}
TRACEFS=/sys/kernel/tracing
[ -d $TRACEFS/events ] || TRACEFS=/sys/kernel/debug/tracing
CONCERNS=${*:-kernel cold_read cache cache_xfs faults stall fuse async preempt nfs}

. tests/vm/lib.sh
for f in tests/vm/check_*.sh; do
	# shellcheck source=/dev/null
	. "$f"
done

echo "== $(uname -r)${IOSTORM_FALLBACKS:+, IOSTORM_FALLBACKS=$IOSTORM_FALLBACKS}"
if [ "$(id -u)" != 0 ] || [ ! -r /sys/kernel/btf/vmlinux ]; then
	flunk "setup: needs root and /sys/kernel/btf/vmlinux"
elif [ ! -x "$IOSTORM" ] || [ ! -x "$WORKLOAD" ]; then
	flunk "setup: no $IOSTORM or $WORKLOAD: run make first"
elif [ ! -d "$TRACEFS/events" ]; then
	flunk "setup: no tracefs: mount -t tracefs tracefs /sys/kernel/tracing"
elif ! DISK=$(findmnt -n -o SOURCE "$DATA"); then
	flunk "setup: no dataset mounted at $DATA (scripts/vm/disk.sh)"
else
	DISK=${DISK#/dev/}
	# Below iostorm's floor (bullseye's 5.10), the one check is the refusal.
	below_floor && CONCERNS=floor
	for c in $CONCERNS; do
		T=$(mktemp -d /tmp/iostorm-vm.XXXXXX)
		cd "$T" || exit 1
		rc=0
		t0=$SECONDS
		f0=$FAILED
		"check_$c" || rc=$?
		# What scripts/vm/test.sh reads: each concern's time, each failed one.
		echo "time $c $((SECONDS - t0))"
		[ "$FAILED" = "$f0" ] || echo "concern $c failed"
		cd "$ROOT" || exit 1
		# Logs of a failed concern go to the results share when there is one.
		if [ "$rc" != 0 ] && [ -d /tmp/vm ]; then
			cp -r "$T" "/tmp/vm/$c" 2>/dev/null
		fi
		rm -rf "$T"
		if [ "$rc" = 2 ]; then
			flunk "the other checks: not run, iostorm cannot trace on this kernel"
			break
		fi
	done
fi
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
