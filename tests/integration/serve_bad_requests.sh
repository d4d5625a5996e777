#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --serve against bad clients: wrong paths, a bad method, a huge header, a
# long target, garbage, seconds=1e9, a slowloris sending its head a byte at
# a time, more connections than the server keeps, and a missing or wrong
# bearer token (--serve-token) each get a 4xx (or a quick 503) within a
# bound, and the server answers /metrics again afterwards. Sampling is not
# disturbed: the sampling passes per second while under attack stay those
# of before.
. "$(dirname "$0")/bpf_common.bash"
. "$(dirname "$0")/lib/serve_common.bash"
command -v python3 >/dev/null || skip "python3 is not installed"

sleep "$TT_WL_LIFE" &
sl=$!
WL_PIDS+=("$sl")
printf 'tok3n-%s\n' "$RANDOM$RANDOM" >"$TMPD/token"
chmod 600 "$TMPD/token"
start_serving -d 1 --cpu-hz 0 -p "$sl" --serve-token "$TMPD/token"
wait_lines "$TMPD/batch.json" 4 "$TT"
count_lines "$TMPD/batch.json"
before=$NL

python3 - "$ADDR" "$(cat "$TMPD/token")" <<'PY' || fail "a bad request was not refused as it should be"
import socket, sys, time, threading
host, port = sys.argv[1].rsplit(":", 1)
port, token = int(port), sys.argv[2]
auth = "Authorization: Bearer %s\r\n" % token

def ask(raw, timeout=3.0):
    """Sends raw bytes; returns (status, seconds taken)."""
    t0 = time.monotonic()
    s = socket.create_connection((host, port), timeout=timeout)
    s.sendall(raw)
    data = b""
    while b"\r\n" not in data:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    s.close()
    return int(data.split(b" ", 2)[1]) if data else 0, time.monotonic() - t0

def expect(raw, want, bound=2.0):
    got, took = ask(raw)
    assert got == want, (raw[:60], got, want)
    assert took < bound, (raw[:60], took)

get = lambda path, extra="": ("GET %s HTTP/1.1\r\nHost: x\r\n%s%s\r\n" % (path, auth, extra)).encode()
expect(get("/metrics"), 200)
expect(b"GET /metrics HTTP/1.1\r\n\r\n", 401)                       # no token
expect(get("/metrics").replace(token.encode(), b"x" * len(token)), 401)  # wrong token
expect(get("/nope"), 404)
expect(get("/metrics/../etc/passwd"), 404)
expect(("POST /metrics HTTP/1.1\r\n%s\r\n" % auth).encode(), 405)
expect(get("/metrics", "X-Big: %s\r\n" % ("b" * 10000)), 431)
expect(get("/metrics", "".join("X-%d: y\r\n" % i for i in range(40))), 431)
expect(get("/" + "a" * 3000), 414)
expect(b"\x00\xff\x16\x03\x01garbage\r\n\r\n", 400)
expect(get("/metrics").replace(b"HTTP/1.1", b"HTTP/9.9"), 505)
for secs in ("1e9", "0", "-1", "abc", "99999999999999999999", "3.5"):
    expect(get("/debug/pprof/threads?seconds=" + secs), 400)
expect(get("/debug/pprof/offcpu?seconds=1"), 404)  # no --offcpu
expect(get("/debug/pprof/io?seconds=1"), 404)  # no --io
expect(get("/debug/pprof/profile?seconds=1"), 404)  # --cpu-hz 0

# Slowloris: a head sent a byte a second is cut off with a 408 within the
# head time limit (5 s), while 20 of them (more than the 16 connections kept)
# never make a normal request hang: it gets its answer or a quick 503.
# A connection lives under 9 s: the limit, then the client's next look; on a
# slow machine (TT_TEST_WAIT raised, a kernel harness guest) under 20 s, still
# far from the 75 s a head never cut off would take.
import os
lived_max = 9 if int(os.environ.get("TT_TEST_WAIT", "60")) <= 60 else 20
def slow(results, i):
    t0 = time.monotonic()
    s = socket.create_connection((host, port), timeout=15)
    head = b"GET /metrics HTTP/1.1\r\n" + auth.encode() + b"X-Slow: " + b"z" * 100
    try:
        for b in head:
            s.sendall(bytes([b]))
            time.sleep(0.5)
            s.setblocking(False)
            try:
                data = s.recv(4096)
            except BlockingIOError:
                data = None
            s.setblocking(True)
            if data is not None:
                break
        else:
            data = s.recv(4096)
    except OSError:
        data = b""
    results[i] = (data.split(b" ", 2)[1] if data and b" " in data else b"closed", time.monotonic() - t0)
    s.close()

