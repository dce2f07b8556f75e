"""Loading a ruleset for the verbs: diagnostics printed, an exit code instead of a traceback; `--set` read."""

from __future__ import annotations

import os
import sys
from typing import Optional, Sequence

EXIT_OK, EXIT_ERRORS, EXIT_USAGE = 0, 1, 2


def parse_sets(items: Sequence[str] | None) -> dict[str, str]:
    """The settings of `--set NAME=VALUE` (ValueError for an item without its '='). Here, not in the table's
    play.py: `rulecraft simulate` read it from there and imported the table, its words and saves (65 M instructions
    of every run's start)."""
    out = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ValueError(f"--set {item!r}: write NAME=VALUE")
        out[name.strip()] = value.strip()
    return out


def load_for(verb: str, ref: str):
    """The loaded ruleset, or None after printing why (its diagnostics) to stdout."""
    from rulecraft.diagnostics import render_text
    from rulecraft.loader import load_ruleset

    loaded = load_ruleset(ref)
    if not loaded.ok:
        print(render_text(loaded.diagnostics, loaded.sources))
        print(f"rulecraft {verb}: {ref} has errors; nothing drawn", file=sys.stderr)
        return None
    return loaded


def misnamed(output: str, endings: tuple[str, ...]) -> bool:
    """An output file whose name says another kind of file (a PDF written to `x.html`): a usage error. Standard
    output (`-`), a device, a FIFO and a folder are left to the writer, which says what it does with them."""
    if output == "-" or str(output).lower().endswith(endings):
        return False
    return not os.path.exists(output) or os.path.isfile(output)


def fail(verb: str, message: str, code: int) -> int:
    from rulecraft.diagnostics import UNPRINTABLE  # a message may quote a stranger's file: it never drives the terminal

    print(f"rulecraft {verb}: {message}".translate(UNPRINTABLE), file=sys.stderr)
    return code


def read_coverage_for(verb: str, path: Optional[str], loaded):
    """(coverage or None, exit code or None); warns on stderr when the file is for another ruleset."""
    if not path:
        return None, None
    from rulecraft.tools.chart.coverage import CoverageError, mismatch, read_coverage

    try:
        cov = read_coverage(path)
    except CoverageError as exc:
        return None, fail(verb, str(exc), EXIT_USAGE)
    warning = mismatch(cov, loaded.graph, loaded.ruleset.name)
    if warning:
        print(f"rulecraft {verb}: warning: {warning}", file=sys.stderr)
    return cov, None


def write_bytes(verb: str, path: str, data: "bytes | str") -> Optional[int]:
    """Write an output through the engine's one writer; an exit code (1, after a message) when that fails.

    `-` is standard output (text, or bytes when it is not a terminal); a device or FIFO is
    written into; a regular file is replaced whole (see rulecraft.files)."""
    from rulecraft.files import OutputError, write_output

    try:
        write_output(path, data)
    except OutputError as exc:
        return fail(verb, exc.message, exc.exit_code if exc.exit_code != 1 else EXIT_ERRORS)  # 2: it names an input
    return None


write_text = write_bytes  # text goes through the same writer (as UTF-8; to standard output as text)
