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
    # The colors of TracyMessageC, LC, CS and LCS (-1: none).
    colors = lambda i: sorted([("message %d" % i, -1)] * 2 + [("message %d" % i, 0xff0000), ("message %d" % i, 0x00ff00),
                               ("literal", -1), ("literal c", 0x00ff00), ("literal s", -1), ("literal cs", 0x0000ff)])
    appinfo = "app info"
    pool, named_frames, edge_frames = "pool", "physics", "load"
    # Arguments per frame, by (zone, key): the V forms attach to the
    # innermost open zone (zncs), as profev's arguments do.
    args = {("leaf", "text"): 2, ("leaf", "name"): 2, ("leaf", "value"): 1, ("leaf", "color"): 1,
            ("zncs", "color"): 2, ("zncs", "text"): 2, ("zncs", "name"): 2, ("zncs", "value"): 1,
            ("frame", "color"): 4, ("znc", "color"): 1, ("named_c", "color"): 1, ("named_cs", "color"): 1,
            ("transient_c", "color"): 1, ("manual", "color"): 1}
    leaf_text = lambda i: ["text", "i=%d" % i]
    # Locks per frame (name: acquisitions): try_lock, lock_guard, unique_lock, a member.
    locks = {"std::mutex g_lock": 1, "named rw": 1, "std::mutex m_lock": 1}
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
    colors = lambda i: sorted([("cmessage %d" % i, -1)] * 2 + [("cmessage %d" % i, 0xff0000), ("cmessage %d" % i, 0x0000ff),
                               ("cliteral", -1), ("cliteral c", 0x00ff00), ("cliteral s", -1), ("cliteral cs", 0x0000ff)])
    appinfo = "c app info"
    pool, named_frames, edge_frames = "cpool", "cphysics", "cload"
    args = {("leaf", "text"): 1, ("leaf", "name"): 1, ("leaf", "value"): 1, ("leaf", "color"): 1,
            ("frame", "color"): 2, ("named_c", "color"): 1, ("named_cs", "color"): 1, ("dynamic", "color"): 1}
    leaf_text = lambda i: ["text"]
    locks = {}
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
    # Source locations: every zone with a static site (and the zones built
    # from a SourceLocationData) names its function and file; the messages
    # and (C++) plots too. Names made at run time have none.
    src_file = "all_macros." + lang
    frames_without_src = 0
    for e in evs:
        if e["type"] not in ("zone_begin", "message", "counter"):
            continue
        if e["type"] == "counter" and lang == "c":
            continue
        if e["type"] == "message" and e.get("category") != "tracy":
            continue
        if e["type"] == "zone_begin" and e["name"] in dynamic - {"manual"}:
            if "src" in e:
                fail("%s: zone %s made at run time has a source location" % (thread, e["name"]))
            continue
        src = e.get("src") or {}
        if e["type"] == "zone_begin" and e["name"] == "frame" and not src:
            frames_without_src += 1
            continue
        if not str(src.get("file", "")).endswith(src_file) or src.get("function") not in ("frame", "leaf") \
                or not src.get("line"):
            fail("%s: %s %s has the source location %s" % (thread, e["type"], e.get("name", e.get("text")), src))
            break
    if frames_without_src != frame_dynamic * n:
        fail("%s: %d 'frame' zones without a source location, expected %d" % (thread, frames_without_src,
                                                                              frame_dynamic * n))
    # Plots, in order.
    for name, f in plots.items():
        got = [e["value"] for e in evs if e["type"] == "counter" and e["name"] == name]
        if got != [f(i) for i in frames]:
            fail("%s: plot %s is %s, expected %s" % (thread, name, got, [f(i) for i in frames]))
    # Arguments: the "arg" events, each given to the innermost open zone.
    stack, got_args, values = [], collections.Counter(), collections.defaultdict(list)
    for e in evs:
        if e["type"] == "zone_begin":
            stack.append(e["name"])
        if e["type"] == "arg" and stack:
            key = e.get("key", e.get("name"))
            got_args[(stack[-1], key)] += 1
            if "value" in e:
                values[(stack[-1], key)].append(e["value"])
        if e["type"] == "zone_end" and stack:
            stack.pop()
    want_args = collections.Counter({k: v * n for k, v in args.items()})
    if got_args != want_args:
        fail("%s: arguments %s, expected %s" % (thread, dict(got_args), dict(want_args)))
    if values.get(("leaf", "value")) and values[("leaf", "value")] != frames:
        fail("%s: leaf values %s, expected %s" % (thread, values[("leaf", "value")], frames))
    if values.get(("leaf", "text")) and values[("leaf", "text")] != sum((leaf_text(i) for i in frames), []):
        fail("%s: leaf texts %s" % (thread, values[("leaf", "text")]))
    if values.get(("leaf", "color")) and set(values[("leaf", "color")]) != {0xff0000}:
        fail("%s: leaf colors %s" % (thread, values[("leaf", "color")]))
    # A SourceLocationData's (C++) or ___tracy_alloc_srcloc's (C) color.
    srcloc_zone, srcloc_color = ("manual", 0x102030) if lang == "cpp" else ("dynamic", 0x405060)
    if values.get((srcloc_zone, "color")) and values[(srcloc_zone, "color")] != [srcloc_color] * n:
        fail("%s: %s's colors %s" % (thread, srcloc_zone, values[(srcloc_zone, "color")]))
    # Locks: a wait, an acquisition and a release for each.
    waits = collections.Counter(e.get("lock", e.get("name")) for e in evs if e["type"] == "lock_wait")
    acq = sum(1 for e in evs if e["type"] == "lock_acquired")
    rel = sum(1 for e in evs if e["type"] == "lock_released")
    if lang == "cpp":
        want_waits = collections.Counter({k: v * n for k, v in locks.items()})
        # try_lock, then LockableName: the name changes after the first frame.
        want_waits["renamed lock"] = n if thread == "main" else n - 1
        if thread == "worker":
            want_waits["named lock"] = 1
        want_locks = 4 * n
    else:
        want_waits = collections.Counter({"c lock": 2} if thread == "main" else {})
        want_locks = 2 if thread == "main" else 0
    if waits != want_waits or acq != want_locks or rel != want_locks:
        fail("%s: lock waits %s, %d acquired, %d released; expected %s, %d" % (thread, dict(waits), acq, rel,
                                                                                 dict(want_waits), want_locks))
    # Messages: 8 per frame in "tracy", the app info in "app_info".
    msgs = [e for e in evs if e["type"] == "message"]
    tracy_msgs = sorted(e["text"] for e in msgs if e.get("category") == "tracy")
    want_msgs = sorted(sum((texts(i) for i in frames), []))
    if tracy_msgs != want_msgs:
        fail("%s: messages %s, expected %s" % (thread, tracy_msgs, want_msgs))
    # A color is the message's argument "color", and nothing else is.
    got_colors = sorted((e["text"], e.get("args", {}).get("color", -1)) for e in msgs if e.get("category") == "tracy")
    want_colors = sorted(sum((colors(i) for i in frames), []))
    if got_colors != want_colors:
        fail("%s: message colors %s, expected %s" % (thread, got_colors, want_colors))
    if any(set(e.get("args", {})) - {"color"} for e in msgs):
        fail("%s: messages with arguments other than color" % thread)
    info = [e["text"] for e in msgs if e.get("category") == "app_info"]
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
    images = sum(1 for e in evs if e["type"] == "frame_image")
    if images != n:
        fail("%s: %d frame images, expected %d" % (thread, images, n))
    edges = [(e["type"], e["name"]) for e in evs if e["type"] in ("frame_start", "frame_end")]
    if edges != [("frame_start", edge_frames), ("frame_end", edge_frames)] * n:
        fail("%s: discontinuous frames %s" % (thread, edges))
    names = [e["name"] for e in evs if e["type"] == "thread_name"]
    if names != [thread]:
        fail("%s: thread names %s" % (thread, names))

