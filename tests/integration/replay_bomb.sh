#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A dictionary bomb: a recording of a few MB whose fresh strings, stacks,
# frame names, LuaJIT names, trace lines and command output add up to
# hundreds of MB (ttr_bomb). Replayed with -r FILE -b, threadtop stays under
# 256 MB of RSS (the --dict-budget, 48M by default), counts what it dropped
# as dict_full (text header and JSON "dropped"), ends with status 0 and one
# line about the budget, and shows the recording's hostile USE name and
# comm escaped.
set -euo pipefail
fail() { echo "FAIL: $*"; exit 1; }
: "${TT_BIN:?}" "${TT_WORKLOADS:?}" "${TT_BUILD:?}"
[ -x /usr/bin/time ] || { echo "SKIP: /usr/bin/time (GNU time) is not installed"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }

dir=$(mktemp -d "$TT_BUILD/replay_bomb.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$TT_WORKLOADS/ttr_bomb" "$dir/bomb.ttr" 100 || fail "ttr_bomb could not write the recording"
size=$(stat -c %s "$dir/bomb.ttr")
[ "$size" -lt $((8 << 20)) ] || fail "the bomb is $size bytes: not a bomb"

peak_kb() { sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$1"; }

set +e
/usr/bin/time -v -o "$dir/time" "$TT_BIN" -r "$dir/bomb.ttr" -b >"$dir/out" 2>"$dir/err"
rc=$?
set -e
[ "$rc" -eq 0 ] || fail "replay ended with status $rc: $(cat "$dir/err")"
kb=$(peak_kb "$dir/time")
echo "text replay: peak RSS $((kb / 1024)) MB of a $((size / 1024)) KB file"
[ "$kb" -lt $((256 * 1024)) ] || fail "peak RSS $kb kB: the dictionaries are not bounded"
[ "$(wc -l <"$dir/err")" -eq 1 ] || fail "expected one line on stderr: $(cat "$dir/err")"
grep -q 'dict-budget' "$dir/err" || fail "no word of the budget: $(cat "$dir/err")"
grep -Eq 'dropped [1-9]' "$dir/out" || fail "the header counts no drops: $(head -1 "$dir/out")"
for b in $'\033' $'\007' $'\xe2\x80\xae'; do
	if grep -qF "$b" "$dir/out"; then fail "a raw control byte of the recording reached the text"; fi
done
grep -qF 'USE  /e\e]52;c;aGk=\x07\u202e' "$dir/out" || fail "USE name not escaped: $(sed -n 2p "$dir/out")"

set +e
/usr/bin/time -v -o "$dir/time" "$TT_BIN" -r "$dir/bomb.ttr" -b --format json >"$dir/json" 2>"$dir/err"
rc=$?
set -e
[ "$rc" -eq 0 ] || fail "JSON replay ended with status $rc: $(cat "$dir/err")"
kb=$(peak_kb "$dir/time")
echo "JSON replay: peak RSS $((kb / 1024)) MB"
[ "$kb" -lt $((256 * 1024)) ] || fail "JSON: peak RSS $kb kB"
jq -se 'map(.dropped.dict_full) | add > 0' "$dir/json" >/dev/null || fail "no dict_full in JSON"
if grep -qF $'\033' "$dir/json"; then fail "raw ESC in JSON"; fi

# A larger budget keeps more (and costs more): the option works.
"$TT_BIN" -r "$dir/bomb.ttr" -b --format json --dict-budget 128M >"$dir/json2" 2>/dev/null
small=$(jq -s 'map(.dropped.dict_full) | add' "$dir/json")
large=$(jq -s 'map(.dropped.dict_full) | add' "$dir/json2")
[ "$large" -lt "$small" ] || fail "--dict-budget 128M dropped $large, 48M dropped $small"
echo "ok: dict_full $small at 48M, $large at 128M"
