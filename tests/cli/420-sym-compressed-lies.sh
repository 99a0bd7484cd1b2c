# Compressed debug sections that lie or explode, in the program's debug
# file (built from a real -g program): a ch_size claiming 4 GiB - 1 bytes,
# zstd bombs of 1 GiB and 4 GiB of zeros, 60 MiB of zeros that claim
# their true size (under the claim limits: decompression stops at the
# first piece, which is not DWARF), and four sections of 64 MiB of zeros
# each beside the real ones (past the file's limit of 256 MiB). Each costs that module alone:
# a warning names the file, the section and its offset, pfsym exits 0
# within 10 s and 512 MiB (under ulimit -v 2000000 but in a sanitizer
# build), and the library's frames are still resolved.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/fault-lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
command -v zstd >/dev/null || skip "zstd not installed"
ELFSEC="$PROFEV_ROOT/tests/cli/elf-section.py"
sh "$PROFEV_ROOT/tests/sym/build.sh" fx >build.log 2>&1 || { cat build.log; fail "fixtures"; }
cd fx || fail "no fx"
./prog.stripped t.bin ./libfix.so || fail "fixture program failed"
dbg=$(ls dbg/.build-id/*/*.debug)
objcopy --compress-debug-sections=zlib "$dbg" good.debug || fail "objcopy"
mod="'$PWD/prog.stripped'"
MB=512
# ASan's shadow needs terabytes of address space, and its quarantine memory
if case ${PROFEV_SAN:-} in *address*) true ;; *) false ;; esac ||
	nm "$PROFEV_BUILD/libprofev.a" 2>/dev/null | grep -q __asan_; then
	MB=1536
else
	export BOUNDED_VMEM_KB=2000000
fi

# the intact, compressed file resolves the program
cp good.debug "$dbg"
bounded 10 $MB pfsym --debug-dir dbg -o o.bin t.bin
[ "$RC" = 0 ] || { cat err.txt >&2; fail "intact: exit $RC"; }
contains err.txt "$mod: 11 resolved, 0 unresolved"

# skipped CASE WARNING: the program's module skipped with WARNING, the
# library resolved
skipped() {
	[ "$RC" = 0 ] || { cat err.txt >&2; fail "$1: exit $RC"; }
	contains err.txt "pfsym: warning: '$dbg': section '.debug_"
	contains err.txt "$2"
	contains err.txt "$mod: no debug info found, 11 unresolved"
	pfdump o.bin >dump.txt || fail "$1: pfdump failed"
	contains dump.txt "fixlib.cc:"
	lacks dump.txt "prog.c:"
	cp good.debug "$dbg"
}

# ch_size of .debug_info's ELF64 compression header: 4 GiB - 1
info_at=$(readelf -S -W "$dbg" 2>/dev/null |
	awk '{ for (i = 1; i < NF; i++) if ($i == ".debug_info") print $(i + 3) }')
info_at=$(printf %x $((0x$info_at)))
"$PROFEV_BUILD/tools/elfpatch" "$dbg" .debug_info --u32 8 0xffffffff &&
	"$PROFEV_BUILD/tools/elfpatch" "$dbg" .debug_info --u32 12 0 ||
	fail "elfpatch"
bounded 10 $MB pfsym --debug-dir dbg -o o.bin t.bin
skipped "4 GiB claim" "': section '.debug_info' at offset 0x$info_at: claims 4294967295 bytes from "
contains err.txt ": over 1000 times that and 64 MiB, refused"

for gib in 1 4; do
	python3 "$ELFSEC" "$dbg" .debug_info zstd zeros:$((gib << 30)) real >/dev/null || fail "bomb"
	bounded 10 $MB pfsym --debug-dir dbg -o o.bin t.bin
	skipped "$gib GiB bomb" ": claims $((gib << 30)) bytes from "
done

# under the claim limits: the first piece is not DWARF, nothing more made
python3 "$ELFSEC" "$dbg" .debug_info zstd zeros:$((60 << 20)) real >/dev/null || fail "bomb"
bounded 10 $MB pfsym --debug-dir dbg -o o.bin t.bin
skipped "60 MiB of zeros" ": its first unit's length does not fit: not DWARF"

# four sections of 64 MiB each, with .debug_info and .debug_line: the
# last passes the file's 256 MiB
for s in .debug_abbrev .debug_str .debug_line_str .debug_rnglists; do
	python3 "$ELFSEC" "$dbg" $s zstd zeros:$((64 << 20)) real >/dev/null || fail "bomb $s"
done
bounded 10 $MB pfsym --debug-dir dbg -o o.bin t.bin
skipped "4 x 64 MiB" "': section '.debug_rnglists' at offset 0x"
contains err.txt ": claims 67108864 bytes, past the file's limit of 268435456 (100 times its size, at least 256 MiB), refused"