if lang == "cpp":
    prog = [e["text"] for e in by_thread.get("main", []) if e["type"] == "message" and e.get("category") == "program_name"]
    if prog != ["all_macros"]:
        fail("program name %s" % prog)
    # Contention: 4 lockers, 25 acquisitions each of "contended"; a wait is
    # contended when another thread holds the lock as it begins.
    lev = sorted((e for e in events if e.get("thread") == "locker" and e["type"].startswith("lock_")),
                 key=lambda e: e["ts"])
    per_tid = collections.Counter(e["tid"] for e in lev if e["type"] == "lock_acquired")
    if sorted(per_tid.values()) != [25] * 4:
        fail("lockers' acquisitions %s, expected 4 x 25" % dict(per_tid))
    if any(e.get("lock", e.get("name")) != "contended" for e in lev if e["type"] == "lock_wait"):
        fail("a locker's wait is not on 'contended'")
    holder, contended = None, 0
    for e in lev:
        if e["type"] == "lock_wait" and holder is not None and holder != e["tid"]:
            contended += 1
        elif e["type"] == "lock_acquired":
            if holder is not None:
                fail("'contended' acquired at %d while thread %d held it" % (e["ts"], holder))
            holder = e["tid"]
        elif e["type"] == "lock_released":
            holder = None
    if contended < 10:
        fail("only %d of 100 waits on 'contended' were contended" % contended)

for e in errors:
    print("check.py:", e, file=sys.stderr)
sys.exit(1 if errors else 0)
