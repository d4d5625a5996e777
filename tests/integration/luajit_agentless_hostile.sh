#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Agentless LuaJIT against hostile processes (issue 28, item 5). Each runs
# tests/luajit/workloads/hostile.lua, whose hot Lua function comes from a
# chunk named with an escape sequence, a quote and a newline. 1: a process
# that lies and lives: its chunk name's string is patched (a length of
# 2^31-1, control bytes, invalid UTF-8); the names threadtop reads stay
# within their bound and are escaped in JSON and in the folded export. 2: a
# process whose memory is overwritten with random bytes until it crashes,
# sampled throughout: threadtop keeps its pace and ends normally with valid
# output (the kernel side reads through bounded probes, the names through
# bounded process_vm_readv calls: a lie gives "[lua?]" frames or none).
. "$(dirname "$0")/bpf_common.bash"

command -v luajit >/dev/null || skip "luajit is not installed"
[ "$(luajit -e 'print(require("ffi").abi("gc64"))')" = true ] ||
	skip "this luajit is not a GC64 build (the agentless unwinder reads GC64 only)"

# 1. A process that lies and lives: the chunk name's string, which the VM
# itself never reads back, is given a length of 2^31-1 and control bytes
# (C0, DEL, C1's CSI, invalid UTF-8) after "evil". The names threadtop reads
# must stay within their bound, and every byte be escaped.
luajit "$TT_SRC/tests/luajit/workloads/hostile.lua" 60 >/dev/null 2>&1 &
liar=$!
WL_PIDS+=("$liar")
sleep 0.3
patched=$(python3 - "$liar" <<'PY'
import re, sys
pid = sys.argv[1]
hits = 0
with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "r+b", 0) as mem:
    for line in maps:
        f = line.split()
        if not f[1].startswith("rw") or (len(f) > 5 and f[5] != "[heap]"):
            continue
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        try:
            mem.seek(lo)
            buf = mem.read(hi - lo)
        except OSError:
            continue
        for m in re.finditer(rb"@evil\x1b\[2J\"q\nline2", buf):
            at = lo + m.start()
            mem.seek(at - 4)  # GCstr.len, 4 bytes before the text (GC64)
            mem.write((0x7FFFFFFF).to_bytes(4, "little"))
            mem.seek(at + 5)
            mem.write(bytes([1, 7, 8, 0x1B, 0x7F, 0x9B, 0xFF, 0xC3, 0x28, 0x0D, 0x0A, 0x09]))
            hits += 1
print(hits)
PY
)
[ "${patched:-0}" -ge 1 ] || fail "the chunk name was not found in the process's memory"
timeout $((2 * TT_TEST_WAIT)) "$TT_BIN" -b --format json -d 0.5 -n 6 -p "$liar" --cpu-hz 499 \
	--export "$TMPD/liar.folded" >"$TMPD/liar.json" 2>"$TMPD/liar.err" ||
	fail "threadtop failed on the lying process: $(tail -n 3 "$TMPD/liar.err")"
kill -0 "$liar" || fail "the lying process died: the patch was not harmless"
LC_ALL=C grep -q '[[:cntrl:]]' "$TMPD/liar.folded" &&
	fail "a raw control byte in the folded export: $(LC_ALL=C grep -m1 '[[:cntrl:]]' \
		"$TMPD/liar.folded" | cat -v | cut -c1-200)"
LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$TMPD/liar.json" && fail "a raw control byte in JSON"
jq -s -e '.' "$TMPD/liar.json" >/dev/null || fail "the JSON of the lying process is not valid"
jq -s -e --argjson p "$liar" '[.[].oncpu[] | select(.pid == $p) | .frames[] |
	select(startswith("@evil"))] | length > 0 and all(length <= 300)' "$TMPD/liar.json" \
	>/dev/null || fail "the lying chunk is not named within the bound: $(jq -s -c \
	--argjson p "$liar" '[.[].oncpu[] | select(.pid == $p) | .frames[] |
	select(startswith("@evil"))] | unique | .[0:2]' "$TMPD/liar.json" | cut -c1-300)"
