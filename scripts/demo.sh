#!/bin/bash
# The built-in example: a generated ImageNet-like dataset (small JPEG-sized
# files in class directories) read whole, in random order, by 8 threads,
# with a cold page cache, traced by iostorm from the first instruction.
#
# Usage: scripts/demo.sh [FILES]   (root; default 20000 files, ~1.6 GB)
set -euo pipefail
cd "$(dirname "$0")/.."

files=${1:-20000}
data=${IOSTORM_DEMO_DIR:-/var/tmp/iostorm-demo}
workload=.output/iostorm-workload

if [ ! -f "$data/.complete-$files" ]; then
	echo "demo: generating $files files in $data ..."
	rm -rf "$data"
	"$workload" gen "$data/train" --files "$files" --dirs $((files / 100 > 0 ? files / 100 : 1))
	touch "$data/.complete-$files"
fi

echo "demo: dropping the page cache, so reads go to storage"
sync
echo 3 > /proc/sys/vm/drop_caches

echo "demo: iostorm -- $workload read $data/train --threads 8"
echo
./iostorm --json "$data/report.json" -- "$workload" read "$data/train" --threads 8 --tally /dev/null
echo
echo "demo: JSON report in $data/report.json"
