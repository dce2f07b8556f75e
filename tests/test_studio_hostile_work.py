"""The studio attacked as a stranger would (session 14): the work a folder that came from elsewhere, a page and a
seat's link can make the studio do, bounded by what is useful and not by what is sent. Each test failed before its
fix; each counts work (files read, entries looked at, charts drawn), never seconds."""

from __future__ import annotations

import json
import shutil
import threading

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from rulecraft.bundled import resolve
from rulecraft.tools.studio import app as studio_app
from rulecraft.tools.studio import folder as studio_folder
from rulecraft.tools.studio.app import make_app
from rulecraft.tools.studio.folder import Folder
from rulecraft.tools.studio.guard import Guard

BASE = "http://127.0.0.1:5151"
TOKEN = "t0ken-for-the-work-tests"


@pytest.fixture()
def folder(tmp_path):
    shutil.copy(resolve("pig"), tmp_path / "pig.yaml")
    return tmp_path


def studio(folder) -> TestClient:
    return TestClient(make_app(str(folder), Guard(TOKEN, bound="127.0.0.1"), pace=0), base_url=BASE,
                      raise_server_exceptions=False)


# ---------------------------------------------------------------------------------------------- the folder's files

def test_a_look_at_the_folder_reads_no_file_it_read_before_unchanged(folder, monkeypatch):
    """The studio looks at its folder once a second (changes made elsewhere). A folder that came with 20,000 '.yaml'
    files that are no rulesets (a data set) had each opened and read at every look: 5.2 s of processor a look, so
    a core kept busy for as long as the studio ran. A file is read again only when its size or time changed."""
    for n in range(30):
        (folder / f"data{n}.yaml").write_text("x: 1\n" * 50)
    read = []
    real = studio_folder._is_ruleset
    monkeypatch.setattr(studio_folder, "_is_ruleset", lambda path, *a: read.append(path) or real(path, *a))
    f = Folder(str(folder))
    first = f.scan()
    assert sorted(first) == ["pig.yaml"] and len(read) == 31
    read.clear()
    assert f.scan() == first and read == []  # nothing changed: nothing read
    (folder / "data3.yaml").write_text("ruleset: now_one\n")
    assert "data3.yaml" in f.scan() and [p.rsplit("/", 1)[1] for p in read] == ["data3.yaml"]


def test_a_look_at_the_folder_visits_a_bounded_number_of_entries(folder, monkeypatch):
    """Every entry of the folder (three levels down) was visited at every look, whatever their number: 100,000
    files of any kind made each look as long as listing them all. A look visits at most MAX_ENTRIES entries."""
    monkeypatch.setattr(studio_folder, "MAX_ENTRIES", 25)
    for d in range(4):
        (folder / f"d{d}").mkdir()
        for n in range(20):
            (folder / f"d{d}" / f"f{n}.txt").write_text("")
    f = Folder(str(folder))
    assert "pig.yaml" in f.scan()
    assert f.looked <= 25


# ---------------------------------------------------------------------------------------------- a page's requests

def _send(ws, rid, method, params) -> None:
    ws.send_text(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}))


def _opened(ws, uri: str, text: str) -> None:
    _send(ws, 1, "initialize", {"capabilities": {}})
    ws.send_text(json.dumps({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}}))


def test_a_page_that_asks_for_charts_faster_than_they_are_drawn_gets_one_drawn_not_all(folder, monkeypatch):
    """A page asks for the chart under the cursor; only the answer to its newest request is shown. Each request was
    drawn, however many came: 30 requests while Graphviz was busy were 30 charts drawn one after another (a page
    typing in a ruleset whose chart takes 10 s queued one every 150 ms). A request that a newer one of the same page
    replaces is answered at once, 'superseded', and its chart is not drawn."""
    drawn, gate = [], threading.Event()
    real = studio_app.chart

    def slow(*args):
        drawn.append(args[3])
        gate.wait(60)  # let go in the end (a failing test never hangs), not before the test does when loaded
        return real(*args)

    monkeypatch.setattr(studio_app, "chart", slow)
    uri = (folder / "pig.yaml").as_uri()
    with studio(folder) as c, c.websocket_connect(f"ws://127.0.0.1:5151/ws?token={TOKEN}",
                                                  headers={"origin": BASE}) as ws:
        _opened(ws, uri, (folder / "pig.yaml").read_text())
        rid = 10
        while True:  # the document checked (a chart of 'pending' until it is)
            gate.set()
            _send(ws, rid, "rulecraft/chart", {"uri": uri, "line": 1})
            got = json.loads(ws.receive_text())
            while got.get("id") != rid:
                got = json.loads(ws.receive_text())
            if got["result"]["status"] != "pending":
                break
            rid += 1
        gate.clear()
        drawn.clear()
        for n in range(30):
            _send(ws, 100 + n, "rulecraft/chart", {"uri": uri, "line": 1, "sequence": "turn"})
        answers = {}
        while len(answers) < 29:
            got = json.loads(ws.receive_text())
            if isinstance(got.get("id"), int) and got["id"] >= 100:
                answers[got["id"]] = got
        gate.set()
        while len(answers) < 30:
            got = json.loads(ws.receive_text())
            if isinstance(got.get("id"), int) and got["id"] >= 100:
                answers[got["id"]] = got
    assert [answers[100 + n]["result"]["status"] for n in range(29)] == ["superseded"] * 29
    assert answers[129]["result"]["status"] == "ok" and answers[129]["result"]["sequence"] == "turn"
    assert len(drawn) <= 3, drawn  # at most the two already on Graphviz's threads, and the newest


