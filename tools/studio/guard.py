"""Who may talk to the studio: the token on every request and websocket, the Host and Origin headers checked.

A server on a designer's machine is reachable by every web page their browser opens. A page from
elsewhere cannot read the token (it is in the studio's own URL and cookie), a DNS-rebinding page
reaches us under a foreign Host name, and a foreign page's fetch or websocket carries its own Origin:
each is refused before any route runs, with 403 and a sentence saying why.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlsplit

from starlette.responses import JSONResponse as _StarletteJSON

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARDS = frozenset({"0.0.0.0", "::", ""})


class JSONResponse(_StarletteJSON):
    """Every JSON answer of the studio: written in ASCII, so a text with a lone surrogate (which JSON carries from a
    page, a draft or a file from elsewhere, and UTF-8 cannot encode) goes back as JSON's escape, as it came, never a
    500 (session 19: a draft holding one kept its ruleset from opening at all); no NaN or infinity, which are no JSON."""

    def render(self, content: Any) -> bytes:
        import json

        return json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")


def new_token() -> str:
    return secrets.token_urlsafe(24)


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_name(value: str) -> str:
    """The name part of a Host header or an Origin's netloc ('[::1]:8000' gives '::1'), lower-cased."""
    value = value.strip().lower()
    if value.startswith("["):  # '[::1]' or '[::1]:8000'; anything after the bracket but a port is no host of ours
        name, _, rest = value[1:].partition("]")
        return name if rest == "" or (rest[:1] == ":" and rest[1:].isdigit()) else value
    return value.rpartition(":")[0] if value.count(":") == 1 else value


@dataclass
class Guard:
    token: str
    bound: str = "127.0.0.1"  # the address the server listens on (--host)
    names: set = field(default_factory=set)  # Host names accepted besides the loopback ones

    def __post_init__(self) -> None:
        self.names = set(LOOPBACK_NAMES) | {n.lower() for n in self.names}
        if self.bound not in WILDCARDS:
            self.names.add(self.bound.lower().strip("[]"))

    @property
    def cookie(self) -> str:
        """The cookie's name: one per token, so two studios on one machine (cookies ignore ports) do not mix."""
        return "rulecraft-studio-" + hashlib.sha256(self.token.encode()).hexdigest()[:10]

    def host_ok(self, host: str) -> bool:
        if self.bound in WILDCARDS:  # listening everywhere: a name cannot be known ahead; the token guards
            return bool(host)
        return host_name(host) in self.names

    def token_ok(self, headers: dict[str, str], query: str) -> bool:
        given = []
        auth = headers.get("authorization", "")
        if auth.lower().startswith("token "):
            given.append(auth[6:].strip())
        given += parse_qs(query).get("token", [])[:1]
        jar = SimpleCookie()
        try:
            jar.load(headers.get("cookie", ""))
        except Exception:  # noqa: BLE001 - a cookie header that is not one: no token from it
            pass
        if self.cookie in jar:
            given.append(jar[self.cookie].value)
        return any(hmac.compare_digest(g.encode(), self.token.encode()) for g in given)

    def refusal(self, scope: dict) -> str | None:
        """Why this request or websocket is refused, or None when it may go on."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = headers.get("host", "")
        if not self.host_ok(host):
            return f"the Host '{host[:100]}' is not this studio's (a page from elsewhere, or DNS rebinding)"
        origin = headers.get("origin")
        if origin is not None and not self.same_origin(origin, host):
            return f"the Origin '{origin[:100]}' is not this studio's page"
        if origin is None and scope["type"] == "websocket":
            return "a websocket without an Origin"
        if headers.get("sec-fetch-site") == "cross-site":
            return "a request from another site"
        if headers.get("sec-fetch-site") == "same-site":  # another port of this machine: cookies ignore ports, so
            # its <img> or <script> came with the studio's cookie and without an Origin (a GET of printed pages ran)
            return "a request from another page of this machine (another port): only the studio's own page is served"
        if _seat_route(scope.get("path", "")):  # a seat's page and websocket: its route checks the seat token
            return None
        if not self.token_ok(headers, scope.get("query_string", b"").decode("latin-1")):
            return "no valid token: open the URL the studio printed (it ends in ?token=...)"
        return None

    @staticmethod
    def same_origin(origin: str, host: str) -> bool:
        parts = urlsplit(origin)
        return parts.scheme in ("http", "https") and parts.netloc.lower() == host.strip().lower()


def _seat_route(path: str) -> bool:
    """The routes a seat's link opens (tools/studio/play): they take a seat token, never the studio's."""
    return path == "/play" or path.startswith("/play/")


class GuardMiddleware:
    """ASGI middleware: every HTTP request and websocket through `Guard.refusal` before any route."""

    def __init__(self, app, guard: Guard):
        self.app, self.guard = app, guard

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        why = self.guard.refusal(scope)
        if why is None:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            if "websocket.http.response" not in scope.get("extensions", {}):
                await receive()  # websocket.connect
                await send({"type": "websocket.close", "code": 1008, "reason": why[:120]})
                return
            # refused at the handshake: the client sees 403 and the connection never opens
            await send({"type": "websocket.http.response.start", "status": 403,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
            await send({"type": "websocket.http.response.body", "body": why.encode()})
            return
        body = f"refused: {why}\n".encode()
        await send({"type": "http.response.start", "status": 403,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


HEAD_WITHIN = 10.0  # seconds a connection has to send a whole request head (a first one, or the next after an answer)
MAX_CONNECTIONS = 256  # connections and requests at once; past that uvicorn answers 503


def slow_client_protocol():
    """uvicorn's HTTP protocol, closing a connection that has sent no whole request head `HEAD_WITHIN` seconds after it
    opened or after its last answer. Without it a client that opened connections and sent nothing (or half a head)
    held each open for ever: enough of them and the studio could open no file, not even to save."""
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    class SlowClientGuard(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
        _waiting = None

        def _arm(self) -> None:
            if self._waiting is not None:
                self._waiting.cancel()
            self._waiting = self.loop.call_later(HEAD_WITHIN, self._too_slow)

        def _too_slow(self) -> None:
            cycle = self.cycle
            if self.transport.get_protocol() is not self:  # upgraded to a websocket: no longer this protocol's
                return
            if (cycle is None or cycle.response_complete) and not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc) -> None:
            if self._waiting is not None:
                self._waiting.cancel()
            super().connection_lost(exc)

    return SlowClientGuard


def sized_websocket_protocol(limits: dict[str, int], other: int):
    """uvicorn's websocket protocol with the limit of one message set by the route it opens: uvicorn has one limit
    for every socket, the language server's (a document at its size limit), and a seat's or a simulation's socket
    read a message up to it before their own small limit refused it (a message sent slowly, in pieces, held 16 MiB
    a connection for as long as its sender answered pings). A message past its route's limit is refused as its
    header arrives (close code 1009); `other` is the limit before the route is known, and of any other route."""
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

    class SizedWebSocket(WebSocketsSansIOProtocol):  # type: ignore[misc, valid-type]
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.conn.max_message_size = other  # a frame sent with the request, before it is read, gets the least

        def handle_connect(self, event) -> None:
            super().handle_connect(event)
            scope = getattr(self, "scope", None)
            if scope is not None:
                self.conn.max_message_size = limits.get(scope["path"], other)

    return SizedWebSocket
