#!/bin/bash
# The seed's story, replayed with TensorFlow: a tf.data pipeline feeds a
# small Keras model on the CPU from a folder of JPEGs (~80 KB each), cold,
# on a volume capped at a few hundred read IOPS (a cgroup v1 blkio
# throttle, as a cloud volume caps them):
#  1. the JPEG folder: iostorm's verdict (a small-file storm, storage-bound:
#     pack the files into shards);
#  2. the same data packed into TFRecord shards by the advice's own recipe:
#     its shard count, the shard order shuffled, 1 MiB reads, a shuffle
#     buffer (tests/tf_train.py pack, and train --records);
#  3. the same epoch from the shards, cold, same cap: the verdict, and
#     `iostorm diff` of the two runs: the epoch's time and the storm gone.
# The dataset lives on a file system of its own (an ext4 image on a loop
# device under $IOSTORM_DEMO_DIR/tf), so that only its reads are capped
# (scripts/run-capped.sh: a cgroup v1 blkio throttle or v2 io.max).
# TensorFlow comes from scripts/tf-venv.sh's venv. It says first what it
# changes on this machine, as scripts/demo.sh does: it drops the page cache
# twice, writes a ~0.9 GB image (removed at the end; IOSTORM_DEMO_KEEP=1
# keeps it, and a second run reuses it), mounts it on a loop device and caps
# reads in a cgroup of its own, both undone after.
#
# Usage: scripts/demo-tf.sh [IMAGES [IOPS]]  (root; 4000 JPEGs, 300 IOPS)
set -euo pipefail
cd "$(dirname "$0")/.."

images=${1:-4000}
iops=${2:-300}
dir=${IOSTORM_DEMO_DIR:-/var/tmp/iostorm-demo}/tf
iostorm=$PWD/iostorm
job=$PWD/tests/tf_train.py

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

drop_caches() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
}

venv=$(scripts/tf-venv.sh --print) || {
	echo "demo-tf: no TensorFlow venv: run scripts/tf-venv.sh (scripts/deps.sh --test does)" >&2
	exit 1
}
py=$venv/bin/python
[ "$(id -u)" = 0 ] || { echo "demo-tf: run as root (a loop device, a blkio cgroup)" >&2; exit 1; }
[ -x "$iostorm" ] || { echo "demo-tf: no $iostorm: run make first" >&2; exit 1; }

say "what this demo does to this machine"
echo "  - writes a $((images * 200 / 1000 + 64)) MB file system image to $dir," \
	"$([ "${IOSTORM_DEMO_KEEP:-0}" = 1 ] && echo "kept after (IOSTORM_DEMO_KEEP=1)" ||
		echo "removed at the end (IOSTORM_DEMO_KEEP=1 keeps it)"), mounted on a loop device"
echo "  - drops the page cache (of every process, twice) so that reads are cold"
echo "  - caps reads of that device at $iops IOPS in a cgroup of its own, removed after"

# The dataset's file system: an image sized for the JPEGs and their shards.
mkdir -p "$dir/mnt"
img=$dir/disk.img
if [ ! -f "$dir/jpeg.complete" ]; then
	rm -f "$img"
	truncate -s $((images * 200 / 1000 + 64))M "$img"
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$img"
fi
loop=$(losetup -f --show "$img")
cleanup() {
	umount "$dir/mnt" 2>/dev/null || true
	losetup -d "$loop" 2>/dev/null || true
	[ "${IOSTORM_DEMO_KEEP:-0}" = 1 ] || rm -f "$img" "$dir/jpeg.complete"
}
trap cleanup EXIT
mount -o noatime "$loop" "$dir/mnt"
data=$dir/mnt

# capped JSON CMD...: CMD traced, its reads of the dataset's device capped;
# TensorFlow's start-up log to job.err.
capped() {
	local json=$1
	shift
	"$iostorm" -T 5 -j "$json" -- scripts/run-capped.sh "$iops" "$data" \
		sh -c 'exec "$@" 2>>"$0"' "$dir/job.err" "$@"
}

if [ ! -f "$dir/jpeg.complete" ]; then
	say "generating $images JPEGs of 300x300 pixels in $data/jpeg (once)"
	rm -rf "$data/jpeg" "$data/tfrecord"
	/usr/bin/python3 -c "import PIL" 2>/dev/null && gen=/usr/bin/python3 || gen=$py
	"$gen" "$job" gen "$data/jpeg" --images "$images" --classes 100 --size 300
	touch "$dir/jpeg.complete"
fi
rm -f "$dir"/*.tally

say "1. one epoch from the JPEG folder, cold, on a volume capped at $iops read IOPS"
drop_caches
capped "$dir/jpeg.json" "$py" "$job" train "$data/jpeg" --width 2 --tally "$dir/jpeg.tally"

# The advice's recipe: its shard count (the data over 256 MB shards).
shards=$(jq -r '[.findings[] | select(.id == "small_file_storm") | .evidence.shards][0]
		// empty' "$dir/jpeg.json")
if [ -z "$shards" ]; then
	echo "demo-tf: iostorm found no small-file storm to pack (see the report above)" >&2
	shards=1
fi
say "2. packing the folder into $shards TFRecord shard(s), as the advice says"
echo "   advice: $(jq -r '.findings[] | select(.id == "small_file_storm") | .advice' \
	"$dir/jpeg.json")"
rm -rf "$data/tfrecord"
"$py" "$job" pack "$data/jpeg" "$data/tfrecord" --shards "$shards" 2>/dev/null
ls -l "$data/tfrecord"

say "3. the same epoch from the shards, cold, same cap"
drop_caches
capped "$dir/tfrecord.json" "$py" "$job" train "$data/tfrecord" --records --width 2 \
	--tally "$dir/tfrecord.tally"

say "before and after: iostorm diff jpeg.json tfrecord.json"
"$iostorm" diff --force --no-default-limits "$dir/jpeg.json" "$dir/tfrecord.json" || true

# seconds KEY TALLY: a time of the job's own "loop" line, in seconds.
seconds() {
	awk -v k="$1" '/^loop / { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) {
		sub(k "=", "", $i); printf "%.1f", $i / 1e9 } }' "$2"
}
echo
echo "demo-tf: verdicts"
for r in jpeg tfrecord; do
	printf '  %-9s %s\n' "$r" "$(jq -r .verdict "$dir/$r.json")"
done
echo "demo-tf: the epoch by the job's own clock: $(seconds wall_ns "$dir/jpeg.tally") s from" \
	"the JPEG folder (waiting for data $(seconds wait_ns "$dir/jpeg.tally") s)," \
	"$(seconds wall_ns "$dir/tfrecord.tally") s from the shards (waiting" \
	"$(seconds wait_ns "$dir/tfrecord.tally") s)"
echo "demo-tf: JSON reports in $dir/{jpeg,tfrecord}.json"
