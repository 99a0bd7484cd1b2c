# pfrec's usage line lists every option, --buffer among them.
. "$PROFEV_ROOT/tests/cli/lib.sh"
expect_exit 0 pfrec --help
contains out.txt "[--buffer SIZE]"
for opt in --categories --drop --zstd-level --buffer --pipe --sample --sched \
	--sample-buffer --sample-stack --sample-fp-chain; do
	sed -n '/^usage:/,/PROGRAM/p' out.txt | grep -qF -- "[$opt" || fail "usage line lacks $opt"
done
