#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Least privilege: once running, threadtop holds only the capabilities it
# still uses (and says which in its log), with no_new_privs set.
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root to have capabilities to drop"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT

check() { # expected CapEff, extra env
	local want=$1; shift
	env "$@" "$TT_BIN" -b -n 2 -d 0.5 --source proc --log "$log" >/dev/null &
	local pid=$!
	sleep 0.7
	local eff nnp bnd
	eff=$(awk '/^CapEff/ { print $2 }' /proc/$pid/status)
	bnd=$(awk '/^CapBnd/ { print $2 }' /proc/$pid/status)
	nnp=$(awk '/^NoNewPrivs/ { print $2 }' /proc/$pid/status)
	wait $pid
	[ "$eff" = "$want" ] || fail "CapEff $eff, want $want"
	[ "$bnd" = "$want" ] || fail "CapBnd $bnd, want $want"
	[ "$nnp" = 1 ] || fail "no_new_privs not set"
}

# CAP_DAC_READ_SEARCH (2), CAP_SYS_PTRACE (19), CAP_SYSLOG (34),
# CAP_CHECKPOINT_RESTORE (40: /proc/PID/map_files, deleted binaries' symbols).
check 0000010400080004
grep -q "capabilities: kept cap_sys_ptrace" "$log" || fail "log does not say what was kept: $(cat "$log")"
# Under sudo, CAP_CHOWN (0) too: files go to the invoking user.
check 0000010400080005 SUDO_UID=65534 SUDO_GID=65534
echo PASS
