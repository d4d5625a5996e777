#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Every export format of one run, read back by independent parsers: the
# pprof file decodes with the npm package pprof-format (installed here under
# the build directory) and its totals equal the JSON report's; folded totals
# equal the JSON's; the SVG parses as XML and holds the workload; the
# speedscope file has the structure its schema requires; and a process name
# with <, &, " and a terminal escape survives every format escaped and
# intact. Uses the /proc source, so it runs without BPF.
set -euo pipefail
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
command -v node >/dev/null || { echo "SKIP: node is not installed (needed to decode pprof)"; exit 77; }
command -v npm >/dev/null || { echo "SKIP: npm is not installed (needed for pprof-format)"; exit 77; }

npm_dir="$TT_BUILD/npm"
if [ ! -d "$npm_dir/node_modules/pprof-format" ]; then
	mkdir -p "$npm_dir"
	npm install --prefix "$npm_dir" --no-audit --no-fund --silent pprof-format >/dev/null 2>&1 ||
		{ echo "SKIP: npm install pprof-format failed (no registry?)"; exit 77; }
fi

dir=$(mktemp -d /tmp/tt_export_formats.XXXXXX)
name=$'<&"\033[1mX'
"$TT_WORKLOADS/named_spinner" 300 "$name" & # killed at exit
wl=$!
trap 'kill $wl 2>/dev/null || true; rm -rf "$dir"' EXIT
# It has named itself before the first sample (the test checks the name).
for _ in $(seq 300); do
	[ "$(cat /proc/$wl/comm 2>/dev/null)" = "$name" ] && break
	sleep 0.1
done
[ "$(cat /proc/$wl/comm)" = "$name" ] || fail "named_spinner did not name itself"

"$TT_BIN" -b -n 2 -d 0.5 --source proc -p "$wl" --export "$dir/p.folded" \
	--export "$dir/p.json" --export "$dir/p.pb.gz" --export "$dir/p.speedscope.json" \
	--export "$dir/p.svg" >/dev/null 2>"$dir/err" || fail "export run: $(cat "$dir/err")"
if grep -q $'\033' "$dir/p.folded" "$dir/p.svg"; then fail "raw ESC in a text format"; fi

NODE_PATH="$npm_dir/node_modules" node "$TT_SRC/tests/integration/lib/pprof_summary.js" \
	"$dir/p.pb.gz" >"$dir/pprof.json" || fail "pprof-format cannot decode the pprof file"

python3 - "$dir" "$name" <<'PY' || fail "formats disagree"
import json, sys, xml.etree.ElementTree as ET
d, name = sys.argv[1], sys.argv[2]
shown = name.replace("\x1b", "\\e")   # how text formats show the escape
rep = json.load(open(d + "/p.json"))
prof = rep["profiles"]["threads"]
total = prof["total_count"]
assert total > 0
assert rep["threads"][0]["comm"] == name, rep["threads"][0]["comm"]

# folded: totals, and the name as the root frame
folded = 0
for line in open(d + "/p.folded", encoding="utf-8"):
    stack, n = line.rstrip("\n").rsplit(" ", 1)
    assert stack.split(";")[0] == shown, stack
    folded += int(n)
assert folded == total, (folded, total)

# pprof (decoded by pprof-format): totals and labels
pp = json.load(open(d + "/pprof.json"))
assert pp["types"] == ["thread_samples/count", "thread_time/nanoseconds"], pp["types"]
assert pp["totals"]["thread_samples/count"] == total, (pp["totals"], total)
assert pp["totals"]["thread_time/nanoseconds"] == prof["total_ns"]
assert pp["default_type"] == "thread_time"
assert all(s["labels"]["comm"] == name and s["labels"]["process"] == name for s in pp["samples"])
assert all(s["labels"]["pid"] == s["labels"]["tid"] for s in pp["samples"])
assert "[running]" in pp["functions"], pp["functions"]

# speedscope: the structure its schema requires
sp = json.load(open(d + "/p.speedscope.json"))
assert sp["$schema"] == "https://www.speedscope.app/file-format-schema.json"
frames = sp["shared"]["frames"]
assert all(isinstance(f["name"], str) for f in frames)
assert len(sp["profiles"]) == 1
p = sp["profiles"][0]
assert p["type"] == "sampled" and p["unit"] == "nanoseconds"
assert p["name"].startswith(name + " ("), p["name"]
assert len(p["samples"]) == len(p["weights"]) > 0
assert all(0 <= i < len(frames) for s in p["samples"] for i in s)
assert sum(p["weights"]) == p["endValue"] - p["startValue"] == prof["total_ns"]
assert 0 <= sp["activeProfileIndex"] < len(sp["profiles"])

# SVG: well-formed XML, self-contained, the workload in it
svg = ET.parse(d + "/p.svg").getroot()
ns = "{http://www.w3.org/2000/svg}"
assert svg.tag == ns + "svg"
assert svg.find(ns + "script") is not None and "function init" in svg.find(ns + "script").text
text = open(d + "/p.svg", encoding="utf-8").read()
assert "href=" not in text and "http://www.w3.org/2000/svg" in text
names = [g.get("data-name") for g in svg.iter(ns + "g") if g.get("data-name")]
assert shown in names, names
assert "[running]" in names, names
root = [g for g in svg.iter(ns + "g") if g.get("data-name") == "all"][0]
assert "(%d samples, 100.00%%)" % total in root.find(ns + "title").text
PY

# The SVG's script is valid JavaScript.
python3 -c "
import sys, xml.etree.ElementTree as ET
print(ET.parse(sys.argv[1]).getroot().find('{http://www.w3.org/2000/svg}script').text)" \
	"$dir/p.svg" >"$dir/script.js"
node --check "$dir/script.js" || fail "the SVG's script does not parse"
# A richer graph (every process, split by thread) to drive the script with.
"$TT_BIN" -b -n 1 -d 0.5 --source proc --export "$dir/all.svg" --export-by tid >/dev/null 2>&1 ||
	fail "whole-system SVG export failed"
python3 - "$dir/all.svg" >"$dir/frames.json" <<'PY'
import json, sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
frames = []
for g in root.iter(ns + "g"):
    if g.get("data-name") is None:
        continue
    r = g.find(ns + "rect")
    frames.append({"x": float(r.get("x")), "w": float(r.get("width")), "y": float(r.get("y")),
                   "fill": r.get("fill"), "name": g.get("data-name"), "info": g.get("data-info")})
print(json.dumps({"width": int(root.get("width")), "frames": frames}))
PY
node "$TT_SRC/tests/integration/lib/svg_script_check.js" "$dir/script.js" "$dir/frames.json" \
	'running|sleep' || fail "the SVG's script misbehaves"
echo "PASS"
