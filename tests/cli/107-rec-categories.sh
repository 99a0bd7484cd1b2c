# --categories enables and disables categories when the program starts.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
expect_exit 0 pfrec -q -o all.bin "$GAME" 5
expect_exit 0 pfrec -q -o some.bin --categories render,-audio "$GAME" 5
expect_exit 0 pfrec -q -o most.bin --categories=-audio "$GAME" 5
pfdump --jsonl all.bin >all.txt
pfdump --jsonl some.bin >some.txt
pfdump --jsonl most.bin >most.txt
contains all.txt '"name":"mix"'
contains some.txt '"name":"draw frame"'
lacks some.txt '"name":"mix"'
lacks some.txt '"category":"physics"'
lacks some.txt '"category":"game"'
contains most.txt '"category":"physics"'
lacks most.txt '"name":"mix"'
