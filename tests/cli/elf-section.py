#!/usr/bin/env python3
"""Replaces one section of an ELF64 little-endian file with a compressed
one (SHF_COMPRESSED: an ELF compression header, then a zlib or zstd
stream) whose header claims any size, or with plain bytes (none), for
the tests of debug files that lie (420, 421). The new bytes go at the end
of the file and the section header points at them; nothing else moves.

usage: elf-section.py FILE SECTION zlib|zstd|none SOURCE CLAIM
  SOURCE  a file whose bytes are compressed, or zeros:N for N zero bytes
          (streamed: a bomb is never held whole)
  CLAIM   the size the header states (a number), or "real" for the
          source's true size
"""
import struct, subprocess, sys, zlib

SHF_COMPRESSED = 0x800


def compressed(kind, source):
    if source.startswith("zeros:"):
        n = int(source[6:])
        if kind == "zstd":
            p = subprocess.Popen(["zstd", "-q", "-c", "-3", "--no-check"], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE)
            import threading
            out = []
            t = threading.Thread(target=lambda: out.append(p.stdout.read()))
            t.start()
            block = bytes(1 << 20)
            left = n
            while left > 0:
                k = min(left, len(block))
                p.stdin.write(block[:k])
                left -= k
            p.stdin.close()
            t.join()
            p.wait()
            return out[0], n
        z = zlib.compressobj(9)
        parts, block, left = [], bytes(1 << 20), n
        while left > 0:
            k = min(left, len(block))
            parts.append(z.compress(block[:k]))
            left -= k
        parts.append(z.flush())
        return b"".join(parts), n
    data = open(source, "rb").read()
    if kind == "zstd":
        return subprocess.run(["zstd", "-q", "-c", "-19"], input=data, stdout=subprocess.PIPE,
                              check=True).stdout, len(data)
    return zlib.compress(data, 9), len(data)


def main():
    path, name, kind, source, claim = sys.argv[1:6]
    b = bytearray(open(path, "rb").read())
    if b[:4] != b"\x7fELF" or b[4] != 2 or b[5] != 1:
        sys.exit("%s: not an ELF64 little-endian file" % path)
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3A)
    def shdr(i):
        return shoff + i * shentsize
    stroff, = struct.unpack_from("<Q", b, shdr(shstrndx) + 0x18)
    for i in range(shnum):
        nm, = struct.unpack_from("<I", b, shdr(i))
        end = b.index(b"\0", stroff + nm)
        if b[stroff + nm:end].decode() == name:
            break
    else:
        sys.exit("%s: no section %s" % (path, name))
    if kind == "none":
        body = bytes(int(source[6:])) if source.startswith("zeros:") else open(source, "rb").read()
        real, chdr = len(body), b""
    else:
        body, real = compressed(kind, source)
    size = real if claim == "real" else int(claim, 0)
    if kind != "none":
        chdr = struct.pack("<IIQQ", 1 if kind == "zlib" else 2, 0, size, 1)
    while len(b) % 8:
        b.append(0)
    off = len(b)
    b += chdr + body
    h = shdr(i)
    flags, = struct.unpack_from("<Q", b, h + 0x08)
    struct.pack_into("<Q", b, h + 0x08,
                     flags & ~SHF_COMPRESSED if kind == "none" else flags | SHF_COMPRESSED)
    struct.pack_into("<Q", b, h + 0x18, off)
    struct.pack_into("<Q", b, h + 0x20, len(chdr) + len(body))
    struct.pack_into("<Q", b, h + 0x30, 8)
    open(path, "wb").write(b)
    print("%s: %s at 0x%x, %d bytes compressed, claims %d" % (path, name, off, len(body), size))


main()