echo "the lying process ($patched string patched): named within the bound, escaped:" \
	"$(grep -o 'evil[^;]*' "$TMPD/liar.folded" | sort -u | head -n 1 | cut -c1-80)"
kill "$liar"

# 2. A process whose memory is overwritten until it crashes, sampled throughout.
luajit "$TT_SRC/tests/luajit/workloads/hostile.lua" 60 >/dev/null 2>&1 &
lj=$!
WL_PIDS+=("$lj")
disown "$lj" # its crash is expected: no job report of it
timeout $((2 * TT_TEST_WAIT)) "$TT_BIN" -b --format json -d 0.5 -n 12 -p "$lj" --cpu-hz 499 \
	--export "$TMPD/h.folded" >"$TMPD/h.json" 2>"$TMPD/h.err" &
tt=$!
wait_first_line "$TMPD/h.json"
wait_until "no second interval" lines_ge "$TMPD/h.json" 3

# Overwrite its writable anonymous memory (the LuaJIT heap: states, stacks,
# prototypes, strings) with random bytes, 256 bytes at a time at random places.
mapfile -t maps < <(awk '$2 ~ /^rw/ && ($6 == "" || $6 == "[heap]") { print $1 }' \
	/proc/"$lj"/maps 2>/dev/null)
writes=0
for ((round = 0; round < 400 && ${#maps[@]}; round++)); do
	m=${maps[RANDOM % ${#maps[@]}]}
	lo=$((16#${m%-*})) hi=$((16#${m#*-}))
	off=$((lo + ((RANDOM << 15 | RANDOM) % ((hi - lo) / 256)) * 256))
	dd if=/dev/urandom of=/proc/"$lj"/mem bs=256 count=1 seek="$off" oflag=seek_bytes \
		conv=notrunc status=none 2>/dev/null && writes=$((writes + 1))
	kill -0 "$lj" 2>/dev/null || break
done
alive=$(kill -0 "$lj" 2>/dev/null && echo yes || echo "no (it crashed)")
wait "$tt" || fail "threadtop did not end normally (status $?): $(tail -n 3 "$TMPD/h.err")"
echo "$writes writes of 256 random bytes; the process alive afterwards: $alive"

# Valid output, at its pace, every line.
jq -e -s 'length == 12' "$TMPD/h.json" >/dev/null ||
	fail "not 12 intervals of valid JSON: $(jq -s length "$TMPD/h.json" 2>&1 | tail -n 1)"
# The hostile name, escaped: no raw ESC byte anywhere, no line of the folded
# export broken by the newline, the name itself in both.
! grep -q $'\x1b' "$TMPD/h.json" "$TMPD/h.folded" || fail "a raw escape byte was written"
bad=$(grep -cvE ' [0-9]+$' "$TMPD/h.folded" || true)
[ "$bad" -eq 0 ] || fail "$bad folded lines do not end in a count (a newline was not escaped)"
jq -s -e --argjson p "$lj" '[.[].oncpu[] | select(.pid == $p) | .frames[]] |
	any(. == "@evil\u001b[2J\"q\nline2:1_[lua]")' "$TMPD/h.json" >/dev/null ||
	fail "the hostile chunk is not named in batch JSON"
grep -qF 'evil\e[2J"q\nline2:1_[lua]' "$TMPD/h.folded" ||
	fail "the hostile chunk is not named, escaped, in the folded export"
# Whatever the walker met after the writes: Lua frames are names it read,
# builtins, traces or "[lua?]", never more than the bound.
long=$(jq -s -r --argjson p "$lj" '[.[].oncpu[] | select(.pid == $p) | .frames[] |
	select(endswith("_[lua]")) | select(length > 300)] | length' "$TMPD/h.json")
[ "$long" -eq 0 ] || fail "$long Lua frame names past the bound"
n_bad=$(jq -s -r --argjson p "$lj" '[.[].oncpu[] | select(.pid == $p) | .frames[] |
	select(. == "[lua?]_[lua]")] | length' "$TMPD/h.json")
echo "ok: hostile chunk name escaped in JSON and folded; $n_bad [lua?] frames; threadtop kept" \
	"its 12 intervals through $writes random writes"
