#!/usr/bin/env python3
"""Load pfconv outputs into Perfetto's trace_processor and compare its
tables with what pfdump shows of the same trace.

usage: tp-check.py [options] TRACE OUTPUT...

TRACE is the profev trace; OUTPUT the Perfetto output of it, or the parts
of one --split-size conversion. pfdump (from PATH) gives the expectation:
--jsonl for every event, --stats for the zones per thread. Compared
exactly, timestamps and durations to the ns:
  - no stats row of severity error or data_loss above 0 (--allow NAME
    excepts one that the trace itself records);
  - process name and pid; thread names and tids;
  - per thread, every zone slice: ts, dur, depth, name, category (a zone
    left open ends at its thread's last event); their count per thread
    equals pfdump --stats;
  - instants, messages (title as name, whole text in args debug.text),
    lost-event instants (debug.count); crash instants "crash: SIGNAL"
    (debug.address);
  - counter values, bit for bit;
  - frame slices "Frame N" on the tracks "Frames" and "Frames: SET";
  - per pool, the live-bytes counter "memory: POOL" after every event;
  - allocation instants on "allocations", named by pool, with their size.
Parts of a split are read together: a zone cut at a part's end ("cut")
and reopened in the next ("continued") counts as one.

--window FROM TO (ns after the trace's start, as pfconv's --from/--to):
the output of that window, compared with the trace's zones, instants,
messages and counters inside it (zones cut at its edges).
--chrome FILE: also load pfconv's Chrome JSON of TRACE, which must import
without errors with the same numbers of slices (frame images, Perfetto's
screenshots, apart), counter values and threads.
Prints a one-line summary; exits 1 with the first difference.
"""
import collections
import json
import os
import sys
import tempfile

import tpquery
from tpquery import fail, hx, run, tp_rows, unhex

tpquery.PROG = "tp-check"




def import_errors(trace, allow):
    bad = tp_rows(trace, "select name, idx, value from stats where severity in "
                  "('error', 'data_loss') and value > 0")
    return ["%s[%s] = %s" % tuple(r) for r in bad if r[0] not in allow]



# ---- what pfdump shows ----

