#!/usr/bin/env python3
# check.py LANG JSONL [callstack]: the events that tests/tracy/all_macros.LANG
# (cpp or c) must have produced, read from `pfdump --jsonl`. The counts and
# values follow from the programs' comments: the thread "worker" runs frame()
# for i = 10, 11, then "main" for i = 0, 1, 2. With "callstack" the program
# was built with TRACY_CALLSTACK set: every zone with a static site has a stack.
import collections
import json
import sys

lang, path = sys.argv[1], sys.argv[2]
callstack = len(sys.argv) > 3 and sys.argv[3] == "callstack"
FRAMES = {"worker": [10, 11], "main": [0, 1, 2]}
errors = []


def fail(msg):
    errors.append(msg)


if lang == "cpp":
    zones = {"frame": 10, "leaf": 1, "manual": 1, "manual_s": 1}
    for n in ("named", "named_c", "named_s", "named_cs", "zn", "znc", "zns", "zncs",
              "transient", "transient_c", "transient_s"):
        zones[n] = 1
    stacked = {"named_s", "named_cs", "zns", "zncs", "manual_s"}  # and 4 of the 10 "frame"
    frame_stacked = 4
    # No stack even with TRACY_CALLSTACK: names made at run time, a
    # ScopedZone built by hand without a depth (as in Tracy); 2 of the "frame".
    dynamic = {"transient", "transient_c", "transient_s", "manual"}
    frame_dynamic = 2
    plots = {"plot_int": lambda i: i, "plot_float": lambda i: i + 0.5, "plot_double": lambda i: 2 * i}
    texts = lambda i: sorted(["message %d" % i] * 4 + ["literal", "literal c", "literal s", "literal cs"])
    appinfo = "app info"
    pool, named_frames = "pool", "physics"
    parents = {"named": "frame", "zn": "frame", "leaf": "manual_s", "manual_s": "manual",
               "transient": "frame"}
else:
    zones = {"frame": 4, "named": 1, "named_c": 1, "named_s": 1, "named_cs": 1, "leaf": 1,
             "dynamic": 1, "dynamic_fn": 1, "manual": 1}
    stacked = {"named_s", "named_cs"}
    frame_stacked = 2
    dynamic = {"dynamic", "dynamic_fn", "manual"}
    frame_dynamic = 0
    plots = {"cplot": lambda i: i, "cplot_float": lambda i: i + 0.5, "cplot_int": lambda i: 2 * i}
    texts = lambda i: sorted(["cmessage %d" % i] * 4 + ["cliteral", "cliteral c", "cliteral s", "cliteral cs"])
    appinfo = "c app info"
    pool, named_frames = "cpool", "cphysics"
    parents = {"named": "frame", "leaf": "frame", "dynamic": "frame", "manual": "frame"}

events = [json.loads(line) for line in open(path)]
by_thread = collections.defaultdict(list)
for e in events:
    by_thread[e.get("thread")].append(e)
if set(FRAMES) - set(by_thread):
    fail("threads %s, expected %s" % (sorted(by_thread), sorted(FRAMES)))

