"""The routes of play in the browser: the studio's page starts games and lists them (behind the studio's token);
a seat's link opens the seat's page and its websocket (behind the seat's token, and nothing else: a player who
has a seat link cannot read the folder, nor another seat). docs/studio.md describes the protocol.

Everything a stranger can send is bounded: a message's size, messages a second, games and seats at once.
"""

from __future__ import annotations

import asyncio
import json
import os
import time

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from rulecraft.tools.studio.guard import JSONResponse
from rulecraft.tools.studio.play.hub import MAX_SEATS_OPEN, Hub, Seat
from rulecraft.tools.studio.play.gamefolder import BOTS, PERSON
from rulecraft.tools.studio.play.table import SPECTATOR, Refusal

MAX_MESSAGE = 16 * 1024  # bytes of one message from a seat (an answer is a few numbers)
RATE, BURST = 10.0, 40  # messages a second a seat may send, and how many at once; past that they are dropped
MAX_DROPPED = 200  # dropped messages before the connection is closed
REFUSED = 4403  # the close code of a websocket without a valid seat token
WAITING_CLOSE = 1008  # the close code of a page past hub.MAX_WAITING bytes of messages it has not read
MAX_PER_SEAT, MAX_PER_SPECTATOR = 4, 16  # connections at once of one seat's link (a phone, a laptop, a reload)
PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'")
ASSETS = {"play.js": "text/javascript; charset=utf-8", "play.css": "text/css; charset=utf-8"}


class Bucket:
    """A token bucket: `take()` is False when the seat sends faster than RATE (with BURST at once)."""

    def __init__(self):
        self.level, self.at, self.dropped = float(BURST), time.monotonic(), 0

    def take(self) -> bool:
        now = time.monotonic()
        self.level = min(BURST, self.level + (now - self.at) * RATE)
        self.at = now
        if self.level < 1:
            self.dropped += 1
            return False
        self.level -= 1
        return True


def play_routes(hub: Hub, static_text, source, read_json) -> list:
    """The routes; `static_text(name)` reads a shipped file, `source(ref)` a ruleset's path (a path of the
    folder, or bundled:NAME; Refused otherwise), `read_json(request)` a request's JSON body, bounded."""

    async def page(request: Request) -> Response:
        if hub.seat_of(request.query_params.get("seat", "")) is None:
            return Response("refused: no valid seat link (ask the studio's host for yours)\n", status_code=403,
                            media_type="text/plain")
        return HTMLResponse(static_text("play.html"), headers={"content-security-policy": PAGE_CSP,
                                                               "cache-control": "no-store",
                                                               "referrer-policy": "no-referrer"})

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ASSETS:
            return JSONResponse({"error": "no such asset"}, status_code=404)
        return Response(static_text(name), media_type=ASSETS[name], headers={"cache-control": "no-cache"})

    async def games(request: Request) -> Response:
        return JSONResponse({"games": [hub.describe(g) for g in hub.tables], "bots": list(BOTS),
                             "person": PERSON, "problems": hub.problems})

    async def new(request: Request) -> Response:
        body = await read_json(request)
        kinds, seed, options = body.get("seats"), body.get("seed", 1), body.get("options") or {}
        if not isinstance(kinds, list) or not kinds or len(kinds) > 16 or not all(isinstance(k, str) for k in kinds):
            return JSONResponse({"error": "'seats' is a list of kinds: 'human' or a bot's name"}, status_code=400)
        if not isinstance(seed, int) or isinstance(seed, bool) or not -2**63 <= seed < 2**64:
            return JSONResponse({"error": "'seed' is a whole number from -2^63 to 2^64-1 (as `play --seed`)"},
                                status_code=400)
        if not isinstance(options, dict) or len(options) > 64 or not all(
                isinstance(k, str) and isinstance(v, (str, int, float, bool)) for k, v in options.items()):
            return JSONResponse({"error": "'options' maps names to values"}, status_code=400)
        path = source(str(body.get("ruleset", "")))
        try:
            made = await hub.new_game(path, kinds, seed, {k: str(v) for k, v in options.items()})
        except Refusal as exc:  # a rule gone wrong at the start: where (in a file of the folder) and what it says
            more: dict = {"said": exc.said} if exc.said else {}
            if hub.written(exc.at):
                more["at"] = hub.written(exc.at)
            return JSONResponse({"error": str(exc), **more}, status_code=422)
        return JSONResponse(made)

    async def setup(request: Request) -> Response:
        path = source(request.query_params.get("path", ""))
        try:
            return JSONResponse(await hub.off_loop(game_setup, path, hub.root))
        except Refusal as exc:
            return JSONResponse({"error": str(exc), **({"at": exc.at} if exc.at else {})}, status_code=422)

    async def socket(ws: WebSocket) -> None:
        found = hub.seat_of(ws.query_params.get("seat", ""))
        await ws.accept()
        if found is None:
            await ws.close(REFUSED, "refused: no valid seat token")
            return
        if len(hub.seats) >= MAX_SEATS_OPEN:
            await ws.close(1013, "too many seats open: try again later")
            return
        most = MAX_PER_SPECTATOR if found[1] == SPECTATOR else MAX_PER_SEAT  # one link never takes every place
        if sum((s.game_id, s.seat) == found for s in hub.seats) >= most:
            await ws.close(1013, f"this link is open in {most} places already: close one of them")
            return
        seat = Seat(*found)
        hub.seats.add(seat)
        sender = asyncio.create_task(_send_all(ws, seat, hub))
        try:
            await hub.send_state(seat)
            await hub.push(seat.game_id, but=seat)  # the others told its page is open (`away`)
            await _receive_all(ws, seat, hub)
        except WebSocketDisconnect:
            pass
        finally:
            hub.seats.discard(seat)
            sender.cancel()
            hub.push_soon(seat.game_id)  # the others told this page closed (a task: this handler may be cancelled)
            if ws.application_state == WebSocketState.CONNECTED:
                try:
                    await ws.close(1000)
                except (RuntimeError, OSError, WebSocketDisconnect):  # the page went first (no closing frame)
                    pass

    return [Route("/play", page), Route("/play/static/{name}", asset), WebSocketRoute("/play/ws", socket),
            Route("/api/play/games", games), Route("/api/play/setup", setup),
            Route("/api/play/new", new, methods=["POST"])]


