# dwz through debuginfod: the program's debug file after `dwz -m` refers to
# a supplementary file by .gnu_debugaltlink; pfsym fetches both by their
# build-ids from a real debuginfod server, and every frame agrees with
# llvm-symbolizer --inlines --demangle on the program before dwz. A debug
# file found locally whose supplementary file is not here gets that one
# from the server, and the warning that it was missing goes.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/debuginfod-lib.sh"
dfd_need
command -v llvm-symbolizer >/dev/null || skip "llvm-symbolizer not installed"
command -v dwz >/dev/null || skip "dwz not installed"
sh "$PROFEV_ROOT/tests/sym/build.sh" fx >build.log 2>&1 || { cat build.log; fail "fixtures"; }
cd fx || fail "no fx"
./prog.stripped t.bin ./libfix.so frames.txt || fail "fixture program failed"
id=$(cat prog.build-id)
mkdir dz srv local
cp prog prog.other dz/ && (cd dz && dwz -m common.debug -M /nonexistent/.dwz/common.debug prog prog.other) \
	|| fail "dwz failed"
alt=$(readelf -n dz/common.debug | sed -n 's/.*Build ID: *//p')
[ -n "$alt" ] || fail "the supplementary file has no build-id"
objcopy --only-keep-debug dz/prog srv/prog.debug && cp dz/common.debug srv/ || fail "objcopy failed"
dfd_start srv "$alt"
[ "$(http_status "$DFD_URL/buildid/$id/debuginfo")" = 200 ] || fail "the server lacks the program's debug file"

expect_exit 0 pfsym --debuginfod "$DFD_URL" -o s.bin t.bin
contains err.txt "pfsym: '$PWD/prog.stripped': 11 resolved, 0 unresolved, using '$DEBUGINFOD_CACHE_PATH/$id/debuginfo' with '$DEBUGINFOD_CACHE_PATH/$alt/debuginfo', downloaded from $DFD_URL"
lacks err.txt "warning"
pfdump --jsonl s.bin > s.jsonl || fail "pfdump failed"
python3 "$PROFEV_ROOT/tests/cli/sym-llvm-check.py" s.jsonl frames.txt 0 prog.stripped prog >check.txt 2>&1 \
	|| { cat check.txt; fail "frames differ from llvm-symbolizer"; }
contains check.txt "11 addresses, 14 frames compared, 0 differ"

# the debug file here, its supplementary file only on the server
d=$(echo "$id" | cut -c1-2)
mkdir -p "local/.build-id/$d" && cp srv/prog.debug "local/.build-id/$d/$(echo "$id" | cut -c3-).debug"
# (in the cache from the run above, it is found there)
expect_exit 0 pfsym -d local -o l.bin t.bin
contains err.txt "with '$DEBUGINFOD_CACHE_PATH/$alt/debuginfo'"
lacks err.txt "warning"
rm -rf "$DEBUGINFOD_CACHE_PATH"
expect_exit 0 pfsym -d local -o l.bin t.bin
contains err.txt "supplementary file '/nonexistent/.dwz/common.debug' (build-id $alt) not found"
expect_exit 0 pfsym -d local --debuginfod "$DFD_URL" -o l.bin t.bin
contains err.txt "11 resolved, 0 unresolved, using 'local/.build-id/$d/$(echo "$id" | cut -c3-).debug' with '$DEBUGINFOD_CACHE_PATH/$alt/debuginfo'"
lacks err.txt "warning"
pfdump --jsonl l.bin > l.jsonl || fail "pfdump failed"
python3 "$PROFEV_ROOT/tests/cli/sym-llvm-check.py" l.jsonl frames.txt 0 prog.stripped prog >check.txt 2>&1 \
	|| { cat check.txt; fail "frames differ from llvm-symbolizer"; }

# the server without the supplementary file: said, names still missing
dfd_stop
rm srv/common.debug
rm -rf "$DEBUGINFOD_CACHE_PATH"
dfd_start srv "$id"
expect_exit 0 pfsym -d local --debuginfod "$DFD_URL" -o m.bin t.bin
contains err.txt "pfsym: warning: '$PWD/prog.stripped': supplementary file (dwz) build-id $alt not found on debuginfod server '$DFD_URL'"
