# SPDX-License-Identifier: GPL-2.0-only
# Compares the stacks of one process across threadtop's views of one run:
# the batch NDJSON lines (summed over the intervals), the JSON report, the
# folded file, pprof (as pprof_summary.js decodes it), speedscope and the
# SVG. Each view becomes {stack: value}, a stack being the root-first tuple
# of (bare function name, inlined?) with the view's decorations ("_[k]",
# "_[lua]", " [inlined]") taken off; value is samples (oncpu: of the CPU
# clock's period, a LuaJIT stack's time in them) or ns (offcpu); speedscope's
# ns compare with the report's ns. The exports come from one profile of the session and must agree
# exactly; the NDJSON intervals make up the same session and must agree on
# every stack's value but for a sample at a window's edge. Prints the top stacks; exits 1 on a
# disagreement, naming the views and the stack.
# Usage: views_compare.py KIND PID NDJSON REPORT FOLDED PPROF_SUMMARY SPEEDSCOPE SVG
import collections
import html
import json
import os
import sys

kind, pid = sys.argv[1], int(sys.argv[2])
ndjson, report, folded, pprof, speedscope, svg = sys.argv[3:9]
value_key = "ns" if kind == "offcpu" else "count"
failures = []


def frame(text):
    inl = text.endswith(" [inlined]")
    if inl:
        text = text[: -len(" [inlined]")]
    for suffix in ("_[k]", "_[lua]"):
        if text.endswith(suffix):
            text = text[: -len(suffix)]
    return (text, inl)


def view_ndjson():
    out = collections.Counter()
    for line in open(ndjson):
        for e in json.loads(line).get(kind, []):
            if e["pid"] == pid:
                out[tuple(frame(f) for f in e["frames"])] += e["ns" if kind == "offcpu" else "samples"]
    return out


def view_report(key=value_key):
    rep = json.load(open(report))
    frames = rep["profiles"]["frames"] if "frames" in rep["profiles"] else rep["frames"]
    out = collections.Counter()
    for s in rep["profiles"][kind]["samples"]:
        if s["pid"] == pid:
            out[tuple((frames[i]["name"], bool(frames[i].get("inlined"))) for i in s["frames"])] += s[key]
    return out, rep["profiles"][kind]["total_" + key]


def view_folded():
    out = collections.Counter()
    for line in open(folded, encoding="utf-8"):
        stack, n = line.rstrip("\n").rsplit(" ", 1)
        out[tuple(frame(f) for f in stack.split(";")[1:])] += int(n)
    return out


def view_pprof():
    summ = json.load(open(pprof))
    idx = summ["types"].index("offcpu/nanoseconds" if kind == "offcpu" else "samples/count")
    out = collections.Counter()
    for s in summ["samples"]:
        if s["labels"].get("pid") == pid and s["values"][idx]:
            out[tuple((f["name"], f["inlined"]) for f in s["frames"])] += s["values"][idx]
    return out


def view_speedscope():
    ss = json.load(open(speedscope))
    names = [frame(f["name"]) for f in ss["shared"]["frames"]]
    out = collections.Counter()
    for p in ss["profiles"]:
        if not p["name"].endswith(" " + kind) or p.get("type") != "sampled":
            continue
        for stack, w in zip(p["samples"], p["weights"]):
            out[tuple(names[i] for i in stack)] += w
    return out


def shares(c):
    total = sum(c.values())
    return {k: v / total for k, v in c.items()} if total else {}


def show(k):
    return ";".join(n + (" [inlined]" if i else "") for n, i in k)


def compare(name_a, a, name_b, b, exact, tol=0.0):
    if exact:
        for k in set(a) | set(b):
            if a.get(k, 0) != b.get(k, 0):
                failures.append(f"{name_a} {a.get(k, 0)} != {name_b} {b.get(k, 0)}: {show(k)}")
                return
        return
    sa, sb = shares(a), shares(b)
    for k in set(sa) | set(sb):
        if abs(sa.get(k, 0) - sb.get(k, 0)) > tol:
            failures.append(f"{name_a} {sa.get(k, 0):.3f} vs {name_b} {sb.get(k, 0):.3f}: {show(k)}")
            return


nd = view_ndjson()
rep, rep_total = view_report()
fo = view_folded()
pp = view_pprof()
ss = view_speedscope()
if not rep:
    failures.append(f"the report has no {kind} samples of pid {pid}")
for k, v in sorted(rep.items(), key=lambda kv: -kv[1])[:6]:
    print(f"  {v:>12} {show(k)[-150:]}")
print(f"{kind}: ndjson {sum(nd.values())} report {sum(rep.values())} (total {rep_total}) "
      f"folded {sum(fo.values())} pprof {sum(pp.values())} stacks {len(rep)}")
# The one-profile exports hold only this process (-p), so whole files compare.
compare("report", rep, "folded", fo, exact=True)
compare("report", rep, "pprof", pp, exact=True)
# speedscope weights are ns, as the report's ns (a LuaJIT sample weighs its
# interval, a CPU-clock sample its period; counts are in CPU-clock samples,
# rounded per stack): the same shares.
rep_ns, _ = view_report("ns")
compare("report ns", rep_ns, "speedscope", ss, exact=False, tol=1e-9)
# The NDJSON intervals and the session's export hold the same samples but
# for one at a window's edge (a LuaJIT sample stamped before the interval
# it arrived in): a small slack, against the absolute figures, not shares.
# VIEWS_NDJSON_SLACK widens the slack (a fraction of the total) where the
# model's interval and session windows are known to differ by more.
slack = float(os.environ.get("VIEWS_NDJSON_SLACK", "0.02"))
nd_total, rep_sum = sum(nd.values()), sum(rep.values())
if nd_total != rep_sum:
    print(f"note: ndjson intervals hold {nd_total}, the session's export {rep_sum}")
if abs(nd_total - rep_sum) > max(2 if kind == "oncpu" else 0, slack * rep_sum):
    failures.append(f"ndjson total {nd_total} != report total {rep_sum}")
for k in set(nd) | set(rep):
    if abs(nd.get(k, 0) - rep.get(k, 0)) > max(2 if kind == "oncpu" else 0, slack * rep_sum):
        failures.append(f"ndjson {nd.get(k, 0)} vs report {rep.get(k, 0)}: {show(k)}")
        break
svg_text = html.unescape(open(svg, encoding="utf-8").read())
for k, v in sorted(rep.items(), key=lambda kv: -kv[1])[:3]:
    leaf = k[-1][0]
    if leaf not in svg_text:
        failures.append(f"the SVG does not name the leaf {leaf!r} of a top stack")
for f in failures:
    print("DISAGREE: " + f)
sys.exit(1 if failures else 0)