def expected(trace):
    ev = [json.loads(l) for l in run(["pfdump", "--jsonl", trace]).splitlines() if l.strip()]
    last_ts = {}
    names = {}
    stacks = collections.defaultdict(list)
    zones, instants, messages, lost, counters, allocs = [], [], [], [], [], []
    crashes = []
    frames = collections.defaultdict(list)
    live = collections.Counter()
    blocks = {}
    memory = []
    for e in ev:
        tid, ts, ty = e.get("tid"), e["ts"], e["type"]
        if tid is not None:
            last_ts[tid] = max(last_ts.get(tid, ts), ts)
            if e.get("thread"):
                names[tid] = e["thread"]
        if ty == "thread_name":
            names[tid] = e["name"]
        elif ty == "zone_begin":
            stacks[tid].append((ts, e["name"], e.get("category") or None))
        elif ty == "zone_end":
            b, n, cat = stacks[tid].pop()
            zones.append((tid, b, ts - b, len(stacks[tid]), n, cat))
        elif ty == "instant":
            instants.append((tid, ts, e["name"], e.get("category") or None))
        elif ty == "message":
            messages.append((tid, ts, e["text"]))
        elif ty == "lost":
            lost.append((tid, ts, e["count"]))
        elif ty == "crash":
            crashes.append((tid, ts, "crash: " + e["signal"], e["addr"]))
        elif ty == "counter":
            counters.append((ts, e["name"], float(e["value"])))
        elif ty == "frame":
            frames[e["name"]].append((ts, e["frame"]))
        elif ty == "alloc":
            pool = e.get("pool") or "default"
            if e["addr"] in blocks:  # an allocation over a live block frees it first
                old_pool, old_size = blocks.pop(e["addr"])
                live[old_pool] -= old_size
                memory.append((ts, old_pool, live[old_pool]))
            if e["addr"]:  # address 0 is counted, never freed
                blocks[e["addr"]] = (pool, e["size"])
            live[pool] += e["size"]
            memory.append((ts, pool, live[pool]))
            allocs.append((ts, pool, e["size"]))
        elif ty == "free":
            if e["addr"] in blocks:
                pool, size = blocks.pop(e["addr"])
                live[pool] -= size
                memory.append((ts, pool, live[pool]))
    for tid, st in stacks.items():  # left open: closed at the thread's last event
        while st:
            b, n, cat = st.pop()
            zones.append((tid, b, last_ts[tid] - b, len(st), n, cat))
    end = max(e["ts"] for e in ev) if ev else 0
    frame_slices = []
    for name, marks in frames.items():
        track = "Frames: " + name if name else "Frames"
        for i, (ts, n) in enumerate(marks):
            nxt = marks[i + 1][0] if i + 1 < len(marks) else end
            frame_slices.append((track, ts, nxt - ts, "Frame %d" % n))
    stats = run(["pfdump", "--stats", trace]).splitlines()
    program, pid, per_thread = None, None, {}
    in_threads = False
    for line in stats:
        f = line.split()
        if line.startswith("program:"):
            program = f[1] if len(f) > 1 else None
        elif line.startswith("process:") and len(f) > 2:
            pid = int(f[2])
        elif line.startswith("threads:"):
            in_threads = True
        elif in_threads and not f:
            in_threads = False
        elif in_threads and f[0].isdigit():
            per_thread[int(f[0])] = int(f[-3])
    return dict(names=names, zones=zones, instants=instants, messages=messages, lost=lost, crashes=crashes,
                counters=counters, frames=frame_slices, memory=memory, allocs=allocs,
                program=program, pid=pid, per_thread=per_thread,
                events=[e for e in ev if e["type"] not in ("thread_name", "frame_image")])


def window(x, lo, hi):
    """What the output of the window [lo, hi] (relative ns) holds."""
    zones = []
    for tid, b, d, depth, n, cat in x["zones"]:
        e = b + d
        if e < lo or b > hi:
            continue
        b2, e2 = max(b, lo), min(e, hi)
        zones.append((tid, b2, e2 - b2, depth, n, cat))
    inside = lambda ts: lo <= ts <= hi
    return dict(x, zones=zones,
                instants=[i for i in x["instants"] if inside(i[1])],
                messages=[m for m in x["messages"] if inside(m[1])],
                lost=[l for l in x["lost"] if inside(l[1])],
                crashes=[c for c in x["crashes"] if inside(c[1])],
                counters=[c for c in x["counters"] if inside(c[0])])


# ---- what trace_processor shows ----

def tables(parts):
    t = collections.defaultdict(list)
    for part in parts:
        threads = {r[0]: (int(r[1]), unhex(r[2])) for r in
                   tp_rows(part, "select utid, tid, %s from thread where tid != 0" % hx("name"))}
        t["threads"].append(threads)
        t["process"] += [(p, unhex(n)) for p, n in
                         tp_rows(part, "select pid, %s from process where pid != 0" % hx("name"))]
        args = collections.defaultdict(dict)
        for a, k, v in tp_rows(part, "select arg_set_id, key, %s from args where key like 'debug.%%'"
                               % hx("display_value")):
            args[a][k] = unhex(v)
        for ts, dur, depth, name, cat, utid, track, a in tp_rows(part, """
                select s.ts, s.dur, s.depth, %s, %s, tt.utid, %s, s.arg_set_id
                from slice s join track t on t.id = s.track_id
                left join thread_track tt on tt.id = s.track_id order by s.ts, s.depth"""
                % (hx("s.name"), hx("s.category"), hx("t.name"))):
            t["slices"].append((threads.get(utid, (None,))[0], int(ts), int(dur), int(depth), unhex(name),
                                unhex(cat), unhex(track), args.get(a, {})))
        for ts, v, name in tp_rows(part, """select c.ts, printf('%%!.17g', c.value), %s
                from counter c join counter_track t on t.id = c.track_id order by c.ts""" % hx("t.name")):
            t["counters"].append((int(ts), unhex(name), float(v)))
    return t


