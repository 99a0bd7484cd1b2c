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
