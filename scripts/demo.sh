#!/bin/bash
# The built-in example, in four acts:
#  1. an ImageNet-like dataset (20,000 JPEG-sized files in 200 class
#     directories) read whole, in random order, by 8 threads, cold cache,
#     on this machine's disk: the storm, and iostorm's verdict on it;
#  2. a 2,000-file sample of it on storage capped at 300 read IOPS, as a
#     cloud block volume is (a cgroup's read IOPS limit: v1 blkio or v2
#     io.max, scripts/run-capped.sh): the storm starves;
#  3. the same sample packed into 64 MB shards, read sequentially on the
#     same capped storage: the fix, and `iostorm diff` of before and after;
#  4. a training loop fed by a tf.data-like pipeline (8 readers, 2 decoders)
#     from the capped sample: how long the loop waits for data, by iostorm
#     and by the loop's own clock.
#
# It says first what it changes on this machine: it drops the page cache
# (every process's, four times, so the reads are cold), writes the datasets
# (~1.8 GB) and removes them at the end (IOSTORM_DEMO_KEEP=1 keeps them, and
# a second run reuses them), and caps reads in a cgroup of its own, removed
# after.
#
# Usage: scripts/demo.sh [FILES]   (root; default 20000 files, ~1.6 GB)
#   IOSTORM_DEMO_DIR (default /var/tmp/iostorm-demo), IOSTORM_DEMO_KEEP=1,
#   IOSTORM_DEMO_SAMPLE (files in the capped sample, default 2000)
set -euo pipefail
cd "$(dirname "$0")/.."

files=${1:-20000}
sample=${IOSTORM_DEMO_SAMPLE:-2000}
data=${IOSTORM_DEMO_DIR:-/var/tmp/iostorm-demo}
workload=$PWD/.output/iostorm-workload
iostorm=$PWD/iostorm
iops=300

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

drop_caches() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
}

# gen DIR N [ARGS]: a dataset, generated once (the marker stays outside
# it: the readers and the packer read every file in DIR).
gen() {
	[ -f "$1.complete" ] && return
	rm -rf "$1"
	"$workload" gen "$1" --files "$2" --dirs $(($2 / 100 > 0 ? $2 / 100 : 1)) "${@:3}"
	touch "$1.complete"
}

[ "$(id -u)" = 0 ] || { echo "demo: run as root (iostorm traces the kernel)" >&2; exit 1; }
say "what this demo does to this machine"
echo "  - writes ~$(( (files + sample) * 81 / 1000 )) MB of datasets to $data," \
	"$([ "${IOSTORM_DEMO_KEEP:-0}" = 1 ] && echo "kept after (IOSTORM_DEMO_KEEP=1)" ||
		echo "removed at the end (IOSTORM_DEMO_KEEP=1 keeps them)")"
echo "  - drops the page cache (of every process, 4 times) so that reads are cold"
echo "  - caps reads of $data's disk at $iops IOPS in a cgroup of its own, removed after"
if [ "${IOSTORM_DEMO_KEEP:-0}" != 1 ]; then
	trap 'rm -rf "$data"' EXIT
fi

say "generating the datasets in $data"
gen "$data/train" "$files"
gen "$data/sample" "$sample" --seed 2
if [ ! -f "$data/shards.complete" ]; then
	rm -rf "$data/shards"
	"$workload" pack "$data/sample" --out "$data/shards" --shard-size 64000000
	touch "$data/shards.complete"
fi

say "1. the storm: $files files, random order, 8 threads, cold cache, local disk"
drop_caches
"$iostorm" -T 5 -j "$data/storm.json" -- "$workload" read "$data/train" --threads 8 \
	--tally /dev/null

say "2. a $sample-file sample on storage capped at $iops read IOPS (a cloud volume)"
drop_caches
"$iostorm" -T 5 -j "$data/capped.json" -- scripts/run-capped.sh "$iops" "$data" \
	"$workload" read "$data/sample" --threads 8 --tally /dev/null

say "3. the same sample packed into 64 MB shards, read sequentially, same cap"
drop_caches
"$iostorm" -T 5 -j "$data/packed.json" -- scripts/run-capped.sh "$iops" "$data" \
	"$workload" read "$data/shards" --threads 2 --bufsize 1048576 --tally /dev/null

say "before and after: iostorm diff capped.json packed.json"
"$iostorm" diff --force --no-default-limits "$data/capped.json" "$data/packed.json" || true

say "4. a training loop fed from the capped sample (8 readers, 2 decoders): does it wait for data?"
drop_caches
"$iostorm" -T 5 -j "$data/loop.json" -- scripts/run-capped.sh "$iops" "$data" \
	"$workload" pipeline "$data/sample" --readers 8 --decoders 2 --cpu-us 300 \
	--tally "$data/loop.tally"
echo
echo "demo: verdicts"
for r in storm capped packed loop; do
	printf '  %-7s %s\n' "$r" "$(jq -r .verdict "$data/$r.json")"
done
printf '  the loop waited for data %s of its time by iostorm, %s by its own clock\n' \
	"$(jq -r 'if .stall.share == null then "n/a (no loop found)"
		  else "\(.stall.share * 1000 | round / 10)%" end' "$data/loop.json")" \
	"$(awk '/^loop / { for (i = 2; i <= NF; i++) if ($i ~ /^wait_share=/) {
		sub(/wait_share=/, "", $i); printf "%.1f%%", $i * 100 } }' "$data/loop.tally")"
if [ "${IOSTORM_DEMO_KEEP:-0}" = 1 ]; then
	echo "demo: JSON reports in $data/{storm,capped,packed,loop}.json"
else
	mkdir -p .output/demo
	cp "$data"/{storm,capped,packed,loop}.json .output/demo/
	echo "demo: JSON reports in .output/demo/{storm,capped,packed,loop}.json;" \
		"the datasets in $data are removed"
fi
