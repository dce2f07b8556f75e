"""Session 16: hostile input of kinds not tried before (docs/security.md, section 15). Each test failed before its fix."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import shutil
import subprocess
import time

import pytest
from starlette.testclient import TestClient

from cli_fork import run_cli
from rulecraft.bundled import resolve
from rulecraft.tools.studio.app import make_app
from rulecraft.tools.studio.guard import Guard
from rulecraft.tools.studio.play import routes

BASE = "http://127.0.0.1:5151"
TOKEN = "t0ken-for-the-session-16-tests"
AUTH = {"authorization": f"token {TOKEN}"}
ESC = "\x1b]0;PWNED\x07\x1b[2J"  # retitle the window, clear the screen


def studio(folder) -> TestClient:
    return TestClient(make_app(str(folder), Guard(TOKEN, bound="127.0.0.1"), pace=0), base_url=BASE,
                      raise_server_exceptions=False)


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    shutil.copy(resolve("pig"), tmp_path / "pig.yaml")
    monkeypatch.setattr(routes, "RATE", 10_000.0)
    monkeypatch.setattr(routes, "BURST", 10_000)
    return tmp_path


def _copy_game(games, gid, name, **edit) -> None:
    home = games / name
    shutil.copytree(games / gid, home)
    meta = json.loads((home / "game.json").read_text())
    meta.update(id=name, ruleset=str(home / "ruleset.yaml"), **edit)
    (home / "game.json").write_text(json.dumps(meta))


# ------------------------------------------------------------------------------------- a games folder from a stranger

def test_a_games_id_title_and_seat_links_are_never_taken_from_a_strangers_game_json(folder):
    """A folder that came with `.rulecraft/games/`: a game folder named with an escape sequence was served (its id is
    printed in the studio's output when its ruleset goes wrong), a game.json title of any type or text was shown on the
    page as the game's ('[object Object]', a bidirectional override), and a copied game's seat links opened whichever
    game was read last, for both listed games."""
    with studio(folder) as c:
        r = c.post("/api/play/new", json={"ruleset": "pig.yaml", "seats": ["human", "random"], "seed": 3}, headers=AUTH)
        assert r.status_code == 200, r.text
        gid = r.json()["id"]
    games = folder / ".rulecraft" / "games"
    _copy_game(games, gid, "esc" + ESC)
    fresh = {"0": "a" * 24, "spectator": "b" * 24}
    _copy_game(games, gid, "titled", title={"a": 1}, tokens=fresh)
    _copy_game(games, gid, "bidi", title="Pig\u202egnp.exe", tokens={"0": "c" * 24, "spectator": "d" * 24})
    _copy_game(games, gid, "copied")  # the same tokens as the game it was copied from
    _copy_game(games, gid, "one-link-two-seats", tokens={"0": "e" * 24, "spectator": "e" * 24})
    with studio(folder) as c:
        got = c.get("/api/play/games", headers=AUTH).json()
    listed = {g["id"]: g for g in got["games"]}
    assert set(listed) == {gid, "titled", "bidi"} or set(listed) == {"copied", "titled", "bidi"}, got
    assert all(g["title"] == "Pig" for g in listed.values())  # the ruleset's title, checked as it loads
    problems = "\n".join(got["problems"])
    assert "its id is not letters, digits" in problems
    assert "its seat links open another game found first" in problems
    assert "one-link-two-seats: SaveError: game.json: its tokens do not open its seats" in problems
    links = [s["link"] for g in listed.values() for s in g["seats"] if s["link"]] + [g["spectator"] for g in listed.values()]
    assert len(links) == len(set(links))


def test_the_studios_output_never_prints_control_characters(folder):
    """What the studio logs (a game's id, a ruleset's error, a request's path) goes to the terminal it runs in."""
    got = io.StringIO()
    handler = logging.StreamHandler(got)
    log = logging.getLogger("rulecraft.studio")
    log.addHandler(handler)
    try:
        with studio(folder):
            log.warning("game %s stopped: %s", "g" + ESC, "the text '\u202eevil' \u2028next")
    finally:
        log.removeHandler(handler)
    said = got.getvalue()
    assert "game g?]0;PWNED??[2J stopped: the text '?evil' ?next" in said
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]", said)


# ------------------------------------------------------------------------------------- the studio's guard

def test_a_request_from_another_port_of_this_machine_is_refused(folder):
    """A page served on another port of 127.0.0.1 is the same site (cookies ignore ports): its <img> or <script> GET
    came with the studio's cookie and no Origin, and ran (printed pages made by Chromium at a stranger's asking)."""
    with studio(folder) as c:
        page = c.get("/?token=" + TOKEN)
        assert page.status_code == 200
        assert c.get("/api/files").status_code == 200  # the cookie alone opens the studio to its own page
        for site in ("same-site", "cross-site"):
            r = c.get("/api/files", headers={"sec-fetch-site": site})
            assert r.status_code == 403, (site, r.text)
        assert "another page of this machine" in c.get("/api/print/aid?path=pig.yaml",
                                                      headers={"sec-fetch-site": "same-site"}).text
        for site in ("same-origin", "none"):  # its own page, and an address typed or a bookmark
            assert c.get("/api/files", headers={"sec-fetch-site": site}).status_code == 200
    with TestClient(make_app(str(folder), Guard(TOKEN, bound="::1"), pace=0), base_url="http://[::1]:5151",
                    raise_server_exceptions=False) as c:
        for host, status in (("[::1]:5151", 200), ("[::1]", 200), ("[::1]evil.example:5151", 403),
                             ("[::1]:5151@evil.example", 403)):  # (an address no browser sends: the guard reads it whole)
            assert c.get("/api/files", headers={**AUTH, "host": host}).status_code == status, host


# ------------------------------------------------------------------------------------- files read back

def test_a_coverage_file_never_drives_the_terminal(tmp_path):
    """`render --coverage FILE` quoted the ruleset a coverage file names in its warning as it was written."""
    cov = tmp_path / "cov.json"
    cov.write_text(json.dumps({"ruleset": "evil" + ESC + "\u202egnp", "counts": {}, "games": 1}))
    done = run_cli(["render", "pig", "--coverage", str(cov), "--format", "dot", "-o", str(tmp_path / "c.dot")])
    assert done.returncode == 0, done.stderr
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]", done.stderr), done.stderr
    cov.write_text("{" * 3 + ESC)  # a message quoting the file's own words
    done = run_cli(["render", "pig", "--coverage", str(cov), "--format", "dot", "-o", str(tmp_path / "c.dot")])
    assert done.returncode == 2 and "\x1b" not in done.stderr, done.stderr


