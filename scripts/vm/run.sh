#!/bin/bash
# Boot one of Debian's kernels under qemu (TCG: no KVM needed) and run one
# command inside it, as root, in this tree (the host's root is the guest's,
# read-only over 9p, so the guest runs this tree's build), with the dataset
# disk at /run/iostorm-vm/data and /tmp/vm shared back to the host.
#
# Usage: scripts/vm/run.sh LINE [-e VAR=VALUE]... [-o DIR] -- COMMAND...
#        scripts/vm/run.sh prepare LINE...   (the disk and initramfs only)
#   LINE: 6.1, 6.12, 7.2 or 5.10 (scripts/vm/kernels.sh)
#   -e: set VAR in the guest; -o: the results share (default .output/vm/LINE)
# Prints the command's output; exits with its status, or 125 when the guest
# did not finish (it crashed, or ran past IOSTORM_VM_TIMEOUT seconds, 1200: a hang guard; the 7.2 guest takes about 900).
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VM=$ROOT/scripts/vm
WORK=${IOSTORM_VM_WORK:-$ROOT/.output/vm}

usage() {
	echo "usage: scripts/vm/run.sh LINE [-e VAR=VALUE]... [-o DIR] -- COMMAND..." >&2
	exit 2
}

# prepare LINE...: the dataset disk and each line's initramfs, made before
# guests that share them start side by side (scripts/vm/test.sh).
prepare() {
	local line kver kdir initrd
	mkdir -p "$WORK"
	for line in "$@"; do
		read -r _ kver kdir < <("$VM/kernels.sh" "$line") || return 1
		initrd=$WORK/initrd-$kver.gz
		if [ ! -f "$initrd" ] || [ "$VM/init" -nt "$initrd" ] || [ "$VM/initramfs.sh" -nt "$initrd" ]; then
			"$VM/initramfs.sh" "$kver" "$kdir" "$initrd" || return 1
		fi
	done
	if [ ! -f "$WORK/disk.img" ] || [ "$VM/disk.sh" -nt "$WORK/disk.img" ]; then
		"$VM/disk.sh" "$WORK/disk.img" || return 1
	fi
}

[ $# -ge 1 ] || usage
if [ "$1" = prepare ]; then
	shift
	prepare "$@"
	exit
fi
LINE=$1
shift
ENVS=()
OUT=$WORK/$LINE
while [ $# -gt 0 ]; do
	case $1 in
	-e) [ $# -ge 2 ] || usage; ENVS+=("$2"); shift 2 ;;
	-o) [ $# -ge 2 ] || usage; OUT=$2; shift 2 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
[ $# -ge 1 ] || usage
command -v qemu-system-x86_64 >/dev/null ||
	{ echo "vm: no qemu-system-x86_64: apt-get install qemu-system-x86" >&2; exit 1; }

read -r _ KVER KDIR < <("$VM/kernels.sh" "$LINE") || exit 1
mkdir -p "$WORK"
INITRD=$WORK/initrd-$KVER.gz
if [ ! -f "$INITRD" ] || [ "$VM/init" -nt "$INITRD" ] || [ "$VM/initramfs.sh" -nt "$INITRD" ]; then
	"$VM/initramfs.sh" "$KVER" "$KDIR" "$INITRD"
fi
DISK=$WORK/disk.img
if [ ! -f "$DISK" ] || [ "$VM/disk.sh" -nt "$DISK" ]; then
	"$VM/disk.sh" "$DISK"
fi

# The command, its environment and working directory, for the guest's init.
rm -rf "$OUT"
mkdir -p "$OUT"
{
	echo "cd $(printf %q "$PWD") || exit 1"
	for e in ${ENVS[@]+"${ENVS[@]}"}; do
		echo "export $(printf %q "$e")"
	done
	printf 'exec'
	printf ' %q' "$@"
	echo
} > "$OUT/cmd"
cp "$VM/stage2" "$OUT/stage2"
# This tree, shared on its own too: a clone under /tmp, /run or /var/tmp
# (CI's may be) is hidden in the guest by the tmpfs mounted there.
echo "$ROOT" > "$OUT/tree"

# -serial stdio: the guest's console is our stdout (\r\n line ends made \n),
# kept in OUT/console.log too (a panic's trace, when the guest crashes).
# thread=single: one host thread runs both vCPUs. With a thread each
# (qemu 7.2's default), 6.1 locks up while a tracepoint is switched on or
# off: one vCPU loops on the int3 that live patching put in __schedule
# while the other spins on a lock, no iostorm needed (echo 1/0 into
# tracefs' enable files stopped for good after 120 rounds of 5 events;
# with thread=single 3,000 rounds pass). iostorm attaching 20 tracepoints
# hit it about once in 30 runs.
set +e
timeout --foreground "${IOSTORM_VM_TIMEOUT:-1200}" qemu-system-x86_64 \
	-machine q35 -accel tcg,thread=single -cpu max -smp 2 -m 3G -display none -monitor none -serial stdio \
	-no-reboot -kernel "$KDIR/boot/vmlinuz-$KVER" -initrd "$INITRD" \
	-append "console=ttyS0 quiet loglevel=5 panic=-1 ${IOSTORM_VM_APPEND:-}" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs "local,path=$OUT,mount_tag=vmout,security_model=none" \
	-virtfs "local,path=$ROOT,mount_tag=tree,security_model=none,readonly=on,multidevs=remap" \
	-drive "file=$DISK,if=virtio,format=raw,cache=none,readonly=on" \
	< /dev/null | tr -d '\r' | tee "$OUT/console.log" |
	grep -v '^\[ *[0-9.]*\] reboot: Power down$'
set -e
if [ ! -f "$OUT/rc" ]; then
	echo "vm: the $LINE guest ($KVER) did not finish: it crashed or ran past ${IOSTORM_VM_TIMEOUT:-1200} s" >&2
	exit 125
fi
exit "$(cat "$OUT/rc")"
