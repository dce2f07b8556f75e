"""The language server `rulecraft lsp`: the library's own loader and checks, spoken over LSP to an editor."""

from __future__ import annotations


def run(args) -> int:
    """Serve one editor over standard input and output until it says exit."""
    import os
    import sys

    from .server import make_server

    # the protocol owns copies of fds 0 and 1; anything printed by mistake goes to stderr, not into the protocol
    stdin, stdout = os.fdopen(os.dup(0), "rb"), os.fdopen(os.dup(1), "wb")
    saved, sys.stdout = sys.stdout, sys.stderr
    try:
        make_server().start_io(stdin, stdout)
    finally:
        sys.stdout = saved
    return 0
