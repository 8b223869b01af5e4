# The reference docs against what iostorm writes (the golden outputs, no
# root): every key of the JSON report's vfs, files[] and threads[] has its
# row in docs/json.md, every metric family its row in docs/metrics.md,
# every threshold its row (and default) in docs/findings.md. A key added
# to the output without its docs fails here.

# doc_section FILE HEADING: the lines from "## HEADING" to the next "## ".
doc_section() {
	awk -v h="## $2" 'index($0, h) == 1 { on = 1; print; next }
		on && /^## / { exit } on' "$1"
}

# expect_documented WHAT KEY TEXT: TEXT has a table row "| `KEY` |" or
# names KEY in backquotes within a row's first cell ("| `a`, `KEY` |").
expect_documented() {
	printf '%s\n' "$3" | grep -qE "^\| ([^|]*, )?\`$2\`(,[^|]*)? \|" ||
		fail "$1 '$2' has no row in its docs table"
}

test_docs_json_keys() {
	local doc=$ROOT/docs/json.md json=$GOLDEN/report.json sec k n=0
	# vfs: every leaf by dotted path under vfs (open_errnos' keys are errno names).
	sec=$(doc_section "$doc" '`vfs`')
	[ -n "$sec" ] || fail "no '## \`vfs\`' section in docs/json.md"
	for k in $(jqr "$json" '.vfs | paths(scalars) | select(.[0] != "open_errnos") |
			map(tostring) | join(".")'); do
		expect_documented "vfs key" "$k" "$sec"
		n=$((n + 1))
	done
	for k in mapped.files mapped.fault_reads code.files code.fault_pages; do
		jq -e ".vfs.$k != null" "$json" >/dev/null || fail "vfs.$k not in the golden report"
	done
	sec=$(doc_section "$doc" '`files`')
	for k in $(jqr "$json" '.files[0] | keys_unsorted[]'); do
		expect_documented "files[] key" "$k" "$sec"
		n=$((n + 1))
	done
	sec=$(doc_section "$doc" '`threads`')
	for k in $(jqr "$json" '.threads[0] | keys_unsorted[]'); do
		expect_documented "threads[] key" "$k" "$sec"
		n=$((n + 1))
	done
	echo "  $n keys documented"
}

# nfs: every key of an RPC client's entry has its row in the `nfs` section,
# and every key under it (a procedure's counts and histograms, the layers)
# is named there (the NFS golden report, tests/unit/fixture.c).
test_docs_nfs_keys() {
	local doc=$ROOT/docs/json.md json=$GOLDEN/nfs-report.json sec k n=0
	sec=$(doc_section "$doc" '`nfs`')
	[ -n "$sec" ] || fail "no '## \`nfs\`' section in docs/json.md"
	for k in $(jqr "$json" '.nfs.mounts[0] | keys_unsorted[]'); do
		expect_documented "nfs.mounts[] key" "$k" "$sec"
		n=$((n + 1))
	done
	for k in $(jqr "$json" '[.nfs.mounts[0].ops[0] | keys_unsorted[],
			(.all | keys_unsorted[])] + [.nfs.mounts[0].layers | keys_unsorted[]] +
			[.nfs.mounts[0].layers.per_file[0] | keys_unsorted[]] | unique[]'); do
		printf '%s\n' "$sec" | grep -qF "\`$k\`" ||
			fail "nfs key '$k' is not named in docs/json.md's nfs section"
		n=$((n + 1))
	done
	expect_cmp "nfs keys documented" "$n" '>' 40
	for k in $(awk '$1 == "#" && $2 == "TYPE" && $3 ~ /nfs/ { print $3 }' \
			"$GOLDEN/nfs-metrics.prom"); do
		grep -qE "^\| \`$k\` \|" "$ROOT/docs/metrics.md" ||
			fail "metric family '$k' has no row in docs/metrics.md"
	done
}

test_docs_metric_families() {
	local doc=$ROOT/docs/metrics.md m n=0
	for m in $(awk '$1 == "#" && $2 == "TYPE" { print $3 }' "$GOLDEN/metrics.prom"); do
		grep -qE "^\| \`$m\` \|" "$doc" || fail "metric family '$m' has no row in docs/metrics.md"
		n=$((n + 1))
	done
	expect_cmp "metric families checked" "$n" '>' 30
}

test_docs_thresholds() {
	local doc=$ROOT/docs/findings.md name def n=0
	"$IOSTORM" --threshold list >list.txt || fail "--threshold list: exit $?"
	while IFS='=' read -r name def; do
		def=${def%% *}
		grep -qE "^\| \`$name\` \| $def \|" "$doc" ||
			fail "threshold '$name' (default $def) has no row in docs/findings.md"
		n=$((n + 1))
	done < <(awk '{ print $1 }' list.txt)
	expect_cmp "thresholds checked" "$n" '>' 30
}

# name_exists FROM NAME: NAME, a file named in FROM, is in the tree: a path
# from the top, from user/ or bpf/ ("model/store.h"), from FROM's folder,
# or a bare name anywhere ("store.c"); a system header (/usr/include) and
# the kernel's own sources ("include/linux/...") are someone else's, and
# the build makes iostorm.skel.h.
name_exists() {
	local dir=${1%/*} name=$2 p
	[[ $name == include/* || $name == iostorm.skel.h ]] && return 0
	for p in "$ROOT/$name" "$ROOT/user/$name" "$ROOT/bpf/$name" "$ROOT/$dir/$name" \
		 /usr/include/"$name" /usr/include/*/"$name"; do
		[ -e "$p" ] && return 0
	done
	[[ $name != */* ]] && [ -n "$(cd "$ROOT" && git ls-files "*/$name" "$name" 2>/dev/null)$(cd "$ROOT" && find user bpf tests scripts -name "$name" -print -quit)" ]
}

# Every source file named in a comment of user/ and bpf/, and every path
# under user/, bpf/, tests/ or scripts/ named in the docs and the README,
# exists: a file moved or renamed takes its mentions along.
test_docs_file_names() {
	local f name n=0 bad=0
	for f in $(cd "$ROOT" && find user bpf -name '*.[ch]' | sort); do
		for name in $(perl -0777 -ne 'print "$1\n" while m{(/\*.*?\*/|//[^\n]*)}gs' "$ROOT/$f" |
			      grep -oE '(^|[^[:alnum:]_./-])([[:alnum:]_-]+/)*[[:alnum:]_-]+(\.bpf)?\.[ch]\b' |
			      sed -E 's/^[^[:alnum:]_-]//' | sort -u); do
			n=$((n + 1))
			name_exists "$f" "$name" || { echo "  $f names '$name', which does not exist"; bad=1; }
		done
	done
	for f in $(cd "$ROOT" && echo README.md docs/*.md docs/iostorm.8); do
		for name in $(grep -oE '(^|[^[:alnum:]_./-])(user|bpf|tests|scripts)/[[:alnum:]_./-]*[[:alnum:]_]' \
			      "$ROOT/$f" | sed -E 's/^[^[:alnum:]]//' | sort -u); do
			n=$((n + 1))
			[ -e "$ROOT/$name" ] || { echo "  $f names '$name', which does not exist"; bad=1; }
		done
	done
	[ $bad = 0 ] || fail "file names in comments or docs that do not exist (above)"
	expect_cmp "file names checked" "$n" '>' 100
	echo "  $n file names checked"
}

# Every flag of every command's --help is in the man page and in the bash
# completion, and every command is in both: a flag added to --help alone
# fails here.
test_docs_flags_everywhere() {
	local man=$ROOT/docs/iostorm.8 comp=$ROOT/scripts/iostorm.bash-completion cmd f n=0
	for cmd in "" diff html check; do
		# shellcheck disable=SC2086 # "" is the tracer itself
		"$IOSTORM" $cmd --help >help.txt || fail "iostorm $cmd --help: exit $?"
		for f in $(grep -oE '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' help.txt | grep -oE -- '--?[a-zA-Z][a-zA-Z-]*' |
			sort -u); do
			case $f in --*) ;; -?) ;; *) continue ;; esac
			# A flag in the man page is written \-\-flag or \-f.
			grep -qF -- "$(printf '%s' "$f" | sed 's/-/\\-/g')" "$man" ||
				fail "iostorm $cmd --help's $f is not in docs/iostorm.8"
			grep -qE -- "(^|[[:space:]\"(|])$f([[:space:]\")|]|$)" "$comp" ||
				fail "iostorm $cmd --help's $f is not in the bash completion"
			n=$((n + 1))
		done
	done
	for cmd in diff html check help; do
		grep -q "^\.B iostorm $cmd" "$man" || fail "docs/iostorm.8 lacks the command $cmd"
		grep -q "diff html check help" "$comp" || fail "the completion lacks the command $cmd"
	done
	for s in "EXIT STATUS" ENVIRONMENT EXAMPLES; do
		grep -q "^\.SH $s" "$man" || fail "docs/iostorm.8 has no $s section"
	done
	expect_cmp "flags checked" "$n" '>' 30
}

# The README is a front door: at most 500 lines, the two commands a newcomer
# runs within its first screens (the demo's and the tests', the latter the
# one CI runs), and every link of it and of docs/ leads to a file (and a
# heading) inside the repository.
test_docs_readme_front_door() {
	local readme=$ROOT/README.md f link file anchor n=0
	expect_cmp "README lines" "$(wc -l <"$readme")" '<=' 500
	grep -n '^scripts/deps.sh && make demo' "$readme" | head -n1 | cut -d: -f1 >demo.line
	grep -n '^scripts/deps.sh --test && make test' "$readme" | head -n1 | cut -d: -f1 >test.line
	[ -s demo.line ] && [ -s test.line ] || fail "the README lacks its two commands"
	expect_cmp "line of the demo command" "$(cat demo.line)" '<=' 80
	expect_cmp "line of the test command" "$(cat test.line)" '<=' 80
	# ... and CI runs both tiers the README names: make test, make vm-test.
	grep -q '^scripts/deps.sh --test$' "$ROOT/.ci/run" &&
		grep -qE '^make( [A-Z_]+=[^ ]+)* test( |$)' "$ROOT/.ci/run" ||
		fail ".ci/run does not run the README's test command"
	grep -q 'make vm-test' "$readme" &&
		grep -qE '^make( [A-Z_]+=[^ ]+)* vm-test( |$)' "$ROOT/.ci/run" ||
		fail "the README or .ci/run lacks the second tier, make vm-test"
	for f in README.md docs/*.md; do
		while IFS= read -r link; do
			n=$((n + 1))
			case $link in
			http://* | https://* | mailto:*) continue ;;
			../*) [ "$f" = README.md ] && fail "$f links outside the repository: $link" ;;
			esac
			file=${link%%#*}
			anchor=${link#"$file"}
			anchor=${anchor#\#}
			[ -n "$file" ] || file=$(basename "$f")
			file=$(cd "$ROOT/$(dirname "$f")" && realpath -m "$file")
			case $file in "$ROOT"/*) ;; *) fail "$f links outside the repository: $link" ;; esac
			[ -e "$file" ] || fail "$f links to $link, which does not exist"
			if [ -n "$anchor" ]; then
				# GitHub's anchor of each heading: lower case, spaces as -, no punctuation.
				grep -E '^#+ ' "$file" | sed -E 's/^#+ //' | tr 'A-Z' 'a-z' |
					sed -E 's/[^a-z0-9 _-]//g; s/ /-/g' | grep -qx -- "$anchor" ||
					fail "$f links to $link: no such heading in $(basename "$file")"
			fi
		done < <(grep -oE '\]\([^) ]+\)' "$ROOT/$f" | sed -E 's/^\]\(//; s/\)$//')
	done
	expect_cmp "links checked" "$n" '>' 20
	! grep -q '\.\./shared' "$readme" "$ROOT"/docs/*.md "$ROOT"/scripts/*.sh ||
		fail "a path outside the repository (../shared): $(grep -l '\.\./shared' "$readme" "$ROOT"/docs/*.md "$ROOT"/scripts/*.sh)"
}

# The DaemonSet's manifest is valid YAML (python3's yaml; no kubectl here)
# of the objects a security review asks for: iostorm on loopback behind a
# kube-rbac-proxy that authorises /metrics, least privilege, RBAC, a
# ServiceMonitor over https with a token and limits, no scrape annotations.
test_docs_daemonset_manifest() {
	python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml not installed"
	python3 - "$ROOT/docs/deploy/iostorm-daemonset.yaml" <<-'PY' || fail "the manifest: see above"
	import sys, yaml
	docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
	by = {}
	for d in docs:
	    by.setdefault(d["kind"], []).append(d)
	def need(cond, what):
	    if not cond:
	        sys.exit("manifest: " + what)
	for k in ("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "DaemonSet", "Service",
	          "ServiceMonitor"):
	    need(k in by, "no " + k)
	pod = by["DaemonSet"][0]["spec"]["template"]
	need(not any(a.startswith("prometheus.io/") for a in pod["metadata"].get("annotations", {})),
	     "prometheus.io annotations remain")
	spec = pod["spec"]
	need(not spec.get("hostNetwork"), "hostNetwork: 127.0.0.1 would be the node's")
	need(spec.get("serviceAccountName") == "iostorm", "no serviceAccountName")
	ctr = {c["name"]: c for c in spec["containers"]}
	io, proxy = ctr["iostorm"], ctr["kube-rbac-proxy"]
	args = io["args"]
	need(args[args.index("--listen") + 1].startswith(("127.0.0.1:", "unix:")),
	     "iostorm listens beyond the pod")
	need("--listen-insecure" not in args, "--listen-insecure in the DaemonSet")
	need("ports" not in io, "iostorm's own port is exposed")
	sc = io["securityContext"]
	need(sc["readOnlyRootFilesystem"] is True and sc["allowPrivilegeEscalation"] is False
	     and not sc.get("privileged"), "iostorm's securityContext")
	need(sc["capabilities"]["drop"] == ["ALL"] and
	     sorted(sc["capabilities"]["add"]) == ["BPF", "PERFMON"], "iostorm's capabilities")
	need(sc["seccompProfile"]["type"] == "RuntimeDefault", "iostorm's seccomp profile")
	pargs = " ".join(proxy["args"])
	need("--secure-listen-address=[$(IP)]:9436" in pargs and
	     "--upstream=http://" + args[args.index("--listen") + 1] + "/" in pargs,
	     "the proxy does not front iostorm's address")
	psc = proxy["securityContext"]
	need(psc["runAsNonRoot"] and psc["readOnlyRootFilesystem"] and
	     psc["capabilities"]["drop"] == ["ALL"], "the proxy's securityContext")
	rules = [r for c in by["ClusterRole"] for r in c["rules"]]
	need(any(r.get("resources") == ["tokenreviews"] and r["verbs"] == ["create"] for r in rules),
	     "no tokenreviews create")
	need(any(r.get("resources") == ["subjectaccessreviews"] and r["verbs"] == ["create"]
	         for r in rules), "no subjectaccessreviews create")
	need(any(r.get("nonResourceURLs") == ["/metrics"] and r["verbs"] == ["get"] for r in rules),
	     "no get on /metrics")
	roles = {c["metadata"]["name"] for c in by["ClusterRole"]}
	need(all(b["roleRef"]["name"] in roles for b in by["ClusterRoleBinding"]),
	     "a binding to a role not shipped")
	sm = by["ServiceMonitor"][0]["spec"]
	ep = sm["endpoints"][0]
	need(ep["scheme"] == "https" and ep["port"] == "https" and
	     ep.get("bearerTokenFile", "").endswith("serviceaccount/token"),
	     "the ServiceMonitor does not scrape https with the token")
	need(sm["sampleLimit"] > 20000 and sm["labelValueLengthLimit"] > 512,
	     "the ServiceMonitor's limits are not above iostorm's bounds")
	print("  %d objects: %s" % (len(docs), ", ".join(sorted(by))))
	PY
}
