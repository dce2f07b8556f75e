"""Play in the browser, its protocol called as a stranger would (Starlette's in-process client, no browser): a seat
token binds a websocket to one seat, which is sent its own view only; a token cannot act for another seat; a
spectator gets what is public; no token is refused; a game goes on after the studio restarts, and its log
replays identical."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from rulecraft.bundled import resolve
from rulecraft.runtime.replay import replay
from rulecraft.tools.studio.app import make_app
from rulecraft.tools.studio.guard import Guard
from rulecraft.tools.studio.play import routes
from rulecraft.tools.studio.play.routes import REFUSED

BASE = "http://127.0.0.1:5151"
ORIGIN = {"origin": BASE}
TOKEN = "t0ken-for-the-play-tests"


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    """The studio's folder. These tests answer as fast as a program can, far faster than a person clicks: the
    bound on a seat's messages (routes.RATE, BURST) is raised for them, and tested on its own below."""
    shutil.copy(resolve("sealed-auction"), tmp_path / "auction.yaml")
    monkeypatch.setattr(routes, "RATE", 10_000.0)
    monkeypatch.setattr(routes, "BURST", 10_000)
    return tmp_path


def studio(folder) -> TestClient:
    return TestClient(make_app(str(folder), Guard(TOKEN, bound="127.0.0.1"), pace=0), base_url=BASE)


def start(c: TestClient, seats: list[str], seed: int = 5, options: dict | None = None) -> dict:
    r = c.post("/api/play/new", json={"ruleset": "auction.yaml", "seats": seats, "seed": seed,
                                      "options": options or {"lots_for_sale": 2}},
               headers={"authorization": f"token {TOKEN}"})
    assert r.status_code == 200, r.text
    return r.json()


def token(link: str) -> str:
    return link.split("seat=", 1)[1]


def socket(c: TestClient, link: str):
    return c.websocket_connect(f"ws://127.0.0.1:5151/play/ws?seat={token(link)}", headers=ORIGIN)


def state(ws) -> dict:
    while True:
        frame = ws.receive_json()
        if frame["type"] == "state":
            return frame
        assert frame["type"] != "error" or "too many" not in frame["message"], frame  # (a dropped answer: never wait)


def reply(ws) -> dict:
    """The next frame that is not a state: the game pushes a state to every seat after each step it takes, so one
    may come before the reply to what a seat just sent."""
    while True:
        frame = ws.receive_json()
        if frame["type"] != "state":
            return frame


def moved_state(ws, after: int) -> dict:
    """The first state after `after` decisions were taken (those pushed before it are passed over)."""
    while True:
        frame = state(ws)
        if frame["decisions"] > after:
            return frame


def asked_state(ws, after: int = -1) -> dict:
    """The frames until this seat is asked (or the game ends) after `after` decisions were taken."""
    while True:
        frame = state(ws)
        if frame["decisions"] > after and (frame["view"]["decision"] is not None or frame["view"]["over"]):
            return frame


def test_a_seat_gets_its_own_view_and_cannot_act_for_another(folder):
    with studio(folder) as c:
        game = start(c, ["human", "human"])
        links = [s["link"] for s in game["seats"]]
        assert all(links) and links[0] != links[1] and game["spectator"]
        with socket(c, links[0]) as a, socket(c, links[1]) as b:
            fa, fb = asked_state(a), state(b)  # P1 bids first (the game may still be on its way when b joins)
            assert fa["seat"] == 0 and fa["view"]["seat"] == 0 and fa["view"]["players"][0]["you"]
            assert fb["seat"] == 1 and fb["view"]["name"] == "P2"
            asked = fa["asked"]
            mine, other = (a, b) if asked == 0 else (b, a)
            # the seat not asked answers: refused, and the game does not move
            other.send_json({"type": "answer", "decision": fa["decisions"], "wire": 0})
            assert reply(other) == {"type": "error", "message": "it is not your turn to decide"}
            assert state(other)["decisions"] == fa["decisions"]
            # a stale answer (the decision number of another question) is refused too
            mine.send_json({"type": "answer", "decision": fa["decisions"] + 7, "wire": 0})
            assert reply(mine)["type"] == "error"
            # help in words, for the seat asked only
            mine.send_json({"type": "help"})
            frame = reply(mine)
            assert frame["type"] == "help" and "Asked:" in frame["text"]


