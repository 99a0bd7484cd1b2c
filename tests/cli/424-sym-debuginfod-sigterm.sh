# SIGTERM in the middle of a download (an endless body, no Content-Length)
# is taken as 419 takes SIGINT: pfsym ends within a few seconds, killed by
# the signal (exit status 143), leaves nothing partial in the debuginfod
# cache and no temporary output, and the user's files are as they were:
# the existing output with -o, and the trace itself when it is rewritten
# in place (no -o), its bytes and its mode.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/debuginfod-lib.sh"
hostile_need
sh "$PROFEV_ROOT/tests/sym/build.sh" fx >build.log 2>&1 || { cat build.log; fail "fixtures"; }
cd fx || fail "no fx"
./prog.stripped t.bin ./libfix.so || fail "fixture program failed"
rm -r dbg
cache=$DEBUGINFOD_CACHE_PATH
hostile_start endless

# term WHAT ARGS...: pfsym ARGS, stopped by SIGTERM once its download runs
term() {
	what=$1; shift
	pfsym --debuginfod "$HOSTILE_URL" "$@" 2>err.txt &
	pid=$!
	i=0
	while [ -z "$(find "$cache" -name 'debuginfo.*' 2>/dev/null)" ] && kill -0 $pid 2>/dev/null &&
		[ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	skip_without_libdebuginfod
	[ -n "$(find "$cache" -name 'debuginfo.*' 2>/dev/null)" ] ||
		{ kill -9 $pid 2>/dev/null; cat err.txt >&2; fail "$what: the download did not start"; }
	kill -TERM $pid
	i=0
	while kill -0 $pid 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
	kill -0 $pid 2>/dev/null && { kill -9 $pid; fail "$what: pfsym did not end within 20 s of SIGTERM"; }
	wait $pid
	rc=$?
	[ $rc -eq 143 ] || { cat err.txt >&2; fail "$what: pfsym exited $rc after SIGTERM, expected 143 (killed by SIGTERM)"; }
	ls | grep -q pfsym- && fail "$what: a temporary output was left after SIGTERM"
	[ -z "$(find "$cache" -name 'debuginfo*' 2>/dev/null)" ] ||
		{ find "$cache" -ls >&2; fail "$what: a partial file was left in the cache after SIGTERM"; }
}

printf 'an earlier output\n' >o.bin
term "-o" -o o.bin t.bin
[ "$(cat o.bin)" = "an earlier output" ] || fail "-o: the existing output changed after SIGTERM"

cp t.bin before.bin
chmod 640 t.bin
term "in place" t.bin
cmp -s t.bin before.bin || fail "in place: the trace changed after SIGTERM"
[ "$(stat -c %a t.bin)" = 640 ] || fail "in place: the trace's mode changed after SIGTERM"
hostile_stop
