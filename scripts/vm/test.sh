#!/bin/bash
# `make vm-test`: boot each of Debian's kernels under qemu and run the guest
# checks (tests/vm/run.sh) inside, with this tree's build; then the oldest
# and the newest (6.1, 7.2) a second time with every fallback forced
# (IOSTORM_FALLBACKS=all), so the paths older kernels take are checked on
# kernels that have the newer ones (on 6.1 that is every path 5.15 takes:
# its page argument, its state word). 6.12, between them, is booted once:
# its forced run repeated the other two's and cost CI five minutes.
# Prints each guest's checks, then "N passed, N failed"; exits 1 on a failure.
#
# Usage: scripts/vm/test.sh [LINE...]   (default: 6.1 6.12 7.2 5.10; 5.10 is
#   below iostorm's floor: its one check is the clear refusal)
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${IOSTORM_VM_WORK:-$ROOT/.output/vm}
read -r -a LINES <<<"${*:-6.1 6.12 7.2 5.10}"
FORCED_ON=${IOSTORM_VM_FORCED_ON:-6.1 7.2}
PASSED=0
FAILED=0
T0=$SECONDS

# needs: the command and the Debian package that has it.
needs() {
	local missing=() c p
	while read -r c p; do
		command -v "$c" >/dev/null || [ -x "$c" ] || missing+=("$p")
	done <<-EOF2
		qemu-system-x86_64 qemu-system-x86
		/bin/busybox busybox-static
		cpio cpio
		mke2fs e2fsprogs
		mkfs.xfs xfsprogs
		xz xz-utils
		jq jq
		fusermount3 fuse3
	EOF2
	[ ${#missing[@]} = 0 ] && return 0
	echo "vm: installing ${missing[*]}"
	if [ "$(id -u)" != 0 ]; then
		echo "vm: missing ${missing[*]}: run scripts/deps.sh --test as root" >&2
		return 1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >/dev/null
}

# guest LINE [FALLBACKS]: one boot, its checks counted into the totals.
guest() {
	local line=$1 fb=${2:-} name=$1 out rc=0 p f
	local -a env=()
	if [ -n "$fb" ]; then
		name=$line-fallbacks
		env=(-e "IOSTORM_FALLBACKS=$fb")
	fi
	echo
	echo "=== $line${fb:+ (IOSTORM_FALLBACKS=$fb)}: $(cat "${IOSTORM_VM_CACHE:-/var/cache/iostorm-vm}/$line/.package" 2>/dev/null)"
	out=$WORK/$name
	"$ROOT/scripts/vm/run.sh" "$line" "${env[@]}" -o "$out" -- tests/vm/run.sh \
		>"$WORK/$name.log" 2>&1 || rc=$?
	grep -v '^[0-9]* passed, [0-9]* failed$' "$WORK/$name.log"
	read -r p _ f _ < <(grep '^[0-9]* passed, [0-9]* failed$' "$WORK/$name.log" | tail -n1)
	if [ -z "${p:-}" ]; then
		echo "FAIL the $name guest did not finish its checks (exit $rc; log $WORK/$name.log)"
		FAILED=$((FAILED + 1))
		return
	fi
	echo "$name: $p passed, $f failed"
	PASSED=$((PASSED + p))
	FAILED=$((FAILED + f))
}

needs || exit 1
cd "$ROOT" || exit 1
mkdir -p "$WORK"
"$ROOT/scripts/vm/kernels.sh" "${LINES[@]}" >/dev/null || exit 1
for line in "${LINES[@]}"; do
	guest "$line"
	case " $FORCED_ON " in *" $line "*) guest "$line" all ;; esac
done
echo
echo "vm-test: $((SECONDS - T0)) s for ${LINES[*]} under qemu (TCG)"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
