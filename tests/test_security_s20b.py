"""Session 20, second round: the studio's HTTP and websocket surface and the terminal, as a stranger reaches them
(docs/security.md, section 23). Each test was seen to fail before its fix."""

from __future__ import annotations

import json
import shutil

import pytest
from starlette.testclient import TestClient

from cli_fork import run_cli
from rulecraft.bundled import resolve
from rulecraft.loader import load_ruleset
from rulecraft.tools.studio.app import make_app
from rulecraft.tools.studio.guard import Guard

# an OSC 52 clipboard write, a BEL, a screen clear, a bidirectional override, a backspace, a CR and a C1 CSI
HOSTILE = "\x1b]52;c;SGk=\x07\x1b[2J\u202e\x08\r\x9b"
RAW = [b"\x1b", b"\x07", b"\x08", b"\r", "\u202e".encode(), "\x9b".encode()]
DIGITS = "9" * 400  # a whole number Python reads (under its 4,300 digits) and no float can hold
TOKEN = "t0ken-for-the-s20b-tests"


def _raw_in(done) -> list[bytes]:
    both = done.stdout + done.stderr
    return [b for b in RAW if b in both]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    home = tmp_path_factory.mktemp("s20b")
    shutil.copy(resolve("pig"), home / "pig.yaml")
    (home / "script.txt").write_text("true\n", encoding="utf-8")
    return home


# ---------------------------------------------------------------------------------------------- the terminal

@pytest.mark.parametrize("args", [
    ["play", "pig", "--agent", HOSTILE],
    ["play", "pig", "--agent", "greedy:" + HOSTILE],
    ["play", "pig", "--agent", "script:" + HOSTILE],
    ["play", "pig", "--agent", "python:os:" + HOSTILE],
    ["play", "pig", "--seed", HOSTILE],
    ["play", "pig", "--time-limit", HOSTILE],
    ["simulate", "pig", "--games", HOSTILE],
    ["simulate", "pig", "--games", "2", "--agent", HOSTILE],
    ["validate", "pig", HOSTILE + ".yaml", "--what", HOSTILE],
    ["studio", HOSTILE],
], ids=["agent", "greedy", "script", "python", "seed", "time-limit", "games", "simulate-agent", "unrecognised",
        "studio-folder"])
def test_a_value_quoted_in_an_error_line_never_drives_the_terminal(folder, args):
    """A value given on the command line (a line pasted from a stranger's README, a script reading a stranger's file
    into `--agent "$(cat agents.txt)"`, a file of a stranger's zip) came back raw in its error line: an OSC 52 sequence
    wrote the terminal's clipboard, CSI cleared the screen, U+202E reversed the line. Every line rulecraft writes to
    standard error goes through the one map (control characters, bidirectional controls shown as '?')."""
    done = run_cli(args, cwd=folder, text=False)
    assert done.returncode == 2, done.stderr
    assert not _raw_in(done), done.stderr
    assert b"?]52;c;SGk=??[2J" in done.stderr, done.stderr
    assert done.stderr.count(b"\n") <= 2 and b"Traceback" not in done.stderr


def test_the_progress_bar_and_the_table_s_own_sequences_still_reach_the_terminal():
    """What rulecraft writes to standard error on purpose (the progress bar's carriage return, the hot seat's clear
    screen when the story goes to standard error) is written past the map."""
    import io
    import sys

    from rulecraft.tools.cli import main as cli_main

    saved = sys.stderr
    inner = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    try:
        sys.stderr = inner
        cli_main._streams_say_when_they_fail()
        guarded = sys.stderr
        guarded.write("a\x1b[2Jb\n")
        guarded.unfiltered.write("\r[###]")
    finally:
        sys.stderr = saved
    assert inner.buffer.getvalue() == b"a?[2Jb\n\r[###]"


def test_a_host_no_name_can_be_is_one_line_not_an_internal_error(folder):
    """`studio --host` of a text with a bidirectional control (which the IDNA codec cannot encode) was
    `internal error: TypeError: encoding of hostname failed`, exit 3."""
    done = run_cli(["studio", "--host", HOSTILE, "--port", "0", str(folder)], text=False)
    assert done.returncode == 2, done.stderr
    assert b"internal error" not in done.stderr and not _raw_in(done), done.stderr
    assert b"cannot listen on" in done.stderr


