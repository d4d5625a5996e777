#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The live view's stitching (src/model/lj_stitch.c) on table.sort with a Lua
# comparator, under "threadtop run" with the folded export: the stacks go
# main;lua_cpcall;pmain;lua_pcall;<Lua frames>, sort's own samples end at
# table.sort (or what it called), never "cmp;table.sort" (a sort stacked on
# the comparator it called), no stack ends in a VM entry that was not
# running (lua_pcall, lua_call), no frame of the profiler shows, and the
# comparator's share is near the workload's own os.clock split (within 10
# points: the test cannot size the live session's samples; above it, also
# the share of sort's own work and C-to-Lua calls, which a profile may put
# on either side, measured apart: 7% on this host; under TCG on 6.1 the
# share was 0.88 against a split of 0.71).
. "$(dirname "$0")/bpf_common.bash"

require_sysprof luajit

cp "$TT_SRC/tests/luajit/workloads/sort.lua" "$TMPD/sortw.lua"
cat >"$TMPD/drive.lua" <<'LUA'
local chunk = assert(loadfile(arg[1]))
local c0 = os.clock()
repeat chunk() until os.clock() - c0 > 4
print(("split %.4f cside %.4f"):format(SORT_SPLIT.cmp / SORT_SPLIT.sort, SORT_SPLIT.cside / SORT_SPLIT.sort))
LUA
chmod 644 "$TMPD"/*.lua
# The C side's share, measured apart (its trivial sorts must not be profiled).
cside=$(luajit -e 'SORT_CSIDE = true' "$TMPD/drive.lua" "$TMPD/sortw.lua" | awk '/cside/ { print $4 }')
timeout $((6 * TT_TEST_WAIT)) "$TT_BIN" run -b --format json -d 2 --export "$TMPD/out.folded" \
	-- luajit "$TMPD/drive.lua" "$TMPD/sortw.lua" >"$TMPD/run.json" 2>"$TMPD/run.err" ||
	fail "threadtop run failed: $(tail -n 3 "$TMPD/run.err")"
# The command's own output (its split) goes to threadtop's.
truth=$(grep -ho 'split [0-9.]*' "$TMPD/run.json" "$TMPD/run.err" | awk '{ print $2 }' | tail -n 1)
grep '^luajit;' "$TMPD/out.folded" >"$TMPD/lj.folded" || fail "no LuaJIT stack in the export"
read -r total sort cmp phantom entry own < <(awk '{ n = $NF; t += n }
	/table\.sort/ { s += n; if ($0 ~ /table\.sort(_\[lua\])?;[^;]*sortw\.lua:11/) c += n
		if ($0 ~ /sortw\.lua:11[^;]*;.*table\.sort/) ph += n }
	/;lua_(p|cp)?call(_\[lua\])? [0-9]+$/ { e += n }
	/threadtop-sysprof|;sp_[a-z_]*(_\[lua\])?[; ]/ { o += n }
	END { print t + 0, s + 0, c + 0, ph + 0, e + 0, o + 0 }' "$TMPD/lj.folded")
echo "# $total samples, $sort in table.sort, comparator $cmp; workload's split ${truth:-?}, C side ${cside:-?}"
[ "$sort" -ge 50 ] || fail "only $sort samples in table.sort"
grep -q 'lua_cpcall;[^;]*;lua_pcall;main chunk @' "$TMPD/lj.folded" ||
	fail "no main;lua_cpcall;pmain;lua_pcall;main chunk stack: $(head -n 1 "$TMPD/lj.folded")"
[ "$phantom" = 0 ] || fail "$phantom samples show table.sort above the comparator it called"
[ "$entry" = 0 ] || fail "$entry samples end in a VM entry"
[ "$own" = 0 ] || fail "$own samples show a frame of the profiler: $(grep -m2 -E \
	'threadtop-sysprof|;sp_[a-z_]*(_\[lua\])?[; ]' "$TMPD/lj.folded" | cut -c1-400)"
# A split over 1 is the workload's own timing failing, not a share: its
# os.clock calls cost most of the comparator's time where a syscall is slow
# (1.1008 under TCG on 6.1 at host load 13).
if [ -n "$truth" ] && awk -v t="$truth" 'BEGIN { exit !(t > 1) }'; then
	echo "# comparator share not judged: the workload's own split, $truth, is over 1"
elif [ -n "$truth" ]; then
	# Under software emulation (TT_TEST_WAIT raised) a clock read costs
	# microseconds, and the comparator's own os.clock calls, sampled inside
	# it, are outside the split it measures: 0.88 against 0.71, then 0.919
	# against 0.737 (+0.068 C side) on 6.1 guests. Above, 0.2 there.
	hi=0.1
	((TT_TEST_WAIT > 60)) && hi=0.2
	awk -v c="$cmp" -v s="$sort" -v t="$truth" -v x="$cside" -v h="$hi" \
		'BEGIN { d = c / s - t; exit !(d <= x + h && d >= -0.1) }' ||
		fail "comparator share $cmp/$sort is outside the workload's $truth - 0.1 .. + $cside (C side) + $hi"
fi
echo "ok"