# ---------------------------------------------------------------------------------------------- a seat's link

def _new_game(c: TestClient) -> dict:
    r = c.post("/api/play/new", headers={"authorization": f"token {TOKEN}"},
               json={"ruleset": "pig.yaml", "seats": ["human", "human"], "seed": 3})
    assert r.status_code == 200, r.text
    return r.json()


def _seat_socket(c: TestClient, link: str):
    return c.websocket_connect("ws://127.0.0.1:5151/play/ws?seat=" + link.split("seat=", 1)[1],
                               headers={"origin": BASE})


def test_one_seat_s_link_cannot_take_every_place_at_the_table(folder, monkeypatch):
    """The studio serves at most MAX_SEATS_OPEN seat connections at once, over all games. One seat's link (or the
    spectator's, handed to anyone watching) could open them all, and every other player was then refused 'too many
    seats open'. A seat is open in at most MAX_PER_SEAT places at once (a phone, a laptop, a reload), the spectator's
    link in MAX_PER_SPECTATOR."""
    from rulecraft.tools.studio.play import routes

    monkeypatch.setattr(routes, "MAX_SEATS_OPEN", 8)
    with studio(folder) as c:
        game = _new_game(c)
        mine, theirs = game["seats"][0]["link"], game["seats"][1]["link"]
        opened = []
        try:
            for _ in range(routes.MAX_PER_SEAT):
                opened.append(_seat_socket(c, mine).__enter__())
                assert json.loads(opened[-1].receive_text())["type"] != "error"
            with _seat_socket(c, mine) as one_too_many, pytest.raises(WebSocketDisconnect) as closed:
                one_too_many.receive_text()
            assert closed.value.code == 1013 and "open in 4 places already" in closed.value.reason
            with _seat_socket(c, theirs) as other:
                frame = json.loads(other.receive_text())
            assert frame["type"] != "error", frame
        finally:
            for ws in opened:
                ws.__exit__(None, None, None)


@pytest.mark.parametrize("link", [".rulecraft", ".rulecraft/games"])
def test_games_are_never_kept_or_read_through_a_link_out_of_the_folder(folder, tmp_path_factory, link):
    """A folder from elsewhere (a zip, a git clone: both carry links) whose `.rulecraft` or `.rulecraft/games` was a
    link to another place had the studio write every game there, the seats' tokens with it (a shared folder: anyone
    who could read it took the seats), and read the games it found there at its start. Now the games' folder is
    a real folder inside the studio's, or no game is kept: a new game is refused with the reason, and the games
    found through the link are not read, the studio says why under `problems`."""
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    target = elsewhere / "games" if link == ".rulecraft" else elsewhere
    target.mkdir(exist_ok=True)
    (folder / ".rulecraft").mkdir(exist_ok=True) if link != ".rulecraft" else None
    (folder / link).symlink_to(elsewhere if link == ".rulecraft" else target)
    planted = target / "planted"
    planted.mkdir()
    (planted / "game.json").write_text("{}")
    with studio(folder) as c:
        listed = c.get("/api/play/games", headers={"authorization": f"token {TOKEN}"}).json()
        r = c.post("/api/play/new", headers={"authorization": f"token {TOKEN}"},
                   json={"ruleset": "pig.yaml", "seats": ["human", "random"], "seed": 3})
    assert r.status_code == 422, r.text
    assert "is a link" in r.json()["error"] and ".rulecraft" in r.json()["error"]
    assert sorted(p.name for p in target.iterdir()) == ["planted"]  # nothing written there
    assert listed["games"] == [] and any("is a link" in p for p in listed["problems"]), listed


