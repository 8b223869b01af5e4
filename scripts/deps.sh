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
# the PyTorch training loop of tests/e2e/test_stall.sh; qemu-system-x86,
# busybox-static, cpio, e2fsprogs and xz-utils boot Debian's kernels for
# `make vm-test` (scripts/vm/: initramfs, dataset disk, modules).
PKGS="make gcc clang llvm pkg-config libbpf-dev libelf-dev zlib1g-dev bpftool
libjansson-dev jq util-linux libmicrohttpd-dev prometheus valgrind btrfs-progs
chromium python3-html5lib libfuse3-dev fuse3 sshfs openssh-server
python3-torch python3-torchvision python3-pil
qemu-system-x86 busybox-static cpio e2fsprogs xz-utils"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "deps: all installed"
	exit 0
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
