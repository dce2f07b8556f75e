"""Exit codes, the program's name and the internal-error message, shared by the command line's modules (the contract in DESIGN.md)."""

from __future__ import annotations

import os
import sys

EXIT_OK = 0
EXIT_DIAGNOSTICS = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # what a shell reports for a program ended by SIGPIPE

PROG = "rulecraft"

EPILOG = """\
RULESET is a path to a ruleset file or the name of a bundled one (see 'rulecraft list').

examples:
  rulecraft list
  rulecraft validate dml rulesets/examples/pig.yaml
  rulecraft validate --format json my-variant.yaml | python -m json.tool

exit codes: 0 clean, 1 diagnostics, 2 usage, 3 internal error.
'rulecraft VERB --help' shows the options of one verb."""


def describe_exc(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def internal_error(exc: BaseException, context: str = "") -> None:
    where = f" {context}" if context else ""
    print(f"{PROG}: internal error{where}: {describe_exc(exc)}", file=sys.stderr)
    if os.environ.get("RULECRAFT_DEBUG"):
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    else:
        print("please report this, with the command you ran and the ruleset "
              "(set RULECRAFT_DEBUG=1 to see the traceback)", file=sys.stderr)


def end_interrupted_cluster_run(code: int) -> None:
    """End the process now, once an interrupted --cluster run has said so (nothing of it is written): Dask's client
    leaves threads and exit handlers that talk to the scheduler, and once in a full test run a Ctrl-C'd run never
    exited (120 s) after its clean-up, which is bounded. Output is flushed first; nothing else is pending."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)
