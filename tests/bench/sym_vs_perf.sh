#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Symbolized on-CPU stacks, threadtop vs perf, on the same workload at the
# same time: symchain_fp (frame pointers, PIE + shared library) spinning on
# every CPU, threadtop -b --cpu-hz 99 and perf record -F 99 -g side by side.
# Prints the share of samples whose leaf function and callers (user frames,
# up to DEPTH) agree (distribution overlap: sum of min shares per stack) and
# threadtop's own CPU time. With MODE dwarf the workload is symchain_nofp
# (-fomit-frame-pointer -O2), threadtop runs --unwind dwarf and perf
# --call-graph dwarf, and the DWARF unwind cost per sample is printed too.
# Root only. Usage: sym_vs_perf.sh [SECONDS] [DEPTH] [fp|dwarf]
set -euo pipefail
secs=${1:-8}
depth=${2:-6}
mode=${3:-fp}
case "$mode" in
fp) wl=symchain_fp perf_cg=(-g) tt_unwind=(--unwind fp) ;;
dwarf) wl=symchain_nofp perf_cg=(--call-graph dwarf) tt_unwind=(--unwind dwarf) ;;
*) echo "MODE is fp or dwarf" >&2; exit 2 ;;
esac
B=${TT_BUILD:-build/release}
W=$B/tests/workloads
command -v perf >/dev/null || { echo "perf is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'kill $pids 2>/dev/null || true; rm -rf "$tmp"' EXIT
pids=""
for _ in $(seq "$(nproc)"); do
	"$W/$wl" $((secs + 30)) >/dev/null &
	pids="$pids $!"
done
sleep 0.5
plist=$(echo $pids | tr ' ' ',')
perf record -q -F 99 "${perf_cg[@]}" -p "$plist" -o "$tmp/perf.data" -- sleep "$secs" 2>/dev/null &
perfpid=$!
/usr/bin/time -f "%U %S" -o "$tmp/time" "$B/threadtop" -b --format json -d "$secs" -n 1 \
	--cpu-hz 99 "${tt_unwind[@]}" -p "$plist" >"$tmp/tt.json" 2>"$tmp/tt.err"
wait $perfpid
perf script -i "$tmp/perf.data" -F ip,sym,dso 2>/dev/null >"$tmp/perf.txt"
python3 - "$tmp/tt.json" "$tmp/perf.txt" "$depth" "$secs" "$tmp/time" <<'PY'
import collections, json, re, sys
tt_path, perf_path, depth, secs, time_path = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
tt = collections.Counter()
rep = json.loads(open(tt_path).read().splitlines()[-1])
for s in rep.get("oncpu", []):
    user = [f for f in s["frames"] if not f.endswith("_[k]")]
    tt[tuple(reversed(user))[:depth]] += s["samples"]
perf = collections.Counter()
frames = []
def flush():
    if frames:
        perf[tuple(frames)[:depth]] += 1
for line in open(perf_path):
    line = line.strip()
    if not line:
        flush(); frames = []; continue
    m = re.match(r"[0-9a-f]+ (.*) \((.*)\)$", line)
    if not m:
        continue
    sym, dso = m.group(1), m.group(2)
    if "kernel" in dso or dso.startswith("[k"):
        continue
    frames.append(re.sub(r"\+0x[0-9a-f]+$", "", sym))
flush()
nt, np_ = sum(tt.values()), sum(perf.values())
overlap = sum(min(tt[k] / nt, perf[k] / np_) for k in set(tt) | set(perf)) if nt and np_ else 0
print(f"samples: threadtop {nt}, perf {np_}")
for name, c, n in (("threadtop", tt, nt), ("perf", perf, np_)):
    for k, v in c.most_common(2):
        print(f"  {name:9s} {100*v/n:5.1f}%  {' <- '.join(k)}")
print(f"agreement (leaf + {depth-1} callers): {100*overlap:.1f}%")
u, s = map(float, open(time_path).read().split()[-2:])
print(f"threadtop CPU: {u+s:.2f} s over {secs:.0f} s = {100*(u+s)/secs:.2f}% of one core")
PY
sed -n 's/^threadtop: \(DWARF unwinding: .*\)/\1/p' "$tmp/tt.err"
