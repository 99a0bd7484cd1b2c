# pfconv to perfetto, loaded by Perfetto's own trace_processor: the recorded
# example game imports without errors, and its threads, names and slices per
# thread (instants and messages aside) are the ones pfdump --stats counts.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/tp-lib.sh"
tp_need

expect_exit 0 pfrec -o game.bin -- "$PROFEV_BUILD/examples/game"
expect_exit 0 pfconv -q to perfetto -o game.pftrace game.bin
tp_import_ok game.pftrace

expect_exit 0 pfdump --stats game.bin
# "tid name... events zones active" rows of the threads table.
awk '/^threads:/ { t = 1; getline; next } t && NF == 0 { t = 0 }
	t { name = $2; for (i = 3; i <= NF - 4; i++) name = name " " $i; print $1 "," name "," $(NF - 2) }' \
	out.txt | sort > want.csv
[ "$(wc -l < want.csv)" -eq 6 ] || { cat out.txt >&2; fail "pfdump --stats lists $(wc -l < want.csv) threads, not 6"; }
tp_sql game.pftrace "select t.tid || ',' || t.name || ',' || count(s.id) from thread t
	join thread_track tt using (utid) join slice s on s.track_id = tt.id and s.dur > 0
	group by t.utid order by t.tid" | tr -d '"' | sort > got.csv
diff want.csv got.csv >&2 || fail "trace_processor's threads and slices per thread differ from pfdump --stats (< pfdump, > trace_processor)"
