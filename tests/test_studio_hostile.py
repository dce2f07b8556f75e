"""The studio attacked as a stranger would (session 13): a folder that came with tampered games, saves that would
lose or half-write a person's work, and requests that reached Python's own words. Each test failed before its fix."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from starlette.testclient import TestClient

from rulecraft.bundled import resolve
from rulecraft.tools.studio.app import make_app
from rulecraft.tools.studio.guard import Guard
from rulecraft.tools.studio.play import routes

BASE = "http://127.0.0.1:5151"
TOKEN = "t0ken-for-the-hostile-tests"
AUTH = {"authorization": f"token {TOKEN}"}


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    shutil.copy(resolve("sealed-auction"), tmp_path / "auction.yaml")
    shutil.copy(resolve("pig"), tmp_path / "pig.yaml")
    monkeypatch.setattr(routes, "RATE", 10_000.0)
    monkeypatch.setattr(routes, "BURST", 10_000)
    return tmp_path


def studio(folder) -> TestClient:
    return TestClient(make_app(str(folder), Guard(TOKEN, bound="127.0.0.1"), pace=0), base_url=BASE,
                      raise_server_exceptions=False)


# ---------------------------------------------------------------------------------------------- a tampered games folder

def test_a_game_whose_files_are_links_fifos_or_devices_is_skipped_and_nothing_is_written_through(folder, tmp_path_factory):
    """`.rulecraft/games/ID/` came with the folder: its game.log was opened for writing whatever it was, so a FIFO
    there hung the studio at its start for ever (here a reader is kept open so the old code did not hang but wrote
    into it), a link to a device had the log written into the device, and a save linked from outside was read."""
    with studio(folder) as c:
        r = c.post("/api/play/new", json={"ruleset": "auction.yaml", "seats": ["human", "random"], "seed": 3},
                   headers=AUTH)
        assert r.status_code == 200, r.text
        gid = r.json()["id"]
    games = folder / ".rulecraft" / "games"
    good = games / gid
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    victim = elsewhere / "victim.txt"
    victim.write_text("precious\n")
    made = {}
    for name, how in {"log-fifo": "fifo", "log-link-to-fifo": "link-fifo", "log-link-to-device": "device",
                      "save-link-out": "save", "log-folder": "folder"}.items():
        home = games / name
        shutil.copytree(good, home)
        meta = json.loads((home / "game.json").read_text())
        meta["id"] = name
        meta["ruleset"] = str(home / "ruleset.yaml")
        (home / "game.json").write_text(json.dumps(meta))
        log = home / "game.log"
        if how == "fifo":
            log.unlink()
            os.mkfifo(log)
            made[name] = os.open(log, os.O_RDONLY | os.O_NONBLOCK)  # a reader: the old code wrote instead of hanging
        elif how == "link-fifo":
            fifo = elsewhere / f"{name}.fifo"
            os.mkfifo(fifo)
            made[name] = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
            log.unlink()
            os.symlink(fifo, log)
        elif how == "device":
            log.unlink()
            os.symlink("/dev/null", log)
        elif how == "save":
            shutil.copy(home / "game.save", elsewhere / "g.save")
            (home / "game.save").unlink()
            os.symlink(elsewhere / "g.save", home / "game.save")
        else:
            log.unlink()
            log.mkdir()
    try:
        with studio(folder) as c:
            listed = c.get("/api/play/games", headers=AUTH).json()
        for name, fd in made.items():
            assert os.read(fd, 1 << 16) == b"", name  # nothing was written into a FIFO
    finally:
        for fd in made.values():
            os.close(fd)
    assert [g["id"] for g in listed["games"]] == [gid]
    problems = "\n".join(listed["problems"])
    for name, said in {"log-fifo": "game.log is a FIFO", "log-link-to-fifo": "game.log is a link",
                       "log-link-to-device": "game.log is a link", "save-link-out": "game.save is a link",
                       "log-folder": "game.log is a folder"}.items():
        assert f"{name}: SaveError: {said}" in problems, (name, problems)
    assert victim.read_text() == "precious\n"
    assert os.path.islink(games / "save-link-out" / "game.save")  # left as it came


# ---------------------------------------------------------------------------------------------- saves that lose nothing

def _loaded(c: TestClient, rel: str) -> dict:
    r = c.get(f"/api/file?path={rel}", headers=AUTH)
    assert r.status_code == 200, r.text
    return r.json()


def test_a_save_reaches_the_disk_before_the_page_is_told_it_is_saved(folder, monkeypatch):
    """The studio's save renamed a new file over the old one without syncing either: a power cut just after 'saved'
    could leave the ruleset empty. The new file is synced before the rename, and its folder after it."""
    import stat

    synced: list[str] = []
    real = os.fsync

    def fsync(fd):
        mode = os.fstat(fd).st_mode
        synced.append("folder" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "other")
        return real(fd)

    with studio(folder) as c:
        got = _loaded(c, "pig.yaml")
        monkeypatch.setattr(os, "fsync", fsync)
        r = c.post("/api/save", json={"path": "pig.yaml", "text": got["text"] + "# more\n", "digest": got["digest"]},
                   headers=AUTH)
    assert r.status_code == 200, r.text
    assert synced == ["file", "folder"]
    assert (folder / "pig.yaml").read_text().endswith("# more\n")


def test_two_tabs_saving_one_file_lose_neither_text(folder):
    """Two pages loaded the same file; both save. The first is written, the second is refused (409) and says its text
    is kept: nothing of either is lost or mixed."""
    with studio(folder) as c:
        got = _loaded(c, "pig.yaml")
        first = c.post("/api/save", json={"path": "pig.yaml", "text": got["text"] + "# tab one\n",
                                          "digest": got["digest"]}, headers=AUTH)
        second = c.post("/api/save", json={"path": "pig.yaml", "text": got["text"] + "# tab two\n",
                                           "digest": got["digest"]}, headers=AUTH)
    assert first.status_code == 200 and second.status_code == 409
    assert "your text is kept in the editor" in second.json()["error"]
    assert (folder / "pig.yaml").read_text() == got["text"] + "# tab one\n"


def test_a_text_no_file_can_hold_is_refused_with_its_place(folder):
    """JSON can carry a lone surrogate ('\\ud800') that UTF-8 cannot: the save was a 500 in Python's words
    ("UnicodeEncodeError: 'utf-8' codec can't encode ...")."""
    before = (folder / "pig.yaml").read_bytes()
    with studio(folder) as c:
        got = _loaded(c, "pig.yaml")
        body = json.dumps({"path": "pig.yaml", "text": "ruleset: pig\n  x: \ud800\n", "digest": got["digest"]})
        r = c.post("/api/save", content=body, headers={**AUTH, "content-type": "application/json"})
    assert r.status_code == 400, r.text
    said = r.json()["error"]
    assert "a lone surrogate (U+D800) at line 2, column 6" in said and "kept in the editor" in said
    assert "codec" not in said and "Error" not in said
    assert (folder / "pig.yaml").read_bytes() == before


def test_a_yaml_file_that_is_not_a_ruleset_is_never_written_over(folder):
    """A compose file beside the rulesets could be read (its digest with it) and replaced by a ruleset's text: the
    studio writes ruleset files only, the file on disk included."""
    compose = folder / "compose.yml"
    compose.write_text("services:\n  web: {image: nginx}\n")
    with studio(folder) as c:
        got = _loaded(c, "compose.yml")
        r = c.post("/api/save", json={"path": "compose.yml", "text": "ruleset: x\n", "digest": got["digest"]},
                   headers=AUTH)
    assert r.status_code == 403, r.text
    assert "is not a ruleset file" in r.json()["error"]
    assert compose.read_text() == "services:\n  web: {image: nginx}\n"
    long_head = folder / "long.yaml"  # a ruleset behind a leading comment longer than the list looks at
    long_head.write_text("# notes\n" * 2000 + (folder / "pig.yaml").read_text())
    with studio(folder) as c:
        got = _loaded(c, "long.yaml")
        r = c.post("/api/save", json={"path": "long.yaml", "text": got["text"] + "# more\n", "digest": got["digest"]},
                   headers=AUTH)
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("errno_name, said", [("ENOSPC", "the disk is full"), ("EROFS", "the file system is read-only")])
def test_a_save_that_cannot_be_written_says_so_and_where_the_text_is(folder, monkeypatch, errno_name, said):
    """A full disk or a read-only folder: one sentence that says what happened, that the file on disk is as it was and
    that the text is in the editor only; no temporary file is left."""
    import errno

    before = (folder / "pig.yaml").read_bytes()

    def failing(src, dst):
        raise OSError(getattr(errno, errno_name), os.strerror(getattr(errno, errno_name)))

    with studio(folder) as c:
        got = _loaded(c, "pig.yaml")
        monkeypatch.setattr(os, "replace", failing)
        r = c.post("/api/save", json={"path": "pig.yaml", "text": got["text"] + "# more\n", "digest": got["digest"]},
                   headers=AUTH)
    assert r.status_code == 403, r.text
    message = r.json()["error"]
    assert message.startswith(f"cannot write pig.yaml: {said}: not saved; the file on disk is as it was;"), message
    assert "your text is kept in the editor only" in message
    assert (folder / "pig.yaml").read_bytes() == before
    assert sorted(p.name for p in folder.iterdir()) == ["auction.yaml", "pig.yaml"]


# ---------------------------------------------------------------------------------------------- slow clients

@pytest.fixture()
def served(folder, monkeypatch):
    """The studio under uvicorn as `rulecraft studio` runs it (tools.studio.server_config), on a free port."""
    from rulecraft.tools.studio import app as studio_app, guard
    from studio_uvicorn import served as started, stopped

    monkeypatch.setattr(guard, "HEAD_WITHIN", 0.5)
    monkeypatch.setattr(studio_app, "BODY_WITHIN", 0.5)
    server, thread, port, app = started(folder, TOKEN)
    _SERVED["app"] = app
    yield port
    stopped(server, thread)


_SERVED: dict = {}  # the app the `served` fixture runs


def served_app():
    return _SERVED["app"]


def _closed_by_the_server(conn) -> bytes:
    """What the server sent before it closed the connection (the wait is bounded only so a failing test ends)."""
    conn.settimeout(20)
    got = b""
    while True:
        chunk = conn.recv(4096)
        if not chunk:
            return got
        got += chunk


@pytest.mark.parametrize("sent", [b"", b"GET /api/files HTTP/1.1\r\nHost: 127.0.0.1\r\n"])
def test_a_connection_that_sends_no_whole_request_is_closed(served, sent):
    """A client that opened a connection and sent nothing, or half a request head, held it open for ever: enough of
    them and the studio could open no file, not even to save a ruleset."""
    import socket

    with socket.create_connection(("127.0.0.1", served)) as conn:
        conn.sendall(sent)
        assert _closed_by_the_server(conn) == b""


def test_a_body_that_never_arrives_is_answered_408(served):
    import socket

    request = (b"POST /api/save HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAuthorization: token %s\r\n"
               b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"pa" % (served, TOKEN.encode()))
    with socket.create_connection(("127.0.0.1", served)) as conn:
        conn.sendall(request)  # at once: the fixture gives a request head 0.5 s
        said = _closed_by_the_server_or_answered(conn)
    assert said.startswith(b"HTTP/1.1 408"), said[:200]
    assert b"did not arrive within" in said


def _closed_by_the_server_or_answered(conn) -> bytes:
    conn.settimeout(20)
    got = b""
    while b"\r\n\r\n" not in got or not got.rstrip().endswith(b"}"):
        chunk = conn.recv(4096)
        if not chunk:
            break
        got += chunk
    return got


# ---------------------------------------------------------------------------------------------- Python's own words

WS_URL = "ws://127.0.0.1:5151/ws"


def _ask(ws, rid: int, method: str, params) -> dict:
    import json as _json

    ws.send_text(_json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}))
    while True:
        got = _json.loads(ws.receive_text())
        if got.get("id") == rid:
            return got


def _page(c: TestClient):
    ws = c.websocket_connect(f"{WS_URL}?token={TOKEN}", headers={"origin": BASE})
    return ws


@pytest.mark.parametrize("params, said", [
    ({"uri": "file:///x.yaml", "line": 1e400}, "'line' is a line number"),  # JSON's 1e400 is infinity
    ({"uri": "file:///x.yaml", "line": "3"}, "'line' is a line number"),
    ({"uri": "file:///x.yaml", "line": True}, "'line' is a line number"),
    ({"uri": ["file:///x.yaml"], "line": 1}, "'uri' is the document's URI"),
])
def test_a_chart_request_of_the_wrong_shape_is_said_in_words(folder, params, said):
    """`line: 1e400` was answered 'the chart was not drawn: cannot convert float infinity to integer', `line: "3"`
    'rulecraft/chart: ValueError'."""
    with studio(folder) as c, _page(c) as ws:
        got = _ask(ws, 7, "rulecraft/chart", params)
    assert got["error"]["code"] == -32602, got
    assert said in got["error"]["message"]
    assert "Error" not in got["error"]["message"] and "convert" not in got["error"]["message"]


def test_a_failure_of_the_studio_itself_is_a_sentence_not_python_s_words(folder, monkeypatch):
    from rulecraft.tools.studio import app as studio_app

    def broken(path):
        raise KeyError("internal_detail")

    monkeypatch.setattr(studio_app, "aid_page", broken)
    with studio(folder) as c:
        r = c.get("/api/print/aid?path=pig.yaml", headers=AUTH)
    assert r.status_code == 500
    said = r.json()["error"]
    assert "an error of rulecraft's own" in said and "nothing was written" in said
    assert "KeyError" not in said and "internal_detail" not in said


def test_the_last_good_charts_kept_do_not_grow_with_the_documents_a_page_opens(folder, monkeypatch):
    """The last chart drawn without errors was kept for every (document, sequence) any page ever opened, for the
    studio's life: a page that opened documents under ever new names grew it without end."""
    from rulecraft.tools.studio import app as studio_app

    monkeypatch.setattr(studio_app, "GOOD_KEPT", 2)
    text = (folder / "pig.yaml").read_text()
    with studio(folder) as c, _page(c) as ws:
        _ask(ws, 1, "initialize", {"capabilities": {}})
        for n in range(3):
            uri = (folder / f"copy{n}.yaml").as_uri()
            ws.send_text(json.dumps({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
                "textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}}))
            rid = 100 + 10 * n
            while True:  # the chart once the document is checked
                got = _ask(ws, rid, "rulecraft/chart", {"uri": uri, "line": 1})
                if got["result"]["status"] != "pending":
                    break
                rid += 1
            assert got["result"]["status"] == "ok", got
        kept = c.app.state.studio.good
        assert len(kept) == 2
        assert [u for u, *_ in kept] == [(folder / f"copy{n}.yaml").as_uri() for n in (1, 2)]


def _seat_route(port: int) -> str:
    import urllib.request

    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/play/new", method="POST", headers={
        **AUTH, "content-type": "application/json", "origin": f"http://127.0.0.1:{port}"},
        data=json.dumps({"ruleset": "auction.yaml", "seats": ["human", "random"], "seed": 3}).encode())
    with urllib.request.urlopen(req, timeout=60) as got:
        link = json.loads(got.read())["seats"][0]["link"]
    return "/play/ws?seat=" + link.split("seat=", 1)[1]


@pytest.mark.parametrize("route", ["/ws", "/simulate", "seat"])
def test_a_page_that_goes_away_without_a_word_leaves_no_traceback(served, caplog, route):
    """A page closed (a tab, a laptop lid) drops its websocket without a closing frame: the server's own close then
    failed and uvicorn printed 'Exception in ASGI application' and a traceback of 40 lines in the studio's terminal."""
    import base64
    import logging
    import socket
    import time

    caplog.set_level(logging.ERROR)
    route = _seat_route(served) + "&" if route == "seat" else route + "?"
    key = base64.b64encode(os.urandom(16))
    request = (b"GET %stoken=%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: http://127.0.0.1:%d\r\n"
               b"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
               % (route.encode(), TOKEN.encode(), served, served, key))
    conn = socket.create_connection(("127.0.0.1", served))
    conn.sendall(request)  # at once: the fixture gives a request head 0.5 s
    conn.settimeout(20)
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = conn.recv(4096)
        assert chunk, f"the server closed the connection after {head[:100]!r}"  # (an empty read for ever: a hang)
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head[:100]
    sessions = served_app().state.studio.sessions
    for _ in range(500):  # the page's session is made (bounded so a failing test ends)
        if sessions or route != "/ws":
            break
        time.sleep(0.01)
    conn.close()  # no closing frame
    for _ in range(500):  # until the server let it go
        if not sessions and not [r for r in caplog.records if r.levelno >= logging.ERROR]:
            time.sleep(0.2)
            break
        time.sleep(0.01)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]


