# The fleet files in docs/: the alert rules pass promtool's check and its
# unit tests (the starved pod alerts, the fed one does not); the Grafana
# dashboard is JSON whose queries use iostorm's families.

test_fleet_rules_promtool() {
	command -v promtool >/dev/null || skip "promtool not installed"
	local d=$ROOT/docs/prometheus
	promtool check rules "$d/iostorm-rules.yml" || fail "promtool check rules"
	(cd "$d" && promtool test rules iostorm-rules.test.yml) || fail "promtool test rules"
}

test_fleet_dashboard_json() {
	local f=$ROOT/docs/grafana/iostorm-pods.json
	jq -e '.panels | length > 0' "$f" >/dev/null || fail "not a dashboard: $f"
	# Every family a panel queries is one iostorm exports (docs/metrics.md).
	local m
	for m in $(grep -o 'iostorm_[a-z_]*' "$f" | sort -u); do
		grep -q "$m" "$ROOT/docs/metrics.md" || fail "$m is in no docs/metrics.md row"
	done
}
