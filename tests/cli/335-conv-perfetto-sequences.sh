# pfconv to perfetto writes each thread and frame set on a packet sequence
# of its own, with its track and an incremental clock as the sequence's
# defaults: half the bytes of one shared sequence. Checked by our reading
# of Perfetto's rules (conv-check.py) and by Perfetto's trace_processor
# against pfdump, to the ns: 64 threads (past the 64 that the zone-name
# cache keeps a bit for), their parts and a window; times that would go
# back on a thread's clock, which are written whole; the size per event.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/tp-lib.sh"
mkdir -p t335 && cd t335 || exit 1 # tests share one scratch directory
CHECK="python3 $PROFEV_ROOT/tests/cli/conv-check.py"
PROTOS=$PROFEV_ROOT/formats/perfetto
decode() {
	protoc --decode=perfetto.protos.Trace -I "$PROTOS" "$PROTOS/trace.proto" < "$1" > "$1.txt" ||
		fail "protoc could not decode $1"
}

# The game trace of the benchmark, small: at most 15.1 bytes per event
# (13 before every packet of a track sequence carried
# SEQ_NEEDS_INCREMENTAL_STATE, as its TracePacketDefaults require; 22.2 on
# one sequence), one sequence per thread and frame set and one for the
# process.
"$MKTRACE" game game.bin 200000 4 || fail "mktrace"
expect_exit 0 pfconv -q to perfetto -o game.pftrace game.bin
$CHECK perfetto game.pftrace > /dev/null || fail "invalid perfetto output"
size=$(wc -c < game.pftrace)
[ "$size" -le $((200000 * 151 / 10)) ] || fail "$size bytes for 200000 events: over 15.1 bytes per event"
decode game.pftrace
# a sequence's first packet clears its state, no other does; every later
# packet of a track sequence needs it (SEQ_NEEDS_INCREMENTAL_STATE)
[ "$(grep -c 'sequence_flags: 1' game.pftrace.txt)" -eq 6 ] || fail "not 6 sequences"
[ "$(grep -c 'sequence_flags: 2' game.pftrace.txt)" -gt 190000 ] || fail "too few packets flagged as needing their sequence's state"
# Zone events carry no track_uuid: their sequence's default is their track
# (a frame set's too). Counters name theirs.
[ "$(grep -c 'type: TYPE_SLICE_END' game.pftrace.txt)" -gt 90000 ] || fail "too few slice ends"
named=$(awk '/^packet \{/ || /track_event \{/ { ty = "" } /type: TYPE_/ { ty = $2 }
	/track_uuid:/ && ty ~ /SLICE/ { n++ } END { print n + 0 }' game.pftrace.txt)
[ "$named" -eq 0 ] || fail "$named zone events name their track"

# 64 threads: 66 sequences, the last threads past the name cache's 64 bits.
"$MKTRACE" game many.bin 100000 64 || fail "mktrace"
expect_exit 0 pfconv -q to perfetto -o many.pftrace many.bin
$CHECK perfetto many.pftrace > /dev/null || fail "invalid perfetto output, 64 threads"
decode many.pftrace
[ "$(grep -c 'sequence_flags: 1' many.pftrace.txt)" -eq 66 ] || fail "not 66 sequences"
expect_exit 0 pfconv -q to perfetto --split-size 200K -o part.pftrace many.bin
[ -f part.002.pftrace ] || fail "the split wrote fewer than three parts"
$CHECK perfetto part.[0-9][0-9][0-9].pftrace > /dev/null || fail "invalid perfetto parts"

# Times that would go back on a thread's clock: written whole on the
# trace clock (timestamp_clock_id 6), the thread's clock left as it was:
# two counter values and a counter track's descriptor.
"$PROFEV_BUILD/tests/conv/t_conv" --write-clock-back back.bin || fail "t_conv --write-clock-back"
expect_exit 0 pfconv -q to perfetto -o back.pftrace back.bin
$CHECK perfetto back.pftrace > back.counts || fail "invalid perfetto output, clock going back"
contains back.counts '"counters": 7'
decode back.pftrace
[ "$(grep -c 'timestamp_clock_id: 6$' back.pftrace.txt)" -eq 3 ] || fail "not 3 times on the trace clock"

tp_need
tpcheck back.bin back.pftrace
contains check.out '"counters": 7'
tpcheck many.bin many.pftrace
contains check.out '"threads": 64'
tpcheck many.bin part.[0-9][0-9][0-9].pftrace
expect_exit 0 pfconv -q to perfetto --from 1ms --to 3ms -o win.pftrace many.bin
tpcheck --window 1000000 3000000 many.bin win.pftrace
