#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Side by side, on the five VM-state workloads of tests/luajit/workloads
# (ffloop: fast functions, JIT off; fib: deep recursion, JIT off; cheavy:
# C builtins and FFI; alloc: allocation; jitheavy: compiled loops) and on
# sort (table.sort with a Lua comparator): the VM-state shares and the top
# leaf functions of threadtop's sysprof (Debian's luajit, the library
# preloaded), of threadtop's agentless eBPF unwinder (nothing preloaded,
# `-p` at --cpu-hz 997 for 3 s, root), of `luajit -jp=v` / `-jp=f`
# (jit.p), and, when a tarantool/
# luajit source tree is given with -t, of Tarantool's own sysprof, built
# from that tree in this script's scratch directory (never installed).
# Last, the workload's own split where it measures one (os.clock): the
# compiled loop's CPU share of jitheavy, the comparator's share of sort.
#
# usage: tests/bench/sysprof_vs.sh [-t TARANTOOL_LUAJIT_SRC] [-s SECONDS] [-r ROUNDS]
#   TT_SVS_ONLY="cheavy sort" runs those workloads only.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
wl=$src/tests/luajit/workloads
lib=$src/build/release/lib/libthreadtop-sysprof.so
tt=$src/build/release/threadtop
parser=$src/build/release/bin/luajit-parse-sysprof
ttsrc="" secs=1.5 rounds=1
while getopts "t:s:r:h" o; do
	case $o in
	t) ttsrc=$OPTARG ;;
	s) secs=$OPTARG ;;
	r) rounds=$OPTARG ;;
	*) sed -n '2,17p' "$0"; exit 2 ;;
	esac
done
if [ ! -f "$lib" ] || [ ! -x "$parser" ]; then
	echo "sysprof_vs: $lib or $parser is missing: build first (cmake --preset release && cmake --build build/release)" >&2
	exit 1