for thread, frames in FRAMES.items():
    evs = by_thread.get(thread, [])
    n = len(frames)
    begins = collections.Counter(e["name"] for e in evs if e["type"] == "zone_begin")
    want = collections.Counter({k: v * n for k, v in zones.items()})
    if begins != want:
        fail("%s: zones %s, expected %s" % (thread, dict(begins), dict(want)))
    ends = sum(1 for e in evs if e["type"] == "zone_end")
    if ends != sum(want.values()):
        fail("%s: %d zone ends for %d begins" % (thread, ends, sum(want.values())))
    if any(e["type"] == "zone_begin" and e["name"] == "inactive" for e in evs):
        fail("%s: an inactive zone was recorded" % thread)
    if any(e["type"] == "zone_begin" and e.get("category") != "tracy" for e in evs):
        fail("%s: a zone outside the category tracy" % thread)
    # Callstacks: the _S forms always, every static zone with TRACY_CALLSTACK.
    with_stack = collections.Counter(e["name"] for e in evs if e["type"] == "zone_begin" and e.get("stack"))
    want_stack = collections.Counter({k: n for k in stacked})
    want_stack["frame"] = frame_stacked * n
    if callstack:
        want_stack = collections.Counter({k: v * n for k, v in zones.items() if k not in dynamic})
        want_stack["frame"] -= frame_dynamic * n
    if with_stack != want_stack:
        fail("%s: zones with a stack %s, expected %s" % (thread, dict(with_stack), dict(want_stack)))
    # Nesting: each zone's parent is the innermost zone open before it.
    stack, seen_parent = [], collections.defaultdict(set)
    for e in evs:
        if e["type"] == "zone_begin":
            seen_parent[e["name"]].add(stack[-1] if stack else None)
            stack.append(e["name"])
        elif e["type"] == "zone_end":
            if not stack:
                fail("%s: a zone end with no zone open" % thread)
                break
            stack.pop()
    if stack:
        fail("%s: zones left open: %s" % (thread, stack))
    for child, parent in parents.items():
        if seen_parent[child] != {parent}:
            fail("%s: '%s' nested in %s, expected '%s'" % (thread, child, sorted(map(str, seen_parent[child])), parent))
    if lang == "c" and seen_parent["frame"] - {None, "frame"}:
        fail("%s: 'frame' nested in %s" % (thread, seen_parent["frame"]))
    # Plots, in order.
    for name, f in plots.items():
        got = [e["value"] for e in evs if e["type"] == "counter" and e["name"] == name]
        if got != [f(i) for i in frames]:
            fail("%s: plot %s is %s, expected %s" % (thread, name, got, [f(i) for i in frames]))
    # Messages: 8 per frame in "tracy", the app info in "tracy_appinfo".
    msgs = [e for e in evs if e["type"] == "message"]
    tracy_msgs = sorted(e["text"] for e in msgs if e.get("category") == "tracy")
    want_msgs = sorted(sum((texts(i) for i in frames), []))
    if tracy_msgs != want_msgs:
        fail("%s: messages %s, expected %s" % (thread, tracy_msgs, want_msgs))
    info = [e["text"] for e in msgs if e.get("category") == "tracy_appinfo"]
    if info != [appinfo] * n:
        fail("%s: app info %s" % (thread, info))
    # Memory: per frame 8 allocations and 8 frees, 4 of each in the pool,
    # 4 secure, 2 with a callstack (the secure _S forms have none).
    for kind in ("alloc", "free"):
        mem = [e for e in evs if e["type"] == kind]
        got = (len(mem), sum(e.get("pool") == pool for e in mem), sum(bool(e.get("secure")) for e in mem),
               sum(bool(e.get("stack")) for e in mem))
        want_mem = (8 * n, 4 * n, 4 * n, 2 * n if not callstack else 4 * n)
        if got != want_mem:
            fail("%s: %s (all, pool, secure, stack) %s, expected %s" % (thread, kind, got, want_mem))
    sizes = sorted(e["size"] for e in evs if e["type"] == "alloc")
    if sizes != sorted([16 * k for k in range(1, 9)] * n):
        fail("%s: allocation sizes %s" % (thread, sizes))
    allocs = collections.Counter(e["addr"] for e in evs if e["type"] == "alloc")
    frees = collections.Counter(e["addr"] for e in evs if e["type"] == "free")
    if allocs != frees:
        fail("%s: freed addresses differ from allocated ones" % thread)
    # Frames.
    marks = collections.Counter(e["name"] for e in evs if e["type"] == "frame")
    if marks != collections.Counter({"": n, named_frames: n}):
        fail("%s: frame marks %s" % (thread, dict(marks)))
    names = [e["name"] for e in evs if e["type"] == "thread_name"]
    if names != [thread]:
        fail("%s: thread names %s" % (thread, names))

for e in errors:
    print("check.py:", e, file=sys.stderr)
sys.exit(1 if errors else 0)
