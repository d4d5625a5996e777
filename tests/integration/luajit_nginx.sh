#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Agentless LuaJIT in nginx: Debian 12's nginx with its Lua module
# (libnginx-mod-http-lua, on OpenResty's LuaJIT, libluajit2-5.1-2) serves
# tests/luajit/workloads/nginx_handler.lua on a loopback port under wrk.
# threadtop, started afterwards with nothing loaded into nginx, must read
# the worker's VM (source bpf) and name the handler's two functions in its
# on-CPU stacks, each with a share of the worker's samples within 10 points
# of the share of its CPU time the handler measured itself over the window.
#
# Debian's Lua module needs luajit2, which conflicts with the luajit package
# the other tests use: the module's packages are fetched (apt-get download,
# once per build tree) and unpacked into the build tree, and nginx loads
# them from there, with luajit2's library first on LD_LIBRARY_PATH.
. "$(dirname "$0")/bpf_common.bash"

command -v nginx >/dev/null || skip "nginx is not installed (apt-get install nginx)"
command -v wrk >/dev/null || skip "wrk is not installed (apt-get install wrk)"
command -v curl >/dev/null || skip "curl is not installed"
TOL=10
HZ=997
MIN_SAMPLES=150

root=$TT_BUILD/tests/nginx-lua
if [ ! -e "$root/ok" ]; then
	mkdir -p "$root/debs"
	(cd "$root/debs" && apt-get download libnginx-mod-http-lua libnginx-mod-http-ndk \
		lua-resty-core lua-resty-lrucache libluajit2-5.1-2 >"$root/download.log" 2>&1) ||
		skip "cannot fetch nginx's Lua module packages: $(grep -m1 -E '^E:' "$root/download.log")"
	for d in "$root"/debs/*.deb; do dpkg-deb -x "$d" "$root/tree"; done
	touch "$root/ok"
fi
tree=$root/tree
chmod -R a+rX "$root"

# The worker runs as nobody: its prefix and the handler must be readable.
ngx=$TMPD/ngx
mkdir -p "$ngx/logs"
chmod 755 "$ngx" "$ngx/logs"
handler=$TT_SRC/tests/luajit/workloads/nginx_handler.lua
cp "$handler" "$ngx/nginx_handler.lua"
chmod 644 "$ngx/nginx_handler.lua"
line_a=$(grep -n '^local function work_a' "$handler" | cut -d: -f1)
line_b=$(grep -n '^local function work_b' "$handler" | cut -d: -f1)
port=$((20000 + RANDOM % 20000))
cat >"$ngx/nginx.conf" <<CONF
load_module $tree/usr/lib/nginx/modules/ndk_http_module.so;
load_module $tree/usr/lib/nginx/modules/ngx_http_lua_module.so;
worker_processes 1;
daemon off;
error_log $ngx/logs/error.log;
pid $ngx/nginx.pid;
events { worker_connections 64; }
http {
	access_log off;
	lua_package_path "$ngx/?.lua;$tree/usr/share/lua/5.1/?.lua;;";
	server {
		listen 127.0.0.1:$port;
		location /heavy { content_by_lua_block { require("nginx_handler").heavy() } }
		location /stats { content_by_lua_block { require("nginx_handler").stats() } }
	}
}
CONF
LD_LIBRARY_PATH=$tree/usr/lib/x86_64-linux-gnu nginx -p "$ngx" -c "$ngx/nginx.conf" \
	>"$ngx/logs/stdout" 2>&1 &
WL_PIDS+=("$!")
stats() { curl -sf "http://127.0.0.1:$port/stats"; }
wait_until "nginx did not answer on port $port: $(tail -n 2 "$ngx/logs/error.log" 2>/dev/null)" stats
worker=$(pgrep -f '^nginx: worker process' -P "${WL_PIDS[0]}" | head -n 1)
[ -n "$worker" ] || fail "no nginx worker under master ${WL_PIDS[0]}"
grep -q 'libluajit-5.1.so.2.1.0' /proc/"$worker"/maps ||
	fail "the worker did not map luajit2's library: $(grep -m1 luajit /proc/"$worker"/maps)"

wrk -t1 -c2 -d$((3 * TT_TEST_WAIT))s "http://127.0.0.1:$port/heavy" >"$TMPD/wrk.out" 2>&1 &
WL_PIDS+=("$!")
sleep 1
read -r cpu0 a0 b0 < <(stats)
timeout $((2 * TT_TEST_WAIT)) "$TT_BIN" -b --format json -d 1 -n 5 -p "$worker" --cpu-hz $HZ \
	--export "$TMPD/ngx.folded" >"$TMPD/ngx.json" 2>"$TMPD/ngx.err" ||
	fail "threadtop failed: $(tail -n 3 "$TMPD/ngx.err")"
read -r cpu1 a1 b1 < <(stats)
grep -q "not a build threadtop knows" "$TMPD/ngx.err" &&
	fail "$(grep -m1 "not a build threadtop knows" "$TMPD/ngx.err")"

own=$(awk -v c0="$cpu0" -v c1="$cpu1" -v a0="$a0" -v a1="$a1" -v b0="$b0" -v b1="$b1" \
	'BEGIN { c = c1 - c0; printf "%.1f %.1f %.3f\n", 100 * (a1 - a0) / c, 100 * (b1 - b0) / c, c }')
read -r own_a own_b own_cpu <<<"$own"

jq -s -e --argjson p "$worker" '[.[].luajit[] | select(.pid == $p)] |
	length > 0 and all(.source == "bpf")' "$TMPD/ngx.json" >/dev/null ||
	fail "no LuaJIT row of source bpf for the worker: $(jq -c '.luajit' "$TMPD/ngx.json" | tail -n 1)"
n=$(jq -s --argjson p "$worker" '[.[].oncpu[] | select(.pid == $p) | .samples] | add // 0' \
	"$TMPD/ngx.json")
[ "$n" -ge $MIN_SAMPLES ] || skip "the busy box gave the worker $n on-CPU samples in 5 s at" \
	"$HZ Hz; $MIN_SAMPLES are needed to judge shares"
# The leaf Lua function of each sample (a TRACE [n] frame names the trace above it).
got=$(jq -s -r --argjson p "$worker" --argjson la "$line_a" --argjson lb "$line_b" '
	[.[].oncpu[] | select(.pid == $p)] as $r | ([$r[].samples] | add) as $n |
	[$la, $lb] | map(. as $l | ([$r[] | select(.frames |
		map(select(startswith("TRACE [") | not)) | .[-1] |
		test("nginx_handler\\.lua:" + ($l | tostring) + "_\\[lua\\]$")) | .samples] | add // 0)
		* 1000 / $n | round / 10) | map(tostring) | join(" ")' "$TMPD/ngx.json")
read -r js_a js_b <<<"$got"
echo "worker $worker: own (CPU ${own_cpu} s) work_a $own_a% work_b $own_b%;" \
	"threadtop ($n samples) $js_a% $js_b%"
grep -Eq "nginx_handler\.lua:${line_a}_\[lua\]" "$TMPD/ngx.folded" ||
	fail "work_a is not in the folded export"
for pair in "$own_a $js_a" "$own_b $js_b"; do
	# shellcheck disable=SC2086
	awk -v t=$TOL 'BEGIN { d = ARGV[1] - ARGV[2]; exit !(d <= t && -d <= t) }' $pair ||
		fail "shares off by more than $TOL points: own $own_a/$own_b, threadtop $js_a/$js_b"
done
echo "ok: nginx's Lua handler named from eBPF, shares within $TOL points of its own timing"
