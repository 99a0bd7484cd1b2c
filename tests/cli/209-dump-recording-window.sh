# A recording window (a flight recorder's snapshot): zones begun before it
# (type 32) list as zone begins at its start, marked, and end as zones;
# zones still open at its end (type 33) end there, marked; the trigger
# (type 31) shows its reason and snapshot; --stats gives the window, the
# frames before it, the events the ring let go and the cut zones.
. "$PROFEV_ROOT/tests/cli/lib.sh"
"$MKTRACE" window w.bin || fail "mktrace window"
expect_exit 0 pfdump w.bin
cp out.txt list.txt
contains list.txt "   10.000000000  main(100)              zone_begin  frame [game]  (begun before the window)"
contains list.txt "   10.000000000  loader(101)            zone_begin  load [game]  (begun before the window)"
contains list.txt "   10.500000000  main(100)              zone_end    update [game]  500000.000 us"
contains list.txt "   11.000000000  main(100)              trigger     hitch (snapshot 1)"
contains list.txt "   13.000000000  main(100)              zone_end    render [game]  1999997.000 us  (still open at the window's end)"
contains list.txt "   13.000000000  loader(101)            zone_end    load [game]  3000000.000 us  (still open at the window's end)"
lacks list.txt "never closed"
lacks list.txt "unknown"

expect_exit 0 pfdump --jsonl w.bin
python3 - out.txt <<'PY' || fail "JSON Lines of the window"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
edges = [(e["ts"], e["type"], e["name"], e["duration_ns"] if "duration_ns" in e else None)
         for e in ev if e.get("window_edge")]
assert edges == [(10000000000, "zone_begin", "frame", None), (10000000000, "zone_begin", "update", None),
                 (10000000000, "zone_begin", "load", None),
                 (13000000000, "zone_end", "render", 1999997000),
                 (13000000000, "zone_end", "load", 3000000000)], edges
trig = [e for e in ev if e["type"] == "trigger"]
assert trig == [{"ts": 11000000000, "tid": 100, "thread": "main", "type": "trigger", "reason": "hitch",
                 "snapshot": 1, "frame": 601}], trig
# the zones begun before the window end as zones: their ends have durations
ends = [(e["name"], e["duration_ns"]) for e in ev if e["type"] == "zone_end" and not e.get("window_edge")]
assert ends[:2] == [("update", 500000000), ("frame", 500001000)], ends
assert all(e["category"] == "game" for e in ev if e["type"].startswith("zone"))
PY

expect_exit 0 pfdump --stats w.bin
cp out.txt stats.txt
contains stats.txt "window:       10.000 s to 13.000 s of the run (snapshot 1), 600 frames before it, 123456 events let go by the ring"
contains stats.txt "trigger:      'hitch' at 11.000 s on thread 100 (main) (snapshot 1)"
contains stats.txt "cut zones:    3 begun before the window, 2 still open at its end"
contains stats.txt "  trigger                 1"
contains stats.txt "  zone_before             3"
contains stats.txt "  zone_after              2"
lacks stats.txt "never closed"
lacks stats.txt "without a begin"
