"""Exit codes, the program's name and the internal-error message, shared by the command line's modules (the contract in DESIGN.md)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading

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


@contextlib.contextmanager
def ctrl_c_noted():
    """Yields a list that gets an entry when Ctrl-C lands during the block (which raises KeyboardInterrupt as ever).
    A KeyboardInterrupt does not always come out as itself: CPython turns one that lands inside `from X import Y`
    into "TypeError: expected a message argument" (seen in CI, as exit 3). A command that ends in an error after a
    Ctrl-C was interrupted, not broken. Only in the main thread, and only over Python's own Ctrl-C handler."""
    seen: list[int] = []
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield seen
        return

    def on_ctrl_c(signum, frame):
        seen.append(signum)
        signal.default_int_handler(signum, frame)

    signal.signal(signal.SIGINT, on_ctrl_c)
    try:
        yield seen
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


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


class CtrlCWatch:
    """A --cluster run's promise that Ctrl-C ends it: its clean-up talks to the scheduler in bounded steps, yet once
    in a full test run (twice in all) an interrupted run never exited (120 s), somewhere in Dask. While `armed`, the
    first Ctrl-C starts a clock: if the run is still winding down after `grace` seconds, the line it would have
    printed is printed (the games counted by `track`) and the process ends (130). Armed for --cluster runs only, in
    the main thread (where signals go); the clock is stopped when the run's clean-up is over."""

    def __init__(self, prog: str, grace: float = 15.0) -> None:
        self.prog, self.grace, self.done, self.total = prog, grace, 0, 0
        self.timer: "threading.Timer | None" = None

    def track(self, show):
        """A progress callback that keeps the count of games, then calls `show` (None: shows nothing)."""
        def progress(done: int, total: int) -> None:
            self.done, self.total = done, total
            if show is not None:
                show(done, total)
        return progress

    @contextlib.contextmanager
    def armed(self, cluster: bool):
        if not cluster or threading.current_thread() is not threading.main_thread():
            yield
            return

        def on_ctrl_c(signum, frame):
            if self.timer is None:
                self.timer = threading.Timer(self.grace, self._end)
                self.timer.daemon = True
                self.timer.start()
            signal.default_int_handler(signum, frame)

        before = signal.signal(signal.SIGINT, on_ctrl_c)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, before)
            if self.timer is not None:
                self.timer.cancel()

    def _end(self) -> None:
        try:
            print(f"\n{self.prog}: interrupted (Ctrl-C) after {self.done:,} of {self.total:,} games; nothing written "
                  f"(the cluster did not let go within {self.grace:g} s)", file=sys.stderr, flush=True)
        finally:
            end_interrupted_cluster_run(EXIT_INTERRUPTED)
