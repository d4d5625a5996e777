# SPDX-License-Identifier: GPL-2.0-only
# Sourced by bpf_common.bash: the sysprof library the LuaJIT tests preload,
# whether it can be preloaded here, and how to start a preloaded program.
SYSPROF_LIB=$TT_BUILD/lib/libthreadtop-sysprof.so

# sysprof_unusable [luajit]: prints why the library cannot be preloaded
# here (with "luajit": into Debian's luajit), nothing when it can.
sysprof_unusable() {
	if [ "${1:-}" = luajit ] && ! command -v luajit >/dev/null; then
		echo "luajit is not installed"
	elif [ ! -f "$SYSPROF_LIB" ]; then
		echo "$SYSPROF_LIB not built"
	# An ASan-built library cannot be preloaded into an uninstrumented program.
	# grep -c, not -q: under pipefail, ldd killed by SIGPIPE would turn the answer around.
	elif ldd "$SYSPROF_LIB" 2>/dev/null | grep -c libasan >/dev/null; then
		echo "the library is built with ASan (preset asan)"
	fi
}

# require_sysprof [luajit]: skips the test (exit 77) with the reason when it cannot.
require_sysprof() {
	local why
	why=$(sysprof_unusable "$@")
	[ -z "$why" ] || skip "$why"
}

# start_preloaded_lua SCRIPT ARGS...: runs luajit SCRIPT with the library
# preloaded, its pid in $LJ and its output in $TMPD/luajit.out; returns once
# the library is mapped into it.
start_preloaded_lua() {
	local end=$((SECONDS + TT_TEST_WAIT))

	LD_PRELOAD=$SYSPROF_LIB luajit "$@" >"$TMPD/luajit.out" 2>&1 &
	LJ=$!
	WL_PIDS+=("$LJ")
	until grep -q libthreadtop-sysprof "/proc/$LJ/maps" 2>/dev/null; do
		((SECONDS < end)) ||
			fail "luajit $1 did not load $SYSPROF_LIB within $TT_TEST_WAIT s: $(head -c 300 "$TMPD/luajit.out")"
		sleep 0.05
	done
}