# ---------------------------------------------------------------------------------------------- numbers past a float

def test_a_setting_of_a_whole_number_no_float_can_hold_is_e316_not_an_internal_error(folder):
    """`--set target_score=` 400 digits (Python reads it; `math.isfinite` of it overflows) was `internal error:
    OverflowError`, exit 3, in `play` and `simulate`; the same from a save's settings, and a 500 for the studio's
    new game (`options`, which JSON carries as a number)."""
    loaded = load_ruleset(str(folder / "pig.yaml"), overrides={"target_score": DIGITS})
    assert not loaded.ok and [d.code for d in loaded.diagnostics] == ["E316"]
    assert "takes a whole number" in loaded.diagnostics[0].message
    for verb in (["play", "pig.yaml"], ["simulate", "pig.yaml", "--games", "2"]):
        done = run_cli([*verb, "--set", f"target_score={DIGITS}"], cwd=folder)
        assert done.returncode == 1 and "error[E316]" in done.stdout + done.stderr, done.stderr
        assert "internal error" not in done.stderr
    done = run_cli(["play", "pig.yaml", "--seed", "3", "--save", "g.save"], cwd=folder)
    assert done.returncode == 0, done.stderr
    lines = (folder / "g.save").read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["overrides"] = {"target_score": DIGITS}
    (folder / "g.save").write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    before = (folder / "g.save").read_bytes()
    done = run_cli(["play", "pig.yaml", "--resume", "g.save"], cwd=folder)
    assert done.returncode == 1 and "E316" in done.stderr and "internal error" not in done.stderr, done.stderr
    assert (folder / "g.save").read_bytes() == before

    c = TestClient(make_app(str(folder), Guard(TOKEN, bound="127.0.0.1"), pace=0), base_url="http://127.0.0.1:5151",
                   raise_server_exceptions=False)
    got = c.post("/api/play/new", headers={"authorization": f"token {TOKEN}", "content-type": "application/json"},
                 content=b'{"ruleset":"pig.yaml","seats":["human","human"],"options":{"target_score":' + DIGITS.encode()
                 + b"}}")
    assert got.status_code == 422, got.text
    assert "takes a whole number" in got.json()["error"]


# ---------------------------------------------------------------------------------------------- the studio's seats

def test_a_seat_link_alone_makes_a_bounded_number_of_games(folder, monkeypatch):
    """A seat's link (a stranger's: the host hands it to every player) against a bot, in a game of one decision:
    answer, `again`, follow `next`, answer, ... Each Play again made a game, copied its ruleset into a folder of
    `.rulecraft/games/` and kept it in memory for the studio's life, with nothing to bound them (games over do not
    count toward the 16 going on): 150 games in 6 s of this test's loop, 850 KB written and 142 MB held, and with a
    ruleset of 2 MB, 2 MB written a game. Games played again in a row from one the host started are now bounded
    (`hub.MAX_AGAIN`); past it the seat is told to ask the host."""
    from rulecraft.tools.studio.play import hub as hub_module
    from rulecraft.tools.studio.play import routes

    monkeypatch.setattr(hub_module, "MAX_AGAIN", 3)
    monkeypatch.setattr(routes, "RATE", 10_000.0)
    monkeypatch.setattr(routes, "BURST", 10_000)
    home = folder / "again"
    home.mkdir()
    shutil.copy(resolve("sealed-auction"), home / "auction.yaml")
    app = make_app(str(home), Guard(TOKEN, bound="127.0.0.1"), pace=0)
    origin = {"origin": "http://127.0.0.1:5151"}
    with TestClient(app, base_url="http://127.0.0.1:5151") as c:
        game = c.post("/api/play/new", json={"ruleset": "auction.yaml", "seats": ["human", "random"], "seed": 1,
                                             "options": {"lots_for_sale": 1, "start_coins": 9}},
                      headers={"authorization": f"token {TOKEN}"}).json()
        link, refused = game["seats"][0]["link"], None
        for _ in range(6):
            with c.websocket_connect("ws://127.0.0.1:5151/play/ws?seat=" + link.split("seat=")[1], headers=origin) as ws:
                f = ws.receive_json()
                while not (f["type"] == "state" and (f["view"]["over"] or f["view"]["decision"])):
                    f = ws.receive_json()
                if not f["view"]["over"]:
                    ws.send_json({"type": "answer", "decision": f["decisions"], "wire": 0})
                ws.send_json({"type": "again"})
                while not (f["type"] == "state" and f["next"]) and f["type"] != "error":
                    f = ws.receive_json()
                if f["type"] == "error":
                    refused = f["message"]
                    break
                link = f["next"]
        held = len(app.state.hub.tables)
    assert refused is not None and "ask the studio's host" in refused, refused
    assert held == 4  # the host's game and the 3 played again after it


