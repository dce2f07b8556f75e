"""The server's side of the wire: messages framed and read within fixed bounds, and a reply to every request.

pygls reads headers with an unbounded `readline` and bodies with `read(Content-Length)`, answers
nothing to a request it cannot parse and logs a traceback instead. This loop reads the same frames
within bounds (a header line, a message), and answers what the protocol says must be answered:
a body that is not JSON (parse error), a message that is not a request (invalid request), params
of the wrong shape (invalid params), a request after `shutdown` (invalid request), a message over
the size limit (invalid request, and for a document a diagnostic saying why it is not checked).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
from typing import Any, BinaryIO, Callable

log = logging.getLogger("rulecraft.lsp")

MAX_HEADER_LINE = 4096  # bytes of one header line ('Content-Length: 123' is 20)
MAX_HEADER_LINES = 32  # lines of one message's header section
MAX_MESSAGE = 8 * 1024 * 1024  # bytes of one message's body: a document at the size limit, escaped in JSON
CHUNK = 64 * 1024  # a message over the limit is read through and dropped in pieces of this size
SNIFF = 4096  # bytes kept from the start of a dropped message, to find its id, method and document

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602


class Frames:
    """Reads LSP frames from a byte stream, holding at most MAX_MESSAGE + a header line at once."""

    def __init__(self, stream: BinaryIO):
        self.stream = stream

    def _line(self) -> bytes | None:
        """One header line, or b'?' for a line longer than the limit (read through, not kept); None at the end."""
        line = self.stream.readline(MAX_HEADER_LINE)
        if not line:
            return None
        if line.endswith(b"\n"):
            return line
        while True:  # an endless line: read through to its end in bounded pieces
            more = self.stream.readline(MAX_HEADER_LINE)
            if not more:
                return None
            if more.endswith(b"\n"):
                return b"?"

    def next(self) -> tuple[str, Any] | None:
        """('message', body bytes) or ('too large', (length, first bytes)) or ('bad header', reason); None at the end."""
        length: int | None = None
        bad: list[str] = []
        for _ in range(MAX_HEADER_LINES + 1):
            line = self._line()
            if line is None:
                return None
            if not line.strip():
                break
            if line == b"?":
                bad.append(f"a header line longer than {MAX_HEADER_LINE} bytes")
                continue
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                text = value.strip()
                length = int(text) if text.isdigit() and len(text) <= 18 else None
                if length is None:
                    bad.append(f"a Content-Length that is not a number of bytes ({_show(text)})")
        else:
            return ("bad header", f"more than {MAX_HEADER_LINES} header lines")
        if length is None:
            return ("bad header", "; ".join(bad) or "a message without a Content-Length")
        if length > MAX_MESSAGE:
            return ("too large", (length, self._drop(length)))
        body = self.stream.read(length)
        if body is None or len(body) < length:
            return None
        return ("message", body)

    def _drop(self, length: int) -> bytes:
        """Read `length` bytes through without keeping them (but the first few, to say what they were)."""
        first = b""
        left = length
        while left > 0:
            piece = self.stream.read(min(CHUNK, left))
            if not piece:
                break
            if len(first) < SNIFF:
                first += piece[: SNIFF - len(first)]
            left -= len(piece)
        return first


def _show(raw: bytes) -> str:
    return raw[:40].decode("ascii", "replace")


def _sniff(first: bytes) -> tuple[Any, str, str]:
    """The id, method and document uri written near the start of a message that was not kept."""
    text = first.decode("utf-8", "replace")
    mid = re.search(r'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")', text)
    method = re.search(r'"method"\s*:\s*"([^"\\]{1,100})"', text)
    uri = re.search(r'"uri"\s*:\s*"([^"\\]{1,2000})"', text)
    rid = json.loads(mid.group(1)) if mid else None
    return rid, method.group(1) if method else "", uri.group(1) if uri else ""


class Wire:
    """The read loop: a frame at a time from a reader thread, each handed to the pygls protocol."""

    def __init__(self, server, too_large: Callable[[str, int], None]):
        self.server = server
        self.protocol = server.protocol
        self.too_large = too_large  # told the uri and size of a document that was not kept

    def reply_error(self, rid: Any, code: int, message: str) -> None:
        self.protocol._send_data({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})

    async def run(self, stream: BinaryIO) -> None:
        """Frames are read on a daemon thread (a blocked read never holds up the exit), one frame ahead at most."""
        frames = Frames(stream)
        loop = asyncio.get_running_loop()
        box: asyncio.Queue = asyncio.Queue()
        want = threading.Semaphore(0)

        def read() -> None:
            while True:
                want.acquire()
                try:
                    got = frames.next()
                except (OSError, ValueError):
                    got = None
                loop.call_soon_threadsafe(box.put_nowait, got)
                if got is None:
                    return

        threading.Thread(target=read, name="lsp-read", daemon=True).start()
        while not self.server._stop_event.is_set():
            want.release()
            got = await box.get()
            if got is None:
                return
            kind, value = got
            if kind == "bad header":
                log.warning("a message was skipped: %s", value)
            elif kind == "too large":
                self._too_large(*value)
            else:
                self.dispatch(value)

    def _too_large(self, length: int, first: bytes) -> None:
        rid, method, uri = _sniff(first)
        what = f"a message of {length:,} bytes is over the server's limit of {MAX_MESSAGE:,}"
        log.warning("%s%s: not read", what, f" ({method})" if method else "")
        if rid is not None and method:
            self.reply_error(rid, INVALID_REQUEST, what)
        elif uri and method in ("textDocument/didOpen", "textDocument/didChange"):
            self.too_large(uri, length)

    def dispatch(self, body: bytes) -> None:
        try:
            data = json.loads(body)
        except (ValueError, RecursionError) as exc:
            why = (str(exc).splitlines()[0][:200] if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
                   if isinstance(exc, RecursionError) else "a number with too many digits")  # never Python's advice
            log.warning("a message that is not JSON was skipped (%s)", why)
            self.reply_error(None, PARSE_ERROR, "the message is not JSON")
            return
        if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
            log.warning("a message that is not a JSON-RPC 2.0 object was skipped")
            self.reply_error(data.get("id") if isinstance(data, dict) else None, INVALID_REQUEST,
                             "not a JSON-RPC 2.0 message")
            return
        rid, method = data.get("id"), data.get("method")
        is_request = "id" in data and method is not None
        if is_request and not _valid_id(rid):
            self.reply_error(None, INVALID_REQUEST, "a request's id is a number or a string")
            return
        if method is not None and not isinstance(method, str):
            if is_request:
                self.reply_error(rid, INVALID_REQUEST, "a request's method is a string")
            return
        if is_request and self.protocol._shutdown:
            self.reply_error(rid, INVALID_REQUEST, "the server is shutting down")
            return
        try:
            message = self.protocol.structure_message(data)
        except Exception as exc:  # noqa: BLE001 - pygls's JsonRpcInvalidParams and the like
            name = type(exc).__name__
            log.warning("%s: params not understood (%s)", method or "a message", name)
            if is_request:
                self.reply_error(rid, INVALID_PARAMS, f"{method}: the params do not have the shape the protocol gives")
            return
        try:
            self.protocol.handle_message(message)
        except Exception as exc:  # noqa: BLE001 - one message's failure is not the server's
            log.warning("%s failed (%s: %s)", method or "a message", type(exc).__name__, str(exc)[:200])
            if is_request:
                self.reply_error(rid, -32603, f"{method} failed")


def _valid_id(rid: Any) -> bool:
    return (isinstance(rid, int) and not isinstance(rid, bool)) or isinstance(rid, str)
