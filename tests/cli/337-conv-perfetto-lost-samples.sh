# pfconv to perfetto with samples the kernel dropped (pfrec's sample_lost
# events): trace_processor counts them as data loss in its
# perf_cpu_lost_records stat, as for traced_perf's lost records, and the
# samples around them are still in perf_sample. pfdump --stats counts the
# same number.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/tp-lib.sh"
tp_need
"$MKTRACE" lost-samples lost.bin || fail "mktrace"
expect_exit 0 pfdump --stats lost.bin
grep -q "17 lost" out.txt || { cat out.txt >&2; fail "pfdump --stats does not count the 17 lost samples"; }
expect_exit 0 pfconv -q to perfetto -o lost.pftrace lost.bin
fields_known lost.pftrace
tp_import_ok lost.pftrace perf_cpu_lost_records
lost=$(tp_value lost.pftrace "select coalesce(sum(value), 0) from stats where name = 'perf_cpu_lost_records'")
[ "$lost" = 17 ] || fail "trace_processor counts $lost lost records, the trace 17"
n=$(tp_value lost.pftrace "select count(*) from perf_sample")
[ "$n" = 2 ] || fail "perf_sample holds $n samples, the trace 2"
# A window that ends before the loss leaves it out.
expect_exit 0 pfconv -q to perfetto --to 1500ns -o early.pftrace lost.bin
tp_import_ok early.pftrace
n=$(tp_value early.pftrace "select count(*) from perf_sample")
[ "$n" = 1 ] || fail "the window to 1.5 us holds $n samples, not the first alone"
