# The regression inputs of tests/golden/bad/ (inputs the fuzz targets of
# tests/fuzz/ found crashing something):
#   - each trace (*.bin) goes through every command that reads traces:
#     pfdump, pfdump --jsonl, --stats, --leaks and --compare (against a good
#     trace), pfconv to each target and
#     pfsym. Each must exit 1 (a bad or cut trace) or 2 (unreadable), never
#     die of a signal, and name the file in its message; an input listed in
#     tests/golden/bad/whole is a whole trace (a crash on good input): there
#     every command must succeed;
#   - each client stream (wire/*.bin: a u32 length n, n bytes for the shared
#     memory file, then the pipe stream; see tests/fuzz/feed.c) is played to
#     pfrec by a shell standing in for the program: pfrec must pass the
#     program's status through and write a trace that reads back whole.
# Inputs listed in tests/golden/bad/known crash a command by a defect being
# fixed elsewhere (issue 11): they are named and skipped until their line goes.
. "$PROFEV_ROOT/tests/cli/lib.sh"
BAD="$GOLDEN/bad"
listed() { sed -n "s|^$2[[:space:]]\{1,\}||p" "$BAD/$1"; }
ran=0
for f in "$BAD"/*.bin; do
	[ -f "$f" ] || continue
	name=${f##*/}
	why=$(listed known "$name")
	if [ -n "$why" ]; then
		echo "known, not run yet: $name ($why)"
		continue
	fi
	for cmd in "pfdump" "pfdump --jsonl" "pfdump --stats" "pfdump --leaks" \
		"pfdump --compare $GOLDEN/allkinds.bin" "pfconv to perfetto -o out.pftrace" \
		"pfconv to chrome -o out.json" "pfconv to folded -o out.folded" "pfsym -q -o out.bin"; do
		# shellcheck disable=SC2086 # the command's words
		$cmd "$f" >out.txt 2>err.txt
		got=$?
		ran=$((ran + 1))
		if [ -n "$(listed whole "$name")" ]; then
			[ "$got" -eq 0 ] || { cat err.txt >&2; fail "'$cmd $name' exited $got on a whole trace"; }
			continue
		fi
		case $got in
		1 | 2) ;;
		*) cat err.txt >&2; fail "'$cmd $name' exited $got, expected 1 or 2" ;;
		esac
		grep -qF -- "'$f'" err.txt || { cat err.txt >&2; fail "'$cmd $name': the message does not name '$f'"; }
	done
done
# The stand-in client: the shared file's bytes where the rings are (the
# file made big enough for any ring a message can name), then the stream.
play='n=$(od -An -tu4 -N4 "$0" | tr -d " ")
[ -n "$PROFEV_SHM" ] && truncate -s 1M "/proc/self/fd/$PROFEV_SHM" &&
	tail -c +5 "$0" | head -c "$n" >&"$PROFEV_SHM"
tail -c +$((5 + n)) "$0" >&"$PROFEV_FD"
exit 3'
for f in "$BAD"/wire/*.bin; do
	[ -f "$f" ] || continue
	name=wire/${f##*/}
	why=$(listed known "$name")
	if [ -n "$why" ]; then
		echo "known, not run yet: $name ($why)"
		continue
	fi
	expect_exit 3 pfrec -q -o trace.bin sh -c "$play" "$f"
	expect_exit 0 pfdump --stats trace.bin
	ran=$((ran + 1))
done
echo "$ran runs of the regression inputs: each ended as it should"
