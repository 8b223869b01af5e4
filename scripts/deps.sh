#!/bin/sh
# Install what iostorm needs to build and test, from Debian's packages.
# Usage: scripts/deps.sh   (as root; apt-get)
set -eu

# prometheus (the server and promtool) is for tests/e2e/test_prom.sh only; on a
# systemd host its package starts a service on :9090, which the tests avoid.
# valgrind runs the unit tests (uninitialised reads, invalid accesses, leaks);
# btrfs-progs makes the btrfs file system of one test; chromium (headless)
# and python3-html5lib check the HTML report in tests/e2e/test_html.sh;
# libfuse3-dev and fuse3 the FUSE test file system (tests/fusefs.c); sshfs
# and openssh-server the network file system test (its sshd is started by
# the test only, in a network namespace; no service is enabled where
# systemd does not run); python3-torch, python3-torchvision and python3-pil
# the PyTorch training loop of tests/e2e/test_stall.sh; fio a pure reader
# there (no training loop), and the io_uring and AIO reader of
# tests/e2e/test_async.sh, with liburing-dev for its own io_uring loader
# (tests/uring.c); strace the tracer test_stall.sh wraps around a reader
# and a loop (no loop of its own); qemu-system-x86,
# busybox-static, cpio, e2fsprogs, xfsprogs and xz-utils boot Debian's kernels for
# `make vm-test` (scripts/vm/: initramfs, dataset disk, modules).
# Shipping (`make static dist image`, tests/e2e/test_ship.sh): dpkg-dev
# unpacks Debian's libmicrohttpd source package (from the deb-src lines
# added below) for a static build without HTTPS; podman and runc build and
# run the image; busybox-static is the second container's shell and the
# chroot test's.
PKGS="make gcc clang llvm pkg-config libbpf-dev libelf-dev zlib1g-dev bpftool
libjansson-dev jq util-linux libmicrohttpd-dev prometheus valgrind btrfs-progs
chromium python3-html5lib libfuse3-dev fuse3 sshfs openssh-server
python3-torch python3-torchvision python3-pil fio liburing-dev strace
qemu-system-x86 cpio e2fsprogs xfsprogs xz-utils dpkg-dev podman runc busybox-static"

# `apt-get source` needs deb-src lines: the same archive as the deb lines.
deb_src() {
	local f=/etc/apt/sources.list.d/iostorm-deb-src.sources
	grep -rqsE '^(deb-src |Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/ &&
		return 1
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		sed -n '/^Types: deb$/,/^$/{ s/^Types: deb$/Types: deb-src/; p }' \
			/etc/apt/sources.list.d/debian.sources >"$f"
	else
		sed -n 's/^deb \(.*\)/deb-src \1/p' /etc/apt/sources.list \
			>/etc/apt/sources.list.d/iostorm-deb-src.list
	fi
	echo "deps: added Debian's deb-src lines (for apt-get source)"
}

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
src_added=0
deb_src && src_added=1
if [ -z "$missing" ] && [ $src_added = 0 ]; then
	echo "deps: all installed"
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
[ -z "$missing" ] && exit 0
echo "deps: installing$missing"
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
