"""One page's websocket: the language server (`rulecraft lsp`, the same server and checks) spoken as JSON-RPC
in text frames, and the studio's own requests beside it (the chart under the cursor).

Each page gets its own language server (its documents are its own), fed by the language server's own
message handling (`Wire.dispatch`: the same replies to a bad message as over stdio). A message over the
size limit is answered as the language server answers it and not read; `exit` closes this page's socket
and nothing else. The protocol is in docs/studio.md.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
from typing import Any

from pygls.uris import to_fs_path

from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from rulecraft.bundled import bundled_root
from rulecraft.tools.lsp.server import make_server
from rulecraft.tools.lsp.wire import INVALID_PARAMS, INVALID_REQUEST, MAX_MESSAGE, Wire

log = logging.getLogger("rulecraft.studio")
MAX_QUEUED = 2000  # messages waiting to go to one page; a page that reads nothing is let go past this
NOT_DRAWN = -32001  # the studio's own error code: a chart Graphviz could not draw


class BadParams(ValueError):
    """A studio request's params of the wrong shape; the message says which, for the page's author."""


class _Writer:
    """pygls's writer: messages for the page queued and sent by one task, in order."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop, self.queue = loop, asyncio.Queue()
        self.closed = False

    def write(self, data: bytes) -> None:
        text = data.decode("utf-8")
        try:
            on_loop = asyncio.get_running_loop() is self.loop
        except RuntimeError:
            on_loop = False
        if on_loop:
            self.queue.put_nowait(text)
        else:  # pygls answered from a worker thread
            self.loop.call_soon_threadsafe(self.queue.put_nowait, text)

    def close(self) -> None:  # pygls's 'exit': this page only (never sys.exit in a server of many pages)
        self.closed = True
        self.loop.call_soon_threadsafe(self.queue.put_nowait, None)


