# A stripped program whose debug file only a debuginfod server has: pfsym
# downloads it by build-id from a real server (elfutils' debuginfod, started
# here on 127.0.0.1 over a directory holding only that file) into the
# test's own cache, through DEBUGINFOD_URLS and through --debuginfod; every
# frame agrees with llvm-symbolizer --inlines --demangle on the unstripped
# program; the report names the server. A second run, the server stopped
# and --offline, takes the same file from the cache.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/debuginfod-lib.sh"
dfd_need
command -v llvm-symbolizer >/dev/null || skip "llvm-symbolizer not installed"
sh "$PROFEV_ROOT/tests/sym/build.sh" fx >build.log 2>&1 || { cat build.log; fail "fixtures"; }
cd fx || fail "no fx"
./prog.stripped t.bin ./libfix.so frames.txt || fail "fixture program failed"
id=$(cat prog.build-id)
mkdir srv && mv dbg/.build-id/*/*.debug srv/prog.debug || fail "no debug file"
dfd_start srv "$id"
before=$(dfd_requests)

# the server from DEBUGINFOD_URLS, as gdb and perf take it
expect_exit 0 env DEBUGINFOD_URLS="$DFD_URL" pfsym -o s.bin t.bin
contains err.txt "pfsym: '$PWD/prog.stripped': 11 resolved, 0 unresolved, using '$DEBUGINFOD_CACHE_PATH/$id/debuginfo', downloaded from $DFD_URL"
lacks err.txt "warning"
lacks err.txt "downloading"   # no progress when stderr is no terminal
[ "$(dfd_requests)" -gt "$before" ] || fail "the server was not asked"
[ -s "$DEBUGINFOD_CACHE_PATH/$id/debuginfo" ] || fail "nothing in the cache"
cmp "$DEBUGINFOD_CACHE_PATH/$id/debuginfo" srv/prog.debug || fail "the cached file is not the served one"
pfdump --jsonl s.bin > s.jsonl || fail "pfdump failed"
python3 "$PROFEV_ROOT/tests/cli/sym-llvm-check.py" s.jsonl frames.txt 0 prog.stripped prog >check.txt 2>&1 \
	|| { cat check.txt; fail "frames differ from llvm-symbolizer"; }
contains check.txt "11 addresses, 14 frames compared, 0 differ"
pfdump s.bin > s.txt || fail "pfdump failed"
contains s.txt "fixture_asm_call ??:0"

# --debuginfod, a dead server listed first: the live one answers, and is named
dead=$(free_port)
expect_exit 0 env DEBUGINFOD_CACHE_PATH="$PWD/cache2" pfsym --debuginfod "http://127.0.0.1:$dead" --debuginfod "$DFD_URL" -o s2.bin t.bin
contains err.txt "11 resolved, 0 unresolved, using '$PWD/cache2/$id/debuginfo', downloaded from $DFD_URL"
cmp s.bin s2.bin || fail "--debuginfod gave another trace than DEBUGINFOD_URLS"
# the option replaces the environment's servers
expect_exit 0 env DEBUGINFOD_URLS="http://127.0.0.1:$dead" DEBUGINFOD_CACHE_PATH="$PWD/cache3" \
	pfsym --debuginfod "$DFD_URL" -o s3.bin t.bin
contains err.txt "downloaded from $DFD_URL"
lacks err.txt "warning"

# on a terminal, the download's progress on one line rewritten in place
if command -v script >/dev/null 2>&1; then
	env DEBUGINFOD_CACHE_PATH="$PWD/cache4" script -qec "pfsym --debuginfod '$DFD_URL' -o tty.bin t.bin" tty.log \
		</dev/null >/dev/null 2>&1 || { cat tty.log; fail "pfsym on a terminal failed"; }
	contains tty.log "pfsym: asking debuginfod for '$PWD/prog.stripped' (build-id $id)"
	size=$(wc -c < srv/prog.debug)
	contains tty.log "pfsym: downloading debug info for '$PWD/prog.stripped' from $DFD_URL: "
	contains tty.log " of $(awk "BEGIN { printf \"%.1f\", $size / 1024 }") KiB"
	tr '\r' '\n' < tty.log > tty.txt
	contains tty.txt "11 resolved, 0 unresolved, using '$PWD/cache4/$id/debuginfo', downloaded from $DFD_URL"
	cmp s.bin tty.bin || fail "on a terminal the trace differs"
fi

# from the cache: the server gone, offline, the same symbols
dfd_stop
expect_exit 0 env DEBUGINFOD_URLS="$DFD_URL" pfsym --offline -o c.bin t.bin
contains err.txt "11 resolved, 0 unresolved, using '$DEBUGINFOD_CACHE_PATH/$id/debuginfo', from the debuginfod cache"
lacks err.txt "warning"
cmp s.bin c.bin || fail "the cached file gave other symbols"
# and with no server configured at all
expect_exit 0 pfsym -o c2.bin t.bin
contains err.txt "from the debuginfod cache"
cmp s.bin c2.bin || fail "the cached file gave other symbols"