results = {}
threads = [threading.Thread(target=slow, args=(results, i)) for i in range(20)]
for t in threads:
    t.start()
time.sleep(1.5)
got, took = ask(get("/metrics"), timeout=5)
assert got in (200, 503) and took < 2.0, ("a normal request during slowloris", got, took)
for t in threads:
    t.join()
for i, (status, took) in results.items():
    assert status in (b"408", b"503", b"closed"), (i, status)
    assert took < lived_max, ("slowloris connection lived", took)
assert sum(1 for s, _ in results.values() if s == b"408") >= 1, results
# Many idle connections: room is made for a new one.
idle = [socket.create_connection((host, port)) for _ in range(30)]
time.sleep(0.3)
expect(get("/metrics"), 200)
for s in idle:
    s.close()
expect(get("/metrics"), 200)
PY
wait_lines "$TMPD/batch.json" $((before + 3)) "$TT"

# The server never held the loop for long: its longest handler is well under
# a tick (50 ms at 20 Hz), whatever else loads the box. Under software
# emulation (a kernel harness guest: TT_TEST_WAIT raised) everything runs
# 10-50x slower and the host takes the vCPU away for tens of ms at a time
# (0.1 s seen there on a host at load 13): the bound there is 0.25 s.
curl -sf --max-time 5 -H "Authorization: Bearer $(cat "$TMPD/token")" "http://$ADDR/metrics" \
	>"$TMPD/metrics.txt" || fail "GET /metrics after the attack"
longest=$(metric "$TMPD/metrics.txt" threadtop_serve_longest_handler_seconds) ||
	fail "no threadtop_serve_longest_handler_seconds"
busy=$(metric "$TMPD/metrics.txt" threadtop_serve_busy_seconds_total)
bound=0.025
[ "${TT_TEST_WAIT:-60}" -gt 60 ] && bound=0.25
python3 -c 'import sys; sys.exit(not float(sys.argv[1]) < float(sys.argv[2]))' "$longest" "$bound" ||
	fail "a server handler held the loop for $longest s (at most $bound s here)"

# Sampling passes per second, before and during the attack (the lines it
# spans): the same, give or take what the loaded box takes from everyone.
# Shares of the rate before, not equal tick counts: under TCG the ticks of
# a 1 s interval vary whatever the server does (6.1 in the kernel harness).
# Under emulation (TT_TEST_WAIT raised) one interval may lose more: on 6.12
# with one host thread for both vCPUs, 13 of 20 ticks/s while the flood ran.
python3 - "$TMPD/batch.json" "$before" "${TT_TEST_WAIT:-60}" <<'PY' || fail "sampling was disturbed"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
n = int(sys.argv[2])
floor = 0.5 if int(sys.argv[3]) > 60 else 0.75
rate = lambda l: l["cost"]["ticks"] / l["interval_s"]
base = sorted(rate(l) for l in lines[1:n])[(n - 1) // 2]
during = [rate(l) for l in lines[n:]]
print("ticks/s before %.2f, during %s" % (base, ["%.2f" % r for r in during]))
assert all(r >= floor * base for r in during), (base, during)
# Over the attack the rate keeps 90% of before's on average: a steady loss
# shows, one interval the loaded box (or emulation) stretched does not.
mean = lambda v: sum(v) / len(v)
assert mean(during) >= 0.9 * mean([rate(l) for l in lines[1:n]]), ("mean ticks/s fell", base, during)
PY
echo "server: busy $busy s in all, longest handler $longest s"
echo "PASS: every bad request refused quickly; sampling undisturbed"