def sealed_game(folder, bid_of_a: int) -> tuple[dict, dict]:
    """A one-lot sealed auction where P1 bids `bid_of_a`: (P2's frame as it is asked, P2's last frame)."""
    with studio(folder) as c:
        game = start(c, ["human", "human"], options={"lots_for_sale": 1, "start_coins": 37})
        a_link, b_link = (s["link"] for s in game["seats"])
        with socket(c, a_link) as a, socket(c, b_link) as b:
            fa = asked_state(a)  # P1 bids first
            d = fa["view"]["decision"]
            assert d["kind"] == "amount" and d["purpose"] == "sealed" and d["secret"]
            bid = next(i for i, o in enumerate(d["options"]) if o["amount"] == bid_of_a)
            a.send_json({"type": "answer", "decision": fa["decisions"], "wire": bid})
            fb = asked_state(b, fa["decisions"])
            pas = next(i for i, o in enumerate(fb["view"]["decision"]["options"]) if o["kind"] == "pass")
            b.send_json({"type": "answer", "decision": fb["decisions"], "wire": pas})
            end = asked_state(b, fb["decisions"])
    fb.pop("game")
    return fb, end


def test_sealed_bids_never_reach_the_other_seat(folder):
    asked, end = sealed_game(folder, 29)
    other, _ = sealed_game(folder, 5)
    assert asked == other  # P1's secret bid changes nothing P2 is sent before the reveal
    assert end["view"]["over"] and end["view"]["end"]["scores"]
    assert any("29" in line["text"] for line in end["story"])  # revealed at last, to everyone


def test_every_seat_is_told_whose_page_is_closed(folder):
    """`away` in each state: the people's seats with no page open, sent to every seat when a page opens or closes
    (session 17, play-tested with three seats: a seat whose player closed the tab read as 'waiting for P2' forever,
    the others could not tell a slow player from one gone). Frames pushed meanwhile are read past."""
    def until(ws, away: list[int]) -> dict:
        while True:
            frame = state(ws)
            if frame["away"] == away:
                return frame

    with studio(folder) as c:
        game = start(c, ["human", "human", "random"])
        a_link, b_link = (s["link"] for s in game["seats"] if s.get("link"))
        with socket(c, game["spectator"]) as watcher:
            assert state(watcher)["away"] == [0, 1]  # the bot is never away; the spectator is no seat
            with socket(c, a_link) as a:
                assert state(a)["away"] == [1]
                with socket(c, b_link) as b:
                    assert state(b)["away"] == []
                    until(a, [])
                until(a, [1])  # P2's page closed: P1 is told
                until(watcher, [1])


def test_a_spectator_sees_the_public_and_answers_nothing(folder):
    with studio(folder) as c:
        game = start(c, ["human", "random"])
        with socket(c, game["spectator"]) as s:
            f = state(s)
            assert f["seat"] is None and f["view"]["seat"] == -1 and f["view"]["name"] == "Spectator"
            assert not any(p["you"] for p in f["view"]["players"]) and f["view"]["decision"] is None
            s.send_json({"type": "answer", "decision": f["decisions"], "wire": 0})
            assert reply(s) == {"type": "error", "message": "a spectator watches: it answers nothing"}


def test_no_token_is_refused(folder):
    with studio(folder) as c:
        start(c, ["human", "human"])
        assert c.get("/play").status_code == 403
        assert c.get("/play?seat=guessed").status_code == 403
        assert c.get("/api/play/games").status_code == 403  # the list of links needs the studio's token
        for url in ("ws://127.0.0.1:5151/play/ws", "ws://127.0.0.1:5151/play/ws?seat=guessed"):
            with c.websocket_connect(url, headers=ORIGIN) as ws:
                with pytest.raises(WebSocketDisconnect) as closed:
                    ws.receive_json()
                assert closed.value.code == REFUSED and "no valid seat token" in closed.value.reason
        # a seat link opens its page, and never the studio's
        game = start(c, ["human", "human"])
        c.cookies.clear()
        seat = token(game["seats"][0]["link"])
        assert c.get(f"/play?seat={seat}").status_code == 200
        assert c.get(f"/api/files?seat={seat}").status_code == 403
        assert c.get(f"/?token={seat}").status_code == 403


