# SPDX-License-Identifier: GPL-2.0-only
# Checks a speedscope file of threadtop: valid against speedscope's own
# schema (file-format-schema.json of the npm package, when SCHEMA is given
# and python3-jsonschema is there), and each evented profile ("NAME in time
# order") sound and equal to its thread's sampled profile: events in time
# order inside [startValue, endValue], every close the innermost open
# frame, nothing left open; and folded back into stacks (each stretch
# between two events goes to the frames open then), the same stacks with
# the same nanoseconds as the sampled profile NAME, unless its name says it
# holds the newest samples only. With --require KIND every sampled KIND
# profile must have its evented one. Prints one line per thread; exits 1
# on a failure.
# Usage: speedscope_check.py FILE [--schema SCHEMA] [--require KIND]
import argparse
import collections
import json
import sys

ap = argparse.ArgumentParser()
ap.add_argument("file")
ap.add_argument("--schema")
ap.add_argument("--require")
args = ap.parse_args()
doc = json.load(open(args.file))
failures = []

if args.schema:
    try:
        import jsonschema
    except ImportError:
        print("note: python3-jsonschema is missing: the schema is not checked")
    else:
        try:
            jsonschema.validate(doc, json.load(open(args.schema)))
        except jsonschema.ValidationError as e:
            failures.append(f"not valid against speedscope's schema: {e.message} at "
                            f"{'/'.join(str(p) for p in e.absolute_path)}")

sampled = {p["name"]: p for p in doc["profiles"] if p["type"] == "sampled"}
evented = {p["name"]: p for p in doc["profiles"] if p["type"] == "evented"}
SUFFIX, PARTIAL = " in time order", ", newest samples only"


def sampled_stacks(p):
    out = collections.Counter()
    for stack, w in zip(p["samples"], p["weights"]):
        out[tuple(stack)] += w
    return out


def evented_stacks(p, name):
    out = collections.Counter()
    stack, last = [], p["startValue"]
    for e in p["events"]:
        at = e["at"]
        if at < last:
            failures.append(f"{name}: an event at {at} after one at {last}")
            return out
        if at > p["endValue"]:
            failures.append(f"{name}: an event at {at} past endValue {p['endValue']}")
            return out
        if stack and at > last:
            out[tuple(stack)] += at - last
        last = at
        if e["type"] == "O":
            stack.append(e["frame"])
        elif not stack or stack[-1] != e["frame"]:
            failures.append(f"{name}: closes frame {e['frame']} at {at} but "
                            f"{stack[-1] if stack else 'none'} is the innermost open")
            return out
        else:
            stack.pop()
    if stack:
        failures.append(f"{name}: {len(stack)} frames left open at the end")
    return out


for name, p in sorted(evented.items()):
    base = name[: -len(PARTIAL)] if name.endswith(PARTIAL) else name
    if not base.endswith(SUFFIX) or base[: -len(SUFFIX)] not in sampled:
        failures.append(f"evented profile {name!r} has no sampled profile of its thread")
        continue
    ev = evented_stacks(p, name)
    sa = sampled_stacks(sampled[base[: -len(SUFFIX)]])
    print(f"  {name}: {len(p['events'])} events, {sum(ev.values())} ns; sampled "
          f"{sum(sa.values())} ns in {len(sa)} stacks")
    if name.endswith(PARTIAL):
        if any(ev[k] > sa.get(k, 0) for k in ev):
            failures.append(f"{name}: a stack has more time than in the sampled profile")
        continue
    for k in set(ev) | set(sa):
        if ev.get(k, 0) != sa.get(k, 0):
            names = ";".join(doc["shared"]["frames"][i]["name"] for i in k)[-160:]
            failures.append(f"{name}: {ev.get(k, 0)} ns in time order, {sa.get(k, 0)} "
                            f"sampled: {names}")
            break

if args.require:
    for name in sampled:
        if name.endswith(" " + args.require) and name + SUFFIX not in evented and \
                name + SUFFIX + PARTIAL not in evented:
            failures.append(f"no evented profile of {name!r}")
for f in failures:
    print("SPEEDSCOPE: " + f)
sys.exit(1 if failures else 0)
