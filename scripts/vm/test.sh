#!/bin/bash
# `make vm-test`: boot each of Debian's kernels under qemu and run the guest
# checks (tests/vm/run.sh) inside, with this tree's build; then the oldest
# and the newest (6.1, 7.2) a second time with every fallback forced
# (IOSTORM_FALLBACKS=all), so the paths older kernels take are checked on
# kernels that have the newer ones (on 6.1 that is every path 5.15 takes:
# its page argument, its state word). 6.12, between them, is booted once:
# its forced run repeated the other two's and cost CI five minutes.
# Guests run side by side (IOSTORM_VM_JOBS at once, default the CPUs
# online). Prints each guest's checks as it ends, the slowest concerns,
# the command that reruns each failed one, then "N passed, N failed";
# exits 1 on a failure.
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

# boot NAME LINE [FALLBACKS]: one guest, its log in $WORK/NAME.log and its
# seconds in $WORK/NAME.secs. Runs in the background, beside others.
boot() {
	local name=$1 line=$2 fb=${3:-} t0=$SECONDS rc=0
	local -a env=()
	[ -n "$fb" ] && env=(-e "IOSTORM_FALLBACKS=$fb")
	"$ROOT/scripts/vm/run.sh" "$line" "${env[@]}" -o "$WORK/$name" -- tests/vm/run.sh \
		>"$WORK/$name.log" 2>&1 || rc=$?
	echo "$rc $((SECONDS - t0))" >"$WORK/$name.secs"
}

# report NAME LINE [FALLBACKS]: a finished guest's checks, counted into the
# totals, with the command that reruns each failed concern in a guest.
report() {
	local name=$1 line=$2 fb=${3:-} rc secs p f c envs=""
	read -r rc secs <"$WORK/$name.secs"
	[ -n "$fb" ] && envs="-e IOSTORM_FALLBACKS=$fb "
	echo
	echo "=== $line${fb:+ (IOSTORM_FALLBACKS=$fb)}: $(cat "${IOSTORM_VM_CACHE:-/var/cache/iostorm-vm}/$line/.package" 2>/dev/null) ($secs s)"
	grep -Ev '^([0-9]* passed, [0-9]* failed|time [a-z_]* [0-9]*|concern [a-z_]* failed)$' "$WORK/$name.log"
	read -r p _ f _ < <(grep '^[0-9]* passed, [0-9]* failed$' "$WORK/$name.log" | tail -n1)
	sed -n "s/^time \([a-z_]*\) \([0-9]*\)$/\2 \1 in $name/p" "$WORK/$name.log" >>"$WORK/times"
	if [ -z "${p:-}" ]; then
		echo "FAIL the $name guest did not finish its checks (exit $rc; log $WORK/$name.log)"
		FAILED=$((FAILED + 1))
		RERUNS+=("make vm-test KERNELS=$line")
		return
	fi
	echo "$name: $p passed, $f failed"
	PASSED=$((PASSED + p))
	FAILED=$((FAILED + f))
	for c in $(sed -n 's/^concern \([a-z_]*\) failed$/\1/p' "$WORK/$name.log"); do
		RERUNS+=("scripts/vm/run.sh $line ${envs}-- tests/vm/run.sh $c")
	done
}

needs || exit 1
cd "$ROOT" || exit 1
mkdir -p "$WORK"
rm -f "$WORK/times"
"$ROOT/scripts/vm/kernels.sh" "${LINES[@]}" >/dev/null || exit 1
# What the guests share is made before they start: the dataset disk and
# each kernel's initramfs.
"$ROOT/scripts/vm/run.sh" prepare "${LINES[@]}" || exit 1

# cost NAME: a boot's minutes on a quiet 2-CPU machine (docs/vm-tests.md),
# to start the longest first, so that the last to start are the short ones.
cost() {
	case $1 in
	7.2) echo 11 ;; 6.12) echo 10 ;; 6.1) echo 10 ;;
	*-fallbacks) echo 6 ;; 5.10) echo 1 ;; *) echo 10 ;;
	esac
}

# The boots, each "NAME LINE [FALLBACKS]": every line, then the forced
# ones, ordered by cost.
BOOTS=()
for line in "${LINES[@]}"; do
	BOOTS+=("$line $line")
	case " $FORCED_ON " in *" $line "*) BOOTS+=("$line-fallbacks $line all") ;; esac
done
mapfile -t BOOTS < <(for b in "${BOOTS[@]}"; do echo "$(cost "${b%% *}") $b"; done |
	sort -s -k1,1nr | cut -d' ' -f2-)

# IOSTORM_VM_JOBS guests at once (default: the CPUs online): each runs
# its two vCPUs on one host thread. Each is printed whole once it ends.
JOBS=${IOSTORM_VM_JOBS:-$(nproc)}
RERUNS=()
declare -A RUNNING=()
next=0
echo "vm-test: ${#BOOTS[@]} boots, $JOBS at once"
while [ "$next" -lt "${#BOOTS[@]}" ] || [ ${#RUNNING[@]} -gt 0 ]; do
	while [ "$next" -lt "${#BOOTS[@]}" ] && [ ${#RUNNING[@]} -lt "$JOBS" ]; do
		read -r -a b <<<"${BOOTS[$next]}"
		rm -f "$WORK/${b[0]}.secs"
		boot "${b[@]}" &
		RUNNING[$!]=${BOOTS[$next]}
		next=$((next + 1))
	done
	wait -n -p done_pid "${!RUNNING[@]}"
	read -r -a b <<<"${RUNNING[$done_pid]}"
	unset "RUNNING[$done_pid]"
	report "${b[@]}"
done
echo
echo "vm-test: $((SECONDS - T0)) s for ${LINES[*]} under qemu (TCG), $JOBS guests at once"
if [ -s "$WORK/times" ]; then
	echo "the slowest concerns:"
	sort -rn "$WORK/times" | head -n 10 | awk '{ printf "%6d s  %s\n", $1, substr($0, length($1) + 2) }'
fi
if [ "$FAILED" != 0 ]; then
	echo "rerun each alone:"
	printf '  %s\n' "${RERUNS[@]}"
fi
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
