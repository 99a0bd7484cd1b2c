# A debuginfod answer that is not the file asked for does not stick in the
# cache: a file of another build, a body that is not ELF, a body cut short
# (which libdebuginfod would remember as a miss) each leave the module
# unresolved with a message naming the server, the build-id and what was
# wrong, nothing in the cache, and the next run asks again (the right
# server is then asked once and used). A wrong file found in the cache is
# removed and the servers asked. A true 404 is still remembered, as
# libdebuginfod remembers it. Each run ends within 10 s and 512 MiB.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/debuginfod-lib.sh"
hostile_need
sh "$PROFEV_ROOT/tests/sym/build.sh" fx >build.log 2>&1 || { cat build.log; fail "fixtures"; }
cd fx || fail "no fx"
./prog.stripped t.bin ./libfix.so || fail "fixture program failed"
id=$(cat prog.build-id)
mod="'$PWD/prog.stripped'"
mv dbg/.build-id/*/*.debug good.debug && mv bad/.build-id/*/*.debug other.debug || fail "no debug files"
rm -r dbg bad
cache=$DEBUGINFOD_CACHE_PATH
other=0123456789abcdef0123456789abcdef01234567

# nothing named debuginfo* under the cache's entry for id
nothing_kept() {
	[ -z "$(find "$cache" -path "*$id*" -name 'debuginfo*' 2>/dev/null)" ] ||
		{ find "$cache" -ls >&2; fail "$1: a file was kept in the cache"; }
}

# then the right server: asked once, its file used and cached
right_server_asked() {
	hostile_start good good.debug
	bounded 10 512 pfsym --debuginfod "$HOSTILE_URL" -o g.bin t.bin
	[ "$RC" = 0 ] || { cat err.txt >&2; fail "$1, then good: exit $RC"; }
	contains err.txt "$mod: 11 resolved, 0 unresolved, using '$cache/$id/debuginfo', downloaded from $HOSTILE_URL"
	[ "$(hostile_requests "$id")" -eq 1 ] || fail "$1: the right server was asked $(hostile_requests "$id") times"
	cmp "$cache/$id/debuginfo" good.debug || fail "$1: the cached file is not the right one"
	rm -rf "$cache"
}

for case in "wrong-id other.debug" not-elf "truncated good.debug"; do
	hostile_start $case
	bounded 10 512 pfsym --debuginfod "$HOSTILE_URL" -o o.bin t.bin
	skip_without_libdebuginfod
	[ "$RC" = 0 ] || { cat err.txt >&2; fail "$case: exit $RC"; }
	case $case in
	wrong-id*) contains err.txt "pfsym: warning: $mod: build-id $id: debuginfod server '$HOSTILE_URL' sent a wrong file (build-id $other does not match the recorded $id): not kept in the cache" ;;
	not-elf) contains err.txt "pfsym: warning: $mod: build-id $id: debuginfod server '$HOSTILE_URL' sent a wrong file (not an ELF file): not kept in the cache" ;;
	truncated*) contains err.txt "pfsym: warning: $mod: build-id $id: debuginfod server '$HOSTILE_URL' cut the file short at $(($(wc -c < good.debug) / 2)) of $(wc -c < good.debug) bytes (not kept: asked again next time)" ;;
	esac
	contains err.txt "$mod: 0 resolved, 11 unresolved"
	[ "$(hostile_requests "$id")" -eq 1 ] || fail "$case: asked $(hostile_requests "$id") times"
	nothing_kept "$case"
	right_server_asked "$case"
done

# a wrong file already in the cache (another client kept it): removed, asked again
mkdir -p "$cache/$id" && cp other.debug "$cache/$id/debuginfo"
hostile_start good good.debug
bounded 10 512 pfsym --debuginfod "$HOSTILE_URL" -o g.bin t.bin
contains err.txt "pfsym: warning: $mod: build-id $id: the debuginfod cache held a wrong file (build-id $other does not match the recorded $id): removed, the servers asked again"
contains err.txt "$mod: 11 resolved, 0 unresolved, using '$cache/$id/debuginfo', downloaded from $HOSTILE_URL"
cmp "$cache/$id/debuginfo" good.debug || fail "the wrong cached file was not replaced"
# offline, it is only removed
cp other.debug "$cache/$id/debuginfo"
bounded 10 512 pfsym --offline -o g.bin t.bin
contains err.txt "pfsym: warning: $mod: build-id $id: the debuginfod cache held a wrong file (build-id $other does not match the recorded $id): removed"
nothing_kept "offline"
rm -rf "$cache"

# a true 404 stays a remembered miss (libdebuginfod's cache_miss_s)
hostile_start 404
bounded 10 512 pfsym --debuginfod "$HOSTILE_URL" -o n.bin t.bin
contains err.txt "pfsym: warning: $mod: build-id $id not found on debuginfod server '$HOSTILE_URL'"
[ -f "$cache/$id/debuginfo" ] && [ ! -s "$cache/$id/debuginfo" ] || fail "a 404 was not remembered"
bounded 10 512 pfsym --debuginfod "$HOSTILE_URL" -o n.bin t.bin
contains err.txt "(a miss the debuginfod cache remembers from an earlier query)"
[ "$(hostile_requests "$id")" -eq 1 ] || fail "a remembered miss asked the server again"
hostile_stop
