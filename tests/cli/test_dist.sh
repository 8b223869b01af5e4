# The release tarball (make dist), no root: what docs/install.md says it
# holds, its checksums, the static binary, and the same bytes when packed
# again from the same binary and commit.

test_dist_tarball() {
	local version name tgz sum
	version=$("$IOSTORM" --version | sed -n '1s/^iostorm //p')
	name=iostorm-$version-$(uname -m)-linux
	tgz=$ROOT/$name.tar.gz
	[ -f "$tgz" ] || skip "no $name.tar.gz: make dist"
	tar tvzf "$tgz" >list.txt || fail "tar t"
	local f
	for f in iostorm README.md LICENSE CHANGELOG.md THIRD-PARTY.md \
		third-party/libbpf-dev.copyright third-party/libc6-dev.copyright \
		third-party/libmicrohttpd12.copyright docs/licenses/LGPL-2.1.txt \
		SHA256SUMS docs/iostorm.8 scripts/iostorm.bash-completion \
		docs/deploy/iostorm-daemonset.yaml docs/deploy/iostorm.service \
		docs/deploy/Containerfile docs/prometheus/iostorm-rules.yml \
		docs/grafana/iostorm-pods.json; do
		grep -q " $name/$f\$" list.txt || fail "$f not in the tarball"
	done
	expect_eq "entries not owned by 0/0" "$(awk '$2 != "0/0"' list.txt | wc -l)" 0
	expect_eq "distinct dates" "$(awk '{ print $4, $5 }' list.txt | sort -u | wc -l)" 1
	tar xzf "$tgz" || fail "tar x"
	# Every library the static binary links is named, with its license, and how to rebuild.
	for f in libbpf libelf zlib1g libjansson libc6 libmicrohttpd; do
		grep -q "^| $f" "$name/THIRD-PARTY.md" || fail "THIRD-PARTY.md does not name $f"
	done
	grep -q 'make static' "$name/THIRD-PARTY.md" || fail "THIRD-PARTY.md does not say how to rebuild"
	(cd "$name" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS"
	expect_eq "files under SHA256SUMS" "$(wc -l <"$name/SHA256SUMS")" \
		"$(cd "$name" && find . -type f ! -name SHA256SUMS | wc -l)"
	"$name/iostorm" --version | grep -qx "linked: static (no shared libraries)" ||
		fail "the tarball's binary is not static"
	# Packed again from the same binary: the same bytes.
	cmp -s "$name/iostorm" "$IOSTORM" || skip "./iostorm is not the tarball's (make static dist)"
	sum=$(sha256sum <"$tgz")
	"$ROOT/scripts/ship.sh" dist "$name" "$PWD/stage" >dist.txt 2>&1 || fail "$(cat dist.txt)"
	expect_eq "sha256 packed again" "$(sha256sum <"$tgz")" "$sum"
}
