# A recording window in every target: a zone begun before the window
# begins at its start with the argument begun_before_window, a zone still
# open at its end ends there with open_after_window, the trigger is an
# instant named for its reason; trace_processor loads the Perfetto output
# with no import error, and neither a warning nor a dropped zone comes of it.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/tp-lib.sh"
"$MKTRACE" window w.bin || fail "mktrace window"
expect_exit 0 pfconv to chrome w.bin -o w.json
lacks err.txt "never closed"
lacks err.txt "without a begin"
python3 - w.json <<'PY' || fail "Chrome JSON of the window"
import json, sys
doc = json.load(open(sys.argv[1]), parse_constant=lambda c: sys.exit("constant " + c))
ev = [e for e in doc["traceEvents"] if e.get("ph") in ("B", "E", "X", "i", "I")]
before = sorted((e["name"], e["ts"]) for e in ev if e.get("args", {}).get("begun_before_window"))
assert before == [("frame", 10000000), ("load", 10000000), ("update", 10000000)], before
after = sorted(set(e["name"] for e in ev if e.get("args", {}).get("open_after_window")))
assert after == ["load", "render"], after
inst = [(e["name"], e["ts"]) for e in ev if e["ph"] in ("i", "I")]
assert ("hitch", 11000000) in inst, inst
PY
expect_exit 0 pfconv to folded w.bin -o w.folded
contains w.folded "loader (101);load 3000000000"
contains w.folded "main (100);frame;update 999996000"
contains w.folded "main (100);render 1999997000"

tp_need
expect_exit 0 pfconv to perfetto w.bin -o w.pftrace
tp_import_ok w.pftrace
[ "$(tp_value w.pftrace "select count(*) from slice s join args a using(arg_set_id)
	where a.key = 'debug.begun_before_window' and s.ts = 11000000000")" = 3 ] ||
	fail "three zones begun before the window, at its start: $(cat tp-out.csv)"
[ "$(tp_value w.pftrace "select group_concat(s.name) from (select s.name from slice s join args a using(arg_set_id)
	where a.key = 'debug.open_after_window' and s.ts + s.dur = 14000000000 order by s.name) s")" = "load,render" ] ||
	fail "two zones open after the window, ending at its end: $(cat tp-out.csv)"
[ "$(tp_value w.pftrace "select dur from slice where name = 'load'")" = 3000000000 ] || fail "load spans the window"
[ "$(tp_value w.pftrace "select count(*) from slice where name = 'hitch' and ts = 12000000000 and dur = 0")" = 1 ] ||
	fail "the trigger is an instant"
