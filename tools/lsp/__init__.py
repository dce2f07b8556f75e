"""The language server `rulecraft lsp`: the library's own loader and checks, spoken over LSP to an editor."""

from __future__ import annotations


def run(args) -> int:
    """Serve one editor over standard input and output until it says exit."""
    from .server import make_server

    make_server().start_io()
    return 0
