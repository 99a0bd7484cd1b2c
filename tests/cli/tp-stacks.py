#!/usr/bin/env python3
"""Check the allocation callstacks of a pfconv Perfetto output in Perfetto's
trace_processor against what pfdump --jsonl shows of the same trace.

usage: tp-stacks.py [--symbols] [--mappings] [--no-helper FUNCTION] TRACE OUTPUT

For every allocation with a callstack, in time order:
  - the slice on "allocations" has a callsite, and its weight in
    __intrinsic_track_event_callstacks is the allocation's size in bytes;
  - the callsite's frames, walked from the root, are the trace's frames,
    outermost first: symbolized frames one per function of their inline
    chain as (function, file, line), profev's own inlined helpers (named
    profev__* or profev_tracy__*) left out of the innermost frame, as the
    viewers show it; unsymbolized frames as (module path, address);
  - frames sharing a callsite share their weights: the weights summed per
    callsite are the bytes summed per callstack of the trace.
Unsymbolized frames are (module path, rel_pc), rel_pc being the address
pfsym resolves: a return address's offset minus one, as Perfetto's
producers store it.
--mappings: for every frame with a mapping, the mapping has a build-id,
and the frame's pc, start + rel_pc - load_bias - exact_offset +
start_offset, lies inside [start, end).
--symbols: every frame of the program's own module must carry a function,
file and line.
--no-helper FUNCTION: FUNCTION must appear in pfdump's inline chains and
nowhere in trace_processor's frames.
Prints a one-line JSON summary; exits 1 with the first difference.
"""
import collections
import json
import sys

import tpquery
from tpquery import fail, hx, run, tp_rows, unhex

tpquery.PROG = "tp-stacks"
HELPER_PREFIXES = ("profev__", "profev_tracy__")


def viewer_chain(chain):
    """An address's inline chain (innermost first) without profev's helpers
    inlined at its innermost end; the outermost function always stays."""
    k = 0
    while k + 1 < len(chain) and (chain[k].get("function") or "").startswith(HELPER_PREFIXES):
        k += 1
    return chain[k:]


def expected(trace):
    allocs, seen = [], set()
    for line in run(["pfdump", "--jsonl", trace]).splitlines():
        if not line.strip():
            continue
        e = json.loads(line)
        if e["type"] != "alloc" or not e.get("stack"):
            continue
        frames = []
        for depth, f in enumerate(e["stack"]):
            chain = f.get("frames") or []
            for g in chain:
                seen.add(g.get("function"))
            if depth == 0:
                chain = viewer_chain(chain)
            if chain:
                frames += [(g.get("function") or None, g.get("file") or None, g.get("line") or None)
                           for g in chain]
            else:
                # Perfetto's producers store a return address as the
                # call's last byte, the address pfsym resolves; the
                # client's callstacks hold return addresses only.
                frames.append((f.get("module"), f.get("offset", 0) - 1))
        frames.reverse()  # outermost first
        allocs.append((e["ts"], e["size"], e["stack_id"], tuple(frames), e["stack"]))
    return allocs, seen