def test_csv_cells_never_start_a_formula(tmp_path):
    """A spreadsheet runs a cell that starts with = + - @ (`=cmd|' /C calc'!A0`); a game's error quotes values."""
    from rulecraft.tools.simulate.runs import write_csv

    class Summary:
        players, metric_defs = 2, {}
        results = [{"seed": 1, "winners": [0], "scores": [-3, 5], "decisions": 4, "steps": 9,
                    "error": "=cmd|' /C calc'!A0"},
                   {"seed": 2, "winners": [1], "scores": [1, 2], "decisions": 4, "steps": 9, "error": "@SUM(1)"}]

    out = tmp_path / "g.csv"
    write_csv(Summary(), str(out))
    rows = out.read_text().splitlines()
    assert rows[1].endswith(",'=cmd|' /C calc'!A0") or "'=cmd" in rows[1], rows
    assert ",-3,5," in rows[1]  # numbers as they are
    assert "'@SUM(1)" in rows[2]


# ------------------------------------------------------------------------------------- label bombs in print

def test_a_long_word_in_the_aid_breaks_inside_its_column(tmp_path):
    """A title or a label of one long word (2,000 characters, no space) ran out of its column over the next one
    and off the page, where it was cut: the rest of the aid could not be read."""
    from rulecraft.tools.print.htmlpdf import find_chromium

    if find_chromium() is None or shutil.which("pdftotext") is None:
        pytest.skip("needs headless Chromium and pdftotext")
    from rulecraft.loader import load_ruleset
    from rulecraft.tools.print.aid import build_aid

    text = open(resolve("pig"), encoding="utf-8").read()
    text = text.replace("title: A turn", "title: T" + "x" * 199).replace("label: Roll or bank", "label: R" + "o" * 1990)
    (tmp_path / "long.yaml").write_text(text)
    loaded = load_ruleset(str(tmp_path / "long.yaml"))
    assert loaded.ok, loaded.diagnostics
    (tmp_path / "a.pdf").write_bytes(build_aid(loaded.ruleset)[0])
    layout = subprocess.run(["pdftotext", "-bbox", str(tmp_path / "a.pdf"), "-"], capture_output=True, text=True,
                            check=True).stdout
    width = float(re.search(r'<page width="([\d.]+)"', layout).group(1))
    words = [(float(a), float(b), w) for a, b, w in
             re.findall(r'<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)</word>', layout)]
    assert any(w.startswith("Txxx") for _, _, w in words)
    left = [(x0, x1, w) for x0, x1, w in words if x0 < width / 2 - 20]
    over = [(x0, x1, w[:20]) for x0, x1, w in left if x1 > width / 2 + 10]
    assert not over, over  # nothing of the left column runs into the right one