def test_a_seat_that_sends_too_fast_is_told_to_slow_down(folder, monkeypatch):
    monkeypatch.setattr(routes, "RATE", 0.001)  # a message refilled per 1,000 s: 12 at once are past the 5 on any machine
    monkeypatch.setattr(routes, "BURST", 5)
    with studio(folder) as c:
        game = start(c, ["human", "human"])
        with socket(c, game["seats"][0]["link"]) as a:
            state(a)
            for _ in range(12):
                a.send_json({"type": "sing"})
            said: list[str] = []
            while len(said) < 40 and not any("slow down" in m for m in said):  # each message answered, or dropped
                said.append(a.receive_json().get("message", ""))
            assert any("slow down" in m for m in said), said


def test_bad_messages_are_bounded(folder):
    with studio(folder) as c:
        game = start(c, ["human", "human"])
        with socket(c, game["seats"][0]["link"]) as a:
            state(a)
            a.send_text("not json")
            assert reply(a)["type"] == "error"
            a.send_json({"type": "sing"})
            assert "not a message" in reply(a)["message"]
            a.send_text("x" * 20_000)
            with pytest.raises(WebSocketDisconnect) as closed:
                while True:
                    a.receive_json()
            assert closed.value.code == 1009


def test_the_game_goes_on_after_a_restart_and_its_log_replays(folder):
    with studio(folder) as c:
        game = start(c, ["human", "random"], seed=11)
        link = game["seats"][0]["link"]
        with socket(c, link) as a:
            f = asked_state(a)
            a.send_json({"type": "answer", "decision": f["decisions"], "wire": 0})
            before = asked_state(a, f["decisions"])["decisions"]
    with studio(folder) as c:  # the studio again: it finds its game, the same link opens the same seat
        with socket(c, link) as a:
            f = asked_state(a)
            assert f["decisions"] == before and f["game"] == game["id"]
            while not f["view"]["over"]:
                a.send_json({"type": "answer", "decision": f["decisions"], "wire": 0})
                f = asked_state(a, f["decisions"])
        listed = c.get("/api/play/games", headers={"authorization": f"token {TOKEN}"}).json()["games"]
        assert listed[0]["over"]
    log = folder / ".rulecraft" / "games" / game["id"] / "game.log"
    report = replay(str(log))
    assert report.ok and report.complete, report.message
    assert oct(os.stat(log.parent / "game.json").st_mode & 0o777) == "0o600"  # the seat tokens: the owner's only


def test_undo_follows_the_terminals_fairness_rules(folder):
    with studio(folder) as c:
        game = start(c, ["human", "random"], seed=3, options={"lots_for_sale": 2})
        with socket(c, game["seats"][0]["link"]) as a:
            f = asked_state(a)
            assert not f["undo"]  # nothing to take back yet
            a.send_json({"type": "answer", "decision": f["decisions"], "wire": 1})
            f = asked_state(a, f["decisions"])  # the next lot: the bids of the first were revealed since
            assert not f["undo"]  # so it is not offered (session 20: offered, and every press refused)
            a.send_json({"type": "undo"})  # asked all the same (a client other than the page): refused, saying why
            g = state(a)
            while not any("take back" in n for n in g["view"]["notices"]):
                g = state(a)
            assert any("sealed choices were revealed" in n for n in g["view"]["notices"])
            assert g["decisions"] == f["decisions"]
        two = start(c, ["human", "human"])
        with socket(c, two["seats"][0]["link"]) as a:
            f = asked_state(a)
            a.send_json({"type": "answer", "decision": f["decisions"], "wire": 1})
            f = moved_state(a, f["decisions"])
            assert not f["undo"]  # with another person at the table, never (it would undo their decisions)


def test_pass_until_something_changes(folder):
    shutil.copy(resolve("stack-duel"), folder / "duel.yaml")
    with studio(folder) as c:
        r = c.post("/api/play/new", json={"ruleset": "duel.yaml", "seats": ["human", "first"], "seed": 2},
                   headers={"authorization": f"token {TOKEN}"})
        with socket(c, r.json()["seats"][0]["link"]) as a:
            f, used, notices = asked_state(a), 0, []
            while not f["view"]["over"]:
                notices += f["view"]["notices"]
                if f["passUntil"] and used < 3:
                    a.send_json({"type": "passUntil", "decision": f["decisions"]})
                    used += 1
                else:
                    kind = f["view"]["decision"]["kind"]
                    a.send_json({"type": "answer", "decision": f["decisions"], "wire": [] if kind == "subset" else 0})
                f = asked_state(a, f["decisions"])
    assert used == 3 and any(n.startswith("The table passed for you") for n in notices)