def test_a_game_asked_on_the_command_line_that_cannot_start_is_said_in_one_line(folder, tmp_path_factory, capsys):
    """`rulecraft studio --play RULESET` in such a folder (or one with 16 games going on) ended the studio at its
    start with a traceback of 14 lines and exit 3. Now the studio says why in one line and serves the folder."""
    (folder / ".rulecraft").symlink_to(tmp_path_factory.mktemp("elsewhere"))
    started = []
    play = {"ruleset": str(folder / "pig.yaml"), "seats": ["human", "random"], "seed": 1, "options": {},
            "then": started.append}
    app = make_app(str(folder), Guard(TOKEN, bound="127.0.0.1"), pace=0, play=play)
    with TestClient(app, base_url=BASE) as c:
        assert c.get("/api/files", headers={"authorization": f"token {TOKEN}"}).json()["files"] == ["pig.yaml"]
    said = capsys.readouterr().err
    assert started == []
    assert said == ("rulecraft studio: --play: the game cannot start: .rulecraft is a link: games are kept only in a "
                    "folder of the studio's folder; remove it (or serve another folder) to play\n"), said


# ---------------------------------------------------------------------------------------------- bytes never lost

@pytest.mark.parametrize("raw, said", [
    (b"# Caf\xe9 rules (Latin-1)\n", "not UTF-8 text (line 1, column 6)"),
    ("# Café\n".encode("utf-16"), "not UTF-8 text (line 1, column 1)"),
])
def test_a_file_that_is_not_utf8_is_never_written_over_with_the_replacement_characters_it_was_shown_with(folder, raw,
                                                                                                        said):
    """A ruleset file in Latin-1 (Windows' own encoding for French or German) is shown in the editor with U+FFFD where
    its bytes are not UTF-8; a save of any other edit wrote U+FFFD over them for good, without a word. Such a file is
    never written over: the save says why, where, and that the text is in the editor."""
    before = raw + (folder / "pig.yaml").read_bytes()
    (folder / "latin.yaml").write_bytes(before)
    with studio(folder) as c:
        got = c.get("/api/file?path=latin.yaml", headers={"authorization": f"token {TOKEN}"}).json()
        r = c.post("/api/save", headers={"authorization": f"token {TOKEN}"},
                   json={"path": "latin.yaml", "text": got["text"] + "# more\n", "digest": got["digest"]})
    assert r.status_code == 403, r.text
    assert said in r.json()["error"] and "your text is kept in the editor only" in r.json()["error"], r.json()
    assert (folder / "latin.yaml").read_bytes() == before


def test_printed_pages_asked_again_before_they_are_made_are_made_once(folder, monkeypatch):
    """The page asks for the printed pages again at every save; each request was made, one after another, however
    many came: ten saves in a row on the Sheets tab of a long ruleset were ten sheets of 25 s of processor each, nine
    of them thrown away. A request for the same pages of the same file that waits behind a newer one is answered at
    once (409: a newer request for them came) and not made."""
    import time

    made, gate = [], threading.Event()
    real = studio_app.aid_page

    def slow(path):
        made.append(path)
        gate.wait(60)  # let go in the end (a failing test never hangs), not before the test does when loaded
        return real(path)

    monkeypatch.setattr(studio_app, "aid_page", slow)
    answers = {}
    with studio(folder) as c:
        def ask(n):
            answers[n] = c.get("/api/print/aid?path=pig.yaml", headers={"authorization": f"token {TOKEN}"})

        first = threading.Thread(target=ask, args=(0,))
        first.start()
        while not made:
            time.sleep(0.01)
        rest = [threading.Thread(target=ask, args=(n,)) for n in range(1, 6)]
        for t in rest:
            t.start()
            while c.app.state.studio.printing._work_queue.qsize() < rest.index(t) + 1 and t.is_alive():
                time.sleep(0.01)  # each request queued behind the first before the next is sent
        gate.set()
        for t in [first, *rest]:
            t.join(60)
    assert [answers[n].status_code for n in range(6)] == [200, 409, 409, 409, 409, 200], answers
    assert "a newer request" in answers[1].json()["error"]
    assert len(made) == 2


def test_a_page_past_the_number_the_studio_serves_is_told_why(folder, monkeypatch):
    """The 33rd tab's websocket was closed without a reason, and the page said 'the studio's server is gone: start it
    again', which sent the designer to restart a studio that was running. The close now says why (and the page shows
    it)."""
    monkeypatch.setattr(studio_app, "MAX_SESSIONS", 1)
    with studio(folder) as c, c.websocket_connect(f"ws://127.0.0.1:5151/ws?token={TOKEN}", headers={"origin": BASE}):
        with c.websocket_connect(f"ws://127.0.0.1:5151/ws?token={TOKEN}", headers={"origin": BASE}) as ws, \
                pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
    assert closed.value.code == 1013
    assert closed.value.reason == ("the studio serves at most 1 pages at once and that many are open: close one, then "
                                   "reload this page")
