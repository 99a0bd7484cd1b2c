# Every command and the API have a man page, and every page is clean under
# groff's warnings.
. "$PROFEV_ROOT/tests/cli/lib.sh"
cd "$PROFEV_ROOT/man" || fail "no man directory"
for page in pfrec.1 pfdump.1 pfconv.1 pfsym.1 profev.3 profev-tracy.3 profev-trace.5; do
	[ -f "$page" ] || fail "missing man page $page"
done
for page in *.[1-9]; do
	out=$(groff -man -ww -z "$page" 2>&1)
	[ -z "$out" ] || fail "groff warns about $page: $out"
done