# ------------------------------------------------------------------------------------- a cache that outlives its file

def test_a_worker_plays_the_ruleset_as_it_is_now_not_as_it_was_at_its_first_run(tmp_path):
    """A worker keeps the rulesets it played (a Dask cluster's workers live from run to run): it kept them by path, so
    after the designer saved an edit the next run played the old rules and reported them as the new ones."""
    from rulecraft.tools.simulate.runs import run_chunk

    path = tmp_path / "pig.yaml"
    text = open(resolve("pig"), encoding="utf-8").read()
    path.write_text(text)
    _, before = run_chunk(str(path), {}, [1], 2, ["first"], False, False, 100_000, keep="all")
    path.write_text(text.replace("target_score: {default: 100,", "target_score: {default: 10,"))
    _, after = run_chunk(str(path), {}, [1], 2, ["first"], False, False, 100_000, keep="all")
    assert max(before[0]["scores"]) >= 100
    assert 10 <= max(after[0]["scores"]) < 100, after[0]



# ------------------------------------------------------------------------------------- decimals past the largest

DECIMALS = """ruleset: decimals-past-the-largest
title: Decimals that grow past the largest one
players: {min: 2, max: 2}
options:
  how:
    default: product
    choices: [product, added, player_added, summed, literal, local_added]
    doc: How the decimal grows.
variables:
  x: 1.5
player_variables:
  score: 1.5
start: game
sequences:
  game:
    kind: game
    steps:
      - loop: grow
        do:
          - if: "how == 'product'"
            then: ["set x = x * x"]
          - if: "how == 'added'"
            then: ["x += x"]
          - if: "how == 'player_added'"
            then: ["players[0].score += players[0].score"]
          - if: "how == 'summed'"
            then: ["set x = sum([x, x, x])"]
          - if: "how == 'literal'"
            then: ["set x = x * 100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000.0"]
          - if: "how == 'local_added'"
            then:
              - "let y = x; y += y; set x = y"
          - choose:
              player: players[0]
              kind: yesno
              as: a
          - if: "a"
            then: ["end game"]
scoring:
  score: "p.score"
"""


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_a_decimal_that_grows_past_the_largest_stops_the_game_at_its_step(tmp_path, engine):
    """A decimal squared or doubled on every pass became infinity, then NaN (infinity less infinity), and the game
    went on: a score of NaN won against one of infinity, and the log and save held `NaN` and `Infinity`, which are
    no JSON (a browser's JSON.parse refuses them). Whole numbers stopped at 2^63 (R001); decimals now stop too, by
    every way a value is made: an operator, `+=` on a variable, a player's variable or a local, a built-in."""
    from rulecraft.diagnostics import RuleError
    from rulecraft.loader import load_ruleset
    from rulecraft.runtime.game import Game

    path = tmp_path / "decimals.yaml"
    path.write_text(DECIMALS)
    for how in ["product", "added", "player_added", "summed", "literal", "local_added"]:
        loaded = load_ruleset(str(path), overrides={"how": how})
        assert loaded.ok, loaded.diagnostics
        game = Game(loaded.ruleset, 2, 1, engine=engine)
        with pytest.raises(Exception) as caught:
            for _ in range(3000):  # 1.5 doubled 1,023 times is past the largest decimal
                game.apply(False)
        rule = caught.value if isinstance(caught.value, RuleError) else getattr(caught.value, "rule_error", None)
        assert rule is not None and rule.code == "R001", (how, caught.value)
        assert "a decimal number grew past the largest one" in rule.message, (how, rule.message)
        assert rule.span.line in (21, 23, 25, 27, 29, 32), (how, rule.span)


