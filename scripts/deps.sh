#!/bin/sh
# Install what iostorm needs, from Debian's packages (as root; apt-get).
#
# Usage: scripts/deps.sh          the build and the demo (`make`, `make demo`)
#        scripts/deps.sh --test   also the test farm (`make test`, CI)
#
# Nothing here enables or leaves running a service: a package whose install
# would start one (prometheus starts a server on :9090 where systemd runs)
# is installed with policy-rc.d refusing it, and the tests start their own.
set -eu

# The build and `make demo`: compilers, libbpf and bpftool, jansson, libmicrohttpd,
# jq for the demo's figures, util-linux (losetup, findmnt).
BASE="make gcc clang llvm pkg-config libbpf-dev libelf-dev zlib1g-dev bpftool
libjansson-dev jq util-linux libmicrohttpd-dev"

# The tests: valgrind runs the unit tests; cppcheck and clang-format `make
# check`; btrfs-progs makes one test's file system; chromium (headless) and
# python3-html5lib check the HTML report; libfuse3-dev and fuse3 the FUSE test
# file system (tests/fusefs.c); sshfs and openssh-server the network file
# system test (sshd started by the test, in a network namespace); prometheus
# (server and promtool) the metrics tests; python3-torch, -torchvision and
# -pil the PyTorch training loops; python3-venv the TensorFlow venv
# (scripts/tf-venv.sh); fio and liburing-dev the io_uring and AIO readers;
# strace an independent count of calls; qemu-system-x86, busybox-static, cpio,
# e2fsprogs, xfsprogs and xz-utils boot Debian's kernels (`make vm-test`);
# nfs-kernel-server gives the guests their NFS server; dpkg-dev unpacks
# libmicrohttpd's source for the static build (`make static`, from the deb-src
# lines added below); podman and runc build and run the image;
# libclang-rt-14-dev links the libFuzzer targets (`make fuzz`); openmpi-bin
# launches a PyTorch job under mpirun (tests/e2e/test_launchers.sh).
TEST="valgrind cppcheck clang-format btrfs-progs chromium python3-html5lib libfuse3-dev
fuse3 sshfs openssh-server prometheus python3-torch python3-torchvision python3-pil
python3-venv fio liburing-dev strace qemu-system-x86 busybox-static cpio e2fsprogs
xfsprogs xz-utils nfs-kernel-server dpkg-dev podman runc libclang-rt-14-dev openmpi-bin"

PKGS=$BASE
TESTS=0
for a in "$@"; do
	case $a in
	--test) PKGS="$BASE $TEST"; TESTS=1 ;;
	-h | --help) sed -n '2,9s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "deps: unknown argument '$a' (use --test, or nothing)" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "deps: run as root (apt-get installs packages)" >&2; exit 1; }

# `apt-get source` (the static build's libmicrohttpd) needs deb-src lines:
# the same archive as the deb lines, in a file of their own.
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
[ $TESTS = 1 ] && deb_src && src_added=1
if [ -n "$missing" ] || [ $src_added = 1 ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
fi
if [ -n "$missing" ]; then
	echo "deps: installing$missing"
	# No service starts on install (invoke-rc.d asks policy-rc.d: 101 refuses).
	rc_policy=/usr/sbin/policy-rc.d
	if [ ! -e $rc_policy ]; then
		printf '#!/bin/sh\nexit 101\n' > $rc_policy && chmod +x $rc_policy
		trap 'rm -f $rc_policy' EXIT
	fi
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
	echo "deps: all installed"
fi
# The TensorFlow venv of the tests, from PyPI (never the system's Python).
tf_venv=$(dirname "$0")/tf-venv.sh
if [ $TESTS = 1 ] && [ -x "$tf_venv" ]; then
	"$tf_venv"
fi
exit 0
