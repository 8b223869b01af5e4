#!/bin/bash
# Build a guest's initramfs: busybox-static, scripts/vm/init, and the
# kernel's modules that the guest needs and that are not built in, each
# preceded by its dependencies (read from its `depends=` string: Debian's
# packages ship no modules.dep) and decompressed for busybox's insmod.
#
# Usage: scripts/vm/initramfs.sh KVER KDIR OUT.cpio.gz
#   KDIR is an unpacked kernel package (scripts/vm/kernels.sh).
set -eu

# 9p: the host's root and the results share; virtio_blk + ext4: the
# dataset disk; loop and fuse for the tests that make their own; xfs for
# the large folios of the page-cache check.
WANT="virtio_pci 9pnet_virtio 9p virtio_blk crc32c_generic ext4 xfs loop fuse
	sunrpc nfs nfsv3 nfsv4 nfsd sch_netem"

[ $# = 3 ] || { echo "usage: scripts/vm/initramfs.sh KVER KDIR OUT.cpio.gz" >&2; exit 2; }
KVER=$1
MODS=$2/lib/modules/$1
OUT=$3
HERE=$(cd "$(dirname "$0")" && pwd)
BUSYBOX=/bin/busybox
if ! [ -x $BUSYBOX ] || ! $BUSYBOX --list | grep -qx insmod; then
	echo "vm: no static busybox: apt-get install busybox-static" >&2
	exit 1
fi
command -v cpio >/dev/null || { echo "vm: no cpio: apt-get install cpio" >&2; exit 1; }

STAGE=$(mktemp -d "${TMPDIR:-/tmp}/iostorm-initramfs.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT

# path_of NAME: the module's file under MODS (names match with - or _),
# or nothing when it is built in.
path_of() {
	local n p
	n=$(echo "$1" | tr - _)
	p=$(awk -v n="$n" '$1 == n { print $2; exit }' "$STAGE/index")
	if [ -n "$p" ]; then
		echo "$p"
	elif ! tr - _ < "$MODS/modules.builtin" | grep -q "/$n\.ko$"; then
		echo "vm: module '$1' is neither in $MODS nor built in" >&2
		return 1
	fi
}

# depends FILE: the modules FILE names in its depends= string.
depends() {
	case $1 in
	*.xz) xz -dc "$1" ;;
	*) cat "$1" ;;
	esac | tr '\0' '\n' | sed -n 's/^depends=//p' | tr , ' '
}

# add NAME: stage NAME after its dependencies, once.
add() {
	local f d
	grep -qx "$1" "$STAGE/modules" 2>/dev/null && return 0
	f=$(path_of "$1") || return 1
	[ -n "$f" ] || return 0
	for d in $(depends "$f"); do
		add "$d" || return 1
	done
	grep -qx "$1" "$STAGE/modules" 2>/dev/null && return 0
	case $f in
	*.xz) xz -dc "$f" > "$STAGE/lib/modules/$1.ko" ;;
	*) cp "$f" "$STAGE/lib/modules/$1.ko" ;;
	esac
	echo "$1" >> "$STAGE/modules"
}

mkdir -p "$STAGE/bin" "$STAGE/lib/modules" "$STAGE/proc" "$STAGE/sys" "$STAGE/dev" \
	"$STAGE/mnt"
: > "$STAGE/modules"
# NAME PATH of every module file, names with _ for -.
find "$MODS/kernel" -name '*.ko*' | awk -F/ '{ b = $NF; sub(/\.ko.*/, "", b);
	gsub("-", "_", b); print b, $0 }' > "$STAGE/index"
# A module a kernel has neither as a file nor built in (a library that
# became part of another, as crc32c_generic in 7.x) is said and skipped.
for m in $WANT; do
	add "$m" || echo "vm: $KVER: skipping module $m" >&2
done
# The kernel opens it for init's stdin, stdout and stderr.
mknod "$STAGE/dev/console" c 5 1
cp $BUSYBOX "$STAGE/bin/busybox"
cp "$HERE/init" "$STAGE/init"
chmod +x "$STAGE/init"
echo "$KVER" > "$STAGE/kver"
(cd "$STAGE" && find . | cpio -o -H newc --quiet) | gzip -1 > "$OUT"
