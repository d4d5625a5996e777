#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Recordings carry GNU build-ids (TT_EV_BUILD_ID): a pprof export made from
# the replay of a live BPF recording has mappings with the build-ids that
# `readelf -n` gives for the workload's executable and for the C library it
# maps, as a live export does; so does a replay cut to a later range (--from:
# the records before the cut only fill the dictionaries).
. "$(dirname "$0")/bpf_common.bash"
command -v python3 >/dev/null || skip "python3 is not installed"
command -v node >/dev/null || skip "node is not installed (needed to decode pprof)"
command -v npm >/dev/null || skip "npm is not installed (needed for pprof-format)"
command -v readelf >/dev/null || skip "readelf is not installed"
npm_dir="$TT_BUILD/npm"
if [ ! -d "$npm_dir/node_modules/pprof-format" ]; then
	mkdir -p "$npm_dir"
	npm install --prefix "$npm_dir" --no-audit --no-fund --silent pprof-format >/dev/null 2>&1 ||
		skip "npm install pprof-format failed (no registry?)"
fi

build_id() { readelf -n "$1" | awk '/Build ID:/ {print $3; exit}'; }
summary() { # pprof file -> JSON summary
	NODE_PATH="$npm_dir/node_modules" node "$TT_SRC/tests/integration/lib/pprof_summary.js" "$1" \
		>"$1.json" || fail "pprof-format cannot decode $1"
}

start named_spinner 300 hotspinner # killed at exit
sp=$WL
# It has named itself and mapped the C library before the first sample.
for _ in $(seq 300); do
	[ "$(cat /proc/"$sp"/comm 2>/dev/null)" = hotspinner ] && break
	sleep 0.1
done
[ "$(cat /proc/"$sp"/comm)" = hotspinner ] || fail "named_spinner did not name itself"
exe=$(readlink -f "$TT_WORKLOADS/named_spinner")
libc=$(awk '$6 ~ /\/libc[.-][^\/]*so/ {print $6; exit}' /proc/"$sp"/maps)
[ -n "$libc" ] || fail "named_spinner maps no C library: $(cat /proc/"$sp"/maps)"
exe_bid=$(build_id "$exe")
libc_bid=$(build_id "$libc")
[ -n "$exe_bid" ] && [ -n "$libc_bid" ] || skip "no GNU build-id note in $exe or $libc"

rec=$TMPD/rec.ttr
"$TT_BIN" -b --format json -n 3 -d 1 --source bpf -p "$sp" -w "$rec" \
	--export "$TMPD/live.pb.gz" >/dev/null 2>"$TMPD/live.err" ||
	fail "recording run: $(cat "$TMPD/live.err")"
"$TT_BIN" -r "$rec" -b --format json --export "$TMPD/replay.pb.gz" >/dev/null \
	2>"$TMPD/replay.err" || fail "replay: $(cat "$TMPD/replay.err")"
"$TT_BIN" -r "$rec" -b --format json --from 2 --export "$TMPD/cut.pb.gz" >/dev/null \
	2>"$TMPD/cut.err" || fail "replay --from 2: $(cat "$TMPD/cut.err")"
for f in live replay cut; do summary "$TMPD/$f.pb.gz"; done

python3 - "$TMPD" "$exe_bid" "$libc_bid" <<'PY' || fail "build-ids differ"
import json, os, sys
d, exe_bid, libc_bid = sys.argv[1:]
def load(name):
    # Live mappings carry full paths, replays the module names recordings keep.
    bids = json.load(open("%s/%s.pb.gz.json" % (d, name)))["build_ids"]
    return {os.path.basename(m) if m.startswith("/") else m: b for m, b in bids.items()}
for name in ("live", "replay", "cut"):
    bids = load(name)
    assert bids.get("named_spinner") == exe_bid, (name, exe_bid, bids)
    libc = [m for m in bids if "libc" in m]
    assert libc and all(bids[m] == libc_bid for m in libc), (name, libc_bid, bids)
live = load("live")
replay = load("replay")
# Every module the replay names has the live run's build-id.
for m, b in replay.items():
    if m in live:
        assert b == live[m], (m, b, live[m])
PY
echo PASS
