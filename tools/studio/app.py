"""The studio's web application: the page, its assets, the folder's files, the printed pages, the diff and
the websocket, as Starlette routes behind the guard (token, Host, Origin). Work that takes long (a chart,
a PDF, a ruleset loaded for its printed pages) runs on worker threads, never on the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sys
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from importlib.resources import files
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from rulecraft.tools.studio import drafts
from rulecraft.tools.studio.folder import MAX_FILE, SUFFIXES, Folder, Refused, bundled, bundled_path
from rulecraft.tools.studio.guard import Guard, GuardMiddleware, JSONResponse
from rulecraft.tools.studio.play.hub import Hub
from rulecraft.tools.studio.play.routes import play_routes
from rulecraft.tools.studio.play.table import Refusal
from rulecraft.tools.studio.lab.channel import Channel, Lab
from rulecraft.tools.studio.session import Session
from rulecraft.tools.studio.views import NotDrawn, aid_page, book_page, chart, diff, printed_pdf, sheets_pdf

log = logging.getLogger("rulecraft.studio")


class Printable(logging.Filter):
    """The studio's log lines as a terminal may print them: a game's folder, a ruleset's error or a request came from
    a stranger, and an escape sequence in one would drive the terminal the studio runs in (rulecraft.diagnostics'
    one map: control characters, bidirectional controls and line separators shown as '?')."""

    def filter(self, record: logging.LogRecord) -> bool:
        from rulecraft.diagnostics import UNPRINTABLE

        record.msg, record.args = record.getMessage().translate(UNPRINTABLE), None
        return True


log.addFilter(Printable())
ASSETS = {"studio.js": "text/javascript; charset=utf-8", "studio.css": "text/css; charset=utf-8"}
MAX_BODY = 2 * MAX_FILE + 64 * 1024  # bytes of a request body: a ruleset at the limit, escaped in JSON
MAX_SESSIONS = 32  # pages open at once
BODY_WITHIN = 60.0  # seconds a request body may take to arrive (a ruleset at the limit, on the slowest link)
CHARTS_KEPT = 32
GOOD_KEPT = 256  # the last good chart of each (document, sequence): pages come and go, this does not grow past it
WATCH_EVERY = 1.0  # seconds between looks at the folder for changes made elsewhere
PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
            "connect-src 'self'; frame-src 'self' blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
PRINT_CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; "
             "frame-ancestors 'self'; sandbox")


class Superseded(Exception):
    """Printed pages not made: a newer request for the same pages came while this one waited (409)."""


def static_text(name: str) -> bytes:
    return files("rulecraft.tools.studio").joinpath("static", name).read_bytes()


class Studio:
    def __init__(self, root: str, guard: Guard, open_file: str | None = None):
        self.folder = Folder(root)
        self.guard = guard
        self.open_file = open_file
        self.sessions: set[Session] = set()
        self.drawing = ThreadPoolExecutor(max_workers=2, thread_name_prefix="studio-chart")
        self.printing = ThreadPoolExecutor(max_workers=1, thread_name_prefix="studio-print")
        self.charts: OrderedDict = OrderedDict()
        self.good: OrderedDict = OrderedDict()  # (uri, sequence) -> its last chart drawn from a text without errors
        self.known: dict = {}
        self.asked: dict = {}  # (printed kind, path) -> how many requests for it came (the newest is made)

    # ---------------------------------------------------------------- work off the event loop
    async def draw_chart(self, doc, line: int, sequence: str | None, steps: str = "every") -> dict:
        from rulecraft.tools.studio.views import sequence_at

        rs = doc.result.ruleset
        sid = sequence if sequence in rs.sequences else sequence_at(rs, doc.path, line)
        key = (doc.uri, doc.version, hash(doc.text), sid, steps)  # two pages may hold the same file at one version
        if key not in self.charts:
            loop = asyncio.get_running_loop()
            self.charts[key] = await loop.run_in_executor(self.drawing, chart, doc.result, doc.path, line, sid, steps)
            while len(self.charts) > CHARTS_KEPT:
                self.charts.popitem(last=False)
        self.good[(doc.uri, sid, steps)] = self.charts[key]
        self.good.move_to_end((doc.uri, sid, steps))
        while len(self.good) > GOOD_KEPT:
            self.good.popitem(last=False)
        return {"status": "ok", "version": doc.version, **self.charts[key]}

    def last_good(self, doc, line: int, steps: str = "every") -> dict:
        """The last chart drawn of the sequence under the cursor, by the last model the text built; {"sequence": ID}
        when none of it was drawn yet, {} when the model cannot say which sequence that is."""
        from rulecraft.tools.studio.views import sequence_at

        if doc.model is None or not getattr(doc.model, "sequences", None):
            return {}
        try:
            sid = sequence_at(doc.model, doc.path, line)
        except AttributeError:  # a model built only in part
            return {}
        return self.good.get((doc.uri, sid, steps), {"sequence": sid} if sid else {})

    async def off_loop(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self.printing, fn, *args)

    async def newest(self, key: tuple, fn, *args):
        """`fn(*args)` off the loop, unless a newer request of the same `key` (the same pages of the same file) came
        while it waited its turn: then Superseded, and nothing is made (the page asks again at every save)."""
        self.asked[key] = turn = self.asked.get(key, 0) + 1

        def run():
            if self.asked.get(key) != turn:
                raise Superseded("a newer request for the same pages came while this one waited: it was not made")
            return fn(*args)

        return await self.off_loop(run)

    # ---------------------------------------------------------------- what changed on disk
    async def watch(self) -> None:
        loop = asyncio.get_running_loop()
        self.known = await loop.run_in_executor(None, self.folder.scan)
        while True:
            await asyncio.sleep(WATCH_EVERY)
            try:
                now = await loop.run_in_executor(None, self.folder.scan)
            except OSError:
                continue
            if set(now) != set(self.known):
                self.broadcast("rulecraft/filesChanged", {"files": sorted(now)})
            for rel, entry in now.items():
                old = self.known.get(rel)
                if old is not None and (old.size, old.mtime_ns) != (entry.size, entry.mtime_ns):
                    try:
                        _path, _text, digest = await loop.run_in_executor(None, self.folder.read, rel)
                    except Refused:
                        continue
                    self.broadcast("rulecraft/fileChanged", {"path": rel, "digest": digest})
            self.known = now

    def broadcast(self, method: str, params: dict) -> None:
        for s in list(self.sessions):
            s.send({"jsonrpc": "2.0", "method": method, "params": params})


def make_app(root: str, guard: Guard, open_file: str | None = None, pace: float = 0.6,
             play: dict | None = None, lab: Lab | None = None) -> Starlette:
    """`pace`: seconds between the bots' moves in a played game; `play`: a game to start at once
    (`studio --play`: {ruleset, seats, seed, options, then(described game)}); `lab`: where simulations play
    (local processes, or the Dask cluster of `--cluster`)."""
    studio = Studio(root, guard, open_file)
    hub = Hub(studio.folder.root, pace)
    lab = lab or Lab()

    async def page(request: Request) -> Response:
        response = HTMLResponse(static_text("index.html"), headers={"content-security-policy": PAGE_CSP,
                                                                     "cache-control": "no-store"})
        response.set_cookie(guard.cookie, guard.token, httponly=True, samesite="strict", path="/")
        return response

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ASSETS:
            return _error("no such asset", 404)
        return Response(static_text(name), media_type=ASSETS[name], headers={"cache-control": "no-cache"})

    async def config(request: Request) -> Response:
        from rulecraft.tools.cli.main import _version

        return JSONResponse({"root": studio.folder.root, "open": studio.open_file, "version": _version(),
                             "maxFile": MAX_FILE})

    async def list_files(request: Request) -> Response:
        found = await asyncio.get_running_loop().run_in_executor(None, studio.folder.scan)
        return JSONResponse({"files": sorted(found), "bundled": bundled()})

    async def read_file(request: Request) -> Response:
        q = request.query_params
        if "bundled" in q:
            path = bundled_path(q["bundled"])
            with open(path, encoding="utf-8") as fh:
                return JSONResponse({"path": None, "bundled": q["bundled"], "file": path, "text": fh.read(),
                                     "digest": None, "readOnly": True})
        path, text, digest = studio.folder.read(q.get("path", ""))
        draft = drafts.find(studio.folder.root, q["path"], MAX_FILE)
        if draft and draft["text"] == text:  # saved meanwhile by another page, or typed back as it was
            drafts.drop(studio.folder.root, q["path"])
            draft = None
        return JSONResponse({"path": q["path"], "file": path, "text": text, "digest": digest, "readOnly": False,
                             "draft": draft})

    async def save(request: Request) -> Response:
        body = await _json(request)
        digest = studio.folder.save(body.get("path"), _str(body, "text"), body.get("digest"))
        drafts.drop(studio.folder.root, body["path"])
        return JSONResponse({"path": body["path"], "digest": digest})

    async def draft(request: Request) -> Response:
        body = await _json(request)
        rel, text, base = _str(body, "path"), body.get("text"), body.get("digest")
        studio.folder.resolve(rel)
        if not rel.endswith(SUFFIXES):
            raise Refused(f"'{rel[:100]}' is not a ruleset file (.yaml or .yml)", 400)
        if text is not None and not isinstance(text, str) or base is not None and not isinstance(base, str):
            raise Refused("'text' is the editor's text (a string, or null once it is the file's again) and "
                          "'digest' the file's it was typed over", 400)
        if text is not None and len(text.encode("utf-8", "surrogatepass")) > MAX_FILE:
            raise Refused(f"the text is over the limit of {MAX_FILE:,} bytes: not kept", 413)
        try:
            await asyncio.get_running_loop().run_in_executor(None, drafts.keep, studio.folder.root, rel, text, base)
        except drafts.DraftError as exc:
            raise Refused(f"your text not saved could not be kept by the studio ({exc}); save it", 403) from None
        return JSONResponse({"path": rel, "kept": text is not None})

    async def new(request: Request) -> Response:
        body = await _json(request)
        source, parent = body.get("from") or None, body.get("extends") or None
        if source is not None and not isinstance(source, str):
            raise Refused("'from' is the name of a bundled ruleset (a string)", 400)
        if parent is not None and not isinstance(parent, str):
            raise Refused("'extends' is the ruleset a variant extends: a path of the folder or bundled:NAME", 400)
        rel = studio.folder.create(_str(body, "path"), source, parent)
        return JSONResponse({"path": rel})

    def source(ref: str) -> str:
        return bundled_path(ref[8:]) if ref.startswith("bundled:") else studio.folder.read(ref)[0]

    async def printed(request: Request) -> Response:
        kind = request.path_params["kind"]
        path = source(request.query_params.get("path", ""))
        if kind in ("aid", "book"):
            html = await studio.newest((kind, path), aid_page if kind == "aid" else book_page, path)
            return HTMLResponse(html, headers={"content-security-policy": PRINT_CSP})
        if kind in ("sheets", "aid.pdf", "book.pdf"):
            if kind == "sheets":
                pdf = await studio.newest((kind, path), sheets_pdf, path)
            else:
                pdf = await studio.newest((kind, path), printed_pdf, kind[:-4], path)
            name = os.path.splitext(os.path.basename(path))[0] + "-" + kind.replace(".pdf", "") + ".pdf"
            how = "attachment" if request.query_params.get("download") else "inline"
            return Response(pdf, media_type="application/pdf",
                            headers={"content-disposition": f"{how}; filename*=UTF-8''{quote(name)}"})
        return _error("no such printed page", 404)

    async def variants(request: Request) -> Response:
        a, b = source(request.query_params.get("a", "")), source(request.query_params.get("b", ""))
        return JSONResponse(await studio.off_loop(diff, a, b, request.query_params.get("sequence", "")))

    async def socket(ws: WebSocket) -> None:
        if len(studio.sessions) >= MAX_SESSIONS:  # said, so the page does not send its reader to restart the studio
            await ws.accept()
            await ws.close(1013, f"the studio serves at most {MAX_SESSIONS} pages at once and that many are open: "
                                 "close one, then reload this page")
            return
        session = Session(ws, studio)
        studio.sessions.add(session)
        try:
            await session.run()
        finally:
            studio.sessions.discard(session)

    async def simulations(ws: WebSocket) -> None:
        await Channel(ws, studio, lab).run()

    async def refused(request: Request, exc: Exception) -> Response:
        if isinstance(exc, Refused):
            return JSONResponse({"error": exc.message, **exc.more}, status_code=exc.status)
        if isinstance(exc, NotDrawn):
            return _error(str(exc), 422)
        if isinstance(exc, Superseded):
            return _error(str(exc), 409)
        log.error("%s %s failed", request.method, request.url.path, exc_info=exc)  # the traceback for a report
        return _error("the studio failed on this request: an error of rulecraft's own (its log says more; please "
                      "report it); nothing was written", 500)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        watcher = asyncio.create_task(studio.watch())
        await asyncio.get_running_loop().run_in_executor(None, hub.find_games)
        for gid in hub.tables:
            hub.kick(gid)
        if play is not None:  # `studio --play`: a game that cannot start is said in one line; the folder is served
            try:
                made = await hub.new_game(play["ruleset"], play["seats"], play["seed"], play["options"])
            except Refusal as exc:
                print(f"rulecraft studio: --play: {exc}", file=sys.stderr, flush=True)
            else:
                play["then"](made)
        try:
            yield
        finally:
            watcher.cancel()
            await hub.close()
            lab.stop_all()
            studio.drawing.shutdown(wait=False, cancel_futures=True)
            studio.printing.shutdown(wait=False, cancel_futures=True)

    routes = [
        Route("/", page), Route("/static/{name}", asset), Route("/favicon.ico", lambda r: Response(status_code=204)), Route("/api/config", config),
        Route("/api/files", list_files), Route("/api/file", read_file), Route("/api/save", save, methods=["POST"]),
        Route("/api/draft", draft, methods=["POST"]),
        Route("/api/new", new, methods=["POST"]), Route("/api/print/{kind}", printed), Route("/api/diff", variants),
        WebSocketRoute("/ws", socket), WebSocketRoute("/simulate", simulations),
    ] + play_routes(hub, static_text, source, _json)
    from starlette.middleware import Middleware

    handlers = {Refused: refused, NotDrawn: refused, Superseded: refused, ValueError: refused, Exception: refused}
    app = Starlette(routes=routes, middleware=[Middleware(GuardMiddleware, guard=guard)],
                    exception_handlers=handlers, lifespan=lifespan)
    app.state.studio = studio
    app.state.hub = hub
    app.state.lab = lab
    return app


def _error(message: str, status: int) -> Response:
    return JSONResponse({"error": message}, status_code=status)


def _str(body: dict, key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str):
        raise Refused(f"'{key}' is a string", 400)
    return value


async def _json(request: Request) -> dict:
    """The request's JSON object, read up to MAX_BODY bytes (more is refused without being kept)."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_BODY:
        raise Refused(f"a request body over {MAX_BODY:,} bytes", 413)

    async def read() -> bytes:
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_BODY:
                raise Refused(f"a request body over {MAX_BODY:,} bytes", 413)
            chunks.append(chunk)
        return b"".join(chunks)

    try:  # a client that sends its body a byte at a time holds a connection no longer than this
        raw = await asyncio.wait_for(read(), BODY_WITHIN)
    except asyncio.TimeoutError:
        raise Refused(f"the request body did not arrive within {BODY_WITHIN:g} seconds", 408) from None
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):
        raise Refused("the request body is not JSON", 400) from None
    if not isinstance(body, dict):
        raise Refused("the request body is a JSON object", 400)
    return body
