#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Time travel in the TUI, driven in tmux on a recording: a workload starts a
# few seconds into the recording, so the panes at the first interval lack it
# and at the last show it. Space pauses, Home / End / t / T / b move the
# cursor on the timeline, [ ] show a range as one interval, q quits.
set -u

TUI_NAME=replay
# shellcheck source=lib/tui_common.bash
source "$(dirname "$0")/lib/tui_common.bash"
tmp=$TUI_TMP
# The timeline's offset of the interval shown ("+3.5s of 12.0s" -> 3.5).
offset() { screen | sed -n 's/.*REPLAY.* +\([0-9.]*\)s of .*/\1/p' | head -n 1; }
# moved FROM LO HI: waits until the offset differs from FROM, checks FROM+LO <= it <= FROM+HI.
# (A loaded machine stretches recorded intervals: a step is 0.5 s or more.)
moved() {
	local deadline=$((SECONDS + TUI_WAIT)) now
	while ((SECONDS < deadline)); do
		now=$(offset)
		if [ -n "$now" ] && [ "$now" != "$1" ]; then
			awk -v f="$1" -v n="$now" -v lo="$2" -v hi="$3" \
				'BEGIN { exit !(n >= f + lo - 0.01 && n <= f + hi + 0.01) }' ||
				fail "offset went from +$1 to +$now, not by $2 to $3 s"
			return 0
		fi
		sleep 0.1
	done
	fail "offset stayed at +$1"
}

# Record 24 intervals; the workload starts after the 6th (3 s) and runs to the
# end. Counted in intervals written, not seconds: a loaded machine stretches them.
"$TT_BIN" -b --format json --source proc -d 0.5 -n 24 -w "$tmp/r.ttr" >"$tmp/live.json" &
rec=$!
intervals() { [ "$(wc -l <"$tmp/live.json")" -ge "$1" ]; }
wait_until 60 "6 recorded intervals" intervals 6
start_workload rr_threads 3 1 1 300 # until killed at exit: it must outlast the recording
wait "$rec" || fail "recording failed"
intervals 24 || fail "the recording has $(wc -l <"$tmp/live.json") intervals, not 24"

start_shell 110 30
keys "clear; $TT_BIN -r $tmp/r.ttr -p $WL" Enter
wait_for "REPLAY $(hostname | cut -c1-24) PLAY 1x"
keys ' '
wait_for 'REPLAY .* PAUSED'

# End then Home: the workload shows at the end and must be gone at the first
# interval, which also tells that Home was handled before its offset is read.
keys End
wait_for 'rr-spin'
keys Home
wait_gone 'rr-spin'
wait_for 'REPLAY .* PAUSED 1x .* \+[0-9.]+s of'
o=$(offset)
keys t
moved "$o" 0.3 30
keys T
wait_for "\\+${o}s of" # back exactly where it was

keys End
wait_for 'rr-spin'
wait_for 'rr-sleep'
end=$(offset)
[ "${end%.*}" -ge 10 ] || fail "End went to +$end s"
# The clock in the title is the recording's, not now.
rec_clock=$(screen | sed -n 's/.*REPLAY .* PAUSED 1x  \([0-9:]*\) UTC.*/\1/p')
screen | head -n 1 | grep -q "$rec_clock UTC" || fail "title clock is not the recording's"

keys b
wait_for 'jump to'
keys -- "-5s" Enter
wait_gone 'jump to'
off=$(offset)
awk -v a="$off" -v b="$end" 'BEGIN { exit !(a >= b - 5.1 && a < b) }' ||
	fail "b -5s went from +$end to +$off"

# The range near the start, not at b's -5 s: a loaded machine stretches the
# recorded intervals (2.7 s seen), and -5 s then two steps reach the last
# interval, from where nothing is left to play below.
keys Home
near_start() { awk -v o="$(offset)" -v e="$end" 'BEGIN { exit !(o != "" && o < e - 6) }'; }
wait_until "$TUI_WAIT" "Home to go back to the start" near_start
o=$(offset)
keys t
moved "$o" 0.3 30
off=$(offset)
keys '['
wait_for 'range starts here'
keys t
moved "$off" 0.3 30
o=$(offset)
keys t
moved "$o" 0.3 30
o=$(offset)
keys ']'
wait_for 'REPLAY .* PAUSED  range [0-9:]+-[0-9:]+ UTC'
# Three intervals as one window: from the end of the one before [ to here.
win=$(screen | sed -n 's/.*window: last interval (\([0-9.]*\)s).*/\1/p')
awk -v w="$win" -v a="$off" -v b="$o" 'BEGIN { exit !(w >= b - a + 0.3) }' ||
	fail "range window ${win}s from +$off to +$o"
# Esc clears the range: one interval again, and the footer says so.
keys Escape
wait_for 'range cleared: one interval'
wait_gone 'REPLAY .* PAUSED  range '

keys '+'
keys ' '
wait_for 'REPLAY .* PLAY 2x'
keys q
wait_for '^PROMPT\$'
echo "PASS: tui_replay"
