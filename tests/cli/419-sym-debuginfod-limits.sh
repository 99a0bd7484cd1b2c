# Downloads have limits by default, and the options and DEBUGINFOD_MAXSIZE
# and DEBUGINFOD_MAXTIME set them: a huge Content-Length is refused at
# once, an endless body without one is cut off at the size limit, a redirect
# loop ends after 8 redirects, a 1 byte/s trickle at the time limit, and
# all the run's downloads together take at most twice that limit. Each case
# is told with the server, the build-id, what went wrong and the limit's
# source; it ends within 10 s and 512 MiB, and leaves nothing in the cache.
# SIGINT during a download ends pfsym within a few seconds (by the signal),
# with nothing partial in the cache, and an existing output left as it was.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/debuginfod-lib.sh"
hostile_need
sh "$PROFEV_ROOT/tests/sym/build.sh" fx >build.log 2>&1 || { cat build.log; fail "fixtures"; }
cd fx || fail "no fx"
./prog.stripped t.bin ./libfix.so || fail "fixture program failed"
strip --strip-debug libfix.so || fail "strip failed"   # two modules to fetch
id=$(cat prog.build-id)
libid=$(readelf -n libfix.so | sed -n 's/.*Build ID: *//p')
mod="'$PWD/prog.stripped'"
lib="'./libfix.so'"
mv dbg/.build-id/*/*.debug good.debug || fail "no debug file"
rm -r dbg
cache=$DEBUGINFOD_CACHE_PATH

# each case: exit 0, the module unresolved, nothing kept
after() { # CASE
	[ "$RC" = 0 ] || { cat err.txt >&2; fail "$1: exit $RC"; }
	contains err.txt "$mod: 0 resolved, 11 unresolved"
	[ -z "$(find "$cache" -name 'debuginfo*' 2>/dev/null)" ] ||
		{ find "$cache" -ls >&2; fail "$1: a file was left in the cache"; }
	rm -rf "$cache"
}

hostile_start huge
bounded 10 512 pfsym --debuginfod "$HOSTILE_URL" -o o.bin t.bin
skip_without_libdebuginfod
contains err.txt "pfsym: warning: $mod: build-id $id: debuginfod server '$HOSTILE_URL' announced 107374182400 bytes, over the size limit of 1073741824 bytes (the default): not fetched"
after "huge Content-Length"
bounded 10 512 pfsym --debuginfod-max-size 1M --debuginfod "$HOSTILE_URL" -o o.bin t.bin
contains err.txt "over the size limit of 1048576 bytes (--debuginfod-max-size): not fetched"
after "huge Content-Length, --debuginfod-max-size"
bounded 10 512 env DEBUGINFOD_MAXSIZE=1000000 pfsym --debuginfod "$HOSTILE_URL" -o o.bin t.bin
contains err.txt "over the size limit of 1000000 bytes (DEBUGINFOD_MAXSIZE): not fetched"
after "huge Content-Length, DEBUGINFOD_MAXSIZE"

hostile_start endless
bounded 10 512 pfsym --debuginfod-max-size 2M --debuginfod "$HOSTILE_URL" -o o.bin t.bin
contains err.txt "pfsym: warning: $mod: build-id $id: debuginfod server '$HOSTILE_URL' sent more than the size limit of 2097152 bytes (--debuginfod-max-size): cut off at "
after "endless body"

hostile_start redirects
bounded 10 512 pfsym --debuginfod "$HOSTILE_URL" -o o.bin t.bin
contains err.txt "pfsym: warning: $mod: build-id $id: debuginfod server '$HOSTILE_URL': too many redirects (more than 8): given up"
[ "$(hostile_requests "$id")" -le 12 ] || fail "$(hostile_requests "$id") requests for one file in a redirect loop"
after "redirect loop"

# the trickle: the first module at the time limit, the second at what is
# left of the run's budget (twice the limit)
hostile_start trickle good.debug
bounded 10 512 pfsym --debuginfod-max-time 2 --debuginfod "$HOSTILE_URL" -o o.bin t.bin
contains err.txt "pfsym: warning: $mod: build-id $id: debuginfod server '$HOSTILE_URL' took more than the time limit of 2 s (--debuginfod-max-time): given up after "
contains err.txt "pfsym: warning: $lib: build-id $libid: debuginfod server '$HOSTILE_URL': given up after "
contains err.txt "bytes, the time budget of this run's downloads (4 s, twice the time limit of --debuginfod-max-time) is spent"
after "trickle"
bounded 10 512 env DEBUGINFOD_MAXTIME=1 pfsym --debuginfod "$HOSTILE_URL" -o o.bin t.bin
contains err.txt "took more than the time limit of 1 s (DEBUGINFOD_MAXTIME)"
after "trickle, DEBUGINFOD_MAXTIME"

# SIGINT in the middle of an endless download: the existing output stays
hostile_start endless
cp o.bin before.bin || fail "no output before"
pfsym --debuginfod "$HOSTILE_URL" -o o.bin t.bin 2>err.txt &
pid=$!
i=0
while [ -z "$(find "$cache" -name 'debuginfo.*' 2>/dev/null)" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ $i -lt 100 ] || fail "the download did not start"
kill -INT $pid
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 $pid 2>/dev/null && { kill -9 $pid; fail "pfsym did not end within 5 s of SIGINT"; }
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "pfsym exited $rc after SIGINT, expected 130 (killed by SIGINT)"
cmp -s o.bin before.bin || fail "the existing output changed after SIGINT"
ls | grep -q pfsym- && fail "a temporary output was left after SIGINT"
[ -z "$(find "$cache" -name 'debuginfo*' 2>/dev/null)" ] ||
	{ find "$cache" -ls >&2; fail "a partial file was left in the cache after SIGINT"; }
hostile_stop
