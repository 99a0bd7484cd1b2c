#!/usr/bin/env python3
"""Check pfconv outputs for validity and meaning; print their counts as JSON.

usage: conv-check.py perfetto|chrome|folded FILE...

perfetto: decoded with protoc against formats/perfetto (a failure or an
  unknown field fails); packet sequences by the rules of Perfetto's
  trace_packet.proto: each one's first packet clears its incremental state
  (SEQ_INCREMENTAL_STATE_CLEARED) and no later one does;
  TracePacketDefaults (the default track and clock) only on that first
  packet, and then SEQ_NEEDS_INCREMENTAL_STATE on every later packet of
  the sequence; that flag also on every packet that refers to interned
  data (names, categories, source locations, annotation names,
  callstacks); a packet without a sequence uses no incremental state; a timestamp on every packet but that one, on the trace clock or
  the sequence's incremental clock, which a ClockSnapshot on the sequence
  started (a delta from the packet before that used it), and times
  computed so; every track described and every interned id (names,
  categories, callstacks and the frames, mappings and strings they refer
  to) defined on the packet's own sequence before use, and never defined
  again with another value anywhere in the file; callstacks only on
  sequence 1; slices balanced and in time order per track; memory counters
  on size counter tracks.
chrome: parsed by Python's strict json (no NaN); B/E matched per thread in
  order; X events properly nested per thread; every "sf" names a
  stackFrames entry whose parent chain ends at a root. Nesting that
  viewers computing in doubles read exactly: no X event ends at the time
  of another zone boundary on its thread (its end, ts + dur, is a sum a
  viewer may round either way), and no X event begins at the time of a B
  event on its thread (viewers order the two forms differently there).

Memory: "live" holds each pool's last live-bytes value, "allocs" and
"alloc_bytes" the allocations with their sizes; "stacks_used"
lists the callstacks events refer to, outermost frame first, frames joined
by ";" (Chrome: by name; Perfetto: by function name, else
mapping+0xrel_pc, the address pfsym resolves: a return address less one).
folded: "frame;frame weight" lines with positive integer weights.

Several FILEs are parts of one split conversion: each must be complete on
its own; the counts are summed.
"""
import collections
import decimal
import json
import os
import re
import subprocess
import sys
import tempfile


def fail(msg):
    sys.stderr.write("conv-check: %s\n" % msg)
    sys.exit(1)


# ---- Perfetto ----

def packets(lines):
    """protoc's text output, one top-level packet at a time, as nested dicts
    of lists; streaming keeps big traces' memory small."""
    stack = []
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if line == "}":
            node = stack.pop()
            if not stack:
                yield node
            continue
        if line.endswith("{"):
            key = line[:-1].strip()
            node = collections.defaultdict(list)
            if stack:
                stack[-1][key].append(node)
            elif key != "packet":
                fail("Trace field %s" % key)
            stack.append(node)
            continue
        if not stack:
            fail("Trace field outside a packet: %s" % line)
        key, _, value = line.partition(": ")
        if value.startswith('"'):
            value = value[1:-1]
        stack[-1][key].append(value)
    if stack:
        fail("unbalanced protoc output")


def one(node, key, default=None):
    v = node.get(key)
    return v[0] if v else default


def check_perfetto(path, counts):
    root = os.environ.get("PROFEV_ROOT", ".")
    protos = os.path.join(root, "formats", "perfetto")
    with open(path, "rb") as f, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(["protoc", "--decode=perfetto.protos.Trace", "-I", protos,
                              os.path.join(protos, "trace.proto")],
                             stdin=f, stdout=subprocess.PIPE, stderr=err)
        lines = (line.decode() for line in p.stdout)
        check_packets(path, lines, counts)
        rc = p.wait()
        err.seek(0)
        msg = err.read().decode(errors="replace").strip()
    if rc != 0 or msg:
        fail("%s: protoc: %s" % (path, msg))


UNKNOWN = re.compile(r"^\s*(\d+)(:| \{)")

# Fields that refer to interned data, wherever they are in a packet.
INTERNED_REFS = {"name_iid", "category_iids", "source_location_iid", "callstack_iid"}


def uses_interned(node):
    for key, values in node.items():
        if key == "interned_data":
            continue # definitions; what refers to them is elsewhere
        if key in INTERNED_REFS:
            return True
        for v in values:
            if isinstance(v, dict) and uses_interned(v):
                return True
    return False


