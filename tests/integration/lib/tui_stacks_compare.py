# SPDX-License-Identifier: GPL-2.0-only
# Compares the TUI's Stacks pane (a tmux capture of the screen) with the
# folded export of the same window: every row of the call tree on screen is
# a path of frames from the root, and its TOTAL% and SELF% and its SAMPLES
# (on-CPU) or TIME ms (off-CPU) must be what the folded file gives that
# path: the lines through it, and the lines that end at it, over all lines.
# Frames compare by bare name and marks: the pane's " [k]", " [lua]",
# " [inlined]" against the folded "_[k]", "_[lua]", " [inlined]". The
# folded file's first frame is the process, as the pane's root rows are
# ("comm [pid]": the pid is left out; one process per comm here).
# With REPORT (the JSON report of the same window), the shares are the
# report's ns instead: time, where a LuaJIT sample weighs its interval and
# a CPU-clock sample its period, while the folded counts are CPU-clock
# samples rounded per stack (its processes must be one, the folded root).
# Prints the rows compared; exits 1 on a disagreement, 2 when the pane
# holds no rows yet or its top row does not hold the folded total (the
# caller waits and asks again).
# Usage: tui_stacks_compare.py oncpu|offcpu SCREEN FOLDED [REPORT]
import collections
import json
import re
import sys

kind, screen_path, folded_path = sys.argv[1:4]
report_path = sys.argv[4] if len(sys.argv) > 4 else None
ROW = re.compile(r"^\s*([0-9.]+)%\s+([0-9.]+)%\s+([0-9.]+)\s(.*)$")


def frame(text, marks):
    found = set()
    changed = True
    while changed:
        changed = False
        for mark, flag in marks:
            if text.endswith(mark):
                text, changed = text[: -len(mark)], True
                found.add(flag)
    return (text.strip(), frozenset(found))


FOLDED_MARKS = [(" [inlined]", "i"), ("_[k]", "k"), ("_[lua]", "l")]
TUI_MARKS = [(" [inlined]", "i"), (" [k]", "k"), (" [lua]", "l")]

through, ends = collections.Counter(), collections.Counter()
total = 0
for line in open(folded_path, encoding="utf-8"):
    stack, n = line.rstrip("\n").rsplit(" ", 1)
    path = tuple(frame(f, FOLDED_MARKS) for f in stack.split(";"))
    n = int(n)
    total += n
    ends[path] += n
    for d in range(1, len(path) + 1):
        through[path[:d]] += n

# Shares: of the folded values, or of the report's time.
share_through, share_ends, share_total = through, ends, total
if report_path:
    roots = {p[0] for p in ends}
    if len(roots) != 1:
        print(f"report shares need one process, the folded file has {len(roots)}")
        sys.exit(1)
    rep = json.load(open(report_path, encoding="utf-8"))
    frames = rep["profiles"]["frames"] if "frames" in rep["profiles"] else rep["frames"]

    def report_frame(f):
        marks = set()
        if f.get("kernel"):
            marks.add("k")
        if f.get("module") == "[lua]":
            marks.add("l")
        if f.get("inlined"):
            marks.add("i")
        return (f["name"].replace(";", ":").strip(), frozenset(marks))

    share_through, share_ends = collections.Counter(), collections.Counter()
    share_total = 0
    for smp in rep["profiles"][kind]["samples"]:
        path = (next(iter(roots)),) + tuple(report_frame(frames[i]) for i in smp["frames"])
        share_total += smp["ns"]
        share_ends[path] += smp["ns"]
        for d in range(1, len(path) + 1):
            share_through[path[:d]] += smp["ns"]

rows, path, in_tree = [], [], False
for line in open(screen_path, encoding="utf-8"):
    line = line.rstrip("\n")
    if " TOTAL%" in line:
        in_tree = True
        continue
    m = ROW.match(line) if in_tree else None
    if not m:
        if in_tree and rows:
            break
        continue
    tree = m.group(4)
    at = min((i for i in (tree.find("└─"), tree.find("├─")) if i >= 0), default=-1)
    if at < 0:
        continue
    depth = at // 2
    name = tree[at + 4 :]
    if depth == 0:  # a process node: "comm [pid]", the folded root is the comm
        name = re.sub(r" \[[0-9]+\]$", "", name)
    path = path[:depth] + [frame(name, TUI_MARKS)]
    rows.append((float(m.group(1)), float(m.group(2)), float(m.group(3)), tuple(path)))

if not rows:
    print("no call tree rows on the screen")
    sys.exit(2)
# On-CPU the column is samples; off-CPU whole milliseconds, cut (folded: ns).
div = 1 if kind == "oncpu" else 1000000
tops = [r[2] for r in rows if len(r[3]) == 1]
if abs(sum(tops) - total // div) > (0 if kind == "oncpu" else len(tops)):
    print(f"the pane's top rows hold {sum(tops)}, the folded file {total // div}")
    sys.exit(2)
failures = []
for tot_pct, self_pct, value, p in rows:
    want = through.get(p, 0)
    want_pct = 100.0 * share_through.get(p, 0) / share_total
    want_self = 100.0 * share_ends.get(p, 0) / share_total
    shown = ";".join(n + (f"[{''.join(sorted(f))}]" if f else "") for n, f in p)[-140:]
    print(f"  {tot_pct:6.1f}% {self_pct:6.1f}% {value:>12} | folded {want_pct:6.1f}% "
          f"{want_self:6.1f}% {want // div:>12}  {shown}")
    # The pane rounds to 0.1% and, off-CPU, to the ms it prints.
    if abs(tot_pct - want_pct) > 0.051 or abs(self_pct - want_self) > 0.051:
        failures.append(f"{shown}: the pane says {tot_pct}% / {self_pct}%, the folded file "
                        f"{want_pct:.2f}% / {want_self:.2f}%")
    if value != want // div:
        failures.append(f"{shown}: the pane says {value}, the folded file {want // div}")
print(f"{kind}: {len(rows)} rows on screen, folded total {total}")
for f in failures:
    print("DISAGREE: " + f)
sys.exit(1 if failures else 0)
