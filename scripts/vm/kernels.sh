#!/bin/bash
# Fetch and unpack the Debian kernels the VM tests boot, into a cache that
# survives `make clean`. A kernel is named by its line: 6.1 or 6.12
# (bookworm, the system's own apt sources), 7.2 (sid) or 5.10 (bullseye),
# or by its full version and the suite that has it, KVER@SUITE, for a
# look at any other (`make vm-test KVER=6.12.117+deb13-amd64 SUITE=trixie`).
# Other suites than the system's are read through a private apt state
# under the cache: the system's sources and lists are never touched.
#
# The versions are pinned so that CI stays reproducible; a pinned package
# gone from bookworm's archive falls back to the newest of its line.
#
# Usage: scripts/vm/kernels.sh LINE...   prints, per line: LINE KVER DIR
#   LINE: 6.1, 6.12, 7.2, 5.10 or KVER@SUITE
#   DIR/boot/vmlinuz-KVER and DIR/lib/modules/KVER/ are the unpacked kernel.
# Cache: ${IOSTORM_VM_CACHE:-/var/cache/iostorm-vm}
set -eu

CACHE=${IOSTORM_VM_CACHE:-/var/cache/iostorm-vm}

# line LINE: the suite and kernel version of a pinned line.
line() {
	case $1 in
	6.1) echo bookworm 6.1.0-57-amd64 ;;
	6.12) echo bookworm 6.12.118+deb12-amd64 ;;
	7.2) echo sid 7.2.13+deb14-amd64 ;;
	5.10) echo bullseye 5.10.0-46-amd64 ;;
	*) echo "vm: unknown kernel line '$1': use 6.1, 6.12, 7.2 or 5.10, or KVER= SUITE=" >&2
	   return 1 ;;
	esac
}

# pattern LINE: the package names of a bookworm line, for its newest.
pattern() {
	case $1 in
	6.1) echo '^linux-image-6\.1\.0-[0-9]+-amd64$' ;;
	6.12) echo '^linux-image-6\.12\.[0-9]+\+deb12-amd64$' ;;
	esac
}

# mirror [security]: the system's Debian archive (or its security
# archive), for the other suites' sources.
mirror() {
	local m
	m=$(grep -rhoE '^(URIs: |deb )\S*debian\S*' /etc/apt/sources.list \
		/etc/apt/sources.list.d/ 2>/dev/null | sed -E 's/^(URIs: |deb )//' |
		if [ "${1:-}" = security ]; then grep security; else grep -v security; fi |
		head -n1)
	[ -n "$m" ] || m=http://deb.debian.org/debian${1:+-security}
	echo "$m"
}

# sources SUITE: its apt lines; a stable suite's kernels are updated in
# SUITE-security and SUITE-updates (bullseye's 5.10.0-46 is only there).
sources() {
	local key=/usr/share/keyrings/debian-archive-keyring.gpg
	echo "deb [signed-by=$key] $(mirror) $1 main"
	case $1 in
	sid | unstable | experimental) ;;
	*) echo "deb [signed-by=$key] $(mirror) $1-updates main"
	   echo "deb [signed-by=$key] $(mirror security) $1-security main" ;;
	esac
}

# apt_for SUITE: apt-get's options for SUITE: the system's own for
# bookworm, else a private state in the cache, updated once a day.
APT=()
apt_for() {
	local d=$CACHE/apt/$1
	APT=()
	[ "$1" = bookworm ] && return 0
	APT=(-o "Dir::Etc::sourcelist=$d/sources.list" -o Dir::Etc::sourceparts=-
	     -o "Dir::State::lists=$d/lists" -o "Dir::Cache=$d/cache"
	     -o Dir::State::status=/var/lib/dpkg/status -o APT::Sandbox::User=root)
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	sources "$1" > "$d/sources.list"
	if [ -z "$(find "$d/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null)" ]; then
		echo "vm: reading $1's package lists (a private apt state in $d)" >&2
		apt-get "${APT[@]}" update -qq >/dev/null 2>&1 || {
			echo "vm: cannot read $1's package lists from $(mirror)" >&2
			return 1
		}
	fi
}

has_candidate() {
	apt-cache "${APT[@]}" policy "$1" 2>/dev/null | grep -q 'Candidate: [0-9]'
}

# packages SUITE KVER [LINE]: the packages that hold KVER's image and
# modules: linux-image-KVER, or where that is a meta package (sid splits
# the kernel) linux-binary-, linux-modules- and linux-base-KVER.
packages() {
	local img=linux-image-$2
	if has_candidate "linux-binary-$2"; then
		echo "linux-binary-$2 linux-modules-$2 linux-base-$2"
	elif has_candidate "$img"; then
		echo "$img"
	elif [ -n "${3:-}" ] && [ -n "$(pattern "$3")" ]; then
		img=$(apt-cache search --names-only "$(pattern "$3")" | awk '{print $1}' |
			sort -V | tail -n1)
		[ -n "$img" ] || {
			echo "vm: no $3 kernel in the apt archive: run apt-get update" >&2
			return 1
		}
		echo "vm: linux-image-$2 is gone from the archive, using $img" >&2
		echo "$img"
	else
		echo "vm: no linux-image-$2 in $1: is the version right?" >&2
		return 1
	fi
}

# fetch NAME SUITE KVER [LINE]: download and unpack once; print NAME KVER DIR.
fetch() {
	local name=$1 suite=$2 kver=$3 dir=$CACHE/$1 pkgs p deb
	if [ ! -f "$dir/.unpacked" ]; then
		apt_for "$suite"
		pkgs=$(packages "$suite" "$kver" "${4:-}")
		mkdir -p "$CACHE/debs"
		rm -rf "$dir"
		for p in $pkgs; do
			echo "vm: fetching $p ($suite)" >&2
			(cd "$CACHE/debs" && apt-get "${APT[@]}" download -q "$p" >/dev/null 2>&1) || {
				echo "vm: cannot download $p: check the network" >&2
				return 1
			}
			for deb in "$CACHE/debs/${p}_"*.deb; do :; done
			dpkg -x "$deb" "$dir"
		done
		# A split kernel keeps everything under usr/lib/modules/KVER/.
		if [ -d "$dir/usr/lib/modules" ] && [ ! -d "$dir/lib/modules" ]; then
			mkdir -p "$dir/lib" "$dir/boot"
			ln -s ../usr/lib/modules "$dir/lib/modules"
			for k in "$dir"/usr/lib/modules/*/vmlinuz; do
				ln -s "../usr/lib/modules/$(basename "$(dirname "$k")")/vmlinuz" \
					"$dir/boot/vmlinuz-$(basename "$(dirname "$k")")"
			done
		fi
		echo "$pkgs ($suite)" > "$dir/.package"
		touch "$dir/.unpacked"
	fi
	for kver in "$dir"/lib/modules/*; do kver=${kver##*/}; done
	[ -f "$dir/boot/vmlinuz-$kver" ] || {
		echo "vm: no vmlinuz in $dir: remove it and run again" >&2
		return 1
	}
	echo "$name $kver $dir"
}

[ $# -gt 0 ] || { echo "usage: scripts/vm/kernels.sh LINE..." >&2; exit 2; }
for l in "$@"; do
	case $l in
	?*@?*) fetch "$l" "${l#*@}" "${l%@*}" ;;
	*) read -r suite kver < <(line "$l") || exit 1
	   fetch "$l" "$suite" "$kver" "$l" ;;
	esac
done
