# Perfetto mappings as Perfetto's producers write them (start, end,
# exact_offset and load_bias of the module's executable mapping, rel_pc the
# address pfsym resolves), for a program and a shared library linked with
# lld, whose executable segments have p_vaddr != p_offset, and for the same
# program linked by the default linker: every frame's pc lies in its
# mapping (tests/cli/tp-stacks.py --mappings), and Perfetto's own
# symbolizer (trace_processor_shell util symbolize, over llvm-symbolizer)
# gives each address of the unsymbolized output the inline chain, function
# and line that pfsym gives it.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
. "$PROFEV_ROOT/tests/cli/tp-lib.sh"
tp_need
command -v clang > /dev/null || skip "no clang (Debian package clang)"
command -v ld.lld > /dev/null || skip "no ld.lld (Debian package lld)"
command -v llvm-symbolizer > /dev/null || skip "no llvm-symbolizer, which Perfetto's symbolizer runs (Debian package llvm)"
command -v readelf > /dev/null || skip "no readelf (Debian package binutils)"

cat > lib.c <<'C'
#include <profev.h>
#include <stdlib.h>
__attribute__((noinline)) void *lib_alloc(size_t n)
{
	void *p = malloc(n);
	PROFEV_ALLOC_NAMED_S(p, n, "lib", 16);
	return p;
}
C
cat > prog.c <<'C'
#include <profev.h>
#include <stdlib.h>
void *lib_alloc(size_t n);
static __attribute__((noinline)) void *get(size_t n) { void *p = malloc(n); PROFEV_ALLOC_S(p, n, 16); return p; }
int main(void)
{
	for (int i = 0; i < 12; i++)
		free(i % 2 ? get(32 + i) : lib_alloc(64 + i));
	return 0;
}
C
# The library calls the client, which the program links: its symbols are
# the program's (-rdynamic).
clang -g -O1 -fPIC -shared -fuse-ld=lld $SANFLAGS -I"$PROFEV_ROOT/lib/include" -o libl.so lib.c ||
	fail "cannot build libl.so with lld"
build() { # NAME LINKER-FLAGS...
	n=$1; shift
	clang -g -O1 "$@" $SANFLAGS -rdynamic -I"$PROFEV_ROOT/lib/include" -o "$n" prog.c "$PWD/libl.so" \
		-Wl,-rpath,"$PWD" "$CLIENT_A" -pthread || fail "cannot build $n"
}
build prog-lld -fuse-ld=lld
build prog-ld
# p_vaddr - p_offset of the first executable load segment
exec_bias() {
	set -- $(readelf -lW "$1" | awk '$1 == "LOAD" && ($7 $8) ~ /E/ { print $2, $3; exit }')
	echo $(($2 - $1))
}
[ "$(exec_bias prog-lld)" -ne 0 ] || fail "lld gave prog-lld p_vaddr == p_offset: nothing to test"
[ "$(exec_bias libl.so)" -ne 0 ] || fail "lld gave libl.so p_vaddr == p_offset: nothing to test"

for p in prog-lld prog-ld; do
	expect_exit 0 pfrec -q -o $p.bin ./$p
	expect_exit 0 pfconv -q to perfetto -o $p.pftrace $p.bin
	tp_import_ok $p.pftrace
	TP="$TP" python3 "$PROFEV_ROOT/tests/cli/tp-stacks.py" --mappings $p.bin $p.pftrace > stacks.out 2>&1 ||
		{ cat stacks.out >&2; fail "$p: tp-stacks --mappings"; }
	contains stacks.out '"allocations": 12'
	# The mappings of the lld modules carry their load bias.
	for m in $p libl.so; do
		lb=$(tp_value $p.pftrace "select load_bias from stack_profile_mapping where name like '%/$m'")
		[ "$lb" = "$(exec_bias $m)" ] || fail "$p: mapping of $m has load_bias '$lb', its file $(exec_bias $m)"
	done
	# Perfetto's symbolizer on the unsymbolized output, against pfsym.
	PERFETTO_BINARY_PATH=$PWD "$TP" util symbolize $p.pftrace $p.syms > sym.err 2>&1 ||
		{ cat sym.err >&2; fail "$p: trace_processor_shell util symbolize"; }
	cat $p.pftrace $p.syms > $p.psym.pftrace
	tp_sql $p.psym.pftrace "select m.name, f.rel_pc, s.name, s.line_number from stack_profile_frame f
		join stack_profile_mapping m on m.id = f.mapping
		join stack_profile_symbol s on s.symbol_set_id = f.symbol_set_id
		where m.name like '%/$p' or m.name like '%/libl.so' order by f.id, s.id" |
		tr -d '"' > perfetto.csv
	cp $p.bin $p.sym.bin
	expect_exit 0 pfsym -q $p.sym.bin
	expect_exit 0 pfdump --jsonl $p.sym.bin
	python3 - out.txt perfetto.csv "$p" <<'PY' || fail "$p: Perfetto's symbolizer and pfsym differ"
import csv, json, sys
want = {}
for line in open(sys.argv[1]):
    e = json.loads(line)
    for f in e.get("stack") or []:
        if f["module"].endswith(("/" + sys.argv[3], "/libl.so")):
            # innermost first, as llvm-symbolizer lists an inline chain
            want[(f["module"], f["offset"] - 1)] = [(g["function"], g["line"]) for g in f.get("frames") or []]
got = {}
for m, pc, fn, line in csv.reader(open(sys.argv[2])):
    got.setdefault((m, int(pc)), []).append((fn, int(line)))
if not want or set(want) != set(got):
    sys.exit("addresses: pfsym %s, Perfetto %s" % (sorted(want), sorted(got)))
for k in want:
    if want[k] != got[k]:
        sys.exit("%s+%#x: pfsym %s, Perfetto's symbolizer %s" % (k[0], k[1], want[k], got[k]))
names = [f for v in want.values() for f, _ in v]
for fn in ("get", "lib_alloc", "main"):
    if fn not in names:
        sys.exit("no frame of %s among %s" % (fn, names))
PY
done