def merge_cuts(slices):
    """A zone cut at a part's end and continued in the next part: one slice."""
    out, open_cut = [], {}
    for s in sorted(slices, key=lambda s: (s[1], s[3])):
        tid, ts, dur, depth, name, cat, track, args = s
        k = (tid, depth, name, ts)
        if "debug.continued" in args and k in open_cut:
            prev = open_cut.pop(k)
            s = (tid, prev[1], ts + dur - prev[1], depth, name, cat, track,
                 {a: v for a, v in args.items() if a != "debug.continued"})
            out.remove(prev)
        if "debug.cut" in s[7]:
            open_cut[(tid, depth, name, s[1] + s[2])] = s
        out.append(s)
    return out


def compare(what, want, got):
    want, got = sorted(want, key=repr), sorted(got, key=repr)
    if want != got:
        missing = [w for w in want if w not in got][:3]
        extra = [g for g in got if g not in want][:3]
        fail("%s differ: %d from pfdump, %d in trace_processor; pfdump only: %s; trace_processor only: %s"
             % (what, len(want), len(got), missing, extra))


def main():
    argv = sys.argv[1:]
    allow, win, chrome = [], None, None
    while argv and argv[0].startswith("--"):
        o = argv.pop(0)
        if o == "--allow":
            allow.append(argv.pop(0))
        elif o == "--window":
            win = (int(argv.pop(0)), int(argv.pop(0)))
        elif o == "--chrome":
            chrome = argv.pop(0)
        else:
            fail("unknown option '%s'" % o)
    if len(argv) < 2:
        fail(__doc__.split("\n")[2])
    if not tpquery.TP:
        fail("no trace_processor_shell: set TP or TRACE_PROCESSOR")
    trace, parts = argv[0], argv[1:]
    for p in parts:
        bad = import_errors(p, allow)
        if bad:
            fail("'%s' imports with errors: %s" % (p, ", ".join(bad)))
    x = expected(trace)
    # Times: trace_processor's are the trace's own, pfdump's are from the
    # trace's start; the full output of the trace gives the difference.
    with tempfile.TemporaryDirectory() as d:
        full = os.path.join(d, "full.pftrace")
        run(["pfconv", "-q", "to", "perfetto", "-o", full, trace])
        first = tp_rows(full, "select min(ts) from (select ts from slice union all select ts from counter)")[0][0]
    base = int(first) - min(e["ts"] for e in x["events"]) if first is not None else 0
    if win:
        x = window(x, *win)
    t = tables(parts)
    slices = merge_cuts(t["slices"]) if len(parts) > 1 else t["slices"]
    rel = lambda ts: ts - base

    procs = set(tuple(p) for p in t["process"])
    if x["program"] and procs != {(str(x["pid"]), os.path.basename(x["program"]))}:
        fail("process: %s, pfdump: pid %s program %s" % (procs, x["pid"], x["program"]))
    # Threads with a name: the last name pfdump shows.
    got_names = {}
    for threads in t["threads"]:
        for tid, name in threads.values():
            if name is not None:
                got_names[tid] = name
    # (the threads with a track: those with zones, instants or messages)
    on_track = set(z[0] for z in x["zones"] + x["instants"] + x["messages"] + x["lost"] + x["crashes"])
    want_names = {tid: n for tid, n in x["names"].items() if tid in on_track}
    if not win and len(parts) == 1 and got_names != want_names:
        fail("thread names: trace_processor %s, pfdump %s" % (got_names, want_names))

    # Thread slices: messages and lost events by their args; instants are
    # the zero-length ones pfdump shows as instants; the rest zones.
    plain = [s for s in slices if s[0] is not None and "debug.text" not in s[7] and "debug.count" not in s[7]
             and "debug.address" not in s[7]]
    want_inst = collections.Counter(x["instants"])
    zones, inst = [], []
    for s in plain:
        k = (s[0], rel(s[1]), s[4], s[5])
        if s[2] == 0 and want_inst[k] > 0:
            want_inst[k] -= 1
            inst.append(k)
        else:
            zones.append((s[0], rel(s[1]), s[2], s[3], s[4], s[5]))
    compare("zone slices (tid, ts, dur, depth, name, category)", x["zones"], zones)
    if not win and len(parts) == 1:
        per = collections.Counter(z[0] for z in zones)
        if dict(per) != {k: v for k, v in x["per_thread"].items() if v}:
            fail("zones per thread: trace_processor %s, pfdump --stats %s" % (dict(per), x["per_thread"]))
    compare("instants (tid, ts, name, category)", x["instants"], inst)
    msgs = [(s[0], rel(s[1]), s[7].get("debug.text")) for s in slices if "debug.text" in s[7]]
    compare("messages (tid, ts, text)", x["messages"], msgs)
    for tid, ts, text in x["messages"]:
        title = text.split("\n")[0]
        if not any(s[0] == tid and rel(s[1]) == ts and s[4] and title.startswith(s[4]) for s in slices):
            fail("message at %d on %d: no slice named by its first line %r" % (ts, tid, title))
    lost = [(s[0], rel(s[1]), int(s[7]["debug.count"])) for s in slices if "debug.count" in s[7]]
    compare("lost events (tid, ts, count)", x["lost"], lost)
    crashes = [(s[0], rel(s[1]), s[4], int(s[7]["debug.address"])) for s in slices if "debug.address" in s[7]]
    compare("crashes (tid, ts, name, address)", x["crashes"], crashes)
    counters = [(rel(ts), n, v) for ts, n, v in t["counters"] if not n.startswith("memory: ")]
    compare("counter values (ts, name, value)", x["counters"], counters)
    if not win and len(parts) == 1:
        fr = [(s[6], rel(s[1]), s[2], s[4]) for s in slices if s[6] and s[6].startswith("Frames")]
        compare("frame slices (track, ts, dur, name)", x["frames"], fr)
        mem = [(rel(ts), n[len("memory: "):], int(v)) for ts, n, v in t["counters"] if n.startswith("memory: ")]
        compare("live bytes per pool (ts, pool, bytes)", x["memory"], mem)
        al = [(rel(s[1]), s[4], int(s[7].get("debug.bytes", -1))) for s in slices if s[6] == "allocations"]
        compare("allocations (ts, pool, bytes)", x["allocs"], al)

    summary = dict(zones=len(zones), instants=len(inst), messages=len(msgs), lost=len(lost),
                   counters=len(counters), threads=len(got_names))
    if chrome:
        bad = import_errors(chrome, allow)
        if bad:
            fail("'%s' imports with errors: %s" % (chrome, ", ".join(bad)))
        count = lambda tr, sql: tp_rows(tr, sql)[0][0]
        # (frame images are Perfetto's screenshots, which JSON cannot hold)
        for what, sql in (("slices", "select count(*) from slice where category is not 'android_screenshot'"),
                          ("counter values", "select count(*) from counter"),
                          ("threads", "select count(*) from thread where tid != 0")):
            # Chrome JSON shows frame sets as threads of their own.
            a = count(chrome, sql + (" and tid < 1000000000" if what == "threads" else ""))
            b = count(parts[0], sql)
            if a != b:
                fail("%s: %s in the Chrome JSON, %s in the Perfetto output" % (what, a, b))
    print(json.dumps(summary, sort_keys=True))


if __name__ == "__main__":
    main()