def test_a_websocket_open_longer_than_a_request_head_may_take_goes_on(served):
    """The guard against slow clients watches request heads, never an open websocket (the editor's page keeps one
    for hours): a first version of it closed every page's websocket after 10 seconds."""
    import time

    from websockets.sync.client import connect

    with connect(f"ws://127.0.0.1:{served}/ws?token={TOKEN}", origin=f"http://127.0.0.1:{served}") as ws:
        time.sleep(1.5)  # three times HEAD_WITHIN as the fixture sets it
        ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}))
        got = json.loads(ws.recv(timeout=30))
    assert got["id"] == 1 and "capabilities" in got["result"]


def test_a_file_removed_on_disk_meanwhile_can_be_saved_anew(folder):
    """A file removed on disk (a `git stash`, another tool) since the page loaded it: the save is refused once and
    says so, and the answer tells the page (`removed`) so the next save writes it anew; the page kept sending the old
    digest and every save was refused, however often it said 'save it again'."""
    with studio(folder) as c:
        got = _loaded(c, "pig.yaml")
        (folder / "pig.yaml").unlink()
        text = got["text"] + "# kept\n"
        first = c.post("/api/save", json={"path": "pig.yaml", "text": text, "digest": got["digest"]}, headers=AUTH)
        assert first.status_code == 409 and first.json()["removed"] is True
        assert "was removed on disk since it was loaded" in first.json()["error"]
        assert not (folder / "pig.yaml").exists()
        again = c.post("/api/save", json={"path": "pig.yaml", "text": text, "digest": None}, headers=AUTH)
        assert again.status_code == 200, again.text
        changed = c.post("/api/save", json={"path": "pig.yaml", "text": text, "digest": got["digest"]}, headers=AUTH)
        assert changed.status_code == 409 and changed.json()["removed"] is False
    assert (folder / "pig.yaml").read_text() == text
