#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The differential harness (issue 46): random job shapes, each drawn from a
# seed by `iostorm-workload shape` (tests/workload/shape.h), run under
# iostorm and again under strace, each file life compared between iostorm's
# JSON, the workload's own tally and strace's calls, and a training loop's
# figures against the job's own clocks (tests/shapes/compare.py). The file
# systems are made here, once for all seeds: ext4 and XFS on loop devices,
# a tmpfs and the tests' read-only FUSE file system (tests/fusefs.c).
#
# Usage: tests/shapes/run.sh [OPTION...] [SEED...]
#   --seeds FILE    the seeds of FILE too (one a line; '#' starts a comment)
#   --new N         N new seeds, drawn from the clock
#   --duration S    new seeds until S seconds have passed (with --new: the first)
#   --keep FILE     append each seed that failed to FILE (make soak: tests/shapes/seeds)
#   --iostorm PATH  the iostorm to check (default ./iostorm), e.g. an older build's
#   --fs LIST       of ext4,xfs,tmpfs,fuse (default: those this machine has); the
#                   shape drawn from a seed depends on the list, so a rerun takes it
#   --no-strace     iostorm against the tally alone
#   --strict        a known issue's differences fail too (compare.py lists them)
#   --work DIR      file systems and runs there (default a new /tmp directory)
# Every seed's line is logged in .output/shapes.log. Exit 0 when every seed
# agreed, 1 when one did not (its seed, its differences and the command that
# reruns it are printed, its runs kept), 2 on a usage or set-up error, 77 when
# it cannot run here (not root).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
IOSTORM=$ROOT/iostorm
WORKLOAD=$ROOT/.output/iostorm-workload
FUSEFS=$ROOT/.output/iostorm-fusefs
LOG=$ROOT/.output/shapes.log
SEEDS=()
NEW=0
DURATION=0
KEEP=
FS_LIST=
STRACE=1
STRICT=
WORK=
OWN_WORK=0

usage() {
	sed -n '/^# Usage:/,/^# it cannot/s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

die() {
	echo "shapes: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--seeds) [ -r "${2:-}" ] || die "cannot read seeds file '${2:-}'"
		 mapfile -t -O ${#SEEDS[@]} SEEDS < <(sed 's/#.*//' "$2" | awk 'NF { print $1 }')
		 shift ;;
	--new) NEW=${2:-}; shift ;;
	--duration) DURATION=${2:-}; shift ;;
	--keep) KEEP=${2:-}; shift ;;
	--iostorm) IOSTORM=$(realpath "${2:-}") || die "no iostorm '${2:-}'"; shift ;;
	--fs) FS_LIST=${2:-}; shift ;;
	--no-strace) STRACE=0 ;;
	--strict) STRICT=--strict ;;
	--work) WORK=${2:-}; shift ;;
	-h | --help) usage ;;
	-*) echo "shapes: unknown option '$1'" >&2; usage ;;
	*) SEEDS+=("$1") ;;
	esac
	shift
done
for s in "${SEEDS[@]}" "$NEW" "$DURATION"; do
	[[ $s =~ ^[0-9]+$ ]] || die "not a number: '$s'"
