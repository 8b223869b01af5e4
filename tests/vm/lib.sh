# Helpers for the guest checks (tests/vm/check_*.sh), sourced by
# tests/vm/run.sh. A check prints one line, "ok   WHAT: FIGURES" or
# "FAIL WHAT: FIGURES", and the run goes on: every figure of a kernel is
# seen, not only the first that is wrong.

PASSED=0
FAILED=0

pass() {
	echo "ok   $*"
	PASSED=$((PASSED + 1))
}

# flunk WHAT: a failed check; returns 1.
flunk() {
	echo "FAIL $*"
	FAILED=$((FAILED + 1))
	return 1
}

# check_eq WHAT GOT WANT (check_*: 0 when it passed, 1 when not)
check_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1: $2"
	else
		flunk "$1: got '$2', expected '$3'"
	fi
}

# check_eq_skipped WHAT GOT WANT SKIPPED: exactly WANT when the kernel
# skipped none of the layer's program runs (SKIPPED, its
# kernel.layers.*.skipped_runs); else a lower bound short of WANT by at
# most SKIPPED. A kernel whose tracepoints are preemptible (7.x) skips a
# program's run on a CPU while another run of it there is preempted:
# iostorm counts those, and no check may pass a shortfall they do not explain.
check_eq_skipped() {
	local num='^[0-9]+$'
	if [ "${4:-0}" = 0 ] || ! [[ $4 =~ $num ]]; then
		check_eq "$1" "$2" "$3"
	elif [[ $2 =~ $num ]] && [[ $3 =~ $num ]] && [ "$2" -le "$3" ] &&
		[ $(($3 - $2)) -le "$4" ]; then
		pass "$1: $2 of $3, a lower bound: the kernel skipped $4 runs of the layer's programs"
	else
		flunk "$1: got '$2', expected '$3' (or short of it by at most the $4 runs the kernel skipped)"
	fi
}

# check_cmp WHAT A OP B: a numeric comparison, e.g. check_cmp x 3 '>=' 2.
check_cmp() {
	local num='^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$'
	if [[ $2 =~ $num ]] && [[ $4 =~ $num ]] &&
		awk -v a="$2" -v b="$4" "BEGIN { exit !(a $3 b) }"; then
		pass "$1: $2 ($3 $4)"
	else
		flunk "$1: got '$2', expected $3 $4"
	fi
}

# check_near WHAT A B TOL: |A - B| <= TOL, both numbers.
check_near() {
	local num='^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$'
	if [[ $2 =~ $num ]] && [[ $3 =~ $num ]] && awk -v a="$2" -v b="$3" -v t="$4" \
		'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; then
		pass "$1: $2 vs $3 (within $4)"
	else
		flunk "$1: $2 vs $3, more than $4 apart"
	fi
}

# jqr FILE FILTER: one raw value from a JSON file ("" when jq fails).
jqr() {
	jq -r "$2" "$1" 2>/dev/null
}

# tally FILE KEY: a value from the workload's "total ..." line.
tally() {
	grep '^total ' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# traced WHAT IOSTORM_ARGS...: run iostorm; on failure, a FAIL line with its
# exit status and last words, and return 1 so the dependent checks are not
# run on a report that is not there. A run past IOSTORM_VM_STEP_TIMEOUT
# seconds (300; every run here takes under 60) is a hang: where each task
# of iostorm and its children waits is printed (hung_dump), then iostorm
# gets SIGINT (it still writes its report) and, 10 s later, SIGKILL.
traced() {
	local what=$1 rc=0 pid tenths=0 limit=$((${IOSTORM_VM_STEP_TIMEOUT:-300} * 10))
	shift
	"$IOSTORM" "$@" >"$what.out" 2>"$what.err" &
	pid=$!
	while [ -d "/proc/$pid" ] && ! grep -q '^State:.Z' "/proc/$pid/status" 2>/dev/null &&
		[ "$tenths" -lt "$limit" ]; do
		sleep 0.1
		tenths=$((tenths + 1))
	done
	if [ "$tenths" -ge "$limit" ]; then
		hung_dump "$pid"
		kill -INT "$pid" 2>/dev/null
		sleep 10
		kill -KILL "$pid" 2>/dev/null
		wait "$pid"
		flunk "$what: iostorm still running after $((limit / 10)) s (a hang; where it waited is above)"
		return 1
	fi
	wait "$pid" || rc=$?
	if [ "$rc" != 0 ]; then
		flunk "$what: iostorm exit $rc: $(grep -v '^libbpf: ' "$what.err" | tail -n 3 | tr '\n' ' ')"
		return 1
	fi
}

# hung_dump PID: where PID and its descendants wait (state, wait channel,
# kernel stack of each thread), then the kernel's list of blocked tasks
# (sysrq w), what each CPU runs (sysrq l) and its last words. /proc only:
# the guest may have no ps.
hung_dump() {
	local pids=$1 p t n
	echo "     hang: the tasks of iostorm (pid $1) and its children:"
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		n=$(awk '{ print $4 }' "/proc/$p/stat" 2>/dev/null)
		case " $pids " in *" $n "*) pids="$pids $p" ;; esac
	done
	for p in $pids; do
		for t in /proc/"$p"/task/*; do
			echo "     $p/${t##*/} $(cut -d' ' -f2,3 "$t/stat" 2>/dev/null) wchan=$(cat "$t/wchan" 2>/dev/null)"
			sed 's/^/         /' "$t/stack" 2>/dev/null
		done
	done
	echo w > /proc/sysrq-trigger 2>/dev/null	# blocked tasks
	echo l > /proc/sysrq-trigger 2>/dev/null	# what each CPU runs
	echo "     hang: the kernel's last words (dmesg):"
	dmesg 2>/dev/null | tail -n 150 | sed 's/^/     /'
}

drop_caches() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
}

# has_event CATEGORY/NAME: the kernel has this tracepoint (tracefs is the truth).
has_event() {
	[ -d "$TRACEFS/events/$1" ]
}

# forced NAME: 0 when IOSTORM_FALLBACKS forces fallback NAME (all: every one).
forced() {
	case ",${IOSTORM_FALLBACKS:-}," in
	*,all,* | *",$1,"*) return 0 ;;
	*) return 1 ;;
	esac
}

# kernel_has_layer LAYER: 0 when the kernel has the layer's hooks and no
# fallback switches the layer off.
kernel_has_layer() {
	case $1 in
	faults) ! forced no_faults && has_event filemap/mm_filemap_fault ;;
	fuse) ! forced no_fuse && has_event fuse/fuse_request_send ;;
	io_uring) ! forced no_uring && has_event io_uring/io_uring_complete ;;
	block) has_event block/block_io_start || has_event block/block_rq_issue ;;
	*) return 0 ;;
	esac
}

# The data disk (DISK: vda), its reads, sectors read, writes.
disk_stats() {
	awk -v n="$DISK" '$3 == n { print $4, $6, $8 }' /proc/diskstats
}

# blk FILE FILTER: FILTER on the data disk's entry in block.devices.
blk() {
	jq -r --arg n "$DISK" ".block.devices[] | select(.name == \$n) | $2" "$1" 2>/dev/null
}

# sum_under FILE DIR KEY: KEY summed over the regular files under DIR.
sum_under() {
	jq --arg p "$2" "[.files[] | select(.type == \"file\" and .path != null and
		(.path | startswith(\$p))) | .$3] | add // 0" "$1" 2>/dev/null
}
