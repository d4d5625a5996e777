#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A replay parses a file from outside with nothing of root's: while the TUI
# plays (paused) a recording (root-only without sudo, opened before the
# drop; the user's under sudo), its /proc status shows no
# capabilities in any set, an empty bounding set, no_new_privs, and nobody's
# uid (root without sudo) or the sudo user's (SUDO_UID/SUDO_GID). A batch
# replay writes its exports as that user and says so when it cannot.
set -u
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root: a replay's privileges are root's to drop"; exit 77; }
TUI_NAME=secreplay
# shellcheck source=lib/tui_common.bash
source "$(dirname "$0")/lib/tui_common.bash"
tmp=$TUI_TMP
chmod 755 "$tmp" # the way to public/ below, for nobody
nobody_uid=$(id -u nobody) && nobody_gid=$(id -g nobody) || { echo "SKIP: no user nobody"; exit 77; }

"$TT_BIN" -b --format json --source proc -d 0.5 -n 4 -p $$ -w "$tmp/r.ttr" >/dev/null ||
	fail "recording failed"
chmod 600 "$tmp/r.ttr" # root's alone: opened before the drop, read after it

# replay_status ENV...: the status of a TUI replay, paused mid-file.
replay_status() {
	new_server
	start_session 110 30 "exec env $* $TT_BIN -r $tmp/r.ttr"
	wait_for 'REPLAY .* PLAY'
	keys ' '
	wait_for 'REPLAY .* PAUSED'
	local pid
	pid=$(tm list-panes -t "$S" -F '#{pane_pid}')
	grep -E '^(Uid|Gid|Groups|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):' \
		"/proc/$pid/status" >"$tmp/status" || fail "no status for pid $pid"
	keys q
	wait_until "$TUI_WAIT" "the replay to quit" eval '! kill -0 $pid 2>/dev/null'
}
check_status() { # UID GID
	local l
	for l in CapInh CapPrm CapEff CapBnd CapAmb; do
		grep -qx "$l:	0000000000000000" "$tmp/status" || fail "$l: $(grep "^$l" "$tmp/status")"
	done
	grep -qx "NoNewPrivs:	1" "$tmp/status" || fail "no_new_privs not set"
	grep -qx "Uid:	$1	$1	$1	$1" "$tmp/status" || fail "want uid $1: $(grep ^Uid "$tmp/status")"
	grep -qx "Gid:	$2	$2	$2	$2" "$tmp/status" || fail "want gid $2: $(grep ^Gid "$tmp/status")"
	grep -Eq "^Groups:.*\b0\b" "$tmp/status" && fail "in group root: $(grep ^Groups "$tmp/status")"
	true
}

replay_status -u SUDO_UID -u SUDO_GID
check_status "$nobody_uid" "$nobody_gid"
echo "replay as root: $(grep -E '^(Uid|CapEff|CapBnd)' "$tmp/status" | tr '\n' ' ')"
chown 4242:4343 "$tmp/r.ttr" # under sudo it is opened as the user: theirs
replay_status SUDO_UID=4242 SUDO_GID=4343
check_status 4242 4343
echo "replay under sudo: $(grep -E '^(Uid|Gid)' "$tmp/status" | tr '\n' ' ')"

# Exports are written as that user: refused up front where it may not write.
mkdir -m 700 "$tmp/private" && mkdir -m 1777 "$tmp/public"
env -u SUDO_UID -u SUDO_GID "$TT_BIN" -b -r "$tmp/r.ttr" --export "$tmp/private/x.json" \
	>/dev/null 2>"$tmp/err" && fail "a replay as nobody wrote into root's directory"
grep -q "writes its files as nobody" "$tmp/err" || fail "no reason given: $(cat "$tmp/err")"
env -u SUDO_UID -u SUDO_GID "$TT_BIN" -b -r "$tmp/r.ttr" --export "$tmp/public/x.json" \
	>/dev/null 2>"$tmp/err" || fail "replay export failed: $(cat "$tmp/err")"
[ "$(stat -c %u "$tmp/public/x.json")" = "$nobody_uid" ] || fail "export not written as nobody"
echo PASS