fi
command -v luajit >/dev/null || { echo "sysprof_vs: luajit not on PATH (Debian package luajit)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ttjit=""
if [ -n "$ttsrc" ]; then
	if [ -f "$ttsrc/src/lj_sysprof.c" ]; then
		echo "# building Tarantool's LuaJIT from $ttsrc in $tmp/tt (a few minutes)"
		cmake -S "$ttsrc" -B "$tmp/tt" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$tmp/tt.log" 2>&1 &&
			cmake --build "$tmp/tt" -j2 >>"$tmp/tt.log" 2>&1 && ttjit=$tmp/tt/src/luajit
		[ -x "$ttjit" ] || echo "# Tarantool's LuaJIT did not build (see the log): left out"
	else
		echo "# $ttsrc is not a tarantool/luajit tree (no src/lj_sysprof.c): left out"
	fi
fi

# The driver: profile a workload until SECONDS of CPU; print the shares.
cat >"$tmp/drive.lua" <<'LUA'
local path, mode, out, secs = arg[1], arg[2], arg[3], tonumber(arg[4])
local chunk = assert(loadfile(path))
assert(misc.sysprof.start({ mode = mode, interval = 2, path = out }))
local c0 = os.clock()
repeat chunk() jit.on() until os.clock() - c0 > secs
assert(misc.sysprof.stop())
local r, o = misc.sysprof.report(), {}
for _, k in ipairs({ "INTERP", "LFUNC", "FFUNC", "CFUNC", "GC", "EXIT", "RECORD", "OPT", "ASM", "TRACE" }) do
  o[#o + 1] = ("%s %4.1f"):format(k, 100 * r.vmstate[k] / math.max(r.samples, 1))
end
print(("states  n=%-5d %s"):format(r.samples, table.concat(o, " ")))
if JITHEAVY_CPU then
  local c = JITHEAVY_CPU
  print(("own     compiled loop %.1f%% of the CPU time"):format(100 * c.hot / (c.hot + c.interp + c.cwork)))
end
if SORT_SPLIT then
  print(("own     comparator %.1f%% of table.sort"):format(100 * SORT_SPLIT.cmp / SORT_SPLIT.sort))
end
LUA

# The agentless run's driver: the workload over and over until the stop file.
cat >"$tmp/loop.lua" <<'LUA'
local chunk = assert(loadfile(arg[1]))
repeat
  chunk() jit.on()
  local f = io.open(arg[2])
  if f then f:close() end
until f
LUA
# agentless W: threadtop -p on the unmodified luajit: states, then top 5.
agentless() {
	local lj
	rm -f "$tmp/stop"
	luajit "$tmp/loop.lua" "$wl/$1.lua" "$tmp/stop" >/dev/null 2>&1 &
	lj=$!
	sleep 0.3
	"$tt" -b --format json -d 1 -n 3 -p "$lj" --cpu-hz 997 --export "$tmp/a-$1.folded" \
		--force >"$tmp/a-$1.json" 2>/dev/null
	touch "$tmp/stop"
	wait "$lj"
	jq -s -r '[.[].luajit[].counters] as $c | ([$c[].samples] | add) as $n |
		["INTERP", "LFUNC", "FFUNC", "CFUNC", "GC", "EXIT", "RECORD", "OPT", "ASM", "TRACE"] |
		map("\(.) \(([$c[][.]] | add) * 1000 / ([$n, 1] | max) | round / 10)") |
		"   states  n=\($n) " + join(" ")' "$tmp/a-$1.json"
	grep "^luajit;" "$tmp/a-$1.folded" | sed -E 's/;TRACE \[[0-9]+\]_\[lua\]( [0-9]+)$/\1/' \
		>"$tmp/a-$1.lj" && top5 "$tmp/a-$1.lj"
}

# Leaf-frame shares of a folded file, top 5.
top5() {
	awk '{ n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";"); s[f[k]] += n; t += n }
	END { for (x in s) printf "%5.1f%% %s\n", 100 * s[x] / t, x }' "$1" | sort -rn | head -5 |
		sed 's/^/          /'
}
# The comparator's share of the samples under table.sort.
sortshare() {
	awk '/table\.sort/ { n = $NF; t += n; if ($0 ~ /table\.sort(_\[lua\])?;[^;]*sort\.lua:11/) c += n }
	END { if (t) printf "          comparator %.1f%% of the samples in table.sort\n", 100 * c / t }' "$1"
}

for w in ${TT_SVS_ONLY:-ffloop fib cheavy alloc jitheavy sort}; do
	for ((r = 0; r < rounds; r++)); do
		echo "== $w"
		echo "-- threadtop sysprof (mode C)"
		LD_PRELOAD=$lib luajit "$tmp/drive.lua" "$wl/$w.lua" C "$tmp/tt-$w.bin" "$secs" 2>&1 | sed 's/^/   /'
		"$parser" "$tmp/tt-$w.bin" >"$tmp/tt-$w.folded" && top5 "$tmp/tt-$w.folded"
		[ $w = sort ] && sortshare "$tmp/tt-$w.folded"
		if [ -n "$ttjit" ]; then
			echo "-- Tarantool sysprof (mode D for states; mode C for functions)"
			"$ttjit" "$tmp/drive.lua" "$wl/$w.lua" D /dev/null "$secs" 2>&1 | grep -v '^own' | sed 's/^/   /'
			if "$ttjit" "$tmp/drive.lua" "$wl/$w.lua" C "$tmp/t-$w.bin" "$secs" >/dev/null 2>&1; then
				"$parser" "$tmp/t-$w.bin" >"$tmp/t-$w.folded" 2>/dev/null && top5 "$tmp/t-$w.folded"
			else
				echo "          mode C crashed (exit $?)"
			fi
		fi
		if [ "$(id -u)" -eq 0 ]; then
			echo "-- threadtop agentless (eBPF, nothing preloaded; TRACE leaves folded into their function)"
			agentless "$w"
			[ $w = sort ] && sortshare "$tmp/a-$w.lj"
		fi
		echo "-- jit.p (-jp=v, -jp=f)"
		luajit -jp=v "$wl/$w.lua" 2>&1 | grep '%' | head -6 | tr -s ' ' | paste -sd' ' | sed 's/^/   states /'
		luajit -jp=f "$wl/$w.lua" 2>&1 | grep '%' | head -5 | sed 's/^/          /'
	done
done