def test_undo_takes_back_when_nothing_was_revealed(folder):
    shutil.copy(resolve("stack-duel"), folder / "duel.yaml")
    with studio(folder) as c:
        r = c.post("/api/play/new", json={"ruleset": "duel.yaml", "seats": ["human", "first"], "seed": 2},
                   headers={"authorization": f"token {TOKEN}"})
        game = r.json()
        with socket(c, game["seats"][0]["link"]) as a:
            f = asked_state(a)
            assert f["view"]["decision"]["kind"] == "subset"  # cast a spell, or not
            a.send_json({"type": "answer", "decision": f["decisions"], "wire": []})
            after = asked_state(a, f["decisions"])
            assert after["undo"] and after["decisions"] > f["decisions"] + 1  # the bot answered too
            a.send_json({"type": "undo"})
            g = state(a)
            while not g["view"]["notices"]:
                g = state(a)
            assert g["view"]["notices"] == ["Taken back: your decision 1; you decide again."]
            assert g["decisions"] == f["decisions"] and g["storyFrom"] == 0  # the story sent whole again
            assert g["view"]["decision"] == f["view"]["decision"]
    log = folder / ".rulecraft" / "games" / game["id"] / "game.log"
    assert sum('"type":"decision"' in line for line in log.read_text().splitlines()) == f["decisions"]


def test_games_that_came_with_a_folder_choose_no_code_no_file_and_never_stop_the_studio(folder, tmp_path_factory):
    """A folder received from someone else may hold `.rulecraft/games/`: its game.json is the stranger's. A seat of
    kind `python:MODULE:CLASS` (imported at start: the module's code ran), a ruleset named outside the folder, tokens
    for seats that are not people's (exit 3: the studio never started), a game.json that is a FIFO, a link in the games'
    folder: each game is skipped with its problem said, and the studio serves the rest."""
    with studio(folder) as c:
        game = start(c, ["human", "random"], seed=11)
    games = folder / ".rulecraft" / "games"
    good = games / game["id"]
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    shutil.copy(folder / "auction.yaml", elsewhere / "private.yaml")
    meta = json.loads((good / "game.json").read_text())
    bad = {"python-seat": {**meta, "kinds": ["human", "python:rulecraft_planted_module:Bot"]},
           "script-seat": {**meta, "kinds": ["human", f"script:{elsewhere / 'private.yaml'}"]},
           "outside": {**meta, "ruleset": str(elsewhere / "private.yaml")},
           "tokens": {**meta, "tokens": {"x": "y", "1": 5}},
           "seats": {**meta, "kinds": ["human", "random", "random"]}}
    for name, m in bad.items():
        shutil.copytree(good, games / name)
        (games / name / "game.json").write_text(json.dumps({**m, "id": name}))
    shutil.copytree(good, games / "fifo")
    (games / "fifo" / "game.json").unlink()
    os.mkfifo(games / "fifo" / "game.json")
    os.symlink(elsewhere, games / "a-link")
    (elsewhere / "rulecraft_planted_module.py").write_text("raise SystemExit('planted code ran')\n")
    sys_path = list(__import__("sys").path)
    __import__("sys").path.insert(0, str(elsewhere))
    try:
        with studio(folder) as c:
            listed = c.get("/api/play/games", headers={"authorization": f"token {TOKEN}"}).json()
    finally:
        __import__("sys").path[:] = sys_path
    assert [g["id"] for g in listed["games"]] == [game["id"]]
    problems = "\n".join(listed["problems"])
    for name in [*bad, "fifo", "a-link"]:
        assert name in problems, (name, problems)
    assert "planted code ran" not in problems and "private" not in problems
    assert "a seat is a person or one of the bots" in problems and "outside the game's folder" in problems


def test_a_game_is_found_again_when_the_studio_s_folder_was_moved(folder, tmp_path_factory):
    with studio(folder) as c:
        game = start(c, ["human", "random"], seed=11)
    moved = tmp_path_factory.mktemp("moved") / "studio"
    shutil.move(str(folder), moved)
    with studio(moved) as c:
        listed = c.get("/api/play/games", headers={"authorization": f"token {TOKEN}"}).json()
    assert [g["id"] for g in listed["games"]] == [game["id"]], listed["problems"]


