# Sourced by tests that load an output into Perfetto's trace_processor_shell
# and query it with SQL. The binary is a test tool, not a dependency: it is
# found through $TRACE_PROCESSOR, then ../shared/tools/trace_processor_shell
# beside the sources, then PATH. Without one, tp_need makes the test SKIP
# (exit 77, which tests/run.sh counts as skipped) with the reason.

# tp_find: sets TP to the binary, or returns 1. A $TRACE_PROCESSOR that is
# set is the only place looked at.
tp_find() {
	if [ -n "${TRACE_PROCESSOR+set}" ]; then
		TP=$TRACE_PROCESSOR
		[ -x "$TP" ] && return 0
		tp_why="TRACE_PROCESSOR='$TP' is not an executable file"
		return 1
	fi
	for TP in "$PROFEV_ROOT/../shared/tools/trace_processor_shell" \
		"$(command -v trace_processor_shell 2>/dev/null)"; do
		[ -n "$TP" ] && [ -x "$TP" ] && return 0
	done
	tp_why="no trace_processor_shell in \$TRACE_PROCESSOR, ../shared/tools or PATH (see ../shared/tools/README.md)"
	return 1
}

tp_need() {
	tp_find || skip "$tp_why"
}

# tp_sql TRACE SQL: the rows of one query as CSV, without the header line.
# Fails the test when trace_processor cannot load the trace or run the query.
tp_sql() {
	printf '%s\n' "$2" > tp-query.sql
	"$TP" -q tp-query.sql "$1" > tp-out.csv 2> tp-err.txt ||
		{ cat tp-err.txt >&2; fail "trace_processor_shell could not load '$1' or run: $2"; }
	# The first line is the header; a query with no rows prints only it.
	sed '1d; /^$/d' tp-out.csv
}

# tp_value TRACE SQL: the single value a query returns, quotes removed.
tp_value() { tp_sql "$1" "$2" | head -n 1 | tr -d '"'; }

# fields_known TRACE: protoc decodes TRACE against formats/perfetto with no
# field left as a bare number: the documented subset holds all pfconv wrote.
fields_known() {
	protoc --decode=perfetto.protos.Trace -I "$PROFEV_ROOT/formats/perfetto" \
		"$PROFEV_ROOT/formats/perfetto/trace.proto" <"$1" >"$1.txt" 2>protoc.err ||
		fail "protoc cannot decode '$1': $(cat protoc.err)"
	unknown=$(grep -E -m 3 '^ *[0-9]+(:| \{)' "$1.txt")
	[ -z "$unknown" ] || fail "'$1' has fields formats/perfetto lacks: $(echo "$unknown" | sed 's/^ *//' | tr '\n' ' ')"
}

# tp_import_ok TRACE [STAT...]: trace_processor reported no import error and
# no data loss, apart from the named stats (data loss that the trace itself
# records, such as lost events under --drop).
tp_import_ok() {
	trace=$1; shift
	allowed="''"
	for s in "$@"; do allowed="$allowed,'$s'"; done
	bad=$(tp_sql "$trace" "select name || '[' || coalesce(idx, '') || '] = ' || value from stats
		where severity in ('error', 'data_loss') and value > 0 and name not in ($allowed)")
	[ -z "$bad" ] || fail "trace_processor: '$trace' imports with errors: $(echo "$bad" | tr '\n' ' ')"
}

# tpcheck [--chrome JSON] [--window FROM TO] TRACE OUTPUT...: trace_processor's
# tables of OUTPUT (one conversion, or the parts of a split) are what pfdump
# shows of TRACE (tests/cli/tp-check.py); its counts go to check.out.
tpcheck() {
	TP="$TP" python3 "$PROFEV_ROOT/tests/cli/tp-check.py" "$@" > check.out 2> check.err ||
		{ cat check.err >&2; fail "tp-check $*"; }
}