def test_the_language_servers_log_never_prints_control_characters():
    """`rulecraft lsp` logs one line per problem on stderr, quoting what the client sent: an unknown method named
    with an escape sequence was printed as it came (pygls's own message), into a terminal when run by hand."""
    from rulecraft.tools.lsp import _OneLine

    record = logging.LogRecord("pygls", logging.WARNING, __file__, 1, "JsonRpcMethodNotFound: Method Not Found: %s",
                               (ESC + "\u202e\u2028",), None)
    line = _OneLine("rulecraft lsp: %(levelname)s: %(message)s").format(record)
    assert line == "rulecraft lsp: WARNING: JsonRpcMethodNotFound: Method Not Found: ?]0;PWNED??[2J??"


# ------------------------------------------------------------------------------------- code from the served folder

def test_a_simulation_never_imports_a_module_of_the_folder_the_studio_runs_in(tmp_path, monkeypatch):
    """The studio's simulation process was started with `python -m`, which puts the current folder first on sys.path:
    run in a folder from a stranger (`rulecraft studio .`), its `json.py` was imported, and its code ran at the first
    press of Simulate."""
    served = tmp_path / "from-a-stranger"
    served.mkdir()
    shutil.copy(resolve("pig"), served / "pig.yaml")
    marker = tmp_path / "ran"
    for name in ("json", "yaml", "lark"):
        (served / f"{name}.py").write_text(f"open({str(marker)!r}, 'a').write({name!r})\n")
    monkeypatch.chdir(served)
    with TestClient(make_app(str(served), Guard(TOKEN, bound="127.0.0.1")), base_url=BASE) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 200  # the cookie
        with c.websocket_connect("ws://127.0.0.1:5151/simulate", headers={"origin": BASE}) as ws:
            ws.send_json({"type": "start", "ruleset": "pig.yaml", "games": 2, "seed": 3, "workers": 1})
            while True:
                msg = ws.receive_json()
                if msg["type"] in ("done", "error", "failed", "result"):
                    break
    assert msg["type"] != "error", msg
    assert not marker.exists(), marker.read_text()


# ------------------------------------------------------------------------------------- a file swapped after its check

def test_a_fifo_put_in_a_rulesets_place_after_its_check_is_refused_not_waited_on(tmp_path):
    """The loader looked at a ruleset (it exists, it is no folder) and then opened it: a FIFO put there in between
    (by anyone who may write in the folder) had the command wait for ever for a writer."""
    import threading

    from rulecraft.loader.yaml_source import read_text

    fifo = tmp_path / "parent.yaml"
    os.mkfifo(fifo)
    got: list = []
    reader = threading.Thread(target=lambda: got.append(read_text(str(fifo))), daemon=True)
    reader.start()
    reader.join(20)
    if reader.is_alive():  # the old reader waits for a writer: give it one, so the test ends
        with open(fifo, "wb"):
            pass
        reader.join(5)
    assert got and got[0][0] is None, got
    assert got[0][1][0].code == "E001" and "not a regular file" in got[0][1][0].message