@pytest.mark.parametrize("columns", ["1000000000", "0"])
def test_the_table_draws_at_a_width_a_terminal_can_have_whatever_columns_says(monkeypatch, columns):
    """`COLUMNS` (exported by a stranger's folder's `.envrc`, a script, a CI's settings) is the width rich draws the
    table at: `COLUMNS=1000000000 rulecraft play pig --agent human` in tmux held 1 GB after 20 s drawing the first
    panel, still growing; `COLUMNS=0` drew at width 0. The table draws at 20 to 1,000 columns (`session.MAX_COLUMNS`)."""
    import io

    from rulecraft.tools.table import session

    monkeypatch.setenv("COLUMNS", columns)
    table = session.Table({0}, io.StringIO(), terminal=True)
    assert 20 <= table.console.width <= 1000


FOREIGN = [{"origin": "http://evil.example"}, {"origin": "null"}, {"sec-fetch-site": "cross-site"},
           {"sec-fetch-site": "same-site"}, {"host": "evil.example:5151", "origin": "http://evil.example:5151"}]


def test_every_state_changing_route_and_socket_refuses_a_page_from_elsewhere(folder):
    """Held (a sweep): with the studio's cookie in the jar, as a browser would send it, each route that writes or
    starts something (save, draft, new ruleset, new game) and each socket (the language server's, the simulation's,
    a seat's with its link: an answer, undo, again) refuses a foreign Origin, `Origin: null`, a cross-site and a
    same-site fetch, and a rebound Host; nothing is written and no game starts."""
    from starlette.websockets import WebSocketDisconnect

    home = folder / "csrf"
    home.mkdir()
    shutil.copy(resolve("pig"), home / "pig.yaml")
    before = (home / "pig.yaml").read_bytes()
    app = make_app(str(home), Guard(TOKEN, bound="127.0.0.1"), pace=0)
    with TestClient(app, base_url="http://127.0.0.1:5151") as c:
        assert c.get(f"/?token={TOKEN}").status_code == 200  # the cookie, as the page has it
        game = c.post("/api/play/new", json={"ruleset": "pig.yaml", "seats": ["human", "human"], "seed": 1}).json()
        seat = game["seats"][0]["link"].split("seat=")[1]
        posts = [("/api/save", {"path": "pig.yaml", "text": "ruleset: x\n", "digest": None}),
                 ("/api/draft", {"path": "pig.yaml", "text": "ruleset: x\n", "digest": None}),
                 ("/api/new", {"path": "evil.yaml", "from": "pig"}),
                 ("/api/play/new", {"ruleset": "pig.yaml", "seats": ["human"], "seed": 2})]
        for headers in FOREIGN:
            for route, body in posts:
                got = c.post(route, json=body, headers=headers)
                assert got.status_code == 403 and got.text.startswith("refused:"), (route, headers, got.text)
            for url in ("ws://127.0.0.1:5151/ws", "ws://127.0.0.1:5151/simulate",
                        f"ws://127.0.0.1:5151/play/ws?seat={seat}"):
                with pytest.raises(WebSocketDisconnect) as refused:
                    with c.websocket_connect(url, headers=headers):
                        pass
                assert refused.value.status_code == 403, (url, headers)
        games = c.get("/api/play/games").json()["games"]
    assert (home / "pig.yaml").read_bytes() == before and not (home / "evil.yaml").exists()
    assert [g["id"] for g in games] == [game["id"]] and games[0]["decisions"] == 0