def test_a_full_disk_is_said_to_the_seats_and_loses_no_decision(folder, monkeypatch):
    """The disk fills up during a game (a save that cannot be written ended the seat's connection with a traceback,
    and the save then missed the decision while the game had it); starting a game on a full disk was a 500."""
    from rulecraft.files import OutputError
    from rulecraft.runtime import savegame
    from rulecraft.tools.studio.play import gamefolder

    written = savegame.atomic_write

    def full(path, *a, **k):
        raise OutputError(path, "the disk is full")

    with studio(folder) as c:
        game = start(c, ["human", "human"], seed=11)
        with socket(c, game["seats"][0]["link"]) as a:
            f = asked_state(a)
            monkeypatch.setattr(savegame, "atomic_write", full)
            a.send_json({"type": "answer", "decision": f["decisions"], "wire": 0})
            g = moved_state(a, f["decisions"])
            assert g["decisions"] == f["decisions"] + 1
            assert any("could not be saved (the disk is full)" in n for n in g["view"]["notices"]), g["view"]["notices"]
            monkeypatch.setattr(gamefolder, "replace_file", full)  # game.json, the ruleset kept
            r = c.post("/api/play/new", json={"ruleset": "auction.yaml", "seats": ["human", "human"], "seed": 1,
                                              "options": {}}, headers={"authorization": f"token {TOKEN}"})
            assert r.status_code == 422 and "the disk is full" in r.json()["error"], r.text
            monkeypatch.setattr(savegame, "atomic_write", written)  # room again: the next save holds both
            b_link = game["seats"][1]["link"]
        with socket(c, b_link) as b:
            f = asked_state(b)
            assert f["decisions"] == 1
            b.send_json({"type": "answer", "decision": f["decisions"], "wire": 0})
            assert moved_state(b, f["decisions"])["decisions"] == 2
    assert len(os.listdir(folder / ".rulecraft" / "games")) == 1  # no half-made game left
    with studio(folder) as c:  # found again from its save, with both decisions
        with socket(c, game["seats"][0]["link"]) as a:
            assert state(a)["decisions"] == 2


def test_an_option_the_ruleset_does_not_take_is_said_in_the_pages_words(folder):
    """The Play tab sends options from its form: a value the ruleset refuses is named with its option, not as a
    '--set' the person never typed."""
    with studio(folder) as c:
        r = c.post("/api/play/new", json={"ruleset": "auction.yaml", "seats": ["human", "human"], "seed": 1,
                                          "options": {"lots_for_sale": "many"}},
                   headers={"authorization": f"token {TOKEN}"})
        assert r.status_code == 422 and "lots_for_sale" in r.json()["error"], r.text
        assert "--set" not in r.json()["error"]


def test_a_game_that_cannot_start_tells_the_page_where_and_what(folder):
    """A rule gone wrong as the game starts (no seat yet): the studio's page is told where the rule is written, in
    the folder's terms, and what its error says (it was in the studio's terminal only); the sentence names neither."""
    text = (folder / "auction.yaml").read_text(encoding="utf-8")
    (folder / "games").mkdir()
    broken = folder / "games" / "boom.yaml"
    broken.write_text(text.replace("ruleset: sealed-auction", "ruleset: boom", 1).replace(
        "    steps:\n", '    steps:\n      - "set sold = 10 / (sold - sold)"\n', 1), encoding="utf-8")
    line = broken.read_text(encoding="utf-8").splitlines().index('      - "set sold = 10 / (sold - sold)"')
    with studio(folder) as c:
        r = c.post("/api/play/new", json={"ruleset": "games/boom.yaml", "seats": ["human", "random"], "seed": 1},
                   headers={"authorization": f"token {TOKEN}"})
    got = r.json()
    assert r.status_code == 422 and got["error"].startswith("the game cannot start: a rule"), r.text
    col = broken.read_text(encoding="utf-8").splitlines()[line].index("10 /") + 1
    assert got["at"] == {"path": "games/boom.yaml", "line": line + 1, "col": col} and "zero" in got["said"], got
    assert "zero" not in got["error"]


