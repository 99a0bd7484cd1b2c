# A trace symbolized in place keeps its mode and owner: the rewritten file
# replaces it by rename, and mkstemp() had made that file 0600, the caller's.
. "$PROFEV_ROOT/tests/cli/lib.sh"
cp "$GOLDEN/allkinds.bin" t.bin
chmod 0644 t.bin
expect_exit 0 pfsym t.bin
[ "$(stat -c %a t.bin)" = 644 ] || fail "mode $(stat -c %a t.bin) after pfsym, was 644"
chmod 0640 t.bin
expect_exit 0 pfsym t.bin
[ "$(stat -c %a t.bin)" = 640 ] || fail "mode $(stat -c %a t.bin) after pfsym, was 640"
lacks err.txt "warning"
ls | grep -q pfsym- && fail "temporary file left behind"
# only root can give a file to another owner
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
	chown nobody:"$(id -gn nobody)" t.bin
	expect_exit 0 pfsym t.bin
	[ "$(stat -c %U:%G:%a t.bin)" = "nobody:$(id -gn nobody):640" ] ||
		fail "owner and mode $(stat -c %U:%G:%a t.bin) after pfsym, was nobody:$(id -gn nobody):640"
fi
exit 0
