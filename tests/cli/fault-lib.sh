# Sourced by the fault-injection CLI tests after lib.sh.

# small_fs KB: mounts a tmpfs of KB kilobytes on ./full, in a mount namespace
# of this test's own (the test re-runs itself inside it), so that writes
# fail with ENOSPC part-way. Prints SKIP and exits 77 where no namespace or
# tmpfs can be made (an unprivileged user without user namespaces).
small_fs() {
	if [ -z "${PROFEV_IN_NS:-}" ]; then
		ns=
		if unshare -m true 2>/dev/null; then ns="unshare -m"
		elif unshare -rm true 2>/dev/null; then ns="unshare -rm"
		else skip "no mount namespace for a small tmpfs"
		fi
		PROFEV_IN_NS=1 exec $ns sh "$0" "$@"
	fi
	mkdir -p full
	mount -t tmpfs -o size="$1"k tmpfs full 2>/dev/null ||
		skip "cannot mount a tmpfs"
}

# ends_within SECONDS CMD...: runs the shell command string CMD, failing the
# test if it has not ended after SECONDS.
ends_within() {
	s=$1; shift
	timeout -k 2 "$s" sh -c "$*"
	rc=$?
	[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || fail "'$*' did not end within $s s"
}

# bounded SECONDS MIB CMD...: runs CMD with stdout in out.txt, stderr in
# err.txt, failing the test if it takes SECONDS or more, or more than MIB
# MiB at its peak (resident); sets RC to its exit status. With
# BOUNDED_VMEM_KB set, CMD runs under that address-space limit (ulimit -v;
# not for a sanitizer build, whose shadow memory is terabytes of it).
bounded() { # SECONDS MIB CMD...
	RC=$(python3 - "$@" <<'PY'
import os, resource, subprocess, sys, time
s, mb, cmd = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
vm = int(os.environ.get("BOUNDED_VMEM_KB") or 0)
def limit():
    if vm:
        resource.setrlimit(resource.RLIMIT_AS, (vm * 1024, vm * 1024))
t = time.monotonic()
with open("out.txt", "wb") as o, open("err.txt", "wb") as e:
    try:
        rc = subprocess.run(cmd, stdout=o, stderr=e, timeout=s + 5, preexec_fn=limit).returncode
    except subprocess.TimeoutExpired:
        rc = "timeout"
took = time.monotonic() - t
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
if rc == "timeout" or took >= s:
    rc = "slow %.1f s" % took
elif peak > mb:
    rc = "big %d MiB" % peak
print(rc)
PY
)
	case $RC in
	slow*|big*) cat err.txt >&2; fail "'$*': $RC (bounds: $1 s, $2 MiB)" ;;
	esac
}
