# pfrec --sample copies 8K of each sample's stack and unwinds the copy; by
# default it takes no frame-pointer chain from the kernel (as perf record
# --call-graph dwarf takes none: the kernel's walk costs the program about
# a microsecond per sample). A stack deeper than the copy is then cut
# short. --sample-fp-chain takes the chain too, and a program built with
# frame pointers gets its whole stack: the DWARF walk of the copy, then the
# chain from the frame where the two meet. The recursion repeats one
# return address 40 times: the splice must keep the 40 frames, not start
# the chain at the first of them (which would give dozens more).
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
need_perf_events
cpu_burner
[ "$(uname -m)" = x86_64 ] || skip "DWARF unwinding of samples is for x86-64"
cat >deep.c <<'C'
#include "cpu_burner.h"
SPIN(spin, 100000, i)
/* 40 frames of more than 600 bytes: 24K of stack above spin's */
__attribute__((noinline)) void deep(int n, double s)
{
	volatile char pad[600];
	pad[n] = (char)n;
	if (n)
		deep(n - 1, s);
	else
		spin(s);
	sink += pad[n];
}
int main(void)
{
	deep(39, 0.3);
	return 0;
}
C
$CC -O2 -g $SANFLAGS -fno-omit-frame-pointer -o deep deep.c || fail "cannot build deep"

# depths TRACE: of the samples in spin, how many reach main with exactly
# 40 frames of deep, and how many there are
depths() {
	expect_exit 0 pfsym "$1"
	expect_exit 0 pfdump --jsonl "$1"
	python3 - out.txt <<'PY'
import json, sys
n = whole = 0
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["type"] != "sample":
        continue
    fns = [(fr.get("frames") or [{}])[-1].get("function", "?") for fr in e.get("stack", [])]
    if "spin" not in fns:
        continue
    n += 1
    whole += "main" in fns and fns.count("deep") == 40
print(whole, n)
PY
}

expect_exit 0 pfrec -q --sample=1000 -o d.bin ./deep
set -- $(depths d.bin)
echo "stack copies alone: $1 of $2 samples in spin have the whole stack"
[ "$2" -ge 100 ] || fail "only $2 samples in spin"
[ "$1" -eq 0 ] || fail "$1 samples reach main through 24K of stack with an 8K copy: is the kernel's chain still taken?"

expect_exit 0 pfrec -q --sample=1000 --sample-fp-chain -o c.bin ./deep
set -- $(depths c.bin)
echo "with the frame-pointer chain: $1 of $2 samples in spin have the whole stack"
[ "$2" -ge 100 ] || fail "only $2 samples in spin"
[ $(($1 * 100)) -ge $(($2 * 95)) ] || fail "only $1 of $2 samples have main under 40 frames of deep"

# The option is in --help.
expect_exit 0 pfrec --help
contains out.txt "--sample-fp-chain"
