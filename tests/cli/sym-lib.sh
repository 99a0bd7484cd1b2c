# What the split DWARF tests of pfsym share; sourced after lib.sh.
SYMCMP="$PROFEV_BUILD/tools/symcmp"
# a sanitizer build links its runtime into prog, whose C++ names LLVM's
# demangler spells otherwise ("thread-local wrapper routine"): prog is then
# compared through its trace only
san=
nm "$PROFEV_BUILD/libprofev.a" 2>/dev/null | grep -q "__asan_\|__ubsan_" && san=1

# symcmp_ok WHAT ARGS...: symcmp ARGS agrees with llvm-symbolizer, warns of
# nothing, and met inline chains, which only the split units hold
symcmp_ok() {
	what=$1; shift
	"$SYMCMP" "$@" >cmp.txt 2>cmperr.txt || { cat cmp.txt cmperr.txt >&2; fail "$what: differs from llvm-symbolizer"; }
	lacks cmperr.txt "warning"
	inl=$(sed -n 's/.* \([0-9]*\) inlined,.*/\1/p' cmp.txt)
	[ "${inl:-0}" -gt 0 ] || { cat cmp.txt >&2; fail "$what: no inline chain: the split units were not read"; }
}
