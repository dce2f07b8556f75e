"""The language server `rulecraft lsp`: the library's own loader and checks, spoken over LSP to an editor."""

from __future__ import annotations

import logging


class _OneLine(logging.Formatter):
    """The server's log on stderr (an editor shows it in its LSP log): one line per problem, no traceback."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        from rulecraft.diagnostics import UNPRINTABLE  # a method's name, a URI: the client's words never drive a terminal

        first, _, rest = text.partition("\n")  # pygls writes tracebacks into some messages themselves
        return first[:500].translate(UNPRINTABLE) + (" (set RULECRAFT_DEBUG=1 for the details)" if rest.strip() else "")

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
    server = make_server()
    try:
        return serve(server, stdin, stdout)
    finally:
        sys.stdout = saved


def serve(server, stdin, stdout) -> int:
    """pygls's start_io with rulecraft's bounded read loop; the exit code the protocol gives
    (0 after 'shutdown' then 'exit', 1 for 'exit' alone or the editor gone without either)."""
    import asyncio
    import threading

    from pygls.io_ import StdoutWriter

    from rulecraft.tools.lsp.wire import Wire

    server._stop_event = threading.Event()
    server.protocol.set_writer(StdoutWriter(stdout))
    code = None
    try:
        asyncio.run(Wire(server, server.rulecraft_refuse_size).run(stdin))
    except SystemExit as stop:  # pygls's 'exit' handler
        code = stop.code if isinstance(stop.code, int) else 1
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    finally:
        server.rulecraft_checker.shutdown(wait=False, cancel_futures=True)
        try:
            server.shutdown()
        except Exception:  # noqa: BLE001 - the editor is gone
            pass
    if code is None:
        code = 0 if server.protocol._shutdown else 1
    return code
