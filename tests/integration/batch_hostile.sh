#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Hostile strings and unfriendly conditions in batch mode: a comm with an
# escape sequence and invalid UTF-8 and a 4 KiB command line are escaped and
# bounded in text and JSON; a closed stdout ends threadtop quietly; without
# root the /proc source still works and says what it cannot see.
set -euo pipefail
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/lib/test_wait.bash"

long=$(printf '\033]0;pwned\007%.0s' $(seq 1 400))   # ~4 KiB of OSC escapes
"$TT_WORKLOADS/hostile_strings" "$TT_WL_LIFE" "$long" &
wl=$!
trap 'kill $wl 2>/dev/null || true' EXIT
# It names itself once it runs.
named() { grep -q EVIL "/proc/$wl/comm"; }
wait_until "hostile_strings did not set its comm" named

text=$("$TT_BIN" -b -n 1 -d 0.3 --source proc -p "$wl")
if printf '%s' "$text" | grep -q $'\033'; then fail "raw ESC reached the text output"; fi
if printf '%s' "$text" | grep -q $'\007'; then fail "raw BEL reached the text output"; fi
# 16 columns: the escaped comm is cut before \x07, never inside an escape.
grep -qF ' \e[31mEVIL\xff  ' <<<"$text" || fail "comm not shown escaped: $text"
maxlen=$(echo "$text" | awk '{ print length($0) }' | sort -n | tail -n 1)
[ "$maxlen" -lt 400 ] || fail "a text line is $maxlen bytes: not bounded"

json=$("$TT_BIN" -b -n 1 -d 0.3 --format json --source proc -p "$wl")
if printf '%s' "$json" | grep -q $'\033'; then fail "raw ESC reached the JSON output"; fi
comm=$(echo "$json" | jq -r '.threads[0].comm') || fail "invalid JSON: $json"
[ "$comm" = $'\033[31mEVIL\uFFFD\007' ] || fail "comm in JSON: $(echo "$json" | jq '.threads[0].comm')"
len=$(echo "$json" | jq '.threads[0].cmdline | length')
[ "$len" -le 4096 ] || fail "cmdline not bounded: $len"
[ "$len" -ge 1000 ] || fail "cmdline lost: $len"

# A reader that goes away (| head) ends threadtop with status 0, no noise.
set +e
err=$("$TT_BIN" -b --format json -d 0.2 --source proc 2>&1 >/dev/full)
rc=$?
set -e
[ $rc -ne 0 ] || fail "writing to a full device must fail"
# On a loaded box the /proc source may say it lowers its rate: that line is
# not noise, anything else on stderr (a broken pipe) is.
errf=$(mktemp)
out=$("$TT_BIN" -b --format json -d 0.2 --source proc 2>"$errf" | head -n 1)
noise=$(grep -v '^threadtop: proc source: ' "$errf" || true)
rm -f "$errf"
echo "$out" | jq -e '.schema == 1' >/dev/null || fail "head: $out"
[ -z "$noise" ] || fail "head: noise on stderr: $noise"

# Without root: the /proc source works for what is visible and says the rest.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	set +e
	msg=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TT_BIN" -b -n 1 -d 0.3 --format json --source auto 2>&1 >/tmp/tt_nonroot.$$)
	rc=$?
	set -e
	[ $rc -eq 0 ] || fail "non-root run failed ($rc): $msg"
	grep -q "not root" <<<"$msg" || fail "no line about what non-root cannot see: $msg"
	jq -e '.nr_threads > 0' /tmp/tt_nonroot.$$ >/dev/null || fail "non-root saw no thread"
	rm -f /tmp/tt_nonroot.$$
fi
echo "PASS"
