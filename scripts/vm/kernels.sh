#!/bin/sh
# Fetch and unpack the Debian kernels the VM tests boot, into a cache that
# survives `make clean`. A kernel is named by its line: 6.1 or 6.12. The
# pinned package is used while Debian's archive has it, else the newest
# package of the same line (the archive keeps a few).
#
# Usage: scripts/vm/kernels.sh LINE...   prints, per line: LINE KVER DIR
#   DIR/boot/vmlinuz-KVER and DIR/lib/modules/KVER/ are the unpacked package.
# Cache: ${IOSTORM_VM_CACHE:-/var/cache/iostorm-vm}
set -eu

CACHE=${IOSTORM_VM_CACHE:-/var/cache/iostorm-vm}

# pinned LINE: the package checked by hand; pattern LINE: its line's names.
pinned() {
	case $1 in
	6.1) echo linux-image-6.1.0-57-amd64 ;;
	6.12) echo linux-image-6.12.118+deb12-amd64 ;;
	*) echo "vm: unknown kernel line '$1': use 6.1 or 6.12" >&2; return 1 ;;
	esac
}

pattern() {
	case $1 in
	6.1) echo '^linux-image-6\.1\.0-[0-9]+-amd64$' ;;
	6.12) echo '^linux-image-6\.12\.[0-9]+\+deb12-amd64$' ;;
	esac
}

has_candidate() {
	apt-cache policy "$1" 2>/dev/null | grep -q 'Candidate: [0-9]'
}

# package LINE: the pinned package, or the newest of its line.
package() {
	local_pkg=$(pinned "$1") || return 1
	if ! has_candidate "$local_pkg"; then
		local_pkg=$(apt-cache search --names-only "$(pattern "$1")" | awk '{print $1}' |
			sort -V | tail -n1)
		[ -n "$local_pkg" ] || {
			echo "vm: no $1 kernel in the apt archive: run apt-get update" >&2
			return 1
		}
		echo "vm: $(pinned "$1") is gone from the archive, using $local_pkg" >&2
	fi
	echo "$local_pkg"
}

# fetch LINE: download and unpack once; print LINE KVER DIR.
fetch() {
	dir=$CACHE/$1
	if [ ! -f "$dir/.unpacked" ]; then
		pkg=$(package "$1")
		mkdir -p "$CACHE/debs"
		rm -rf "$dir"
		echo "vm: fetching $pkg" >&2
		(cd "$CACHE/debs" && apt-get download -q "$pkg" >/dev/null 2>&1) || {
			echo "vm: cannot download $pkg: run apt-get update, or check the network" >&2
			return 1
		}
		for deb in "$CACHE/debs/${pkg}_"*.deb; do :; done
		dpkg -x "$deb" "$dir"
		echo "$pkg" > "$dir/.package"
		touch "$dir/.unpacked"
	fi
	for kver in "$dir"/lib/modules/*; do kver=${kver##*/}; done
	[ -f "$dir/boot/vmlinuz-$kver" ] || {
		echo "vm: no vmlinuz in $dir: remove it and run again" >&2
		return 1
	}
	echo "$1 $kver $dir"
}

[ $# -gt 0 ] || { echo "usage: scripts/vm/kernels.sh LINE..." >&2; exit 2; }
for line in "$@"; do
	fetch "$line"
done
