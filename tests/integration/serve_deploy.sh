#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The deployment files say what threadtop needs, and that is enough: the
# systemd unit passes systemd-analyze verify, the DaemonSet is well formed
# (host PID namespace, no privileged container, only read-only mounts, the
# unit's capabilities and no others), and threadtop run with exactly the
# unit's capability bounding set serves a spinner's figures with nothing
# refused in its log.
. "$(dirname "$0")/bpf_common.bash"
. "$(dirname "$0")/lib/serve_common.bash"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml is not installed"
unit=$TT_SRC/assets/deploy/threadtop.service
ds=$TT_SRC/assets/deploy/daemonset.yaml

caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit")
[ -n "$caps" ] || fail "no CapabilityBoundingSet in $unit"
python3 - "$ds" "$caps" <<'PY' || fail "$ds does not match the unit"
import sys, yaml
ds, caps = yaml.safe_load(open(sys.argv[1])), set(c[4:] for c in sys.argv[2].split())
assert ds["kind"] == "DaemonSet", ds["kind"]
spec = ds["spec"]["template"]["spec"]
assert spec["hostPID"] is True
(c,) = spec["containers"]
sc = c["securityContext"]
assert sc["privileged"] is False and sc["readOnlyRootFilesystem"] is True
assert sc["capabilities"]["drop"] == ["ALL"]
assert set(sc["capabilities"]["add"]) == caps, (sc["capabilities"]["add"], caps)
assert all(m.get("readOnly") for m in c["volumeMounts"]), c["volumeMounts"]
assert "--serve-token" in c["args"], "a pod IP listener without a token"
PY
if command -v systemd-analyze >/dev/null; then
	sed -e "s|/usr/local/bin/threadtop|$TT_BIN|" -e '/^Documentation=/d' "$unit" \
		>"$TMPD/threadtop.service"
	systemd-analyze verify "$TMPD/threadtop.service" >"$TMPD/verify.txt" 2>&1 ||
		fail "systemd-analyze verify: $(cat "$TMPD/verify.txt")"
fi

# threadtop with only the unit's capabilities (lower case, as setpriv wants them).
set_caps=$(for c in $caps; do printf ',+%s' "$(echo "${c#CAP_}" | tr '[:upper:]' '[:lower:]')"; done)
start named_spinner "$TT_WL_LIFE" hotspinner
sp=$WL
wait_comms "$sp" hotspinner
TT_BIN_REAL=$TT_BIN
TT_BIN="$TMPD/capped"
cat >"$TT_BIN" <<SH
#!/bin/sh
exec setpriv --bounding-set -all$set_caps --inh-caps -all "$TT_BIN_REAL" "\$@"
SH
chmod +x "$TT_BIN"
start_serving -d 1 --sched normal -p "$sp"
has_spinner() {
	curl -sf --max-time 5 "http://$ADDR/metrics" >"$TMPD/metrics.txt" &&
		metric "$TMPD/metrics.txt" "threadtop_active_threads{pid=\"$sp\",comm=\"hotspinner\"}" \
			>"$TMPD/v"
}
wait_until "the capped threadtop serves the spinner" has_spinner
python3 -c 'import sys; sys.exit(not 0.9 <= float(sys.argv[1]) <= 1.1)' "$(cat "$TMPD/v")" ||
	fail "capped: spinner at $(cat "$TMPD/v") active threads"
grep -Ei 'denied|not permitted|cannot drop' "$TMPD/tt.log" &&
	fail "something was refused with the unit's capabilities"
grep -q 'capabilities: kept' "$TMPD/tt.log" || fail "no capabilities line: $(cat "$TMPD/tt.log")"
echo "PASS: unit and DaemonSet agree ($caps); threadtop works with exactly that set"
