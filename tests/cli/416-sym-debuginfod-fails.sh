# debuginfod failures leave the module unresolved with a warning naming
# the module, the build-id and the server, and pfsym still writes the trace
# (exit 0): no server configured (nothing asked, nothing said), --offline
# (nothing asked), a build-id the server does not have (404, then the
# cache's remembered miss), a port nobody listens on, a server that accepts
# and never answers (given up after DEBUGINFOD_TIMEOUT, not a hang).
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/debuginfod-lib.sh"
dfd_need
sh "$PROFEV_ROOT/tests/sym/build.sh" fx >build.log 2>&1 || { cat build.log; fail "fixtures"; }
cd fx || fail "no fx"
./prog.stripped t.bin ./libfix.so || fail "fixture program failed"
# the library's DWARF is not here either: two modules to fetch
strip --strip-debug libfix.so || fail "strip failed"
lib="'./libfix.so'"
id=$(cat prog.build-id)
mod="'$PWD/prog.stripped'"
unresolved="$mod: 0 resolved, 11 unresolved"
rm -r dbg
# the server has another build of the program only (bad/: build-id 0123...)
mkdir srv && mv bad/.build-id/*/*.debug srv/other.debug || fail "no debug file"
dfd_start srv 0123456789abcdef0123456789abcdef01234567

# in_time SECONDS CMD...: expect_exit 0 CMD, failing if it takes longer
in_time() {
	s=$1; shift
	timeout -k 2 "$s" "$@" >out.txt 2>err.txt
	rc=$?
	[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || fail "'$*' did not end within $s s"
	[ "$rc" -eq 0 ] || { cat err.txt >&2; fail "'$*' exited $rc, expected 0"; }
}

# no server configured: nothing asked, nothing said
before=$(dfd_requests)
expect_exit 0 pfsym -o n.bin t.bin
contains err.txt "$unresolved"
lacks err.txt "warning"
[ "$(dfd_requests)" -eq "$before" ] || fail "a server was asked"

# --offline: not asked either, and said why
expect_exit 0 env DEBUGINFOD_URLS="$DFD_URL" pfsym --offline -o o.bin t.bin
contains err.txt "pfsym: warning: $mod: build-id $id: not in the debuginfod cache, and offline: no server asked"
contains err.txt "$unresolved"
expect_exit 0 pfsym --offline --debuginfod "$DFD_URL" -o o2.bin t.bin
contains err.txt "offline: no server asked"
[ "$(dfd_requests)" -eq "$before" ] || fail "--offline asked a server"
[ ! -e "$DEBUGINFOD_CACHE_PATH/$id" ] || fail "--offline touched the cache"
cmp n.bin o.bin || fail "--offline changed the output"

# not on the server (404)
in_time 30 pfsym --debuginfod "$DFD_URL" -o f.bin t.bin
contains err.txt "pfsym: warning: $mod: build-id $id not found on debuginfod server '$DFD_URL'"
contains err.txt "$unresolved"
[ "$(dfd_requests)" -gt "$before" ] || fail "the server was not asked"
cmp n.bin f.bin || fail "a failed fetch changed the output"
# the miss is remembered (libdebuginfod's cache_miss_s), and said to be
in_time 30 pfsym --debuginfod "$DFD_URL" -o f.bin t.bin
contains err.txt "not found on debuginfod server '$DFD_URL' (a miss the debuginfod cache remembers from an earlier query)"
rm -rf "$DEBUGINFOD_CACHE_PATH"
dfd_stop

# nobody listens there
dead=$(free_port)
in_time 30 pfsym --debuginfod "http://127.0.0.1:$dead" -o r.bin t.bin
contains err.txt "pfsym: warning: $mod: build-id $id: unable to fetch from debuginfod server 'http://127.0.0.1:$dead': Connection refused"
contains err.txt "$unresolved"
cmp n.bin r.bin || fail "a failed fetch changed the output"

# accepts and never answers: given up after DEBUGINFOD_TIMEOUT (libdebuginfod
# retries, DEBUGINFOD_RETRY_LIMIT, default 2), once: the second module is
# not asked
python3 -c '
import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
time.sleep(120)' > silent.port &
silent=$!
i=0; while [ ! -s silent.port ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sp=$(cat silent.port)
in_time 40 env DEBUGINFOD_TIMEOUT=1 pfsym --debuginfod "http://127.0.0.1:$sp" -o h.bin t.bin
kill $silent; wait $silent 2>/dev/null
contains err.txt "pfsym: warning: $mod: build-id $id: debuginfod server 'http://127.0.0.1:$sp' timed out (DEBUGINFOD_TIMEOUT=1)"
contains err.txt "pfsym: warning: $lib: build-id $(readelf -n libfix.so | sed -n 's/.*Build ID: *//p'): debuginfod server 'http://127.0.0.1:$sp' not asked: timed out for '$PWD/prog.stripped'"
contains err.txt "$unresolved"
