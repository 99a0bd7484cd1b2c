# pfrec --sample past the locked-memory limit: the kernel charges each
# CPU's sample ring to the user (perf_event_mlock_kb per CPU, then
# RLIMIT_MEMLOCK), which the default ring of 1 MiB per CPU passes with
# `ulimit -l 0`. pfrec then takes smaller rings and says so, rather than
# recording no samples; a ring within the limit gets no warning. Run as an
# unprivileged user (root's CAP_IPC_LOCK lifts the limit): nobody, through
# setpriv, when the test runs as root.
. "$PROFEV_ROOT/tests/cli/lib.sh"
need_perf_events
mlock_kb=$(cat /proc/sys/kernel/perf_event_mlock_kb 2>/dev/null || echo 0)
[ "$mlock_kb" -gt 0 ] && [ "$mlock_kb" -lt 1028 ] ||
	skip "perf_event_mlock_kb is $mlock_kb: a 1 MiB ring per CPU is within it"
as_user=
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null || skip "running as root without setpriv to drop it"
	as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
# the scratch directory is root's alone: a directory nobody may use, with
# pfrec and the program copied in
d=$(mktemp -d "${TMPDIR:-/tmp}/profev-memlock.XXXXXX") || fail "mktemp"
trap 'rm -rf "$d"' EXIT
chmod 777 "$d"
cp -L "$PROFEV_BUILD/pfrec" "$d/pfrec" || fail "copy pfrec"
cat > spin.c <<'C'
int main(void)
{
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < 400000000ul; i++)
		x += i;
	return 0;
}
C
${CC:-cc} -O1 -o "$d/spin" spin.c || fail "cc spin.c"
chmod 755 "$d/pfrec" "$d/spin"

rec() { (ulimit -l 0 && cd "$d" && exec $as_user ./pfrec -q --sample=1000 "$@" -o t.bin ./spin) 2>err.txt; }
rec || { cat err.txt >&2; fail "pfrec --sample under ulimit -l 0 exited $?"; }
contains err.txt "past the locked-memory limit"
took=$(sed -n 's/.*; took \([0-9]*\) KiB, which may lose samples.*/\1/p' err.txt)
[ "${took:-1024}" -lt 1024 ] && [ "$took" -ge 64 ] || { cat err.txt >&2; fail "rings of '${took}' KiB taken"; }
lacks err.txt "refused"
pfdump --stats "$d/t.bin" >stats.txt || fail "pfdump --stats"
n=$(sed -n 's/^  sample  *\([0-9][0-9]*\)$/\1/p' stats.txt)
[ "${n:-0}" -ge 20 ] || { cat stats.txt >&2; fail "only ${n:-no} samples with the smaller rings"; }

# a ring within the limit: no warning of it
rec --sample-buffer 256K || { cat err.txt >&2; fail "pfrec --sample-buffer 256K exited $?"; }
lacks err.txt "locked-memory"
lacks err.txt "refused"