def main():
    argv = sys.argv[1:]
    symbols, mappings, helper = False, False, None
    while argv and argv[0].startswith("--"):
        o = argv.pop(0)
        if o == "--symbols":
            symbols = True
        elif o == "--mappings":
            mappings = True
        elif o == "--no-helper":
            helper = argv.pop(0)
        else:
            fail("unknown option '%s'" % o)
    if len(argv) != 2 or not tpquery.TP:
        fail(__doc__.split("\n")[3])
    trace, out = argv
    want, seen = expected(trace)
    if not want:
        fail("'%s' has no allocation with a callstack" % trace)
    if helper and helper not in seen:
        fail("pfdump shows no frame of %s: nothing to leave out" % helper)

    frames = {}
    for fid, name, mname, rel_pc, sset, bid, start, end, lb, eo, so in tp_rows(out, """
            select f.id, %s, %s, f.rel_pc, f.symbol_set_id, m.build_id, m.start, m.end,
                   m.load_bias, m.exact_offset, m.start_offset
            from stack_profile_frame f left join stack_profile_mapping m on m.id = f.mapping"""
                                                                  % (hx("f.name"), hx("m.name"))):
        frames[fid] = dict(name=unhex(name), mapping=unhex(mname), rel_pc=int(rel_pc or 0), sset=sset,
                           build_id=bid, start=int(start or 0), end=int(end or 0), load_bias=int(lb or 0),
                           exact_offset=int(eo or 0), start_offset=int(so or 0))
    syms = {}
    for sset, name, f, line in tp_rows(out, "select symbol_set_id, %s, %s, line_number from stack_profile_symbol"
                                       % (hx("name"), hx("source_file"))):
        syms[sset] = (unhex(name), unhex(f), int(line) if line else None)
    callsites = {cid: (parent, fid) for cid, parent, fid in
                 tp_rows(out, "select id, parent_id, frame_id from stack_profile_callsite")}
    got = []
    for ts, cs, weight in tp_rows(out, """select s.ts, c.callsite_id, c.weight from slice s
            join track t on t.id = s.track_id
            left join __intrinsic_track_event_callstacks c on c.slice_id = s.id
            where t.name = 'allocations' order by s.ts, s.id"""):
        got.append((int(ts), cs, None if weight is None else float(weight)))
    with_stack = [g for g in got if g[1] is not None]
    if len(with_stack) != len(want):
        fail("%d allocations with a callstack in pfdump, %d in trace_processor" % (len(want), len(with_stack)))

    per_stack, per_callsite, pair = collections.Counter(), collections.Counter(), {}
    nframes = nmapped = 0
    for (ts, size, sid, wframes, raw), (tts, cs, weight) in zip(want, with_stack):
        if weight != float(size):
            fail("allocation at %d ns: weight %r, %d bytes in pfdump" % (ts, weight, size))
        chain, c = [], cs
        while c is not None:
            parent, fid = callsites[c]
            chain.append(fid)
            c = parent
        chain.reverse()
        gframes = []
        for fid in chain:
            f = frames[fid]
            if f["sset"] is not None or f["name"] and f["mapping"] is None:
                gframes.append(syms.get(f["sset"], (f["name"], None, None)))
            elif f["name"] and not f["name"].startswith("0x"):
                gframes.append((f["name"], None, None))
            else:
                gframes.append((f["mapping"], f["rel_pc"]))
        if helper and any(g[0] == helper for g in gframes):
            fail("allocation at %d ns: trace_processor's frames hold %s: %s" % (ts, helper, gframes))
        if tuple(gframes) != wframes:
            fail("allocation at %d ns (stack %d): trace_processor's frames %s, pfdump's %s"
                 % (ts, sid, gframes, list(wframes)))
        for fid in chain:
            f = frames[fid]
            nframes += 1
            if f["mapping"] is None or not mappings:
                continue
            nmapped += 1
            if not f["build_id"]:
                fail("frame %d of mapping '%s' has no build-id" % (fid, f["mapping"]))
            if f["end"] <= f["start"]:
                fail("mapping '%s': start %#x, end %#x" % (f["mapping"], f["start"], f["end"]))
            pc = f["start"] + f["rel_pc"] - f["load_bias"] - f["exact_offset"] + f["start_offset"]
            if not f["start"] <= pc < f["end"]:
                fail("mapping '%s' [%#x, %#x) (load_bias %#x, exact_offset %#x): rel_pc %#x is at pc %#x, "
                     "outside it" % (f["mapping"], f["start"], f["end"], f["load_bias"], f["exact_offset"],
                                     f["rel_pc"], pc))
        if symbols:
            own = [g for g in gframes if len(g) == 3 and g[1] and not g[1].startswith(".")]
            if not own or any(not (g[0] and g[1] and g[2]) for g in own):
                fail("allocation at %d ns: frames without function, file or line: %s" % (ts, gframes))
        per_stack[sid] += size
        per_callsite[cs] += weight
        if pair.setdefault(sid, cs) != cs:
            fail("callstack %d is callsites %s and %s" % (sid, pair[sid], cs))
    if sorted(per_stack.values()) != sorted(per_callsite.values()):
        fail("bytes per callstack %s, weights per callsite %s" % (dict(per_stack), dict(per_callsite)))
    print(json.dumps(dict(allocations=len(want), callsites=len(per_callsite), frames=nframes,
                          mapped=nmapped, bytes=sum(per_stack.values())), sort_keys=True))


if __name__ == "__main__":
    main()
