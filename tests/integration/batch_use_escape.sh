#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Hostile USE names in batch mode: a cgroup named with an OSC 52 clipboard
# write and a U+202E right-to-left override, and a saturated disk named with
# ESC[2J and U+202E (a fake --sys-root / --proc-root), reach `-b` text and
# JSON only escaped: in the USE line, the cgroup and disk names and the
# verdict that names the disk. A comm holding U+202E is escaped likewise.
set -euo pipefail
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/lib/test_wait.bash"
: "${TT_BIN:?}" "${TT_SRC:?}" "${TT_BUILD:?}"

dir=$(mktemp -d "$TT_BUILD/use_escape.XXXXXX")
writer= sleeper=
cleanup() {
	[ -z "$writer" ] || kill "$writer" 2>/dev/null || true
	[ -z "$sleeper" ] || kill "$sleeper" 2>/dev/null || true
	# Gone before the files go: a writer still dying may create .diskstats
	# behind rm (CI: "cannot remove .../proc: Directory not empty").
	[ -z "$writer" ] || wait "$writer" 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT
cp -r "$TT_SRC/tests/fixtures/use/busy/t0/proc" "$TT_SRC/tests/fixtures/use/busy/t0/sys" "$dir/"
rlo=$'\xe2\x80\xae'
cg=$'e\033]52;c;aGk=\007'"${rlo}evil"
disk=$'x\033[2J'"$rlo"
mkdir "$dir/sys/fs/cgroup/$cg" "$dir/sys/block/$disk"
echo "50000 100000" >"$dir/sys/fs/cgroup/$cg/cpu.max"
cp "$dir/sys/fs/cgroup/app/cpu.stat" "$dir/sys/fs/cgroup/$cg/"
# An idle CPU, so that the verdict names the disk.
echo "0.10 0.10 0.10 1/100 1000" >"$dir/proc/loadavg"

# The fake disk is busy: its counters grow with the clock (100% busy, queue
# 4), rewritten by rename so that every read sees a whole file.
write_diskstats() {
	local ms=$((${EPOCHREALTIME/./} / 1000))
	printf '   8       0 %s 1000 0 8000 500 %d 0 16000 %d 0 %d %d 0 0 0 0\n' \
		"$disk" $((ms / 10)) "$ms" "$ms" $((ms * 4)) >"$dir/proc/.diskstats"
	mv "$dir/proc/.diskstats" "$dir/proc/diskstats"
}
write_diskstats
(while :; do
	write_diskstats
	sleep 0.05 # the device's pace, not a wait
done) &
writer=$!

roots=(--source proc --sys-root "$dir/sys" --proc-root "$dir/proc")
# On a loaded machine the writer may miss an interval: sample until the
# verdict names the disk (each output is checked below, whole).
names_disk_text() {
	text=$("$TT_BIN" -b -n 2 -d 0.3 "${roots[@]}")
	grep -qF '| disk x\e[2J\u202e saturated' <<<"$text"
}
wait_until "the text verdict does not name the disk escaped" names_disk_text
for b in $'\033' $'\007' "$rlo"; do
	if printf '%s' "$text" | grep -qF "$b"; then
		fail "raw $(printf '%s' "$b" | od -An -tx1) reached the text output: $text"
	fi
done
grep -qF '/e\e]52;c;aGk=\x07\u202eevil' <<<"$text" || fail "cgroup not shown escaped: $text"

names_disk_json() {
	json=$("$TT_BIN" -b -n 2 -d 0.3 --format json "${roots[@]}")
	echo "$json" | jq -se --arg d "$disk" 'any(.[]; .verdict.component.name == $d)' >/dev/null
}
wait_until "the JSON verdict does not name the disk" names_disk_json
for b in $'\033' $'\007' "$rlo"; do
	if printf '%s' "$json" | grep -qF "$b"; then fail "raw byte reached the JSON output"; fi
done
printf '%s' "$json" | grep -qF '"name":"x\u001b[2J\u202e"' || fail "disk name in JSON: $json"
# Still the same names to a JSON reader.
echo "$json" | jq -se --arg c "/$cg" 'all(.[]; any(.use[]; .name == $c))' >/dev/null ||
	fail "cgroup name in JSON: $json"

# A comm with a right-to-left override.
"$TT_WORKLOADS/hostile_strings" "$TT_WL_LIFE" x "ab${rlo}cd" &
sleeper=$!
renamed() { grep -qF "$rlo" "/proc/$sleeper/comm"; }
wait_until "hostile_strings did not set its comm" renamed
text=$("$TT_BIN" -b -n 1 -d 0.2 --source proc -p "$sleeper")
if printf '%s' "$text" | grep -qF "$rlo"; then fail "raw U+202E comm in text: $text"; fi
grep -qF ' ab\u202ecd ' <<<"$text" || fail "comm not escaped: $text"
json=$("$TT_BIN" -b -n 1 -d 0.2 --format json --source proc -p "$sleeper")
if printf '%s' "$json" | grep -qF "$rlo"; then fail "raw U+202E comm in JSON: $json"; fi
[ "$(echo "$json" | jq -r '.threads[0].comm')" = "ab${rlo}cd" ] || fail "comm in JSON: $json"
echo "ok: USE names, verdict and comm escaped in text and JSON"
