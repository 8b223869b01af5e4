# The build's own promises, checked without root: the layers of user/ (see
# docs/hacking.md, "Layout") and a core that builds and passes its unit tests with a
# C compiler and Debian's libraries only, no clang and no bpftool.

test_layers_hold() {
	"$ROOT/scripts/check-layers.sh" >out.txt 2>err.txt || fail "layers: $(cat err.txt)"
	grep -q "layers: ok" out.txt || fail "$(cat out.txt)"
}

# Each kind of forbidden include, added to a copy of user/, fails the check.
test_layers_check_fails() {
	local case file line want
	while IFS='|' read -r case file line want; do
		rm -rf user && cp -r "$ROOT/user" user
		sed -i "0,/^#include/s||$line\n#include|" "user/$file"
		if "$ROOT/scripts/check-layers.sh" "$PWD/user" >out.txt 2>err.txt; then
			fail "$case: '$line' in $file passed the check"
		fi
		grep -qF -- "$want" err.txt || fail "$case: $(cat err.txt)"
		echo "  $case: refused"
	done <<-'CASES'
	upward|model/store.c|#include "report/report.h"|model/ may not depend on report/
	judge in the model|model/trace.h|#include "findings/findings.h"|model/ may not depend on findings/
	private header|run/run.c|#include "prom/prom_int.h"|private to prom/
	libbpf outside collect|run/run.c|#include <bpf/libbpf.h>|only collect/ talks to libbpf
	skeleton outside collect|report/json.c|#include "iostorm.skel.h"|only collect/ loads
	diff reads the model|diff/load.c|#include "model/trace.h"|diff/ may not depend on model/
	bare name|prom/text.c|#include "store.h"|include by path
	CASES
}

# bpftool's bootstrap idea: the core needs no BPF toolchain. Any call of
# clang or bpftool would fail this build.
test_unit_without_bpf_toolchain() {
	make -C "$ROOT" -s OUTPUT="$PWD/out" CLANG=/nonexistent/clang \
		BPFTOOL=/nonexistent/bpftool "$PWD/out/unit-tests" >build.txt 2>&1 ||
		fail "build: $(tail -20 build.txt)"
	[ ! -e out/iostorm.skel.h ] && [ ! -d out/bpf ] || fail "the BPF side was built"
	nm out/unit-tests | grep -q " bpf_object__" && fail "unit tests link libbpf"
	IOSTORM_GOLDEN_DIR=$GOLDEN out/unit-tests >unit.txt 2>&1 || fail "unit tests: $(tail -20 unit.txt)"
	tail -n1 unit.txt | grep -q " 0 failed" || fail "$(tail -n1 unit.txt)"
	echo "  $(tail -n1 unit.txt)"
}
