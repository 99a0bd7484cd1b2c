# A program that cannot be started: 127 or 126 like a shell, a clear message,
# and a trace that says so.
. "$PROFEV_ROOT/tests/cli/lib.sh"
expect_exit 127 pfrec -q -o t.bin ./no-such-program
contains err.txt "pfrec: unable to start './no-such-program': command not found"
expect_exit 0 pfdump --stats t.bin
contains out.txt "ended:"
printf 'not a program\n' >notexec
chmod 644 notexec
expect_exit 126 pfrec -q -o t.bin ./notexec
contains err.txt "pfrec: unable to start './notexec': Permission denied"
