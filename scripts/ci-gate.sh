#!/bin/bash
# A CI gate on a data loader's I/O: trace the loader on a sample of the
# dataset with iostorm, compare the report with a committed baseline, and
# fail the job when the loader regressed: more opens, reads or stats per
# file, more small or random reads, a new HIGH finding, 2x slower reads
# (the defaults of 'iostorm diff'). See docs/diff.md.
#
# usage: scripts/ci-gate.sh [--update] [--new NEW.json] [--cache warm|cold]
#            BASELINE.json [DIFF_OPTIONS...] -- LOADER_COMMAND [ARGS...]
#
#   --update        write the new report over BASELINE.json (review and
#                   commit it) instead of comparing: the first baseline, or
#                   after a change meant to alter the loader's I/O
#   --new FILE      where the new report goes (default: iostorm-new.json)
#   --cache warm    run the loader once untraced first: timings of a warm
#                   page cache, comparable from run to run
#   --cache cold    drop the page cache first (root): first-epoch timings
#   DIFF_OPTIONS    for 'iostorm diff', e.g. --fail-on 'io_wait_share>+10pp'
#
# IOSTORM is the iostorm command (default: iostorm); "sudo iostorm" where
# the job is not root: tracing needs CAP_BPF and CAP_PERFMON.
#
# Exit status: that of 'iostorm diff' (0 no regression, 1 a regression,
# 2 a bad command line, 3 a report unusable or of another workload); 3 as
# well when the loader or its trace failed, or BASELINE.json is missing.
set -u

read -r -a iostorm <<<"${IOSTORM:-iostorm}"
new="iostorm-new.json"
update=
cache=

# The synopsis on stderr and exit 2; --help: the whole header on stdout.
usage() {
	sed -n '/^# usage:/,/^# *$/s/^# \{0,1\}//p' "$0" >&2
	echo "Try '$0 --help' for more information." >&2
	exit 2
}

help() {
	sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
	exit 0
}

while [ $# -gt 0 ]; do
	case $1 in
	--update) update=1 ;;
	--new) [ $# -ge 2 ] || usage; new=$2; shift ;;
	--cache) [ $# -ge 2 ] || usage; cache=$2; shift ;;
	-h|--help) help ;;
	-*) echo "ci-gate: unknown option '$1'" >&2; usage ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 1 ] || usage
baseline=$1
shift
diff_opts=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	diff_opts+=("$1")
	shift
done
[ $# -ge 2 ] || { echo "ci-gate: no loader command after '--'" >&2; usage; }
shift
loader=("$@")

case $cache in
'') ;;
warm)
	echo "ci-gate: warming the page cache: one untraced run of the loader" >&2
	"${loader[@]}" >/dev/null || { echo "ci-gate: the loader failed" >&2; exit 3; }
	;;
cold)
	echo "ci-gate: dropping the page cache" >&2
	{ sync && echo 3 >/proc/sys/vm/drop_caches; } 2>/dev/null ||
		{ echo "ci-gate: cannot drop the page cache (needs root)" >&2; exit 3; }
	;;
*)
	echo "ci-gate: --cache takes warm or cold, not '$cache'" >&2
	exit 2
	;;
esac

# iostorm exits with the loader's own status.
echo "ci-gate: ${iostorm[*]} -q --json $new -- ${loader[*]}" >&2
if ! "${iostorm[@]}" -q --json "$new" -- "${loader[@]}" >&2; then
	echo "ci-gate: the loader or its trace failed; nothing to compare" >&2
	exit 3
fi
if [ -n "$update" ]; then
	cp "$new" "$baseline" || exit 3
	echo "ci-gate: baseline '$baseline' updated: review and commit it" >&2
	exit 0
fi
if [ ! -f "$baseline" ]; then
	echo "ci-gate: no baseline '$baseline': create it with --update and commit it" >&2
	exit 3
fi
exec "${iostorm[@]}" diff "${diff_opts[@]}" "$baseline" "$new"