class Session:
    def __init__(self, ws: WebSocket, studio):
        self.ws, self.studio = ws, studio
        self.server = make_server()
        self.server._stop_event = threading.Event()
        self.writer = _Writer(asyncio.get_running_loop())
        self.server.protocol.set_writer(self.writer, include_headers=False)
        self.wire = Wire(self.server, self.server.rulecraft_refuse_size)
        self.tasks: set[asyncio.Task] = set()
        self.charting: tuple[asyncio.Task, Any] | None = None  # the page's newest chart request not answered yet

    def send(self, message: dict) -> None:
        self.writer.queue.put_nowait(json.dumps(message))

    async def run(self) -> None:
        await self.ws.accept()
        sender = asyncio.create_task(self._send_all())
        try:
            while not self.writer.closed:
                got = await self.ws.receive()
                if got["type"] == "websocket.disconnect":
                    break
                data = got.get("text")
                if data is None and got.get("bytes") is not None:
                    data = got["bytes"].decode("utf-8", "replace")
                if data is not None:
                    self.one(data)
        except WebSocketDisconnect:
            pass
        finally:
            sender.cancel()
            for t in self.tasks:
                t.cancel()
            if self.ws.application_state == WebSocketState.CONNECTED:
                try:
                    await self.ws.close(1000)
                except (RuntimeError, OSError, WebSocketDisconnect):  # the page went first (a tab closed, no frame)
                    pass
            self.server.rulecraft_checker.shutdown(wait=False, cancel_futures=True)
            self.server._stop_event.set()

    async def _send_all(self) -> None:
        try:
            while True:
                text = await self.writer.queue.get()
                if text is None or self.writer.queue.qsize() > MAX_QUEUED:
                    self.writer.closed = True
                    await self.ws.close(1000 if text is None else 1013, "" if text is None else
                                        "this page read nothing of what the studio sent it for too long: reload it")
                    return
                await self.ws.send_text(text)
        except (RuntimeError, OSError, WebSocketDisconnect):  # the page went away: nothing more to send it
            self.writer.closed = True

    def one(self, data: str) -> None:
        """One message from the page; whatever it holds, an answer or a logged line, never a stopped server."""
        size = len(data.encode("utf-8", "surrogatepass"))
        if size > MAX_MESSAGE:
            self.wire._too_large(size, data[:4096].encode("utf-8", "replace"))
            return
        try:
            message = json.loads(data)
        except (ValueError, RecursionError):
            message = None
        method = message.get("method") if isinstance(message, dict) else None
        if method == "exit":
            self.writer.close()
            return
        if method == "textDocument/didOpen" and self.outside(message):
            return
        if isinstance(method, str) and method.startswith("rulecraft/"):
            self.supersede(message)
            task = asyncio.create_task(self.studio_request(message))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
            if method == "rulecraft/chart":
                self.charting = (task, message.get("id"))
            return
        try:
            self.wire.dispatch(data.encode("utf-8", "surrogatepass"))
        except BaseException as exc:  # noqa: BLE001 - pygls's exit raises SystemExit: this page's end, no more
            log.warning("a message ended this page's session (%s)", type(exc).__name__)
            self.writer.close()

    def outside(self, message: dict) -> bool:
        """Whether a document the page opens lies outside the studio's folder and the bundled rulesets (then it is
        not opened, and the page is told). The language server reads the parents a document `extends:` beside it:
        a page that opened `file:///elsewhere/x.yaml` with `extends: secret` had a ruleset of any folder of the disk
        loaded, and read it in its chart, hovers and problems."""
        params = message.get("params")
        doc = params.get("textDocument") if isinstance(params, dict) else None
        uri = doc.get("uri") if isinstance(doc, dict) else None
        if not isinstance(uri, str):
            return False  # the language server answers a message of the wrong shape
        try:
            real = os.path.realpath(to_fs_path(uri) or uri)  # (a URI that is no file's: a path beside the studio's)
            places = (self.studio.folder.root, os.path.realpath(bundled_root()))
            if any(os.path.commonpath([real, place]) == place for place in places):
                return False
        except (ValueError, TypeError):  # a NUL, or no path at all
            pass
        self.send({"jsonrpc": "2.0", "method": "window/showMessage", "params": {"type": 1, "message": (
            f"not opened: {uri[:200]} is outside the studio's folder; the studio reads the files of its folder and "
            "the bundled rulesets only")}})
        return True

    def supersede(self, message: dict) -> None:
        """A chart request replaces the page's last one not answered yet (the page shows only its newest): that one
        is answered 'superseded' at once and its chart not drawn, if Graphviz has not begun it. Without this a page
        that asked faster than charts are drawn queued a drawing for every request (one every 150 ms of typing)."""
        if message.get("method") != "rulecraft/chart" or self.charting is None:
            return
        task, rid = self.charting
        self.charting = None
        if not task.done():
            task.cancel()
            self.reply(rid, result={"status": "superseded", "note": "a newer chart request of this page replaced it"})

    async def studio_request(self, message: dict) -> None:
        rid, method, params = message.get("id"), message["method"], message.get("params")
        if method != "rulecraft/chart" or not isinstance(params, dict):
            if rid is not None:
                self.reply(rid, error=(INVALID_REQUEST if method != "rulecraft/chart" else INVALID_PARAMS,
                                       f"{method}: not a request of the studio" if method != "rulecraft/chart"
                                       else "rulecraft/chart takes {uri, line, sequence?, steps?}"))
            return
        try:
            self.reply(rid, result=await self.chart(params))
        except BadParams as exc:
            self.reply(rid, error=(INVALID_PARAMS, f"rulecraft/chart: {exc}"))
        except Exception as exc:  # noqa: BLE001 - Graphviz failing on one chart: this request's error, nothing more
            log.warning("rulecraft/chart failed (%s: %s)", type(exc).__name__, str(exc)[:200])
            self.reply(rid, error=(NOT_DRAWN, f"the chart was not drawn: {str(exc)[:300]}"))

    async def chart(self, params: dict) -> dict:
        uri, line, sequence = params.get("uri"), params.get("line", 1), params.get("sequence")
        steps = params.get("steps", "every")
        if steps not in ("every", "players"):
            raise BadParams("'steps' is \"every\" (every step written) or \"players\" (the sheets' chart)")
        if not isinstance(uri, str):
            raise BadParams("'uri' is the document's URI (a string)")
        if isinstance(line, bool) or not isinstance(line, int):  # 1e400 (infinity), "3", [1]: said, never Python's words
            raise BadParams("'line' is a line number (a whole number from 1)")
        doc = self.server.rulecraft_store.docs.get(uri)
        if doc is None:
            return {"status": "pending", "note": "the text is being checked"}
        if not doc.result.ok:
            good = self.studio.last_good(doc, line, steps)
            note = "the text has errors: this is the last chart drawn without them"
            if "svg" not in good and good.get("sequence"):  # none of this sequence yet: another's would mislead
                note = f"the text has errors: the chart of '{good['sequence']}' is drawn once they are fixed (see Problems)"
            return {"status": "stale", "version": doc.version, **good, "note": note}
        return await self.studio.draw_chart(doc, line, sequence if isinstance(sequence, str) else None, steps)

    def reply(self, rid: Any, result: Any = None, error: tuple[int, str] | None = None) -> None:
        if rid is None:
            return
        msg: dict = {"jsonrpc": "2.0", "id": rid}
        if error is not None:
            msg["error"] = {"code": error[0], "message": error[1]}
        else:
            msg["result"] = result
        self.send(msg)