def test_a_game_its_ruleset_stops_is_listed_with_why_and_where(folder):
    """A rule gone wrong during play: the seats are told where and the code; the studio's list of games said nothing of
    it ('1 decision'). Now it gives the problem and where the rule is written in the folder, for the page's Go to."""
    with open(resolve("pig"), encoding="utf-8") as f:
        text = f.read()
    bad = '              - "set turn_total = 1 / (turn_total - turn_total)"\n'
    bank = '              - "player.score += turn_total"\n              - "log \'{player} banks'
    assert bank in text
    (folder / "pig.yaml").write_text(text.replace(bank, bad + bank, 1), encoding="utf-8")
    line = (folder / "pig.yaml").read_text(encoding="utf-8").splitlines().index(bad.rstrip("\n")) + 1
    with studio(folder) as c:
        r = c.post("/api/play/new", json={"ruleset": "pig.yaml", "seats": ["human", "human"], "seed": 1},
                   headers={"authorization": f"token {TOKEN}"})
        game = r.json()
        with socket(c, game["seats"][0]["link"]) as a:
            f = asked_state(a)
            a.send_json({"type": "answer", "decision": f["decisions"], "wire": False})  # stop: bank the turn total
            while state(a)["problem"] is None:
                pass
        listed = next(g for g in c.get("/api/play/games", headers={"authorization": f"token {TOKEN}"}).json()["games"]
                      if g["id"] == game["id"])
    assert listed["problem"].startswith("the game stopped: a rule of the ruleset went wrong at pig.yaml:"), listed
    assert listed["at"]["path"] == "pig.yaml" and listed["at"]["line"] == line, listed["at"]
    assert "zero" in listed["said"] and "zero" not in listed["problem"]  # what it says: the page shows it when asked


def test_a_sealed_answer_is_told_to_its_bidder_alone_and_that_it_was_made_to_all(folder):
    """Session 18, play-tested: a bidder never saw their own sealed bid until the reveal, and nobody saw who had bid
    yet. Now the bidder reads what they bid (a private line) and every other seat, the spectator too, reads that
    they have answered, never what."""
    with studio(folder) as c:
        game = start(c, ["human", "human"], options={"lots_for_sale": 1, "start_coins": 37})
        a_link, b_link = (s["link"] for s in game["seats"])
        with socket(c, a_link) as a, socket(c, b_link) as b, socket(c, game["spectator"]) as watch:
            fa = asked_state(a)  # P1 bids first
            bid = next(i for i, o in enumerate(fa["view"]["decision"]["options"]) if o.get("amount") == 29)
            a.send_json({"type": "answer", "decision": fa["decisions"], "wire": bid})
            mine = moved_state(a, fa["decisions"])
            fb = asked_state(b, fa["decisions"])
            seen = moved_state(watch, fa["decisions"])
    told = [line for line in mine["story"] if line["private"]]
    assert told and told[-1]["text"].startswith("P1:") and told[-1]["text"].endswith("-> 29"), mine["story"]
    for frame in (fb, seen):
        assert any(line["text"] == "P1 has answered" and not line["private"] for line in frame["story"]), frame["story"]
        assert not any("29" in line["text"] for line in frame["story"]), frame["story"]


def test_play_again_is_asked_once_the_game_is_over_and_makes_one_next_game(folder):
    """`again` from a seat (Play again): refused while the game goes on and from the spectator; at the end it makes
    the next game (the same seats and options, the seed after) once, however many seats ask, and every seat's frames
    then carry that seat's own link to it (`next`), the spectator's the next game's spectator link."""
    with studio(folder) as c:
        game = start(c, ["human", "random"], seed=40, options={"lots_for_sale": 1, "start_coins": 9})
        with socket(c, game["seats"][0]["link"]) as a, socket(c, game["spectator"]) as watch:
            fa = asked_state(a)
            a.send_json({"type": "again"})
            assert reply(a)["message"] == "the game is not over: a new one starts when it ends"
            watch.send_json({"type": "again"})
            assert reply(watch)["message"] == "a spectator watches: it answers nothing"
            a.send_json({"type": "answer", "decision": fa["decisions"], "wire": 0})
            end = asked_state(a, fa["decisions"])
            assert end["view"]["over"] and end["next"] is None
            a.send_json({"type": "again"})
            a.send_json({"type": "again"})  # (a second ask, as another seat's at once, finds the same game)
            a.send_json({"type": "help"})  # (answered after both: a seat's messages are taken in turn)
            mine, frame = None, a.receive_json()
            while frame["type"] == "state":  # (each ask pushes the seat a frame before the next message is read)
                mine = frame if frame["next"] else mine
                frame = a.receive_json()
            assert frame["message"].startswith("help is about the question you are asked"), frame
            assert mine is not None
            seen = state(watch)
            while not seen["next"]:
                seen = state(watch)
        games = c.get("/api/play/games", headers={"authorization": f"token {TOKEN}"}).json()["games"]
    after = [g for g in games if g["id"] != game["id"]]
    assert len(after) == 1 and after[0]["seed"] == 41 and [s["kind"] for s in after[0]["seats"]] == ["human", "random"]
    assert mine["next"] == after[0]["seats"][0]["link"]
    assert seen["next"] == after[0]["spectator"]


