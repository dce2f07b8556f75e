"""The language server `rulecraft lsp`: the library's own loader and checks, spoken over LSP to an editor."""

from __future__ import annotations

import logging


class _OneLine(logging.Formatter):
    """The server's log on stderr (an editor shows it in its LSP log): one line per problem, no traceback."""

    def formatException(self, ei) -> str:  # noqa: N802 - logging's name
        return f"  ({ei[0].__name__}: {ei[1]}; set RULECRAFT_DEBUG=1 for the traceback)"


def run(args) -> int:
    """Serve one editor over standard input and output until it says exit."""
    import os
    import sys

    from rulecraft.tools.lsp.server import make_server

    handler = logging.StreamHandler(sys.stderr)
    if not os.environ.get("RULECRAFT_DEBUG"):
        handler.setFormatter(_OneLine("rulecraft lsp: %(levelname)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler], force=True)
    # the protocol owns copies of fds 0 and 1; anything printed by mistake goes to stderr, not into the protocol
    stdin, stdout = os.fdopen(os.dup(0), "rb"), os.fdopen(os.dup(1), "wb")
    saved, sys.stdout = sys.stdout, sys.stderr
    try:
        make_server().start_io(stdin, stdout)
    finally:
        sys.stdout = saved
    return 0
