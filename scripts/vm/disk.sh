#!/bin/sh
# The guest's dataset disk: an ext4 image filled from a generated directory
# by mke2fs -d (no mount, no loop device), attached read-only as /dev/vda
# and mounted at /run/iostorm-vm/data in the guest. It holds
#   data/   1,200 files of 16-40 KB in 12 class directories (seed 1)
#   big     16 MiB of random bytes (4,096 pages)
#
# Usage: scripts/vm/disk.sh OUT.img
set -eu

[ $# = 1 ] || { echo "usage: scripts/vm/disk.sh OUT.img" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORKLOAD=$ROOT/.output/iostorm-workload
[ -x "$WORKLOAD" ] || { echo "vm: no $WORKLOAD: run make first" >&2; exit 1; }
command -v mke2fs >/dev/null || { echo "vm: no mke2fs: apt-get install e2fsprogs" >&2; exit 1; }

STAGE=$(mktemp -d "${TMPDIR:-/tmp}/iostorm-disk.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
"$WORKLOAD" gen "$STAGE/data" --files 1200 --dirs 12 --min-size 16384 \
	--max-size 40960 --seed 1 >/dev/null
head -c $((16 << 20)) /dev/urandom > "$STAGE/big"
rm -f "$1"
truncate -s 128M "$1"
mke2fs -q -t ext4 -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 -L iostorm-vm \
	-d "$STAGE" "$1"