def test_the_play_tab_of_a_ruleset_with_errors_names_the_first_and_where_it_is(folder):
    """The Play tab of a ruleset with errors said 'the ruleset has errors: fix them to play it', over an empty
    'Play : players' line, and nothing of which error or where (session 18: a designer's variant with a key indented
    one space too far). It names the first error with its line, and `at` gives the page its Go to."""
    shutil.copy(os.path.join(os.path.dirname(__file__), "cases", "invalid", "284-yaml-key-indented-past-its-mapping",
                             "ruleset.yaml"), folder / "broken.yaml")
    with studio(folder) as c:
        r = c.get("/api/play/setup", params={"path": "broken.yaml"}, headers={"authorization": f"token {TOKEN}"})
    assert r.status_code == 422
    got = r.json()
    assert got["error"].startswith("broken.yaml cannot be played: broken.yaml:6:4: E009: YAML syntax:"), got
    assert got["error"].endswith("fix it and save to play"), got
    assert got["at"] == {"path": "broken.yaml", "line": 6, "col": 4}


def test_play_again_is_kept_across_a_restart_and_the_host_reads_the_next_game_s_seed(folder):
    """Session 19: the studio kept which game came next in memory only, so after a restart an old seat link showed the
    end again (its Play again made a second next game), and the studio's list said nothing of which game a game
    played again followed. `game.json` of the game over names its next game; the list gives each game the one it
    follows (`after`: its id and seed). The seed is said on the studio's page only, never to a seat: with the
    ruleset, it deals every hidden card."""
    with studio(folder) as c:
        game = start(c, ["human", "random"], seed=40, options={"lots_for_sale": 1, "start_coins": 9})
        with socket(c, game["seats"][0]["link"]) as a:
            fa = asked_state(a)
            a.send_json({"type": "answer", "decision": fa["decisions"], "wire": 0})
            asked_state(a, fa["decisions"])
            a.send_json({"type": "again"})
            mine = state(a)
            while not mine["next"]:
                mine = state(a)
            assert "seed" not in json.dumps({k: v for k, v in mine.items() if k != "view"})
    with studio(folder) as c:  # the studio again: the old link goes on to the same next game, none made anew
        games = c.get("/api/play/games", headers={"authorization": f"token {TOKEN}"}).json()["games"]
        assert len(games) == 2, games
        after = next(g for g in games if g["id"] != game["id"])
        assert after["seed"] == 41 and after["after"] == {"id": game["id"], "seed": 40}
        assert next(g for g in games if g["id"] == game["id"])["after"] is None
        with socket(c, game["seats"][0]["link"]) as a:
            assert state(a)["next"] == after["seats"][0]["link"]


def test_a_next_game_named_in_a_stranger_s_game_json_is_followed_only_when_it_names_that_game_in_turn(folder):
    """A folder may come with its games: a game over whose `game.json` names another game as its `next` (one the host
    started, not played again after it) must not send its seats on to a seat of that game, nor a `next` that is no
    game's id be taken."""
    with studio(folder) as c:
        over = start(c, ["human", "random"], seed=40, options={"lots_for_sale": 1, "start_coins": 9})
        with socket(c, over["seats"][0]["link"]) as a:
            fa = asked_state(a)
            a.send_json({"type": "answer", "decision": fa["decisions"], "wire": 0})
            asked_state(a, fa["decisions"])
        other = start(c, ["human", "random"], seed=3)
    games = folder / ".rulecraft" / "games"
    meta = json.loads((games / over["id"] / "game.json").read_text())
    (games / over["id"] / "game.json").write_text(json.dumps({**meta, "next": other["id"]}))
    with studio(folder) as c:
        with socket(c, over["seats"][0]["link"]) as a:
            assert state(a)["next"] is None
    (games / over["id"] / "game.json").write_text(json.dumps({**meta, "next": "../x"}))
    with studio(folder) as c:
        listed = c.get("/api/play/games", headers={"authorization": f"token {TOKEN}"}).json()
    assert any(p.startswith(f"{over['id']}: ") and "id" in p for p in listed["problems"]), listed["problems"]
