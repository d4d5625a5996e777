#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Least privilege: once running, threadtop holds only the capabilities it
# still uses (and says which in its log), with no_new_privs set.
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root to have capabilities to drop"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/lib/test_wait.bash"
log=$(mktemp)
out=$(mktemp)
trap 'rm -f "$log" "$out"' EXIT

check() { # expected CapEff, extra env
	local want=$1; shift
	: >"$log"
	: >"$out"
	# Read once it has started up (dropped what it drops) and printed an
	# interval, however long that takes; it runs until told to stop.
	env "$@" "$TT_BIN" -b -d 0.5 --source proc --log "$log" >"$out" &
	local pid=$!
	wait_until "threadtop printed nothing" test -s "$out"
	local eff nnp bnd
	eff=$(awk '/^CapEff/ { print $2 }' /proc/$pid/status)
	bnd=$(awk '/^CapBnd/ { print $2 }' /proc/$pid/status)
	nnp=$(awk '/^NoNewPrivs/ { print $2 }' /proc/$pid/status)
	kill -TERM $pid
	wait $pid || fail "threadtop exit status $? after SIGTERM"
	[ "$eff" = "$want" ] || fail "CapEff $eff, want $want"
	[ "$bnd" = "$want" ] || fail "CapBnd $bnd, want $want"
	[ "$nnp" = 1 ] || fail "no_new_privs not set"
}

# CAP_DAC_READ_SEARCH (2), CAP_SYS_PTRACE (19), CAP_SYSLOG (34),
# CAP_CHECKPOINT_RESTORE (40: /proc/PID/map_files, deleted binaries' symbols).
check 0000010400080004
grep -q "capabilities: kept cap_sys_ptrace" "$log" || fail "log does not say what was kept: $(cat "$log")"
# Under sudo, the same: files are created as the invoking user (their IDs
# kept as the saved IDs), nothing is chowned. The log is opened as that
# user, so it must be theirs.
chown 65534:65534 "$log"
check 0000010400080004 SUDO_UID=65534 SUDO_GID=65534
echo PASS
