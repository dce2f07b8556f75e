"""Session 18, second round: hostile input of kinds not tried before (docs/security.md, sections 19 on). Each test
failed before its fix."""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import urllib.request

from studio_uvicorn import raw_websocket, served, stopped

TOKEN = "t0ken-for-the-s18b-tests"

# ---------------------------------------------------------------------------------------------- the studio's table

class _Reader:
    """The frames of a websocket opened by hand, read as a page reads them."""

    def __init__(self, conn: socket.socket):
        self.conn, self.buf = conn, b""
        conn.settimeout(90)  # bounded only so that a failing test ends

    def _need(self, n: int) -> bytes:
        while len(self.buf) < n:
            chunk = self.conn.recv(65536)
            if not chunk:
                raise EOFError
            self.buf += chunk
        got, self.buf = self.buf[:n], self.buf[n:]
        return got

    def frame(self) -> tuple[int, bytes]:
        head = self._need(2)
        size = head[1] & 0x7F
        if size == 126:
            size = int.from_bytes(self._need(2), "big")
        elif size == 127:
            size = int.from_bytes(self._need(8), "big")
        return head[0] & 0x0F, self._need(size)

    def send(self, message: dict) -> None:
        data = json.dumps(message).encode()
        assert len(data) < 126
        self.conn.sendall(bytes([0x81, 0x80 | len(data)]) + bytes(4) + data)  # masked with a key of zeros

    def state(self, after: int) -> dict:
        while True:
            op, payload = self.frame()
            if op == 0x9:  # the server's ping (every 20 s): a page answers it
                self.conn.sendall(bytes([0x8A, 0x80 | len(payload)]) + bytes(4) + payload)
                continue
            assert op == 0x1, (op, payload)
            got = json.loads(payload)
            assert got["type"] != "error", got
            if got["type"] == "state" and got["decisions"] > after:
                return got

def _held(hub, gid: str, seat: int) -> int:
    """The bytes the studio holds for `seat`'s open pages, waiting to be sent (its own count, or before it had one,
    the frames in each page's queue)."""
    total = 0
    for s in list(hub.seats):
        if (s.game_id, s.seat) == (gid, seat):
            total += s.held() if hasattr(s, "held") else sum(
                len(json.dumps(f, ensure_ascii=False).encode()) for f in list(s.queue._queue))
    return total

def _narrow(loop, port: int) -> None:
    """The studio's end of the connection from `port` given a small send buffer of the kernel's (a slow network):
    else the kernel takes megabytes for a page before the studio sees that it does not read."""
    import gc

    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

    async def narrow() -> int:
        done = 0
        for o in gc.get_objects():
            if isinstance(o, WebSocketsSansIOProtocol) and o.transport.get_extra_info("peername")[1] == port:
                o.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
                done += 1
        return done

    assert asyncio.run_coroutine_threadsafe(narrow(), loop).result(60) == 1

def test_a_page_that_never_reads_holds_a_bounded_number_of_bytes_and_the_others_play_on(tmp_path):
    """A seat's or a spectator's page that stops reading (a browser tab frozen, a phone asleep, a script): every step
    of the game queued one more frame for it, with nothing to bound the queue: a game of bots watched by a socket
    that reads nothing grows the studio's memory for as long as it lasts. Now a page is owed one frame, made when
    its socket can take it; what else it is sent (errors, help) is bounded in bytes."""
    from rulecraft.bundled import resolve

    shutil.copy(resolve("pig"), tmp_path / "pig.yaml")
    server, thread, port, app = served(tmp_path, TOKEN)
    hub = app.state.hub
    base = f"http://127.0.0.1:{port}"
    try:
        asked = urllib.request.Request(base + "/api/play/new", method="POST", headers={
            "authorization": f"token {TOKEN}", "origin": base, "content-type": "application/json"},
            data=json.dumps({"ruleset": "pig.yaml", "seats": ["human", "human"], "seed": 3}).encode())
        with urllib.request.urlopen(asked, timeout=60) as r:
            made = json.loads(r.read())
        gid = made["id"]
        slow = raw_websocket(port, made["spectator"], base, rcvbuf=4096)  # opened, then never read
        player = _Reader(raw_websocket(port, made["seats"][0]["link"], base))
        first = player.state(-1)
        loop = server.servers[0].get_loop()
        _narrow(loop, slow.getsockname()[1])
        for _ in range(1000):  # every step of a game pushes a frame to every open page (hub.push)
            asyncio.run_coroutine_threadsafe(hub.push(gid), loop).result(60)
        held = asyncio.run_coroutine_threadsafe(asyncio.sleep(0, _held(hub, gid, -1)), loop).result(60)
        assert held < 256 * 1024, f"{held} bytes held for a page that reads nothing"
        # the other seats and the game go on: seat 0 answers, and its page is sent the game moved on
        assert first["asked"] == 0, first
        player.send({"type": "answer", "decision": first["decisions"], "wire": True})
        assert player.state(first["decisions"])["decisions"] > first["decisions"]
        slow.close()
        player.conn.close()
    finally:
        stopped(server, thread)


def test_what_else_waits_for_a_page_is_bounded_in_bytes():
    """Errors and help wait for a page beside its state; past MAX_WAITING bytes the page is closed, never held more."""
    from rulecraft.tools.studio.play.hub import MAX_WAITING, Seat

    seat = Seat("g", 0)
    for _ in range(2000):
        seat.put({"type": "help", "text": "é" * 1000})
    assert seat.held() <= MAX_WAITING and seat.overflowed


# ---------------------------------------------------------------------------------------------- charts

def test_a_chart_too_tangled_is_refused_from_its_shape_before_graphviz_runs(tmp_path, monkeypatch):
    """500 `if`s in a loop, half of them a `continue` (316 KB of DOT, within the limit of its size): Graphviz ran
    for its whole 60 s of processor before giving up, twice in a batch of the sheets' charts. Its shape says so
    first: 126,518 boxes and bends to place, the limit 20,000 (the largest chart of a bundled ruleset: 64)."""
    import subprocess
    import sys

    import pytest

    from test_hostile_s18 import _tangle

    from rulecraft.tools.chart import dotrun

    (tmp_path / "tangle.yaml").write_text(_tangle(500))
    import os

    rulecraft = [os.path.join(os.path.dirname(sys.executable), "rulecraft")]
    subprocess.run(rulecraft + ["render", "tangle.yaml", "--format", "dot", "-o", "t.dot", "--detail", "full"],
                   cwd=tmp_path, check=True, capture_output=True, timeout=300)
    source = (tmp_path / "t.dot").read_text()
    with pytest.raises(dotrun.DotError, match="too tangled to lay out: about 126,518 boxes"):
        dotrun.check_size([source])
    ran: list = []
    monkeypatch.setattr(dotrun, "graphviz", lambda *a, **k: ran.append(a))
    with pytest.raises(dotrun.DotError, match="too tangled"):  # a batch of the sheets' charts: refused before dot
        dotrun.run_layouts([source, "digraph { a -> b }"], "pdf", workers=1)
    assert not ran
    done = subprocess.run(rulecraft + ["render", "tangle.yaml", "-o", "t.svg", "--detail", "full"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and "too tangled to lay out" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
