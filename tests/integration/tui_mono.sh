#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The TUI on a plain terminal: with NO_COLOR set no colour reaches the
# screen (attributes only), and in a non-UTF-8 locale (LANG=C) line drawing
# and markers fall back to ASCII. Driven in tmux (a private server), /proc
# source, on the TUI workload.
set -u

TUI_NAME=mono
# shellcheck source=lib/tui_common.bash
source "$(dirname "$0")/lib/tui_common.bash"

start_workload tui_target 3 "$TUI_WL_LIFE"
start_session 100 30 "env NO_COLOR=1 LANG=C LC_ALL=C $TT_BIN --source proc -d 0.5 -p $WL; sleep 30"
wait_for 'ttsleep'
wait_for 'F10Quit'

# No colour: no SGR colour parameters (30-37, 40-47, 38;5, 48;5, 90-107).
if screen -e | grep -Eq $'\e\\[([0-9;]*;)?(3[0-7]|4[0-7]|9[0-7]|10[0-7]|38;5|48;5)(;[0-9;]*)?m'; then
	fail "colour escapes with NO_COLOR set"
fi
# Attributes still mark the selection and the titles (reverse video, bold).
screen -e | grep -Eq $'\e\\[([0-9;]*;)?7(;[0-9;]*)?m' || fail "no reverse video for the selection"

# ASCII in the C locale: the sort marker is "v", no UTF-8 bytes at all.
wait_for 'ACTIVEv'
if screen | LC_ALL=C grep -q $'[\x80-\xff]'; then
	fail "non-ASCII bytes on the screen in the C locale"
fi
keys I
wait_for 'ACTIVE\^'
# The escaped comm stays escaped in ASCII too.
screen | grep -Fq '\e[2Jevil' || fail "the escape-sequence comm is not shown escaped"
keys q
echo "PASS: tui_mono"
