#!/usr/bin/env python3
"""Writes the assembly of a shared object whose hand-made DWARF (version 5
with .debug_rnglists, or 4 with .debug_ranges) has one compile unit and N
functions of 16 bytes, each a subprogram DIE with DW_AT_ranges, for the
tests of range lists (422, 423). The functions have no symbols: only the
DWARF names them (f0, f1, ...). A small .debug_loclists (version 5) is
there for a test to replace; nothing refers to it.

usage: dwarf-ranges.py VERSION N honest|shared OUT.s
  honest  the unit's list holds every function's range, and each
          subprogram has a list of its own with its one range
  shared  every subprogram's DW_AT_ranges points at the unit's list of N
          ranges (offsets that lie: N lists of N entries to read)

Build: cc -shared -nostdlib -Wl,--build-id -o x.so OUT.s
"""
import sys


def main():
    version, n, mode, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    if version not in (4, 5) or mode not in ("honest", "shared"):
        sys.exit(__doc__)
    a = []
    w = a.append
    w("\t.text\n\t.p2align 4\n.Ltext:\n")
    w("\t.rept %d\n\tret\n\t.p2align 4\n\t.endr\n" % n)
    # abbreviations: 1 the unit (name, low_pc, ranges), 2 a subprogram
    # (name, ranges); DW_FORM_sec_offset for the ranges
    w("\t.section .debug_abbrev,\"\"\n")
    w("\t.uleb128 1, 0x11\n\t.byte 1\n\t.uleb128 0x03, 0x08, 0x11, 0x01, 0x55, 0x17\n\t.byte 0, 0\n")
    w("\t.uleb128 2, 0x2e\n\t.byte 0\n\t.uleb128 0x03, 0x08, 0x55, 0x17\n\t.byte 0, 0\n\t.byte 0\n")
    w("\t.section .debug_info,\"\"\n\t.long .Linfo_end - .Linfo_start\n.Linfo_start:\n")
    if version == 5:
        w("\t.short 5\n\t.byte 1, 8\n\t.long 0\n")
    else:
        w("\t.short 4\n\t.long 0\n\t.byte 8\n")
    w("\t.uleb128 1\n\t.asciz \"ranges.c\"\n\t.quad .Ltext\n\t.long .Lcu - .Lrl\n")
    for i in range(n):
        target = ".Lcu" if mode == "shared" else ".Ll%d" % i
        w("\t.uleb128 2\n\t.asciz \"f%d\"\n\t.long %s - .Lrl\n" % (i, target))
    w("\t.byte 0\n.Linfo_end:\n")
    if version == 5:
        # DW_RLE_offset_pair (4) from the unit's base, DW_RLE_end_of_list
        w("\t.section .debug_rnglists,\"\"\n.Lrl:\n\t.long .Lrl_end - .Lrl_start\n.Lrl_start:\n")
        w("\t.short 5\n\t.byte 8, 0\n\t.long 0\n.Lcu:\n")
        for i in range(n):
            w("\t.byte 4\n\t.uleb128 %d, %d\n" % (16 * i, 16 * i + 16))
        w("\t.byte 0\n")
        if mode == "honest":
            for i in range(n):
                w(".Ll%d:\n\t.byte 4\n\t.uleb128 %d, %d\n\t.byte 0\n" % (i, 16 * i, 16 * i + 16))
        w(".Lrl_end:\n")
        w("\t.section .debug_loclists,\"\"\n\t.long .Lll_end - .Lll_start\n.Lll_start:\n")
        w("\t.short 5\n\t.byte 8, 0\n\t.long 0\n\t.byte 0\n.Lll_end:\n")
    else:
        # pairs of offsets from the unit's base, 0 0 ending a list
        w("\t.section .debug_ranges,\"\"\n.Lrl:\n.Lcu:\n")
        for i in range(n):
            w("\t.quad %d, %d\n" % (16 * i, 16 * i + 16))
        w("\t.quad 0, 0\n")
        if mode == "honest":
            for i in range(n):
                w(".Ll%d:\n\t.quad %d, %d\n\t.quad 0, 0\n" % (i, 16 * i, 16 * i + 16))
    with open(out, "w") as f:
        f.write("".join(a))


main()
