"""What tp-check.py and tp-stacks.py share: running trace_processor_shell
and profev's commands, and failing with the first difference.

The scripts set tpquery.PROG (their name, for messages) and tpquery.TP (the
binary) before they query.
"""
import csv
import io
import os
import subprocess
import sys
import tempfile

PROG = "tpquery"
TP = os.environ.get("TP") or os.environ.get("TRACE_PROCESSOR")


def fail(msg):
    sys.stderr.write("%s: %s\n" % (PROG, msg))
    sys.exit(1)


def tp_rows(trace, sql):
    """The rows (without the header) of SQL on TRACE; [NULL] becomes None."""
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write(sql + "\n")
        q = f.name
    try:
        p = subprocess.run([TP, "-q", q, trace], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    finally:
        os.unlink(q)
    if p.returncode:
        fail("trace_processor_shell could not load '%s' or run %r: %s"
             % (trace, sql, p.stderr.decode(errors="replace")[-2000:]))
    rows = [r for r in csv.reader(io.StringIO(p.stdout.decode("utf-8", errors="replace"))) if r]
    return [[None if v == "[NULL]" else v for v in r] for r in rows[1:]]


def run(args):
    """ARGS' standard output; fails with its standard error if it fails."""
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode:
        fail("'%s' exited %d: %s" % (" ".join(args), p.returncode, p.stderr.decode(errors="replace")))
    return p.stdout.decode("utf-8", errors="surrogateescape")


def hx(col):
    """A string column in hex: trace_processor's CSV does not escape quotes
    or line ends inside strings."""
    return "iif(%s is null, null, hex(%s))" % (col, col)


def unhex(h):
    """A column that hx() wrote, as text again."""
    return None if h is None else bytes.fromhex(h).decode("utf-8", errors="replace")
