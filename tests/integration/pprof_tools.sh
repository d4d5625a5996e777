#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The pprof export is usable by other tools: go tool pprof (Debian
# golang-go) reads it without a warning, names it after the main binary
# ("File: inline_hot", its build id) and, with -list, shows the source lines
# of inline_hot's loop (DWARF file and line); npm pprof-format decodes
# mappings with the real start, limit, file offset, full path and build id
# of each module (every location inside its mapping's range), the main
# binary first and marked has_inline_frames, the kernel's mapping with the
# build id of /sys/kernel/notes, and time_nanos/duration_nanos of the run.
. "$(dirname "$0")/bpf_common.bash"

command -v go >/dev/null || skip "go is not installed (Debian golang-go): go tool pprof"
command -v python3 >/dev/null || skip "python3 is not installed"
. "$(dirname "$0")/lib/pprof_format.bash"
need_pprof_format
export HOME=$TMPD GOCACHE=$TMPD/gocache PPROF_TMPDIR=$TMPD
# From a neutral directory: pprof trims source paths against the working
# directory's name (from build/.../tests it looks for workloads/... there).
cd "$TMPD"

start inline_hot 60
wl=$WL
exe=$(readlink -f "$TT_WORKLOADS/inline_hot")
before=$(date +%s%N)
timeout $((2 * TT_TEST_WAIT)) "$TT_BIN" -b -n 2 -d 1 --source bpf -p "$wl" \
	--export "$TMPD/p.pb.gz" >/dev/null 2>"$TMPD/err" || fail "threadtop failed: $(cat "$TMPD/err")"
after=$(date +%s%N)
kill "$wl"

timeout $((2 * TT_TEST_WAIT)) go tool pprof -top -sample_index=samples "$TMPD/p.pb.gz" \
	>"$TMPD/top.txt" 2>"$TMPD/top.err" || fail "go tool pprof -top: $(cat "$TMPD/top.err")"
head -n 8 "$TMPD/top.txt"
if grep -Eiq 'warn|error|fail|could not|unknown' "$TMPD/top.err"; then
	fail "go tool pprof complained: $(cat "$TMPD/top.err")"
fi
grep -qx "File: inline_hot" "$TMPD/top.txt" || fail "pprof names the profile: $(head -n 2 "$TMPD/top.txt")"
bid=$(readelf -n "$exe" | awk '/Build ID:/ { print $3 }')
grep -qx "Build ID: $bid" "$TMPD/top.txt" || fail "pprof's build id is not $exe's ($bid)"
grep -q "inline_hot (inline)" "$TMPD/top.txt" || fail "pprof does not show inline_hot as inlined"

timeout $((2 * TT_TEST_WAIT)) go tool pprof -list 'inline_hot$' -sample_index=samples \
	"$TMPD/p.pb.gz" >"$TMPD/list.txt" 2>"$TMPD/list.err" || fail "go tool pprof -list failed"
if grep -Eiq 'warn|error|could not find' "$TMPD/list.err" "$TMPD/list.txt"; then
	fail "go tool pprof -list: $(cat "$TMPD/list.err" "$TMPD/list.txt" | head -n 5)"
fi
grep -q "ROUTINE.*inline_hot in .*inline_hot.c" "$TMPD/list.txt" ||
	fail "-list inline_hot shows no source file: $(head -n 5 "$TMPD/list.txt")"
# The loop's lines carry the samples (a number, not ".", in the flat
# column): its body's or its test's, whichever instruction the timer lands
# after (72 of 73 samples on the "for" line in one ASan run, on the body in
# others: the multiply's result feeds the store the branch waits on).
grep -Eq '^ +[0-9]+ +[0-9]+ +[0-9]+:.*(6364136223846793005|i < 200000)' "$TMPD/list.txt" ||
	fail "-list shows no samples on the loop's line: $(sed -n 1,20p "$TMPD/list.txt")"

NODE_PATH="$PPROF_NODE_PATH" node "$TT_SRC/tests/integration/lib/pprof_summary.js" \
	"$TMPD/p.pb.gz" >"$TMPD/pprof.json" || fail "pprof-format cannot decode p.pb.gz"
python3 - "$TMPD/pprof.json" "$exe" "$bid" "$before" "$after" <<'PY' || fail "pprof mappings"
import json, sys
summ, exe, bid, before, after = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
maps = summ["mapping_details"]
first = maps[0]
assert first["file"] == exe, f"first mapping {first['file']}, want {exe}"
assert first["build_id"] == bid, first
assert first["inline"] and first["lines"], first
for m in maps:
    if m["file"].startswith("/"):
        assert int(m["start"]) and int(m["limit"]) > int(m["start"]), m
        assert m["build_id"], m
assert summ["outside"] == 0, f"{summ['outside']} locations outside their mapping"
# The kernel's build id, from its ELF notes.
notes = open("/sys/kernel/notes", "rb").read()
kbid, o = None, 0
while o + 12 <= len(notes):
    namesz, descsz, typ = (int.from_bytes(notes[o + i:o + i + 4], "little") for i in (0, 4, 8))
    name_at = o + 12
    desc_at = name_at + ((namesz + 3) & ~3)
    if typ == 3 and notes[name_at:name_at + 4] == b"GNU\0":
        kbid = notes[desc_at:desc_at + descsz].hex()
        break
    o = desc_at + ((descsz + 3) & ~3)
kmaps = [m for m in maps if m["file"] == "[kernel.kallsyms]"]
if kmaps:
    assert kbid and kmaps[0]["build_id"] == kbid, (kmaps[0], kbid)
else:
    print("note: no kernel frame in this run's samples: the kernel mapping not checked")
assert summ["duration_ns"] > 1e9, summ["duration_ns"]
start = summ["time_ns"]
assert before - 5e9 <= start <= after, (before, start, after)
print(f"mappings: {[m['file'] for m in maps]}; kernel build id {kbid}")
PY
echo PASS
