#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The commands threadtop starts (--cmd, threadtop run) run without its
# privileges: no capabilities in any set, an empty bounding set,
# no_new_privs, and the sudo user's uid, gid and groups (SUDO_UID/SUDO_GID),
# or nobody's when root ran threadtop without sudo. Each command prints its
# own /proc/self/status lines; --cmd-as-root is the one way back to root.
set -uo pipefail
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root: the children's privileges are root's to drop"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq not installed"; exit 77; }
: "${TT_BIN:?}"
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
user=ttsec$$ group=ttsecg$$
cleanup() {
	userdel "$user" 2>/dev/null
	groupdel "$group" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
chmod 755 "$tmp"
echo tt-s3kr1t >"$tmp/secret" && chmod 600 "$tmp/secret"
echo root >"$tmp/rootfile" && chmod 644 "$tmp/rootfile"

nobody_uid=$(id -u nobody) && nobody_gid=$(id -g nobody) || { echo "SKIP: no user nobody"; exit 77; }
# A user with a supplementary group, to see that the child gets that user's groups.
if command -v useradd >/dev/null && groupadd "$group" && useradd -M -N -g "$nobody_gid" -G "$group" \
	-s /usr/sbin/nologin "$user"; then
	t_uid=$(id -u "$user") t_gid=$nobody_gid t_extra=$(getent group "$group" | cut -d: -f3)
else
	echo "no useradd: the sudo case runs with nobody's ids"
	user=nobody t_uid=$nobody_uid t_gid=$nobody_gid t_extra=
fi

status_cmd='grep -E "^(Uid|Gid|Groups|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):" /proc/self/status'
attack_cmd="cat $tmp/secret 2>&1; echo pwned >>$tmp/rootfile 2>&1; true"

# check_status FILE UID GID [GROUP]: the status lines of a child without privileges.
check_status() {
	local f=$1 uid=$2 gid=$3 extra=${4:-} l
	for l in CapInh CapPrm CapEff CapBnd CapAmb; do
		grep -qx "$l:	0000000000000000" "$f" || fail "$l not empty: $(grep "^$l" "$f")"
	done
	grep -qx "NoNewPrivs:	1" "$f" || fail "no_new_privs not set"
	grep -qx "Uid:	$uid	$uid	$uid	$uid" "$f" || fail "want uid $uid: $(grep ^Uid "$f")"
	grep -qx "Gid:	$gid	$gid	$gid	$gid" "$f" || fail "want gid $gid: $(grep ^Gid "$f")"
	grep -Eq "^Groups:.*\b$gid\b" "$f" || fail "primary group $gid missing: $(grep ^Groups "$f")"
	grep -q "^Groups:.*\b0\b" "$f" && fail "still in group root: $(grep ^Groups "$f")"
	if [ -n "$extra" ]; then
		grep -Eq "^Groups:.*\b$extra\b" "$f" || fail "group $extra missing: $(grep ^Groups "$f")"
	fi
}

# run_cmd OUT ENV...: one snapshot with a --cmd that reports its status and tries root's files.
run_cmd() {
	local out=$1
	shift
	# Three intervals: on a loaded box a command may still run when the first ends.
	env "$@" "$TT_BIN" -b -d 0.5 -n 3 --source proc -p $$ --format json --cmd "$status_cmd" \
		--cmd "$attack_cmd" >"$tmp/json" || fail "threadtop --cmd failed ($*)"
	done_output 0 <"$tmp/json" >"$out"
	done_output 1 <"$tmp/json" >"$out.attack"
	[ -s "$out" ] || fail "--cmd never finished in 3 intervals ($*): $(jq -c '.commands' "$tmp/json")"
}

# done_output I: the output of the last finished run of command I in the NDJSON on stdin.
done_output() {
	jq -rs --argjson i "$1" '[.[] | .commands[$i] | select(.output != null)] | last | .output // ""'
}

# 1. --cmd as plain root: nobody, nothing of threadtop's capabilities.
run_cmd "$tmp/plain" -u SUDO_UID -u SUDO_GID -u SUDO_USER
check_status "$tmp/plain" "$nobody_uid" "$nobody_gid"
grep -q tt-s3kr1t "$tmp/plain.attack" && fail "--cmd read a 0600 root file"
grep -q pwned "$tmp/rootfile" && fail "--cmd wrote a root-owned file"
echo "--cmd as root: $(grep ^Uid "$tmp/plain"), $(grep ^CapEff "$tmp/plain")"

# 2. --cmd under sudo: the invoking user, with that user's groups.
run_cmd "$tmp/sudo" SUDO_UID="$t_uid" SUDO_GID="$t_gid" SUDO_USER="$user"
check_status "$tmp/sudo" "$t_uid" "$t_gid" "$t_extra"
grep -q tt-s3kr1t "$tmp/sudo.attack" && fail "--cmd under sudo read a 0600 root file"
grep -q pwned "$tmp/rootfile" && fail "--cmd under sudo wrote a root-owned file"
echo "--cmd under sudo: $(grep -E '^(Uid|Groups)' "$tmp/sudo" | tr '\n' ' ')"

# 3. --cmd-as-root says so: uid 0 again.
"$TT_BIN" -b -d 0.5 -n 3 --source proc -p $$ --format json --cmd-as-root --cmd "$status_cmd" \
	>"$tmp/json" || fail "threadtop --cmd-as-root failed"
done_output 0 <"$tmp/json" | grep -qx "Uid:	0	0	0	0" ||
	fail "--cmd-as-root did not run as root"

# 4. threadtop run: the same, and the command still gets the profiler preloaded.
# An ASan-built library cannot be preloaded into an uninstrumented command (the
# sanitizer's runtime must come first): that part needs a normal build.
if grep -q '^TT_SANITIZE:BOOL=ON' "${TT_BUILD:-/nonexistent}/CMakeCache.txt" 2>/dev/null; then
	echo "threadtop run (parts 4, 5): not checked in a sanitizer build (an ASan library cannot be preloaded)"
	echo PASS
	exit 0
fi
run_status() { # OUT ENV...
	local out=$1
	shift
	env "$@" "$TT_BIN" run -b -d 0.5 -n 1 --source proc --format json -- \
		sh -c "$status_cmd >&2; echo \"LD_PRELOAD=\$LD_PRELOAD\" >&2" \
		2>"$out" >"$tmp/run.json" || fail "threadtop run failed ($*): $(tail -n 3 "$out")"
}
run_status "$tmp/run_plain" -u SUDO_UID -u SUDO_GID -u SUDO_USER
check_status "$tmp/run_plain" "$nobody_uid" "$nobody_gid"
grep -q '^LD_PRELOAD=.*libthreadtop-sysprof.so' "$tmp/run_plain" || fail "run: no LD_PRELOAD"
run_status "$tmp/run_sudo" SUDO_UID="$t_uid" SUDO_GID="$t_gid" SUDO_USER="$user"
check_status "$tmp/run_sudo" "$t_uid" "$t_gid" "$t_extra"
echo "threadtop run under sudo: $(grep -E '^(Uid|CapBnd)' "$tmp/run_sudo" | tr '\n' ' ')"

# 5. A library the command's user cannot read: said in one line, nothing runs.
cp "$(grep '^LD_PRELOAD=' "$tmp/run_plain" | cut -d= -f2 | cut -d: -f1)" "$tmp/private.so"
chmod 600 "$tmp/private.so"
THREADTOP_SYSPROF_LIB=$tmp/private.so "$TT_BIN" run -b -d 0.5 -n 1 --source proc -- \
	touch "$tmp/ran" 2>"$tmp/err" >/dev/null && fail "run went on with an unreadable library"
[ -e "$tmp/ran" ] && fail "the command ran without its library"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "nobody (the command's user) cannot read $tmp/private.so" \
	"$tmp/err" || fail "not a one-line reason: $(cat "$tmp/err")"
echo PASS
