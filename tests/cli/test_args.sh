# The command line as a user meets it, before anything is loaded: no root
# needed. Bad flags exit 2 and say what is wrong; --help teaches.

test_cli_bad_input() {
	expect_fail 2 "nothing to trace" "$IOSTORM"
	expect_fail 2 "invalid value 'abc' for -p" "$IOSTORM" -p abc
	expect_fail 2 "invalid value '-1' for -d" "$IOSTORM" -d -1 -a
	expect_fail 2 "only one of" "$IOSTORM" -a -p 1
	expect_fail 2 "from 1024 to 4194304" "$IOSTORM" --map-files 99999999 -a
	expect_fail 2 "invalid value '-5' for --store-files" "$IOSTORM" --store-files -5 -a
	expect_fail 2 "Try 'iostorm --help'" "$IOSTORM" --no-such-flag
	expect_fail 2 "expected ADDR:PORT" "$IOSTORM" --listen localhost -a
	expect_fail 2 "unknown threshold 'nope'" "$IOSTORM" --threshold nope=1 -a
	expect_fail 2 "-q without --json" "$IOSTORM" -q -a
}

# /metrics on an address other hosts reach serves every tenant's names
# unencrypted: refused (exit 2, docs/usage.md) unless --listen-insecure
# says so; loopback and unix:PATH are the documented ways.
test_cli_listen_needs_explicit_flag() {
	local want="add --listen-insecure"
	expect_fail 2 "--listen '0.0.0.0:9436' would serve every tenant's names to anyone who reaches it" \
		"$IOSTORM" -a --listen 0.0.0.0:9436
	expect_fail 2 "$want" "$IOSTORM" -a --listen '[::]:9436'
	expect_fail 2 "$want" "$IOSTORM" -a --listen 10.0.3.17:9436
	expect_fail 2 "expected unix:PATH" "$IOSTORM" -a --listen unix:
	expect_fail 2 "--listen-insecure without --listen" "$IOSTORM" -a --listen-insecure
	# Accepted: the next complaint is about another flag.
	expect_fail 2 "only one of" "$IOSTORM" -a -p 1 --listen 0.0.0.0:9436 --listen-insecure
	expect_fail 2 "only one of" "$IOSTORM" -a -p 1 --listen 127.0.0.2:9436
	expect_fail 2 "only one of" "$IOSTORM" -a -p 1 --listen '[::1]:9436'
	expect_fail 2 "only one of" "$IOSTORM" -a -p 1 --listen unix:/run/iostorm.sock
	expect_fail 2 "invalid value 'nope' for --keep-caps: no such capability" \
		"$IOSTORM" -a --keep-caps nope
	expect_fail 2 "only one of" "$IOSTORM" -a -p 1 --keep-caps cap_sys_ptrace,CAP_BPF
	expect_fail 2 "invalid value '-1' for --max-series" "$IOSTORM" -a --max-series -1
}

# -p takes what pgrep prints (newlines, spaces, commas; -p repeated), and
# says which part of a bad value is not a process id.
test_cli_pids_as_pgrep_prints() {
	expect_fail 2 "invalid value '12 ab' for -p: 'ab' is not a process id" "$IOSTORM" -p "12 ab"
	expect_fail 2 "no process id in it (is the job running? pgrep printed nothing)" \
		"$IOSTORM" -p ""
	expect_fail 2 "'0' is not a process id" "$IOSTORM" -p "4242,0"
	# Accepted, every form: the next complaint is about another flag.
	expect_fail 2 "-q without --json" "$IOSTORM" -q -p "4242
4243"
	expect_fail 2 "-q without --json" "$IOSTORM" -q -p 4242 -p "4243, 4244"
	expect_fail 2 "-q without --json" "$IOSTORM" -q -p 4242 4243 4244
	# A word after "--" is a COMMAND, never a pid.
	expect_fail 2 "give only one of" "$IOSTORM" -p 4242 -- 4243
	expect_fail 2 "both on stdout" "$IOSTORM" --json - --html - -p 4242
}

