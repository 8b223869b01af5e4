#!/bin/bash
# Which folder of user/ may include which: the direction of docs/hacking.md's
# "Layout", checked on every #include. Exits 1 and names each include that
# points the wrong way, reaches past a folder's public header, or loads
# libbpf or the skeleton outside collect/.
#
# Usage: scripts/check-layers.sh [USER_DIR]   (default: user)
set -u
cd "$(dirname "$0")/.."
USER_DIR=${1:-user}

# folder -> the folders it may include (besides itself)
declare -A MAY=(
	[main]="run diff html lib"
	[run]="collect report prom html findings model lib"
	[report]="findings model lib"
	[prom]="findings model lib"
	[findings]="model lib"
	[collect]="model lib"
	[model]="lib"
	[diff]="lib"
	[html]="lib"
	[lib]=""
)
# Folders whose every header is public; elsewhere only <folder>/<folder>.h.
ALL_PUBLIC="model lib"
# What may include the BPF side's shared headers (bpf/*.h).
BPF_ABI="main run report prom findings collect model"

bad=0
complain() {
	echo "$1:$2: $3" >&2
	bad=1
}

check_file() {
	local f=$1 from=$2 n=0 line inc to
	while IFS= read -r line; do
		n=$((n + 1))
		[[ $line =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*([\"\<])([^\"\>]+) ]] || continue
		inc=${BASH_REMATCH[2]}
		if [ "${BASH_REMATCH[1]}" = "<" ]; then
			[[ $inc == bpf/* && $from != collect ]] &&
				complain "$f" $n "<$inc>: only collect/ talks to libbpf"
			continue
		fi
		case $inc in
		iostorm.skel.h)
			[ "$from" = collect ] || complain "$f" $n "\"$inc\": only collect/ loads the BPF programs"
			continue ;;
		*/*) ;;
		*)
			if [ -f "bpf/$inc" ]; then
				[[ " $BPF_ABI " == *" $from "* ]] ||
					complain "$f" $n "\"$inc\": $from/ does not use the BPF side's headers"
			else
				complain "$f" $n "\"$inc\": include by path, e.g. \"model/store.h\""
			fi
			continue ;;
		esac
		to=${inc%%/*}
		[ "$to" = "$from" ] && continue
		if [ -z "${MAY[$to]+set}" ]; then
			complain "$f" $n "\"$inc\": no folder user/$to"
		elif [[ " ${MAY[$from]} " != *" $to "* ]]; then
			complain "$f" $n "\"$inc\": $from/ may not depend on $to/ (may: ${MAY[$from]:-nothing})"
		elif [[ " $ALL_PUBLIC " != *" $to "* && $inc != "$to/$to.h" ]]; then
			complain "$f" $n "\"$inc\": private to $to/; include \"$to/$to.h\""
		fi
	done <"$f"
}

for f in $(find "$USER_DIR" -name '*.[ch]' | sort); do
	rel=${f#"$USER_DIR"/}
	case $rel in
	*/*) from=${rel%%/*} ;;
	*) from=main ;;
	esac
	if [ -z "${MAY[$from]+set}" ]; then
		complain "$f" 0 "a folder the layers do not know: add it to scripts/check-layers.sh"
		continue
	fi
	check_file "$f" "$from"
done
[ $bad = 0 ] && echo "layers: ok ($(find "$USER_DIR" -name '*.[ch]' | wc -l) files)"
exit $bad
