# Rich events through pfconv into Perfetto's trace_processor, from both
# targets: arguments in the args table with their values, source locations
# (Perfetto), the cross-thread flow from "spawn" on main to "job" on the
# worker in the flow table, the two overlapping "load" spans on tracks of
# their own (the first ended on the worker), and a "wait: the lock" slice
# for every acquisition on the waiting thread, each contended one naming
# another thread as the holder (also when the holder's events reach the
# file after the waiter's, as under load), and the one frame of the discontinuous set
# "render". The program is tests/cli/rich-prog.c.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
. "$PROFEV_ROOT/tests/cli/tp-lib.sh"
tp_need

build_prog rich < "$PROFEV_ROOT/tests/cli/rich-prog.c"
expect_exit 0 pfrec -q -o rich.bin ./rich did.txt
set -- $(grep '^LOCKS' did.txt)
acq=$2 contended=$3 hold_ns=$(($5 * 1000))
outer_line=$(sed -n 's/^ZONE main outer - main rich.c //p' did.txt)
expect_exit 0 pfconv -q to perfetto rich.bin -o rich.pftrace
fields_known rich.pftrace
expect_exit 0 pfconv -q to chrome rich.bin -o rich.json

for f in rich.pftrace rich.json; do
	tp_import_ok "$f"
	case $f in *.json) p=args ;; *) p=debug ;; esac
	# Arguments of "outer" and "inner", each on its own zone.
	got=$(tp_sql "$f" "select a.key || '=' || a.display_value as v from slice s join args a using (arg_set_id)
		where s.name in ('outer', 'inner') and a.key in ('$p.i', '$p.imin', '$p.u', '$p.d', '$p.yes',
		'$p.no', '$p.s', '$p.sn', '$p.depth', '$p.after', '$p.value', '$p.color')
		order by s.name, a.key" | tr -d '"' | tr '\n' ' ')
	want="$p.depth=2 $p.after=3 $p.color=16744448 $p.d=0.1 $p.i=-5 $p.imin=-9223372036854775808 $p.no=false $p.s=hello $p.sn=abc $p.u=18446744073709551615 $p.value=42 $p.yes=true "
	[ "$got" = "$want" ] || fail "$f: the zones' args are '$got', not '$want'"
	# Arguments of instants and a message (PROFEV_NEXT_ARG_*), and none
	# of the one that no instant followed.
	got=$(tp_sql "$f" "select s.name || ':' || a.key || '=' || a.display_value as v from slice s
		join args a using (arg_set_id) where s.name in ('marked', 'red', 'top') and a.key like '$p.%'
		and a.key != '$p.text' order by s.name, a.key" | tr -d '"' | tr '\n' ' ')
	want="marked:$p.n=-7 marked:$p.why=because marked:$p.x=2.5 red:$p.color=16711680 top:$p.top=true "
	[ "$got" = "$want" ] || fail "$f: the instants' and message's args are '$got', not '$want'"
	got=$(tp_value "$f" "select count(*) as v from args where key = '$p.stray'")
	[ "$got" = 0 ] || fail "$f: the stray argument was attached somewhere"
	n=$(tp_value "$f" "select length(a.display_value) as v from slice s join args a using (arg_set_id)
		where s.name = 'outer' and a.key = '$p.big'")
	[ "$n" = 1024 ] || fail "$f: the long string argument has $n bytes, not 1024"
	# The flow crosses threads.
	got=$(tp_sql "$f" "select so.name || '@' || t1.name || ' -> ' || si.name || '@' || t2.name as v from flow
		join slice so on so.id = flow.slice_out join thread_track a on a.id = so.track_id
		join thread t1 on t1.utid = a.utid
		join slice si on si.id = flow.slice_in join thread_track b on b.id = si.track_id
		join thread t2 on t2.utid = b.utid where si.name = 'job' and so.name = 'spawn'" | tr -d '"')
	[ "$got" = "spawn@main -> job@worker" ] || fail "$f: no flow from spawn on main to job on the worker: '$got'"
	# Two spans of "load" that overlap, on two tracks.
	got=$(tp_value "$f" "select count(distinct a.track_id) || ' ' || count(*) || ' ' ||
		(max(a.ts) < min(a.ts + a.dur)) as v from slice a where a.name = 'load' and a.dur > 0")
	[ "$got" = "2 2 1" ] || fail "$f: the load spans (tracks, spans, overlap) are '$got', not '2 2 1'"
	# A wait per acquisition, on the waiting thread; a contended one names
	# another thread as the holder.
	got=$(tp_value "$f" "select count(*) as v from slice s join thread_track tt on tt.id = s.track_id
		join thread t using (utid) where s.name = 'wait: the lock' and t.name like 'locker %'")
	[ "$got" = "$acq" ] || fail "$f: $got wait slices on the lockers' threads, not $acq"
	got=$(tp_value "$f" "select count(*) as v from slice s join thread_track tt on tt.id = s.track_id
		join thread t using (utid) join args a on a.arg_set_id = s.arg_set_id
		where s.name = 'wait: the lock' and s.dur >= $hold_ns and a.key = '$p.holder'
		and a.display_value like 'locker %' and a.display_value != t.name")
	[ "$got" -eq "$contended" ] ||
		fail "$f: $got of the $contended contended waits name another locker as the holder"
	# The discontinuous frame of set "render": a frame of its own track
	# (Perfetto) or thread (Chrome JSON).
	case $f in
	*.json) q="select count(*) as v from slice s join thread_track tt on tt.id = s.track_id
		join thread th using (utid) where th.name = 'Frames: render' and s.name = 'Frame 0'" ;;
	*) q="select count(*) as v from slice s join track t on t.id = s.track_id
		where t.name = 'Frames: render' and s.name = 'Frame 0'" ;;
	esac
	got=$(tp_value "$f" "$q")
	[ "$got" = 1 ] || fail "$f: $got frames of the discontinuous set 'render', not 1"
done

# Perfetto: the source locations of the zones.
got=$(tp_value rich.pftrace "select group_concat(a.key || '=' || a.display_value, ' ') as v from slice s
	join args a using (arg_set_id) where s.name = 'outer' and a.key like 'source.%'")
case $got in
*"source.file_name=rich.c"*"source.function_name=main"*"source.line_number=$outer_line"*) ;;
*) fail "rich.pftrace: the outer zone's source location is '$got', not rich.c:$outer_line in main" ;;
esac