# --consumer names the training loops, one per data-parallel rank:
# repeatable or comma-separated, each a thread id or a name.
test_cli_consumers() {
	local many
	expect_fail 2 "invalid value '' for --consumer" "$IOSTORM" --consumer '' -a
	expect_fail 2 "invalid value '1,,2' for --consumer" "$IOSTORM" --consumer 1,,2 -a
	expect_fail 2 "invalid value '12,' for --consumer" "$IOSTORM" --consumer 12, -a
	expect_fail 2 "names of 1 to 15 characters" "$IOSTORM" --consumer 1,pt_data_worker_0 -a
	expect_fail 2 "a thread id from 1" "$IOSTORM" --consumer 0 -a
	many=$(seq -s, 1 65)
	expect_fail 2 "64 training loops at most" "$IOSTORM" --consumer "$many" -a
	# Accepted: the next complaint is about another flag.
	expect_fail 2 "-q without --json" "$IOSTORM" --consumer 4242,python3 --consumer 7 -q -a
	expect_fail 2 "-q without --json" "$IOSTORM" --consumer "$(seq -s, 1 64)" -q -a
}

# A label is on every sample: a 100,000-byte --job made a 36 MB metrics
# file. Over 128 bytes it is refused, without echoing it back.
test_cli_job_bounded() {
	local long
	long=$(head -c 100000 /dev/zero | tr '\0' j)
	expect_fail 2 "invalid value for --job: 100000 bytes, at most 128" \
		"$IOSTORM" --job "$long" --prom-file x.prom -a
	[ "$(wc -c <err.txt)" -lt 200 ] || fail "the message echoes the value: $(wc -c <err.txt) bytes"
	expect_fail 2 "control character" "$IOSTORM" --job "$(printf 'a\nb')" -a
	expect_fail 2 "nothing to trace" "$IOSTORM" --job "$(head -c 128 /dev/zero | tr '\0' j)"
}

test_cli_help_and_version() {
	"$IOSTORM" --help >out.txt || fail "--help exit $?"
	grep -q "usage: iostorm" out.txt || fail "--help: $(head -3 out.txt)"
	grep -q "Exit status" out.txt || fail "--help does not teach the exit status"
	"$IOSTORM" --version >version.txt || fail "--version exit $?"
	grep -q "^iostorm [0-9]" version.txt || fail "--version: $(cat version.txt)"
	# The commit, the libbpf, and static or dynamic as the binary really is.
	grep -qE "^commit: ([0-9a-f]{12}(-dirty)?|unknown)$" version.txt || fail "no commit: $(cat version.txt)"
	grep -qE "^libbpf: [0-9]+\.[0-9]+" version.txt || fail "no libbpf: $(cat version.txt)"
	if LC_ALL=C readelf -lW "$IOSTORM" | grep -q "program interpreter"; then
		grep -qx "linked: dynamic" version.txt || fail "a dynamic binary: $(cat version.txt)"
	else
		grep -qx "linked: static (no shared libraries)" version.txt ||
			fail "a static binary: $(cat version.txt)"
	fi
	sed 's/^/  /' version.txt
	"$IOSTORM" --threshold list | grep -q storm_files || fail "--threshold list"
	"$IOSTORM" diff --help | grep -q "usage: iostorm diff" || fail "diff --help"
}

# A closed or full stdout is an error of every command, not a silent exit 0.
test_cli_stdout_full() {
	[ -w /dev/full ] || skip "no /dev/full"
	expect_fail 4 "cannot write to stdout" sh -c "'$IOSTORM' --help >/dev/full"
	expect_fail 4 "cannot write" sh -c \
		"'$IOSTORM' diff '$GOLDEN/report.json' '$GOLDEN/report.json' >/dev/full"
	expect_fail 4 "cannot write to stdout" sh -c "'$IOSTORM' help html >/dev/full"
}

# `iostorm help [COMMAND]` teaches; a mistyped command is said as one (exit
# 2), never run as a program iostorm cannot find.
test_cli_help_and_mistyped() {
	"$IOSTORM" help >h.txt || fail "help: exit $?"
	grep -q '^usage: iostorm \[options\] -p PID' h.txt || fail "help: $(head -n 2 h.txt)"
	"$IOSTORM" help diff >d.txt || fail "help diff: exit $?"
	grep -q '^usage: iostorm diff' d.txt || fail "help diff: $(head -n 2 d.txt)"
	expect_fail 2 "help: no command 'nope'" "$IOSTORM" help nope
	expect_fail 2 "'chek' is not an iostorm command; did you mean 'check'?" "$IOSTORM" chek
	expect_fail 2 "did you mean 'diff'?" "$IOSTORM" dif a.json b.json
	expect_fail 2 "did you mean 'html'?" "$IOSTORM" hmtl r.json
}
