# Random damage, a few hundred times: bytes flipped in the .dwo's and the
# .dwp's sections and index, in a plain DWARF library's .debug_info,
# .debug_line and .debug_abbrev, and the files cut at random lengths. Every
# run must end well (no signal, no sanitizer report, no error but a
# warning). DWARF has no checksums, so a flip that keeps the data
# consistent cannot be seen: the loop counts, against llvm-symbolizer on
# the intact files, how many runs were refused with a warning, how many
# gave the same answers, and how many other ones (printed, not failed).
. "$PROFEV_ROOT/tests/cli/lib.sh"
command -v llvm-dwp >/dev/null || skip "llvm-dwp not installed"
command -v llvm-symbolizer >/dev/null || skip "llvm-symbolizer not installed"
command -v g++ >/dev/null || skip "g++ not installed"
. "$PROFEV_ROOT/tests/cli/sym-lib.sh"
PATCH="$PROFEV_BUILD/tools/elfpatch"
ROUNDS=${ROUNDS:-12}
sh "$PROFEV_ROOT/tests/sym/split.sh" fx gcc5 >build.log 2>&1 || { cat build.log; fail "fixtures"; }
cd fx || fail "no fx"
llvm-dwp -e libfix.so -o ref.dwp || fail "llvm-dwp failed"
cp obj/fixlib.dwo good.dwo
cp "$PROFEV_ROOT/tests/sym/fixlib.cc" . && g++ -g -O2 -fPIC -shared -o good.so fixlib.cc || fail "compiling"

refused=0 same=0 other=0 runs=0
# one FILE REF [ARGS]: the damaged file looked up, then compared
one() {
	runs=$((runs + 1))
	"$SYMCMP" --stride 2 --lookup-only "$@" >o.txt 2>e.txt
	rc=$?
	[ $rc -eq 0 ] || { cat o.txt e.txt >&2; fail "run $runs ($what): exit $rc"; }
	! grep -q "runtime error\|Sanitizer" e.txt || { cat e.txt >&2; fail "run $runs ($what): sanitizer report"; }
	"$SYMCMP" --stride 2 "$@" "$ref" >o.txt 2>e.txt
	rc=$?
	[ $rc -le 1 ] || { cat o.txt e.txt >&2; fail "run $runs ($what): exit $rc"; }
	if grep -q "warning" e.txt; then
		refused=$((refused + 1))
	elif [ $rc -eq 0 ]; then
		same=$((same + 1))
	else
		other=$((other + 1))
		echo "other answers: $what"
	fi
}

D=obj/fixlib.dwo
r=0
while [ $r -lt "$ROUNDS" ]; do
	seed=$((r * 7919 + 13))
	for sec in .debug_info.dwo .debug_abbrev.dwo .debug_str_offsets.dwo .debug_rnglists.dwo; do
		cp good.dwo $D
		"$PATCH" $D $sec --flip $seed $((r % 4 + 1)) || continue
		what="$sec flipped, seed $seed" ref="libfix.so --dwp=$PWD/ref.dwp"
		one libfix.so
	done
	cp good.dwo $D
	size=$(wc -c <good.dwo)
	head -c $((size * (r + 1) / (ROUNDS + 1))) good.dwo >$D
	what=".dwo cut" ref="libfix.so --dwp=$PWD/ref.dwp"
	one libfix.so
	rm -f $D
	for sec in .debug_cu_index .debug_info.dwo .debug_abbrev.dwo; do
		cp ref.dwp libfix.so.dwp
		"$PATCH" libfix.so.dwp $sec --flip $seed $((r % 3 + 1)) || continue
		what=".dwp $sec flipped, seed $seed" ref="libfix.so --dwp=$PWD/ref.dwp"
		one libfix.so
	done
	rm -f libfix.so.dwp
	cp good.dwo $D
	for sec in .debug_info .debug_line .debug_abbrev; do
		cp good.so dmg.so
		"$PATCH" dmg.so $sec --flip $seed $((r % 4 + 1)) || continue
		what="$sec flipped, seed $seed" ref=good.so
		one dmg.so
	done
	r=$((r + 1))
done
echo "$runs damaged runs: $refused refused with a warning, $same answered as llvm-symbolizer on the intact files, $other otherwise"
[ $runs -gt 0 ] || fail "no run"
