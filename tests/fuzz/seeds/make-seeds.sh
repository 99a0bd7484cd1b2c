#!/bin/sh
# Remakes the seed corpora of tests/fuzz/corpus/ (committed; run by hand
# from the top of the sources after `make all tools`, when a format changes):
#   sh tests/fuzz/seeds/make-seeds.sh [BUILD]
#   elf/    the symbolizer's: a C library with DWARF 5 and inline chains (by
#           gcc, and by clang with its indexed forms), a C++ one with DWARF 4
#           and mangled names (no libc, a few KB each); split DWARF
#           skeletons of the C one (GNU DWARF 4 by gcc, DWARF 5 by clang),
#           whose .dwo files are not kept: the skeleton and the search;
#           the C one with zlib and the C++ one with zstd debug sections;
#           two libraries of hand-made DWARF with range lists (4 and 5)
#   debuginfod/  files as a debuginfod server would send them (the
#           debuginfod target): the C library plain and zlib, the C++ zstd
#   trace/  traces: a pfrec recording of client.c (every client record), the
#           golden allkinds and nested traces, a small game, a recording with
#           samples and context switches, mktrace's lost-samples, and
#           sym.bin whose modules are the elf/ files (for pfsym's rewrite)
#   conv/   one option byte (see fuzz_conv.c), then a trace
#   wire/   what client.c writes to pfrec: through the pipe alone, and with
#           its rings in the shared memory file (the u32 length and the
#           file's bytes, then the stream; see feed.c)
#   (image/, the DXT1 encoder's: a size byte pair and pixels, see
#           fuzz_dxt1.c; written by hand, not remade here)
set -eu
B=${1:-build}
S=tests/fuzz/seeds
C=tests/fuzz/corpus
CC=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$C/elf" "$C/trace" "$C/conv" "$C/wire" "$C/debuginfod"

F="-O2 -shared -fPIC -nostdlib -Wl,--build-id -Wl,-z,noseparate-code -Wl,-z,max-page-size=0x1000"
gcc -g -gdwarf-5 $F -o "$C/elf/c.so" "$S/elf.c"
clang -g -gdwarf-5 $F -o "$C/elf/c-clang.so" "$S/elf.c" # strx, addrx, rnglists
g++ -g -gdwarf-4 $F -fno-exceptions -fno-asynchronous-unwind-tables -o "$C/elf/cxx.so" "$S/elf.cc"
cp "$S/elf.c" "$tmp/"
(cd "$tmp" && gcc -g -gdwarf-4 -gsplit-dwarf $F -o split-gnu.so elf.c &&
	clang -g -gdwarf-5 -gsplit-dwarf $F -o split-5.so elf.c)
cp "$tmp/split-gnu.so" "$tmp/split-5.so" "$C/elf/"
# hand-made DWARF whose subprograms have range lists (tests/cli/dwarf-ranges.py):
# DWARF 5 with every offset at the unit's list, DWARF 4 each its own
python3 tests/cli/dwarf-ranges.py 5 32 shared "$tmp/ranges-5.s"
python3 tests/cli/dwarf-ranges.py 4 32 honest "$tmp/ranges-4.s"
for v in 4 5; do $CC $F -o "$C/elf/ranges-$v.so" "$tmp/ranges-$v.s"; done
for f in "$C"/elf/*.so; do objcopy -R .comment -R .note.gnu.property "$f"; done
# compressed debug sections (SHF_COMPRESSED): zlib and zstd
objcopy --compress-debug-sections=zlib "$C/elf/c.so" "$C/elf/c-zlib.so"
objcopy --compress-debug-sections=zstd "$C/elf/cxx.so" "$C/elf/cxx-zstd.so"
# the debuginfod client's: the same files, as the cache would hold them
mkdir -p "$C/debuginfod"
cp "$C/elf/c.so" "$C/elf/c-zlib.so" "$C/elf/cxx-zstd.so" "$C/debuginfod/"

$CC -O1 -g -Ilib/include -o "$tmp/client" "$S/client.c" "$B/libprofev-client.a" -pthread
"$B/pfrec" -q -o "$C/trace/client.bin" "$tmp/client"
"$B/tools/mktrace" allkinds "$C/trace/allkinds.bin"
"$B/tools/mktrace" nested "$C/trace/nested.bin"
"$B/tools/mktrace" game "$C/trace/game.bin" 200 2
"$B/tools/mktrace" lost-samples "$C/trace/lost-samples.bin"
# samples and context switches (perf events; two frames of the example game)
"$B/pfrec" -q --sample=20000 --sched -o "$C/trace/samples.bin" "$B/examples/game" 2 >/dev/null ||
	echo "make-seeds: no samples seed: perf events are not available here" >&2
$CC -O1 -Ilib/include -o "$tmp/mksym" "$S/mksym.c" "$B/libprofev.a" \
	$(pkg-config --libs libzstd libxxhash libelf) -ldwarf -lz -lm -pthread
"$tmp/mksym" "$C/trace/sym.bin" "$C/elf/c.so" "$C/elf/cxx.so"

# window, filter, split and flag bits over the small traces
for t in client allkinds nested; do
	for o in 000 003 005 021 046 074 142 271; do
		{ printf "\\$o"; cat "$C/trace/$t.bin"; } > "$C/conv/$t-$o.bin"
	done
done
for o in 000 021 074; do
	{ printf "\\$o"; cat "$C/trace/lost-samples.bin"; } > "$C/conv/lost-samples-$o.bin"
done
if [ -f "$C/trace/samples.bin" ]; then
	for o in 000 021 074; do
		{ printf "\\$o"; cat "$C/trace/samples.bin"; } > "$C/conv/samples-$o.bin"
	done
fi

python3 - "$tmp/client" "$C/wire" <<'PY'
import os, subprocess, sys
client, out = sys.argv[1], sys.argv[2]
def capture(shared):
    r, w = os.pipe()
    env = dict(os.environ, PROFEV_FD=str(w), PROFEV_BUFFER='16K')
    fds = [w]
    if shared:
        shm = os.memfd_create('profev-rings', 0)
        env['PROFEV_SHM'] = str(shm)
        fds.append(shm)
    p = subprocess.Popen([client], env=env, pass_fds=fds)
    os.close(w)
    stream = b''
    while True:
        b = os.read(r, 1 << 16)
        if not b:
            break
        stream += b
    p.wait()
    mem = b''
    if shared:
        mem = os.pread(shm, os.fstat(shm).st_size, 0).rstrip(b'\0')
        mem += b'\0' * (-len(mem) % 16)
    return len(mem).to_bytes(4, 'little') + mem + stream
open(os.path.join(out, 'pipe.bin'), 'wb').write(capture(False))
open(os.path.join(out, 'rings.bin'), 'wb').write(capture(True))
PY
ls -l "$C"/*/