def game_setup(path: str, root: str = "") -> dict:
    """What a game of the ruleset at `path` can be started with: its players, parameters and options. A ruleset with
    errors: Refusal naming the first and where it is (`at`, for the page's Go to, when in the folder `root`), in the
    words the Simulate tab says it (session 18: 'the ruleset has errors', and the designer looked for which)."""
    from rulecraft.loader import load_ruleset

    loaded = load_ruleset(path)
    if not loaded.ok:
        from rulecraft.tools.studio.lab.channel import settings_problem

        real = os.path.realpath(path)
        name = os.path.relpath(real, os.path.realpath(root)) if root and real.startswith(os.path.realpath(root) + os.sep) \
            else os.path.basename(path)
        said, at = settings_problem(path, {}, name=name.replace(os.sep, "/"), root=root)
        raise Refusal(f"{said or 'the ruleset has errors'}: fix it and save to play", at)
    rs = loaded.ruleset
    return {"title": rs.title, "players": {"min": rs.players.min, "max": rs.players.max, "default": rs.players.default},
            "parameters": [{"name": k, "title": p.title, "default": p.default, "min": p.min, "max": p.max, "doc": p.doc}
                           for k, p in rs.parameters.items()],
            "options": [{"name": k, "title": o.title, "default": o.default, "choices": list(o.choices), "doc": o.doc}
                        for k, o in rs.options.items()],
            "bots": list(BOTS), "person": PERSON}


async def _send_all(ws: WebSocket, seat: Seat, hub: Hub) -> None:
    """What is waiting for the page, then the state owed to it, made now (hub.Seat): the socket's own send waits
    while the page does not read, so nothing piles up but a flag and MAX_WAITING bytes."""
    while True:
        await seat.ready.wait()
        seat.ready.clear()
        if seat.overflowed:
            await ws.close(WAITING_CLOSE, "this page does not read what it is sent: reload it")
            return
        while seat.waiting:
            text, size = seat.waiting.popleft()
            seat.waiting_bytes -= size
            await ws.send_text(text)
        if seat.owed:
            seat.owed = False
            await ws.send_text(json.dumps(await hub.state_frame(seat), ensure_ascii=False))


async def _receive_all(ws: WebSocket, seat: Seat, hub: Hub) -> None:
    bucket = Bucket()
    while True:
        got = await ws.receive()
        if got["type"] == "websocket.disconnect":
            return
        data = got.get("text")
        if data is None:
            data = (got.get("bytes") or b"").decode("utf-8", "replace")
        if len(data) > MAX_MESSAGE:
            await ws.close(1009, f"a message over {MAX_MESSAGE} bytes")
            return
        if not bucket.take():
            if bucket.dropped > MAX_DROPPED:
                await ws.close(1008, "too many messages")
                return
            seat.put({"type": "error", "message": "too many messages: slow down"})
            continue
        try:
            message = json.loads(data)
        except (ValueError, RecursionError):
            message = None
        if not isinstance(message, dict):
            seat.put({"type": "error", "message": "a message is a JSON object with a 'type'"})
            continue
        try:
            reply = await hub.act(seat, message)
        except Refusal as exc:
            seat.put({"type": "error", "message": str(exc)})
            await hub.send_state(seat)
            continue
        if reply is not None:
            seat.put(reply)
