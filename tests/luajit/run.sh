#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Runs one LuaJIT sysprof test in a fresh temporary directory: *.test.lua
# under tt_luajit (the test host linked with the library), *.test.sh with sh.
# Exit status is the test's (77 = skipped, with the reason on stderr).
t="$1"
dir=$(mktemp -d) || exit 1
cd "$dir" || exit 1
LUA_PATH="$TT_LJ_TESTS/?.lua;;"
export LUA_PATH
case "$t" in
*.lua) "$TT_LUAJIT" "$t" ;;
*) sh "$t" ;;
esac
rc=$?
cd / && rm -rf "$dir"
exit $rc
