#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --serve with a real Prometheus (Debian's prometheus package): it scrapes
# threadtop's /metrics on a loopback port twice, and its HTTP API then
# shows a spinner at ~1.0 average active threads and a sleeper at ~0.0,
# asleep (state S) ~1.0. The same /metrics, read directly, equals the batch
# JSON line of the interval it describes (one model, one set of queries),
# and promtool finds nothing to say about its format or names.
. "$(dirname "$0")/bpf_common.bash"
. "$(dirname "$0")/lib/serve_common.bash"
command -v prometheus >/dev/null || skip "prometheus is not installed (Debian package prometheus)"
command -v python3 >/dev/null || skip "python3 is not installed"

start named_spinner "$TT_WL_LIFE" hotspinner
sp=$WL
sleep "$TT_WL_LIFE" &
sl=$!
WL_PIDS+=("$sl")
wait_comms "$sp" hotspinner
start_serving -d 1 --cpu-hz 0 -p "$sp,$sl"

pport=$(free_port)
cat >"$TMPD/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: threadtop
    static_configs:
      - targets: ['$ADDR']
YML
prometheus --config.file="$TMPD/prometheus.yml" --storage.tsdb.path="$TMPD/tsdb" \
	--web.listen-address="127.0.0.1:$pport" >"$TMPD/prom.log" 2>&1 &
WL_PIDS+=("$!")
prom=$!

# query EXPR: the value of the first series Prometheus returns, or nothing.
query() {
	curl -sf --max-time 5 "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1" |
		jq -r '.data.result[0].value[1] // empty'
}
two_scrapes() {
	kill -0 "$prom" 2>/dev/null || fail "prometheus ended: $(tail -5 "$TMPD/prom.log")"
	local n
	n=$(query "count_over_time(threadtop_active_threads{pid=\"$sp\"}[10m])" 2>/dev/null) || return 1
	[ -n "$n" ] && ((n >= 2))
}
wait_until "Prometheus scraped threadtop's spinner series twice" two_scrapes
[ "$(query "up{job=\"threadtop\"}")" = 1 ] || fail "the scrape target is not up"

in_range() { # VALUE LO HI
	python3 -c 'import sys; v, lo, hi = map(float, sys.argv[1:]); sys.exit(not lo <= v <= hi)' "$@"
}
v=$(query "threadtop_active_threads{pid=\"$sp\"}")
in_range "$v" 0.9 1.1 || fail "spinner: active threads $v, not ~1.0"
v=$(query "threadtop_active_threads{pid=\"$sl\"}")
in_range "$v" 0 0.05 || fail "sleeper: active threads $v, not ~0.0"
v=$(query "threadtop_threads{pid=\"$sl\",state=\"S\"}")
in_range "$v" 0.9 1.1 || fail "sleeper: threads in state S $v, not ~1.0"
comm=$(curl -sf "http://127.0.0.1:$pport/api/v1/query" --data-urlencode \
	"query=threadtop_active_threads{pid=\"$sp\"}" | jq -r '.data.result[0].metric.comm')
[ "$comm" = hotspinner ] || fail "spinner's comm label: $comm"

# Served figures are batch output's: the /metrics of one interval against its JSON line.
curl -sf --max-time 5 "http://$ADDR/metrics" >"$TMPD/metrics.txt" || fail "GET /metrics"
python3 - "$TMPD/metrics.txt" "$TMPD/batch.json" "$sp" "$sl" <<'PY' || fail "/metrics and batch JSON disagree"
import json, sys, datetime
text, batch, sp, sl = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
series = {}
for line in text.splitlines():
    if line and not line.startswith("#"):
        name, val = line.rsplit(" ", 1)
        series[name] = float(val)
# The timestamp as text (SECONDS.MMM): no float rounding on the way to "time".
raw = [l.split()[1] for l in text.splitlines() if l.startswith("threadtop_interval_end_timestamp_seconds ")][0]
secs, ms = raw.split(".")
when = datetime.datetime.fromtimestamp(int(secs), datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + "." + ms + "Z"
lines = [json.loads(l) for l in open(batch) if l.strip()]
match = [l for l in lines if l["time"] == when]
assert match, ("no batch line at", when, [l["time"] for l in lines[-3:]])
line = match[0]
for pid in (sp, sl):
    want = sum(th["avg_active"] for th in line["threads"] if th["pid"] == pid)
    got = series['threadtop_active_threads{pid="%d",comm="%s"}' % (pid, "hotspinner" if pid == sp else "sleep")]
    assert abs(want - got) < 0.002, (pid, want, got)
    s = sum(th["samples"].get("S", 0) for th in line["threads"] if th["pid"] == pid)
    got_s = series.get('threadtop_threads{pid="%d",comm="%s",state="S"}' % (pid, "hotspinner" if pid == sp else "sleep"), 0)
    # Samples stand for the passes the interval had (a slow box misses some).
    passes = line.get("cost", {}).get("ticks") or line["hz"] * line["interval_s"]
    assert abs(s / passes - got_s) < 0.01, (pid, s, passes, got_s)
assert series["threadtop_ticks_total"] > 0
PY
# Prometheus's own linter: the exposition format and its naming conventions
# (units in names, _total on counters).
if command -v promtool >/dev/null; then
	promtool check metrics <"$TMPD/metrics.txt" >"$TMPD/lint.txt" 2>&1 ||
		fail "promtool check metrics: $(cat "$TMPD/lint.txt")"
	[ -s "$TMPD/lint.txt" ] && fail "promtool check metrics: $(cat "$TMPD/lint.txt")"
fi
echo "PASS: prometheus scraped spinner ~1.0, sleeper ~0.0 (S ~1.0); /metrics = batch JSON"