done
[ ${#SEEDS[@]} -gt 0 ] || [ "$NEW" -gt 0 ] || [ "$DURATION" -gt 0 ] ||
	die "no seed: name seeds, --seeds FILE, --new N or --duration S"
[ "$(id -u)" = 0 ] || { echo "shapes: needs root (mounts, iostorm)"; exit 77; }
[ -x "$IOSTORM" ] && [ -x "$WORKLOAD" ] || die "no $IOSTORM or $WORKLOAD: run make first"
command -v python3 >/dev/null || die "no python3"
if [ "$STRACE" = 1 ] && ! command -v strace >/dev/null; then
	echo "shapes: no strace (scripts/deps.sh --test installs it): iostorm against the tally alone"
	STRACE=0
fi

# ---- the file systems, once for all seeds

if [ -z "$WORK" ]; then
	WORK=$(mktemp -d /tmp/iostorm-shapes.XXXXXX) || die "cannot make a work directory"
	OWN_WORK=1
fi
WORK=$(realpath "$WORK")
FS=$WORK/fs
mkdir -p "$FS" "$WORK/runs" "$(dirname "$LOG")" || die "cannot make $FS"
CLEANUP=()
FAILED_SEEDS=()

cleanup() {
	local i
	for ((i = ${#CLEANUP[@]} - 1; i >= 0; i--)); do
		eval "${CLEANUP[i]}" >/dev/null 2>&1
	done
	rm -f "$WORK"/*.img
	if [ ${#FAILED_SEEDS[@]} -eq 0 ] && [ "$OWN_WORK" = 1 ]; then
		rm -rf "$WORK"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# want NAME: NAME is in --fs (or no --fs was given).
want() {
	[ -z "$FS_LIST" ] || [[ ,$FS_LIST, == *,$1,* ]]
}

# loop_mount NAME SIZE MKFS...: an image of SIZE on a loop device, at $FS/NAME.
loop_mount() {
	local name=$1 size=$2 dev opts=
	shift 2
	truncate -s "$size" "$WORK/$name.img" || return 1
	dev=$(losetup -f --show "$WORK/$name.img") || return 1
	CLEANUP+=("losetup -d $dev")
	"$@" "$dev" >/dev/null || return 1
	mkdir -p "$FS/$name"
	# ext4 as tests/e2e/test_block.sh's loop_fs: no background I/O
	[ "$name" = ext4 ] && opts=-onoatime,no_prefetch_block_bitmaps,commit=300
	mount $opts "$dev" "$FS/$name" || return 1
	CLEANUP+=("umount $FS/$name || umount -l $FS/$name")
}

fuse_mount() {
	local i
	[ -x "$FUSEFS" ] && [ -c /dev/fuse ] || return 1
	mkdir -p "$FS/fuse"
	"$FUSEFS" "$FS/fuse" --files 64 --dirs 4 --size 81920 --delay-us 200 \
		--tally "$WORK/fusefs.tally" 2>"$WORK/fusefs.err" &
	CLEANUP+=("fusermount3 -u -z $FS/fuse; kill $!")
	for ((i = 0; i < 50; i++)); do
		grep -q " $FS/fuse fuse.iostormfs " /proc/self/mounts && return 0
		sleep 0.1
	done
	return 1
}

HAVE=()
if want ext4 && command -v mkfs.ext4 >/dev/null; then
	loop_mount ext4 256M mkfs.ext4 -q -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 &&
		HAVE+=(ext4) || die "cannot make an ext4 file system on a loop device"
fi
if want xfs && command -v mkfs.xfs >/dev/null &&
   { grep -qw xfs /proc/filesystems || modprobe xfs 2>/dev/null; }; then
	loop_mount xfs 512M mkfs.xfs -q && HAVE+=(xfs) || die "cannot make an XFS file system"
fi
if want tmpfs; then
	mkdir -p "$FS/tmpfs"
	mount -t tmpfs -o size=256m tmpfs "$FS/tmpfs" && HAVE+=(tmpfs) || die "cannot mount a tmpfs"
	CLEANUP+=("umount $FS/tmpfs")
fi
if want fuse; then
	fuse_mount && HAVE+=(fuse) ||
		echo "shapes: no FUSE file system (iostorm-fusefs, /dev/fuse): left out"
fi
[ ${#HAVE[@]} -gt 0 ] || die "no file system to run on"
FS_USED=$(IFS=,; echo "${HAVE[*]}")
[ -z "$FS_LIST" ] || [ "$FS_USED" = "$FS_LIST" ] ||
	echo "shapes: asked for --fs $FS_LIST, have $FS_USED: a seed's shape depends on it"

# ---- one seed

# the commit of the iostorm checked, as it says (--iostorm may be another build's)
COMMIT=$("$IOSTORM" --version 2>/dev/null | sed -n 's/^commit: //p')
COMMIT=${COMMIT:-unknown}
IOSTORM_ARG=${STRICT:+--strict }
[ "$IOSTORM" = "$ROOT/iostorm" ] || IOSTORM_ARG="$IOSTORM_ARG--iostorm $IOSTORM "
TRACED=open,openat,openat2,creat,read,pread64,readv,preadv,preadv2,write,pwrite64,writev
TRACED=$TRACED,pwritev,pwritev2,fsync,fdatasync,mmap,rename,renameat,renameat2,unlink,unlinkat

# rm_tag TAG: a run's files, on every writable root (not its records).
rm_tag() {
	local r
	for r in "$FS"/*/; do
		[ -d "$r$1" ] && [ -w "$r" ] && rm -rf "$r$1"
	done
}

# run_seed SEED: run A under iostorm, run B under strace, compare; 0 when they agree.
run_seed() {
	local seed=$1 dir=$WORK/runs/$1 t0=$EPOCHREALTIME rc=0 secs res cmp
	local a=s$1-a b=s$1-b
	rm -rf "$dir"
	mkdir -p "$dir"
	echo "seed $seed"
	timeout 300 "$IOSTORM" -q -j "$dir/a.json" -- "$WORKLOAD" shape "$FS" --seed "$seed" \
		--tag "$a" --tally "$dir/a.tally" >"$dir/a.out" 2>"$dir/a.err" || rc=$?
	if [ "$rc" != 0 ]; then
		echo "  run A (under iostorm) failed, exit $rc: $(tail -n 5 "$dir/a.err")"
	elif [ "$STRACE" = 1 ]; then
		timeout 300 strace -ff -qq -y -s 0 -o "$dir/st" -e trace=$TRACED -e signal=none \
			"$WORKLOAD" shape "$FS" --seed "$seed" --tag "$b" --tally "$dir/b.tally" \
			>"$dir/b.out" 2>"$dir/b.err" || rc=$?
		[ "$rc" = 0 ] || echo "  run B (under strace) failed, exit $rc: $(tail -n 5 "$dir/b.err")"
	fi
	cmp=(python3 "$ROOT/tests/shapes/compare.py" --fs "$FS" --json "$dir/a.json"
	     --tally-a "$dir/a.tally" --tag-a "$a" $STRICT)
	[ "$STRACE" = 1 ] && cmp+=(--tally-b "$dir/b.tally" --tag-b "$b" --strace "$dir/st")
	[ "$rc" = 0 ] && { "${cmp[@]}" || rc=$?; }
	rm_tag "$a"
	rm_tag "$b"
	secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
	SECS_ALL=$(awk -v a="${SECS_ALL:-0}" -v b="$secs" 'BEGIN { print a + b }')
	if [ "$rc" = 0 ]; then
		res=ok
		echo "ok   seed $seed ($secs s)"
		rm -rf "$dir"
	else
		res=FAIL
		FAILED_SEEDS+=("$seed")
		echo "FAIL seed $seed ($secs s; runs kept in $dir)"
		echo "  rerun: tests/shapes/run.sh ${IOSTORM_ARG}--fs $FS_USED $seed"
		if [ -n "$KEEP" ] && ! grep -qE "^$seed([^0-9]|$)" "$KEEP" 2>/dev/null; then
			echo "$seed  # found $(date +%F) on $COMMIT (--fs $FS_USED)" >>"$KEEP"
			echo "  kept in $KEEP"
		fi
	fi
	echo "$(date '+%F %T') iostorm=$COMMIT seed=$seed fs=$FS_USED $res ${secs}s" >>"$LOG"
}

echo "shapes: iostorm $IOSTORM ($COMMIT), file systems $FS_USED," \
	"strace $([ "$STRACE" = 1 ] && echo on || echo off)"
N=0
T_START=$EPOCHREALTIME
for seed in "${SEEDS[@]}"; do
	run_seed "$seed"
	N=$((N + 1))
done
i=0
while { [ "$NEW" -gt 0 ] && [ "$i" -lt "$NEW" ]; } ||
      { [ "$NEW" = 0 ] && [ "$DURATION" -gt 0 ]; }; do
	if [ "$DURATION" -gt 0 ] &&
	   awk -v a="$T_START" -v b="$EPOCHREALTIME" -v d="$DURATION" 'BEGIN { exit !(b - a >= d) }'; then
		break
	fi
	# a new seed from the clock: logged with its result
	run_seed "$(( $(date +%s%N) / 1000 % 4000000000 ))"
	i=$((i + 1))
	N=$((N + 1))
done
echo
echo "shapes: $N seeds, $((N - ${#FAILED_SEEDS[@]})) agreed, ${#FAILED_SEEDS[@]} did not" \
	"($(awk -v s="${SECS_ALL:-0}" -v n=$N \
		'BEGIN { printf "%.1f s, %.1f s a seed", s, n ? s / n : 0 }'))"
if [ ${#FAILED_SEEDS[@]} -gt 0 ]; then
	echo "failed seeds: ${FAILED_SEEDS[*]}; runs kept in $WORK/runs"
	echo "rerun each: tests/shapes/run.sh ${IOSTORM_ARG}--fs $FS_USED SEED"
	exit 1
fi
exit 0