def check_packets(path, lines, counts):
    def known(lines):
        for line in lines:
            if UNKNOWN.match(line):
                fail("%s: field unknown to formats/perfetto: %s" % (path, line.strip()))
            yield line
    tracks = {}          # uuid -> kind
    track_names = {}
    # Interned profiling data: table -> iid -> value, for the whole file
    # (a value may be defined again after a reset, but never changed).
    tables = collections.defaultdict(dict)
    depth = collections.Counter()
    last_ts = {}
    live = counts.setdefault("live", {})
    used = counts.setdefault("stacks_used", set())

    def define(where, table, entry, value):
        iid = one(entry, "iid")
        if not iid or iid == "0":
            fail(where + ": %s without an iid" % table)
        old = tables[table].get(iid)
        if old is not None and old != value:
            fail(where + ": %s iid %s defined again as %r, was %r" % (table, iid, value, old))
        tables[table][iid] = value
        defined[table].add(iid)

    def need(where, table, iid):
        if iid not in defined[table]:
            fail(where + ": %s iid %s used before its definition" % (table, iid))

    def frame_name(iid):
        fr = tables["frames"][iid]
        if fr.get("function_name_id"):
            return tables["function_names"][fr["function_name_id"]]
        mp = tables["mappings"][fr["mapping_id"]]
        return mp["path"].rsplit("/", 1)[-1] + "+0x%x" % int(fr["rel_pc"])

    # Per sequence: its interning, default track and clock, its clocks
    # (clock id -> [last value, offset to the trace clock, incremental]).
    seqs = {}
    for i, pk in enumerate(packets(known(lines))):
        where = "%s: packet %d" % (path, i)
        seq = one(pk, "trusted_packet_sequence_id")
        if seq is None or seq == "0":
            # No sequence, no incremental state: only what stands alone
            # (the kernel's sched_switch events, as traced writes them).
            if set(pk) - {"ftrace_events"}:
                fail(where + ": no packet sequence")
            continue
        flags = int(one(pk, "sequence_flags", "0"))
        first = seq not in seqs
        if first:
            if not flags & 1:
                fail(where + ": first packet of sequence %s does not clear its state (flags %d)" % (seq, flags))
            seqs[seq] = {"names": set(), "cats": set(), "defined": collections.defaultdict(set),
                         "clocks": {}, "clock": None, "track": None, "defaults": False,
                         "srclocs": set(), "annames": set()}
        elif flags & 1:
            fail(where + ": sequence %s cleared again" % seq)
        if flags & ~3:
            fail(where + ": unknown sequence_flags %d" % flags)
        sq = seqs[seq]
        if sq["defaults"] and not flags & 2:
            fail(where + ": no SEQ_NEEDS_INCREMENTAL_STATE after sequence %s set TracePacketDefaults" % seq)
        if not flags & 2 and uses_interned(pk):
            fail(where + ": refers to interned data without SEQ_NEEDS_INCREMENTAL_STATE")
        names, cats, defined = sq["names"], sq["cats"], sq["defined"]
        for d in pk.get("trace_packet_defaults", []):
            if not first:
                fail(where + ": TracePacketDefaults after sequence %s began" % seq)
            sq["defaults"] = True
            sq["clock"] = one(d, "timestamp_clock_id")
            for ted in d.get("track_event_defaults", []):
                sq["track"] = one(ted, "track_uuid")
        for cs in pk.get("clock_snapshot", []):
            clocks = {one(k, "clock_id"): (int(one(k, "timestamp")), one(k, "is_incremental") == "true")
                      for k in cs.get("clocks", [])}
            boot = clocks.get("6")
            for cid, (value, incremental) in clocks.items():
                if int(cid) >= 64:
                    if boot is None:
                        fail(where + ": clock %s not related to BOOTTIME" % cid)
                    sq["clocks"][cid] = [value, boot[0] - value, incremental]
        clock = one(pk, "timestamp_clock_id", sq["clock"])
        if one(pk, "timestamp") is None:
            if pk.get("track_event") or pk.get("track_descriptor") or pk.get("interned_data"):
                fail(where + ": no timestamp")
            continue
        ts = int(one(pk, "timestamp"))
        if clock is not None and clock != "6":
            k = sq["clocks"].get(clock)
            if k is None:
                fail(where + ": timestamp on clock %s, which sequence %s has no snapshot of" % (clock, seq))
            if k[2]:
                k[0] += ts
                ts = k[0]
            ts += k[1]
        for idata in pk.get("interned_data", []):
            for e in idata.get("event_names", []):
                names.add(one(e, "iid"))
            for e in idata.get("event_categories", []):
                cats.add(one(e, "iid"))
            for e in idata.get("source_locations", []):
                sq["srclocs"].add(one(e, "iid"))
            for e in idata.get("debug_annotation_names", []):
                sq["annames"].add(one(e, "iid"))
            if seq != "1" and any(idata.get(t) for t in ("callstacks", "frames", "mappings")):
                fail(where + ": callstacks interned on sequence %s, not 1" % seq)
            for table in ("function_names", "source_paths", "build_ids", "mapping_paths"):
                for e in idata.get(table, []):
                    define(where, table, e, one(e, "str"))
            for e in idata.get("mappings", []):
                for p in e.get("path_string_ids", []):
                    need(where, "mapping_paths", p)
                if one(e, "build_id"):
                    need(where, "build_ids", one(e, "build_id"))
                path = "/" + "/".join(tables["mapping_paths"][p] for p in e.get("path_string_ids", []))
                define(where, "mappings", e, {"path": path, "build_id": tables["build_ids"].get(one(e, "build_id"))})
            for e in idata.get("frames", []):
                fr = {k: one(e, k) for k in ("function_name_id", "mapping_id", "rel_pc",
                                             "source_path_iid", "line_number")}
                if fr["function_name_id"]:
                    need(where, "function_names", fr["function_name_id"])
                if fr["source_path_iid"]:
                    need(where, "source_paths", fr["source_path_iid"])
                if fr["mapping_id"]:
                    need(where, "mappings", fr["mapping_id"])
                    if fr["rel_pc"] is None:
                        fail(where + ": frame with a mapping but no rel_pc")
                elif not fr["function_name_id"]:
                    fail(where + ": frame with neither mapping nor name")
                define(where, "frames", e, fr)
            for e in idata.get("callstacks", []):
                ids = e.get("frame_ids", [])
                if not ids:
                    fail(where + ": empty callstack")
                for f in ids:
                    need(where, "frames", f)
                define(where, "callstacks", e, tuple(ids))
        for td in pk.get("track_descriptor", []):
            uuid = one(td, "uuid")
            kind = "thread" if "thread" in td else "process" if "process" in td else \
                "counter" if "counter" in td else "frames"
            track_names[uuid] = one(td, "name", "")
            if track_names[uuid].startswith("memory: "):
                if kind != "counter" or one(td["counter"][0], "unit") != "UNIT_SIZE_BYTES":
                    fail(where + ": memory track %s not a size counter" % uuid)
                kind = "memory"
            elif track_names[uuid] == "allocations":
                kind = "allocations"
            if kind == "thread":
                th = td["thread"][0]
                counts["threads"].add(one(th, "thread_name", "") + "/" + one(th, "tid"))
            tracks[uuid] = kind
        for te in pk.get("track_event", []):
            uuid = one(te, "track_uuid", sq["track"])
            if uuid not in tracks:
                fail(where + ": event on undescribed track %s" % uuid)
            if one(te, "name_iid") and one(te, "name_iid") not in names:
                fail(where + ": name iid %s not defined" % one(te, "name_iid"))
            for c in te.get("category_iids", []):
                if c not in cats:
                    fail(where + ": category iid %s not defined" % c)
            if one(te, "source_location_iid") and one(te, "source_location_iid") not in sq["srclocs"]:
                fail(where + ": source location iid %s not defined" % one(te, "source_location_iid"))
            for a in te.get("debug_annotations", []):
                if one(a, "name_iid") and one(a, "name_iid") not in sq["annames"]:
                    fail(where + ": debug annotation name iid %s not defined" % one(a, "name_iid"))
            if one(te, "callstack_iid"):
                need(where, "callstacks", one(te, "callstack_iid"))
                used.add(";".join(frame_name(f) for f in tables["callstacks"][one(te, "callstack_iid")]))
                counts["callstacks"] += 1
            # Counters get values from every thread, so only thread and frame
            # tracks are in time order in the file (trace_processor sorts).
            if tracks[uuid] not in ("counter", "memory", "allocations") and ts < last_ts.get(uuid, 0):
                fail(where + ": time goes back on track %s" % uuid)
            last_ts[uuid] = ts
            notes = [one(a, "name") for a in te.get("debug_annotations", [])]
            t = one(te, "type")
            if t == "TYPE_SLICE_BEGIN":
                depth[uuid] += 1
                if tracks[uuid] == "thread":
                    counts["zones"] += 1
                else:
                    counts["frames"] += 1
            elif t == "TYPE_SLICE_END":
                depth[uuid] -= 1
                if depth[uuid] < 0:
                    fail(where + ": slice end without begin on track %s" % uuid)
                counts["unclosed"] += "unclosed" in notes
                counts["cut"] += "cut" in notes
            elif t == "TYPE_INSTANT" and tracks[uuid] == "allocations":
                sizes = [one(a, "uint_value") for a in te.get("debug_annotations", [])
                         if one(a, "name") == "bytes"]
                if len(sizes) != 1:
                    fail(where + ": allocation without its size")
                counts["allocs"] += 1
                counts["alloc_bytes"] += int(sizes[0])
            elif t == "TYPE_COUNTER" and tracks[uuid] == "memory":
                if one(te, "counter_value") is None:
                    fail(where + ": memory counter without an integer value")
                counts["memory"] += 1
                live[track_names[uuid][len("memory: "):]] = int(one(te, "counter_value"))
            elif t == "TYPE_INSTANT":
                if "text" in notes:
                    counts["messages"] += 1
                elif one(te, "name") == "lost events":
                    counts["lost"] += 1
                else:
                    counts["instants"] += 1
            elif t == "TYPE_COUNTER":
                if tracks[uuid] != "counter" or (one(te, "double_counter_value") is None and
                                                 one(te, "counter_value") is None):
                    fail(where + ": bad counter event")
                counts["counters"] += 1
            else:
                fail(where + ": event type %s" % t)
    for uuid, d in depth.items():
        if d:
            fail("%s: track %s left with %d open slices" % (path, uuid, d))


