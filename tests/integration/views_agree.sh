#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# One stack pipeline feeds every view: for each kind of workload, one run
# of threadtop prints batch NDJSON and writes all five exports, and
# lib/views_compare.py checks that the NDJSON lines (summed), the JSON
# report, the folded file, pprof (decoded by npm pprof-format), speedscope
# and the SVG hold the same stacks with the same values. The kinds: C with
# frame pointers and inlined code (inline_hot), the same without frame
# pointers (inline_hot_nofp: DWARF), a LuaJIT loop (stitched Lua stacks,
# sampled every 10 ms and every 1 ms),
# and off-CPU time (block_sites, --offcpu). The C stacks must root at _start
# (the frame-pointer walk alone stops at __libc_start_call_main) and the
# inlined functions show as inlined in every view. The speedscope file is
# also checked against speedscope's schema, and each thread's evented
# (time-ordered) on-CPU profile against its sampled one: the same stacks,
# the same nanoseconds (lib/speedscope_check.py).
. "$(dirname "$0")/bpf_common.bash"

command -v python3 >/dev/null || skip "python3 is not installed"
. "$(dirname "$0")/lib/pprof_format.bash"
need_pprof_format
. "$(dirname "$0")/lib/speedscope_schema.bash"
need_speedscope_schema

# views NAME KIND PID [OPTIONS...]: one run over PID, then the comparison.
views() {
	local name=$1 kind=$2 pid=$3 d=$TMPD/$1 main
	shift 3
	mkdir -p "$d"
	chmod 1777 "$d"
	# A budget that a loaded machine's cold start (maps, files) does not spend:
	# past it samples keep their frame-pointer walk, which this test would count.
	timeout $((2 * TT_TEST_WAIT)) "$TT_BIN" -b --format json -n 3 -d 1 --source bpf \
		--unwind auto --unwind-budget 20 -p "$pid" "$@" --export "$d/v.folded" --export "$d/v.json" \
		--export "$d/v.pb.gz" --export "$d/v.speedscope.json" --export "$d/v.svg" \
		>"$d/v.ndjson" 2>"$d/err" || fail "$name: threadtop failed: $(tail -n 3 "$d/err")"
	NODE_PATH="$PPROF_NODE_PATH" node "$TT_SRC/tests/integration/lib/pprof_summary.js" \
		"$d/v.pb.gz" >"$d/pprof.json" || fail "$name: pprof-format cannot decode v.pb.gz"
	# The folded and SVG files of the main kind (on-CPU) are v.*; others v.KIND.*.
	main=v
	[ "$kind" = oncpu ] || main=v.$kind
	echo "== $name"
	python3 "$TT_SRC/tests/integration/lib/views_compare.py" "$kind" "$pid" "$d/v.ndjson" \
		"$d/v.json" "$d/$main.folded" "$d/pprof.json" "$d/v.speedscope.json" "$d/$main.svg" ||
		fail "$name: the views disagree"
	# On-CPU samples have times: every thread's sampled profile has its evented one.
	local check=("$d/v.speedscope.json")
	[ -z "$SPEEDSCOPE_SCHEMA" ] || check+=(--schema "$SPEEDSCOPE_SCHEMA")
	[ "$kind" != oncpu ] || check+=(--require oncpu)
	python3 "$TT_SRC/tests/integration/lib/speedscope_check.py" "${check[@]}" ||
		fail "$name: the speedscope file is not sound"
}

# root_share NAME PID ROOT: the share of PID's on-CPU samples rooted at ROOT.
root_share() {
	jq -s --argjson p "$2" --arg r "$3" '[.[] | .oncpu[] | select(.pid == $p)] |
		([.[] | .samples] | add // 0) as $all |
		([.[] | select(.frames[0] == $r) | .samples] | add // 0) / ($all + 0.000001)' \
		"$TMPD/$1/v.ndjson"
}

for wl in inline_hot inline_hot_nofp; do
	# It must outlive the views, however slow the machine (a 6.12 guest
	# took more than 60 s: the kill then found no process).
	start "$wl" "$TT_WL_LIFE"
	views "$wl" oncpu "$WL"
	kill "$WL" 2>/dev/null || true
	share=$(root_share "$wl" "$WL" _start)
	echo "$wl: $share of the on-CPU samples root at _start"
	awk -v s="$share" 'BEGIN { exit !(s >= 0.95) }' ||
		fail "$wl: only $share of the stacks reach _start: $(jq -c -s '[.[] | .oncpu[] |
			.frames[0:3] | join(";")] | unique' "$TMPD/$wl/v.ndjson")"
	jq -e -s '[.[] | .oncpu[] | .frames | join(";") |
		select(test("inline_outer;inline_mid \\[inlined\\];inline_hot \\[inlined\\]"))] |
		length > 0' "$TMPD/$wl/v.ndjson" >/dev/null ||
		fail "$wl: no inlined inline_mid;inline_hot in the NDJSON stacks"
done

start block_sites "$TMPD"
wait_threads "$WL" 6
views offcpu offcpu "$WL" --offcpu --cpu-hz 0

if why=$(sysprof_unusable luajit) && [ -n "$why" ]; then
	echo "note: $why: LuaJIT not compared"
else
	start_preloaded_lua "$(dirname "$0")/lib/hot_mix.lua" 1e9
	lj=$LJ
	# LuaJIT samples near an interval's edge count in the NDJSON intervals
	# but not always in the session's window (the model's LuaJIT windows):
	# the exports must still agree exactly, the NDJSON within 35%.
	VIEWS_NDJSON_SLACK=0.35 views luajit oncpu "$lj"
	jq -e -s '[.[] | .oncpu[] | select(.frames | map(startswith("hot_loop @")) | any) | .samples]
		| add // 0 > 0' "$TMPD/luajit/v.ndjson" >/dev/null ||
		fail "luajit: the NDJSON stacks are not the stitched ones: $(jq -c -s \
			'[.[] | .oncpu[] | .frames[-3:] | join(";")] | unique' "$TMPD/luajit/v.ndjson")"
	kill "$lj" 2>/dev/null || true
	# Sampled every 1 ms, a LuaJIT stack counts its time in CPU-clock
	# samples (a tenth each): the exports still agree, speedscope's ns with
	# the report's ns; the NDJSON intervals round each stack per interval.
	THREADTOP_LUAJIT_INTERVAL=1 start_preloaded_lua "$(dirname "$0")/lib/hot_mix.lua" 1e9
	VIEWS_NDJSON_SLACK=0.35 views luajit_1ms oncpu "$LJ"
fi
echo PASS