def test_a_files_name_with_an_escape_sequence_never_reaches_the_terminal(tmp_path):
    """A stranger's zip may hold `e<ESC>]0;...<BEL>.yaml`: `diff` and `compare` printed it in their report's first lines,
    `render` (one file per sequence), `simulate --coverage` and `--report` in the names of what they wrote."""
    name = "e" + ESC
    shutil.copy(resolve("pig"), tmp_path / f"{name}.yaml")
    runs = [["diff", f"{name}.yaml", "pig"], ["compare", f"{name}.yaml", "pig", "--games", "2"],
            ["render", f"{name}.yaml", "--format", "dot", "-o", f"{name}.dot"],
            ["simulate", f"{name}.yaml", "--games", "2", "--coverage", f"{name}.cov", "--report", f"{name}.rep"]]
    for args in runs:
        done = run_cli(args, cwd=tmp_path)
        assert done.returncode in (0, 1), (args, done.stderr)
        said = done.stdout + done.stderr
        assert "?]0;PWNED" in said, (args[0], said)  # the name is there, shown with '?'
        assert "\x1b" not in said and "\x07" not in said, (args[0], said)


def test_a_page_opens_no_document_outside_the_studios_folder(folder, tmp_path_factory):
    """The studio reads the files of its folder only, but a page could open `file:///elsewhere/x.yaml` in its language
    server with `extends: secret`: the ruleset beside it, in any folder of the disk, was loaded, and its chart (every
    step's label) came back to the page. The document is not opened now, and the page is told why."""
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    text = open(resolve("pig"), encoding="utf-8").read()
    (elsewhere / "secret.yaml").write_text(text.replace("label: Roll or bank", "label: TOP SECRET LABEL"))
    outside, inside = (elsewhere / "mine.yaml").as_uri(), (folder / "pig.yaml").as_uri()
    variant = "ruleset: mine\nextends: secret\ntitle: Mine\nversion: '1'\n"

    def send(ws, method, params, rid=None):
        ws.send_text(json.dumps({"jsonrpc": "2.0", "method": method, "params": params,
                                 **({} if rid is None else {"id": rid})}))

    def chart(ws, uri, rid):  # the chart once its text is checked: its status and SVG
        for n in range(200):
            send(ws, "rulecraft/chart", {"uri": uri, "line": 1, "sequence": "turn"}, rid * 1000 + n)
            while True:
                msg = json.loads(ws.receive_text())
                seen.append(msg)
                if msg.get("id") == rid * 1000 + n:
                    break
            if msg["result"]["status"] != "pending" or n >= (5 if uri == outside else 199):
                return msg["result"]
            time.sleep(0.05)

    seen: list = []
    with studio(folder) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 200  # the cookie
        with c.websocket_connect("ws://127.0.0.1:5151/ws", headers={"origin": BASE}) as ws:
            send(ws, "initialize", {"capabilities": {}}, 1)
            send(ws, "textDocument/didOpen", {"textDocument": {"uri": outside, "languageId": "yaml", "version": 1,
                                                               "text": variant}})
            send(ws, "textDocument/didOpen", {"textDocument": {"uri": inside, "languageId": "yaml", "version": 1,
                                                               "text": text}})
            assert chart(ws, inside, 1)["status"] == "ok"  # the folder's own file: drawn
            got = chart(ws, outside, 2)
    assert got["status"] == "pending" and "TOP SECRET" not in json.dumps(seen)
    told = [m["params"]["message"] for m in seen if m.get("method") == "window/showMessage"]
    assert any("outside the studio's folder" in t for t in told), told