# ---- Chrome ----

def no_constants(name):
    raise ValueError("not JSON: %s" % name)


def check_chrome(path, counts):
    with open(path, "rb") as f:
        raw = f.read()
    try:
        doc = json.loads(raw.decode("utf-8"), parse_float=decimal.Decimal,
                         parse_constant=no_constants)
    except (ValueError, UnicodeDecodeError) as e:
        fail("%s: %s" % (path, e))
    events = doc.get("traceEvents") if isinstance(doc, dict) else None
    if not isinstance(events, list):
        fail("%s: no traceEvents array" % path)
    frames_dict = doc.get("stackFrames", {})
    if not isinstance(frames_dict, dict):
        fail("%s: stackFrames is not an object" % path)
    live = counts.setdefault("live", {})
    used = counts.setdefault("stacks_used", set())

    def chain(sf, where):
        names, seen = [], set()
        while sf is not None:
            if sf in seen:
                fail(where + ": stackFrames loop at %r" % sf)
            seen.add(sf)
            node = frames_dict.get(sf)
            if not isinstance(node, dict) or not isinstance(node.get("name"), str):
                fail(where + ": sf %r not in stackFrames" % sf)
            names.append(node["name"])
            sf = node.get("parent")
        return ";".join(reversed(names))
    open_b = collections.defaultdict(list)
    spans = collections.defaultdict(list)
    # per thread: times of every zone boundary, of X ends, of B events
    bounds = collections.defaultdict(collections.Counter)
    x_ends = collections.defaultdict(list)
    b_times = collections.defaultdict(set)
    for i, e in enumerate(events):
        where = "%s: event %d" % (path, i)
        ph = e.get("ph")
        if ph not in ("B", "E", "X", "i", "C", "M", "O"):
            fail(where + ": ph %r" % ph)
        if ph == "O":
            # A frame image: a DevTools filmstrip screenshot, base64 JPEG.
            if (e.get("name") != "Screenshot" or e.get("cat") != "disabled-by-default-devtools.screenshot"
                    or not isinstance(e.get("id"), str)):
                fail(where + ": screenshot %r" % {k: v for k, v in e.items() if k != "args"})
            import base64
            jpg = base64.b64decode(e.get("args", {}).get("snapshot", ""), validate=True)
            if jpg[:3] != b"\xff\xd8\xff":
                fail(where + ": snapshot is not a JPEG")
            counts["images"] += 1
        if ph != "M" and not isinstance(e.get("ts"), (int, decimal.Decimal)):
            fail(where + ": no ts")
        key = (e.get("pid"), e.get("tid"))
        frames = isinstance(e.get("tid"), int) and e["tid"] >= 1000000000
        args = e.get("args", {})
        if ph == "B":
            open_b[key].append(e["ts"])
            bounds[key][e["ts"]] += 1
            b_times[key].add(e["ts"])
        elif ph == "E":
            if not open_b[key]:
                fail(where + ": E without B on thread %s" % (key,))
            b = open_b[key].pop()
            if e["ts"] < b:
                fail(where + ": E before its B")
            spans[key].append((b, e["ts"] - b))
            bounds[key][e["ts"]] += 1
        elif ph == "X":
            if e["dur"] < 0:
                fail(where + ": negative dur")
            spans[key].append((e["ts"], e["dur"]))
            bounds[key][e["ts"]] += 1
            if e["dur"]:
                bounds[key][e["ts"] + e["dur"]] += 1
                x_ends[key].append((e["ts"], e["ts"] + e["dur"], e.get("name")))
        if ph in ("B", "X"):
            counts["frames" if frames else "zones"] += 1
        if ph in ("E", "X"):
            counts["unclosed"] += bool(args.get("unclosed"))
            counts["cut"] += bool(args.get("cut"))
        if ph == "i":
            if e.get("s") == "p":
                if set(args) != {"bytes"} or not isinstance(args["bytes"], int):
                    fail(where + ": allocation args %r" % args)
                counts["allocs"] += 1
                counts["alloc_bytes"] += args["bytes"]
            elif "text" in args:
                counts["messages"] += 1
            elif e.get("name") == "lost events":
                counts["lost"] += 1
            else:
                counts["instants"] += 1
        if "sf" in e:
            used.add(chain(e["sf"], where))
            counts["callstacks"] += 1
        if ph == "C" and e.get("name", "").startswith("memory: "):
            if set(args) != {"bytes"} or not isinstance(args["bytes"], int):
                fail(where + ": memory counter args %r" % args)
            counts["memory"] += 1
            live[e["name"][len("memory: "):]] = args["bytes"]
        elif ph == "C":
            counts["counters"] += 1
        if ph == "M" and e.get("name") == "thread_name" and not frames:
            counts["threads"].add(args["name"] + "/" + str(e["tid"]))
    for key, st in open_b.items():
        if st:
            fail("%s: thread %s left with %d B events without E" % (path, key, len(st)))
    for key, ends in x_ends.items():
        for ts, end, name in ends:
            if bounds[key][end] > 1:
                fail("%s: X event '%s' on thread %s ends at %s, the time of another zone boundary"
                     % (path, name, key, end))
            if ts in b_times[key]:
                fail("%s: X event '%s' on thread %s begins at %s, the time of a B event"
                     % (path, name, key, ts))
    # Nesting: sorted by start, then longest first, each span must end
    # inside the spans still open around it.
    for key, sp in spans.items():
        sp.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for ts, dur in sp:
            end = ts + dur
            while stack and stack[-1] <= ts and not (stack[-1] == ts and dur == 0):
                stack.pop()
            if stack and end > stack[-1]:
                fail("%s: zone at %s on thread %s overlaps its parent" % (path, ts, key))
            stack.append(end)


