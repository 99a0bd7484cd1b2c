#!/usr/bin/env python3
"""Every frame pfsym gave one module agrees with llvm-symbolizer.

usage: sym-llvm-check.py TRACE.jsonl FRAMES.txt INDEX SUFFIX OBJ
  TRACE.jsonl  pfdump --jsonl of the symbolized trace
  FRAMES.txt   the fixture program's list of "module-index offset flags"
  INDEX        the module's index in FRAMES.txt
  SUFFIX       the end of the module's recorded path in the trace
  OBJ          the unstripped module, for llvm-symbolizer --inlines --demangle
Function, file and line of each inline frame are compared (pfdump's JSON has
no column). Prints the frame count; exits 1 on any difference or an
address the trace left unresolved.
"""
import json, subprocess, sys

jsonl, frames_txt, index, suffix, obj = sys.argv[1:6]
flags = {}
for line in open(frames_txt):
    m, off, fl = line.split()
    if m == index:
        flags[int(off)] = int(fl)
if not flags:
    sys.exit("no frames of module %s in %s" % (index, frames_txt))

got = {}
for line in open(jsonl):
    ev = json.loads(line)
    for fr in ev.get("stack") or []:
        if fr.get("module", "").endswith(suffix):
            got[fr["offset"]] = [(f.get("function") or "??", f.get("file") or "??", f.get("line", 0))
                                 for f in fr.get("frames") or []]

offs = sorted(flags)
addrs = ["0x%x" % (o - 1 if flags[o] & 1 else o) for o in offs]
out = subprocess.run(["llvm-symbolizer", "--inlines", "--demangle", "--obj=" + obj],
                     input="\n".join(addrs) + "\n", capture_output=True, text=True, check=True).stdout
blocks = out.strip("\n").split("\n\n")
if len(blocks) != len(offs):
    sys.exit("llvm-symbolizer gave %d answers for %d addresses" % (len(blocks), len(offs)))
bad = 0
for off, block in zip(offs, blocks):
    lines = block.split("\n")
    want = []
    for fn, loc in zip(lines[0::2], lines[1::2]):
        file, line = loc.rsplit(":", 2)[0:2]
        want.append((fn, file, int(line)))
    have = got.get(off)
    if have != want:
        bad += 1
        print("offset 0x%x: llvm-symbolizer %s, pfsym %s" % (off, want, have))
print("%d addresses, %d frames compared, %d differ" % (len(offs), sum(len(got.get(o) or []) for o in offs), bad))
sys.exit(1 if bad else 0)
