# Sourced by the debuginfod tests (415-419), after lib.sh: a real debuginfod
# server (elfutils, Debian package debuginfod) on 127.0.0.1 over a
# directory, and an isolated client cache. The server is stopped when the
# test exits.
#   dfd_need              SKIP unless debuginfod, python3 are here
#   dfd_start DIR ID      serve DIR (-F) on a free port; wait until ID (a
#                         build-id) is served; sets DFD_URL
#   dfd_requests          debuginfo requests the server has had so far
#   dfd_stop              stop it now
#   free_port             a port nothing listens on (just bound and closed)

dfd_need() {
	command -v debuginfod >/dev/null 2>&1 || skip "debuginfod not installed (Debian package debuginfod)"
	command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
	# nothing from the caller's environment: no servers, the test's own cache
	unset DEBUGINFOD_URLS DEBUGINFOD_PROGRESS DEBUGINFOD_VERBOSE
	export DEBUGINFOD_CACHE_PATH="$PWD/dfd-cache"
}

DFD_PID=
dfd_stop() {
	[ -n "$DFD_PID" ] || return 0
	kill "$DFD_PID" 2>/dev/null
	wait "$DFD_PID" 2>/dev/null
	DFD_PID=
}
trap dfd_stop EXIT

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# http_status URL: the HTTP status of a GET (000 if no answer)
http_status() {
	python3 - "$1" <<'PY'
import sys, urllib.request, urllib.error
try:
    print(urllib.request.urlopen(sys.argv[1], timeout=5).status)
except urllib.error.HTTPError as e:
    print(e.code)
except Exception:
    print("000")
PY
}

dfd_start() { # DIR BUILD-ID
	for try in 1 2 3 4 5; do
		port=$(free_port)
		# -t 0 -g 0: one scan at start, no grooming; the database is the test's
		debuginfod -F -p "$port" -d "$PWD/dfd-$port.sqlite" -t 0 -g 0 "$1" >"dfd-$port.log" 2>&1 &
		DFD_PID=$!
		DFD_URL="http://127.0.0.1:$port"
		i=0
		while [ $i -lt 300 ]; do
			kill -0 "$DFD_PID" 2>/dev/null || break
			[ "$(http_status "$DFD_URL/buildid/$2/debuginfo")" = 200 ] && return 0
			sleep 0.1
			i=$((i + 1))
		done
		dfd_stop
		# a port taken meanwhile: try another; anything else is a failure
		grep -q "cannot\|Address already in use\|bind" "dfd-$port.log" || break
	done
	cat dfd-*.log >&2
	fail "debuginfod did not serve $2 from '$1'"
}

dfd_requests() {
	python3 - "$DFD_URL/metrics" <<'PY'
import sys, urllib.request
n = 0
for line in urllib.request.urlopen(sys.argv[1], timeout=5).read().decode().splitlines():
    if line.startswith('http_requests_total{type="debuginfo"}'):
        n = int(float(line.split()[1]))
print(n)
PY
}

# The hostile server (hostile-debuginfod.py: 127.0.0.1 only, stops by
# itself), for the tests of broken and malicious answers (418-...):
#   hostile_start MODE [FILE]  serve MODE (FILE's bytes); sets HOSTILE_URL
#   hostile_need               SKIP unless python3 is here; the test's cache
#   hostile_requests ID        requests for build-id ID it has had so far
#   hostile_stop               stop it now
#   bounded S MB CMD...        (fault-lib.sh) CMD within S seconds and MB MiB
. "$PROFEV_ROOT/tests/cli/fault-lib.sh"
HOSTILE_PID=
hostile_stop() {
	[ -n "$HOSTILE_PID" ] || return 0
	kill "$HOSTILE_PID" 2>/dev/null
	wait "$HOSTILE_PID" 2>/dev/null
	HOSTILE_PID=
}
trap 'dfd_stop; hostile_stop' EXIT

hostile_start() { # MODE [FILE]
	hostile_stop
	rm -f hostile.port hostile.port.count
	python3 "$PROFEV_ROOT/tests/cli/hostile-debuginfod.py" "$1" hostile.port ${2:+"$2"} --lifetime 60 &
	HOSTILE_PID=$!
	i=0
	while [ ! -s hostile.port ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s hostile.port ] || fail "the hostile server did not start"
	HOSTILE_URL="http://127.0.0.1:$(cat hostile.port)"
}

hostile_requests() { # ID
	awk -v id="$1" '$1 == id { n = $2 } END { print n + 0 }' hostile.port.count 2>/dev/null || echo 0
}

hostile_need() {
	command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
	unset DEBUGINFOD_URLS DEBUGINFOD_PROGRESS DEBUGINFOD_VERBOSE DEBUGINFOD_MAXSIZE DEBUGINFOD_MAXTIME
	export DEBUGINFOD_CACHE_PATH="$PWD/dfd-cache"
}

# skip_without_libdebuginfod: after a run, SKIP if pfsym could not load it
skip_without_libdebuginfod() {
	! grep -q "unable to load libdebuginfod" err.txt ||
		skip "libdebuginfod.so.1 not installed (Debian package libdebuginfod1)"
}