# ---- folded ----

LINE = re.compile(r"^(?P<stack>[^\n]+) (?P<w>[0-9]+)$")


def check_folded(path, counts):
    with open(path, "rb") as f:
        text = f.read().decode("utf-8")
    seen = set()
    for n, line in enumerate(text.split("\n")[:-1], 1):
        m = LINE.match(line)
        if not m or int(m.group("w")) <= 0:
            fail("%s:%d: not a folded line: %r" % (path, n, line))
        if "" in m.group("stack").split(";"):
            fail("%s:%d: empty frame" % (path, n))
        if m.group("stack") in seen:
            fail("%s:%d: stack repeated" % (path, n))
        seen.add(m.group("stack"))
        counts["stacks"] += 1
        counts["weight"] += int(m.group("w"))
    if text and not text.endswith("\n"):
        fail("%s: last line unterminated" % path)


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("perfetto", "chrome", "folded"):
        fail("usage: conv-check.py perfetto|chrome|folded FILE...")
    counts = collections.Counter()
    counts["threads"] = set()
    for path in sys.argv[2:]:
        {"perfetto": check_perfetto, "chrome": check_chrome, "folded": check_folded}[sys.argv[1]](path, counts)
    counts["threads"] = sorted(counts["threads"])
    for k in ("stacks_used",):
        if k in counts:
            counts[k] = sorted(counts[k])
    for k in ("live", "stacks_used"):
        if k in counts and not counts[k]:
            del counts[k]
    print(json.dumps(dict(counts), sort_keys=True))


main()
