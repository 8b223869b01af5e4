#!/bin/bash
# What `make static`, `make dist` and `make image` do after the build.
#
# usage: scripts/ship.sh check-static BINARY
#        scripts/ship.sh dist NAME STAGE_DIR    writes NAME.tar.gz here
#        scripts/ship.sh image IMAGE STAGE_DIR  podman build, no registry
#
# Reproducible: the tarball's dates are the commit's (SOURCE_DATE_EPOCH,
# as reproducible-builds.org defines it), its entries sorted, owned by 0:0
# with fixed modes, gzip without a name or a date; so two builds of one
# commit give the same bytes. The image's creation date is the commit's too.
set -euo pipefail
cd "$(dirname "$0")/.."

die() {
	echo "ship: $*" >&2
	exit 1
}

# A static binary names no interpreter (the dynamic loader) and needs no
# shared library.
check_static() {
	local bin=$1
	[ -x "$bin" ] || die "no '$bin'"
	LC_ALL=C readelf -lW "$bin" | grep -q 'Requesting program interpreter' &&
		die "'$bin' is dynamically linked"
	LC_ALL=C readelf -dW "$bin" | grep -q NEEDED && die "'$bin' needs shared libraries"
	"./$bin" --version | grep -q '^linked: static' || die "'$bin --version' does not say static"
	echo "  STATIC   $bin: $(stat -c %s "$bin") bytes, $(file -b "$bin")"
}

source_date_epoch() {
	[ -n "${SOURCE_DATE_EPOCH:-}" ] && { echo "$SOURCE_DATE_EPOCH"; return; }
	git log -1 --format=%ct 2>/dev/null || die "no git commit to date the release by: set SOURCE_DATE_EPOCH"
}

# The libraries the static binary links, by Debian package: their copyright
# files go into the tarball (the LGPL's terms for a static link: what is in
# it, and how to rebuild it).
STATIC_LIBS="libbpf-dev libelf-dev zlib1g-dev libjansson-dev libc6-dev libmicrohttpd12"

# third_party DIR: DIR/THIRD-PARTY.md and DIR/third-party/PKG.copyright.
third_party() {
	local d=$1 p v
	install -d -m 0755 "$d/third-party"
	{
		echo "# What the static iostorm binary holds besides iostorm"
		echo
		echo "iostorm itself: LGPL-2.1 OR BSD-2-Clause (LICENSE). The binary is linked"
		echo "statically with these libraries, from Debian 12's packages; each one's"
		echo "copyright file, with its license, is in third-party/:"
		echo
		echo "| package (Debian) | version | license (see its copyright file) |"
		echo "| --- | --- | --- |"
		for p in $STATIC_LIBS; do
			v=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null) ||
				die "$p is not installed: scripts/deps.sh --test"
			install -m 0644 "/usr/share/doc/$p/copyright" "$d/third-party/$p.copyright"
			echo "| $p | $v | $(license_of "$p") |"
		done
		echo
		echo "libmicrohttpd is built from Debian's source package of that version"
		echo "without HTTPS (scripts/static-mhd.sh), since Debian's archive needs GnuTLS."
		echo
		echo "To rebuild this binary (or relink it with changed libraries, as the LGPL"
		echo "allows): on Debian 12, from iostorm's source at commit $(git rev-parse HEAD 2>/dev/null || echo unknown),"
		echo "\`scripts/deps.sh --test && make static\` (docs/building.md)."
	} > "$d/THIRD-PARTY.md"
	chmod 0644 "$d/THIRD-PARTY.md"
}

license_of() {
	case $1 in
	libbpf-dev) echo "LGPL-2.1 OR BSD-2-Clause" ;;
	libelf-dev) echo "GPL-2.0-or-later OR LGPL-3.0-or-later" ;;
	zlib1g-dev) echo "Zlib" ;;
	libjansson-dev) echo "MIT" ;;
	libc6-dev) echo "LGPL-2.1-or-later (with exceptions)" ;;
	libmicrohttpd12) echo "LGPL-2.1-or-later" ;;
	*) echo "see its copyright file" ;;
	esac
}

# dist NAME STAGE: NAME/ holds the binary, the README, LICENSE, CHANGELOG,
# THIRD-PARTY.md with the linked libraries' copyright files, docs/ (man page,
# deploy/, prometheus/, grafana/, the reference pages the README links to),
# the bash completion and SHA256SUMS of them all.
dist() {
	local name=$1 stage=$2 sde d f
	sde=$(source_date_epoch)
	check_static iostorm >/dev/null
	rm -rf "$stage"
	d=$stage/$name
	install -d -m 0755 "$d"
	install -m 0755 iostorm "$d/iostorm"
	install -m 0644 README.md "$d/README.md"
	install -m 0644 LICENSE "$d/LICENSE"
	install -m 0644 CHANGELOG.md "$d/CHANGELOG.md"
	third_party "$d"
	install -D -m 0644 scripts/iostorm.bash-completion "$d/scripts/iostorm.bash-completion"
	while IFS= read -r f; do
		install -D -m 0644 "$f" "$d/$f"
	done < <(git ls-files docs 2>/dev/null || find docs -type f)
	(cd "$d" && find . -type f -printf '%P\n' | LC_ALL=C sort | xargs sha256sum >../SHA256SUMS)
	mv "$stage/SHA256SUMS" "$d/SHA256SUMS"
	chmod 0644 "$d/SHA256SUMS"
	find "$d" -type d -exec chmod 0755 {} +
	LC_ALL=C tar --sort=name --format=gnu --owner=0 --group=0 --numeric-owner \
		--mtime="@$sde" --clamp-mtime -C "$stage" -cf - "$name" | gzip -9 -n >"$name.tar.gz.tmp"
	mv "$name.tar.gz.tmp" "$name.tar.gz"
	echo "  DIST     $name.tar.gz $(sha256sum "$name.tar.gz" | cut -d' ' -f1)"
}

# image IMAGE STAGE: docs/deploy/Containerfile over the static binary.
image() {
	local img=$1 stage=$2 sde rev
	command -v podman >/dev/null || die "podman not found (scripts/deps.sh --test installs it)"
	check_static iostorm >/dev/null
	sde=$(source_date_epoch)
	rev=$(git rev-parse HEAD 2>/dev/null || echo unknown)
	rm -rf "$stage"
	mkdir -p "$stage"
	cp iostorm "$stage/iostorm"
	podman build -q --layers=false --timestamp "$sde" -f docs/deploy/Containerfile \
		--build-arg VERSION="$(./iostorm --version | sed -n '1s/^iostorm //p')" \
		--build-arg REVISION="$rev" -t "$img" "$stage" >"$stage/id" ||
		die "podman build failed"
	echo "  IMAGE    $img $(cut -c1-12 "$stage/id")"
}

case ${1:-} in
check-static) [ $# = 2 ] || die "usage: $0 check-static BINARY"; check_static "$2" ;;
dist) [ $# = 3 ] || die "usage: $0 dist NAME STAGE_DIR"; dist "$2" "$3" ;;
image) [ $# = 3 ] || die "usage: $0 image IMAGE STAGE_DIR"; image "$2" "$3" ;;
*) die "usage: $0 check-static BINARY | dist NAME STAGE_DIR | image IMAGE STAGE_DIR" ;;
esac
