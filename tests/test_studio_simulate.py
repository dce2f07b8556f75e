"""The studio's simulations called as a stranger would (Starlette's in-process client, the /simulate websocket):
a run's progress and result (the report's plots as SVG, the seed-matched comparison, the chart shaded by
coverage), cancel, one run at a time, a run cancelled when its page goes, and the bounds on what may be asked."""

from __future__ import annotations

import html
import re
import shutil
import time

import pytest

from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from rulecraft.bundled import resolve
from rulecraft.tools.studio.app import make_app
from rulecraft.tools.studio.guard import Guard
from rulecraft.tools.cli.main import main
from rulecraft.tools.simulate.runs import report, simulate
from rulecraft.tools.studio.lab.channel import MAX_GAMES, Lab

BASE = "http://127.0.0.1:5151"
WS = "ws://127.0.0.1:5151/simulate"
ORIGIN = {"origin": BASE}
TOKEN = "t0ken-for-the-tests"


@pytest.fixture()
def client(tmp_path):
    shutil.copy(resolve("pig"), tmp_path / "pig.yaml")
    app = make_app(str(tmp_path), Guard(TOKEN, bound="127.0.0.1"))
    with TestClient(app, base_url=BASE) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 200  # the cookie
        yield c


def until(ws, kinds: set) -> tuple[dict, list]:
    """Messages until one of `kinds`: (that one, those before it)."""
    seen = []
    while True:
        msg = ws.receive_json()
        if msg["type"] in kinds:
            return msg, seen
        seen.append(msg)


def test_a_run_and_a_comparison_give_progress_plots_and_the_chart_by_coverage(client):
    with client.websocket_connect(WS, headers=ORIGIN) as ws:
        ws.send_json({"type": "start", "ruleset": "pig.yaml", "games": 8, "seed": 3, "workers": 1,
                      "agents": ["random"], "compare": {"set": ["target_score=30"]}})
        started = ws.receive_json()
        assert started == {"type": "started", "games": 8, "runs": ["pig.yaml", "pig.yaml target_score=30"]}
        result, before = until(ws, {"result", "error"})
        assert result["type"] == "result", result
        seq = next(s for s in result["runs"][0]["coverage"]["sequences"] if s["never"])
        ws.send_json({"type": "chart", "run": 0, "sequence": seq["id"]})
        chart = ws.receive_json()
    assert chart["type"] == "chart" and chart["svg"].startswith("<svg") and "ran 8" in chart["svg"]
    progress = [m for m in before if m["type"] == "progress"]
    assert {m["run"] for m in progress} == {0, 1} and all(m["total"] == 8 for m in progress)
    assert [m["done"] for m in progress if m["run"] == 1][-1] == 8
    a, b = result["runs"]
    assert a["done"] == b["done"] == 8 and "win rate by seat" in a["text"]
    names = [f["name"] for f in a["figures"]]
    assert names[:3] == ["win_rate", "scores", "length_decisions"] and "length_turns" in names
    assert all("<svg" in f["svg"] and "<script" not in f["svg"] for f in a["figures"])
    # B needs 30 points, not 100: its games are shorter, a difference larger than noise
    turns = next(e for e in result["compare"] if e["metric"] == "turns" and e["label"] == "per game")
    assert turns["b"] < turns["a"] and turns["significant"] is True
    # and A and B drawn together, on one scale: the side's own plots have their own scales
    together = {f["name"]: f for f in result["compareFigures"]}
    assert list(together) == ["compare_win_rate", "compare_scores", "compare_length"]
    assert all("<svg" in f["svg"] and "<script" not in f["svg"] and "blue" in f["caption"]
               for f in together.values())
    cov = a["coverage"]
    assert "counts" not in cov and cov["never"]  # pig: one step no random game reaches
    # the steps never reached as a designer finds them: the sequence's title, the step's number, its line in the file
    # (the node ids alone said nothing); the chart draws every step (one never reached drawn, marked), no legend
    # (wider than a short sequence's chart, it shrank the boxes past reading); and the page is told when the games are
    # done and the report is being made (dml's plots took 4.5 s after '200 / 200 games', nothing said)
    with open(resolve("pig"), encoding="utf-8") as f:  # the file played is a copy of it
        text = f.read().splitlines()
    assert {tuple(sorted(s)) for s in cov["steps"]} == {("id", "line", "number", "sequence", "title")}
    assert sorted(s["id"] for s in cov["steps"]) == cov["never"]
    step = next(s for s in cov["steps"] if s["sequence"] == seq["id"])
    assert step["title"] == seq["title"] and re.fullmatch(r"\d+(\.[a-z]+)?(\.[ivx]+)?", step["number"]), step
    assert "set first = random(players)" in text[step["line"] - 1], step  # the house rule's branch not taken
    assert "Legend" not in chart["svg"] and step["id"].replace("/", "-").replace(".", "-") in html.unescape(chart["svg"])
    making = [i for i, m in enumerate(before) if m["type"] == "making"]
    assert making == [len(before) - 1], [m["type"] for m in before]
    with client.websocket_connect(WS, headers=ORIGIN) as ws:  # a new page has no run: no chart
        ws.send_json({"type": "chart", "run": 0, "sequence": "main"})
        assert "a run that ended" in ws.receive_json()["message"]


def test_cancel_stops_the_run_and_one_run_at_a_time(client):
    with client.websocket_connect(WS, headers=ORIGIN) as ws:
        ws.send_json({"type": "start", "ruleset": "pig.yaml", "games": MAX_GAMES, "workers": 1,
                      "agents": ["greedy"]})
        assert ws.receive_json()["type"] == "started"
        msg, _ = until(ws, {"progress"})
        ws.send_json({"type": "start", "ruleset": "pig.yaml", "games": 2})
        busy, _ = until(ws, {"error"})
        assert "one run at a time" in busy["message"]
        ws.send_json({"type": "cancel"})
        end, _ = until(ws, {"cancelled", "result", "error"})
        assert end["type"] == "cancelled" and end["done"] < MAX_GAMES
        ws.send_json({"type": "start", "ruleset": "pig.yaml", "games": MAX_GAMES, "workers": 1,
                      "agents": ["greedy"]})  # the page may run again at once
        assert ws.receive_json()["type"] == "started"
        ws.send_json({"type": "cancel"})
        again, _ = until(ws, {"cancelled", "result", "error"})
        assert again["type"] == "cancelled"


def test_a_page_that_goes_has_its_run_cancelled(client):
    lab = client.app.state.lab
    with client.websocket_connect(WS, headers=ORIGIN) as ws:
        ws.send_json({"type": "start", "ruleset": "pig.yaml", "games": MAX_GAMES, "workers": 1, "agents": ["greedy"]})
        until(ws, {"progress"})
        (proc,) = lab.running
    deadline = time.monotonic() + 60  # a bound on waiting, not a measure: the process is gone well before
    while proc.returncode is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.returncode is not None and not lab.running


@pytest.mark.parametrize("ask, said", [
    ({"games": MAX_GAMES + 1}, f"from 1 to {MAX_GAMES:,}"),
    ({"games": "10"}, "'games' is a whole number"),
    ({"agents": ["script:/tmp/x.py"]}, "each one of random, first, greedy"),
    ({"agents": ["python:os:system"]}, "each one of random, first, greedy"),
    ({"ruleset": "../pig.yaml"}, "folder"),
    ({"ruleset": "bundled:nothing"}, "no bundled ruleset"),
    ({"set": ["target_score"]}, "NAME=VALUE"),
    ({"workers": 10_000}, "'workers'"),
    ({"seed": 2**64 - 1}, "'seed' is a whole number"),  # games' seeds past what a log holds, as `simulate --seed`
])
def test_what_a_page_may_ask_is_bounded(client, ask, said):
    with client.websocket_connect(WS, headers=ORIGIN) as ws:
        ws.send_json({"type": "start", "ruleset": "pig.yaml", "games": 2, **ask})
        msg = ws.receive_json()
    assert msg["type"] == "error" and said in msg["message"], msg
    assert not client.app.state.lab.running


@pytest.mark.parametrize("ask, said", [
    ({"set": ["no_such_thing=1"]}, "E316: --set no_such_thing: no parameter or option of that name"),
    ({"set": ["target_score=" + "9" * 5000]}, "parameter 'target_score' takes a whole number"),
    ({"set": ["first_player=last"]}, "first_player=last: not one of the choices (choices: seat_one, random)"),
    ({"compare": {"set": ["no_such_thing=1"]}}, "compare with: E316: --set no_such_thing"),
    ({"players": 1}, "pig.yaml is for 2 to"),  # a number of players the ruleset does not take, and one with errors:
    ({"ruleset": "bad.yaml"}, "bad.yaml cannot be played: bad.yaml:1:1: E202"),  # they were refused only after 'started'
])
def test_a_setting_the_ruleset_does_not_take_is_refused_before_the_run_starts(client, tmp_path, ask, said):
    # the command line's words (rulecraft simulate --set), and no 'started' first
    (tmp_path / "bad.yaml").write_text("ruleset: bad\ntitle: Bad\nplayers: {min: 2, max: 2}\nstart: nowhere\n")
    with client.websocket_connect(WS, headers=ORIGIN) as ws:
        ws.send_json({"type": "start", "ruleset": "pig.yaml", "games": 2, **ask})
        msg = ws.receive_json()
    assert msg["type"] == "error" and said in msg["message"] and len(msg["message"]) < 400, msg
    assert not client.app.state.lab.running
    if ask.get("ruleset") == "bad.yaml":  # named in the folder (it was the absolute path), and where, for Go to
        assert msg["at"] == {"path": "bad.yaml", "line": 1, "col": 1}, msg


def test_the_simulation_socket_needs_the_token_and_the_origin(tmp_path):
    app = make_app(str(tmp_path), Guard(TOKEN, bound="127.0.0.1"))
    with TestClient(app, base_url=BASE) as c:
        for headers in (ORIGIN, {}):
            with pytest.raises(WebSocketDisconnect) as refused:
                with c.websocket_connect(WS, headers=headers):
                    pass
            assert refused.value.status_code == 403


def test_a_studio_started_with_a_cluster_plays_there_with_the_same_results(tmp_path):
    distributed = pytest.importorskip("distributed", reason="Dask distributed is not installed: "
                                                            "pip install 'rulecraft[cluster]' to run the cluster tests")
    shutil.copy(resolve("pig"), tmp_path / "pig.yaml")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        lab = Lab(cluster.scheduler_address)
        with TestClient(make_app(str(tmp_path), Guard(TOKEN, bound="127.0.0.1"), lab=lab), base_url=BASE) as c:
            assert c.get(f"/?token={TOKEN}").status_code == 200
            with c.websocket_connect(WS, headers=ORIGIN) as ws:
                ws.send_json({"type": "start", "ruleset": "pig.yaml", "games": 6, "seed": 2})
                result, _ = until(ws, {"result", "error"})
    assert result["type"] == "result", result
    local = report(simulate(str(tmp_path / "pig.yaml"), 6, seed=2, workers=1, coverage=True, keep="none"))
    assert result["runs"][0]["text"].splitlines()[1:-1] == local.splitlines()[1:]  # the studio adds: never reached


def test_studio_cluster_is_checked_at_start(tmp_path, capsys):
    assert main(["studio", "--cluster", "http://127.0.0.1:8787", str(tmp_path)]) == 1
    assert "not a Dask scheduler address" in capsys.readouterr().err


def test_a_plot_holds_no_markup_of_the_rulesets_text():
    from rulecraft.tools.simulate.report import svg_figures

    summary = simulate("pig", 3, seed=1, workers=1, keep="none")
    summary.ruleset = "<script>alert(1)</script> $\\frac{1}{0}$ & <img src=x onerror=alert(2)>"
    figures = svg_figures(summary)
    assert len(figures) >= 3
    for f in figures:  # text is drawn as paths (and '$' is not TeX); matplotlib notes it in an escaped comment
        assert "<script" not in f["svg"] and "<img" not in f["svg"] and "&lt;script&gt;" in f["svg"]


def test_runs_at_once_in_the_studio_are_bounded(client):
    from rulecraft.tools.studio.lab.channel import MAX_RUNS

    lab = client.app.state.lab
    lab.starting = MAX_RUNS  # as if other pages' runs were starting
    try:
        with client.websocket_connect(WS, headers=ORIGIN) as ws:
            ws.send_json({"type": "start", "ruleset": "pig.yaml", "games": 2})
            msg = ws.receive_json()
    finally:
        lab.starting = 0
    assert msg["type"] == "error" and "wait for one to end" in msg["message"]


def test_a_sweep_plays_each_value_and_plots_any_row_against_it(client):
    """Session 18: a designer asked how a number changes the game had to run one setting at a time and read the
    reports side by side. A sweep plays the open ruleset at a few values of one setting (N games each, the same
    seeds), keeps every row of statistics at each value, and plots the row the page asks for against the value."""
    with client.websocket_connect(WS, headers=ORIGIN) as ws:
        for bad, said in ((dict(compare={"set": []}), "compare with nothing"),
                          (dict(sweep={"name": "target_score", "values": [30]}), "2 to 8 values"),
                          (dict(sweep={"name": "target_score", "values": [30, 5]}), "target_score=5"),
                          (dict(sweep={"name": "target_score", "values": [30, 30]}), "different values"),
                          (dict(games=MAX_GAMES, sweep={"name": "target_score", "values": [20, 30, 40]}),
                           f"at most {2 * MAX_GAMES:,} games in all")):
            ws.send_json({"type": "start", "ruleset": "pig.yaml", "games": 6, "seed": 3, "workers": 1,
                          "agents": ["random"], "sweep": {"name": "target_score", "values": [20, 30]}, **bad})
            refused = ws.receive_json()
            assert refused["type"] == "error" and said in refused["message"], (bad, refused)
        ws.send_json({"type": "sweep", "row": 0})  # no sweep ended yet
        assert "of a row of the sweep that ended" in ws.receive_json()["message"]
        ws.send_json({"type": "start", "ruleset": "pig.yaml", "games": 6, "seed": 3, "workers": 1,
                      "agents": ["random"], "set": ["wipe_face=2"],
                      "sweep": {"name": "target_score", "values": [20, 60, 200]}})
        started = ws.receive_json()
        assert started["runs"] == [f"pig.yaml wipe_face=2 target_score={v}" for v in (20, 60, 200)]
        result, before = until(ws, {"result", "error"})
        assert result["type"] == "result", result
        rows = result["sweep"]["rows"]
        turns = next(i for i, r in enumerate(rows) if r["metric"] == "turns" and r["label"] == "per game")
        ws.send_json({"type": "sweep", "row": turns})
        plot = ws.receive_json()
    assert {m["run"] for m in before if m["type"] == "progress"} == {0, 1, 2}
    assert [r["done"] for r in result["runs"]] == [6, 6, 6] and result["sweep"]["values"] == ["20", "60", "200"]
    means = [p["estimate"] for p in rows[turns]["points"]]
    assert means[0] < means[1] < means[2], means  # more points to reach: longer games
    assert all(p["low"] <= p["estimate"] <= p["high"] for p in rows[turns]["points"])
    assert rows[0]["label"] == "win rate, seat 1" and len(rows[0]["points"]) == 3
    assert plot["type"] == "sweep" and plot["row"] == turns and "<svg" in plot["svg"]
    assert "<script" not in plot["svg"]


def test_a_failure_of_the_studio_itself_is_said_and_the_page_goes_on(client, monkeypatch):
    """A bug of the studio's while starting a run (session 18: a sweep's ImportError) closed the page's simulation
    websocket, and the page said 'the studio's server is gone' of a studio still running. It is answered with an error
    that says what happened and where the details are, and the same websocket takes the next run."""
    from rulecraft.tools.studio.lab import channel

    real = channel.request_of
    monkeypatch.setattr(channel, "request_of", lambda *a: (_ for _ in ()).throw(ImportError("a bug")))
    start = {"type": "start", "ruleset": "pig.yaml", "games": 2, "seed": 3, "workers": 1, "agents": ["random"]}
    with client.websocket_connect(WS, headers=ORIGIN) as ws:
        ws.send_json(start)
        said = ws.receive_json()
        assert said == {"type": "error", "message": "the studio failed to do this (a fault of the studio's, not of "
                        "the ruleset): its terminal has the details; the page goes on"}
        monkeypatch.setattr(channel, "request_of", real)
        ws.send_json(start)
        assert ws.receive_json()["type"] == "started"
        result, _ = until(ws, {"result", "error"})
    assert result["type"] == "result", result


def test_a_result_is_kept_for_the_page_reloaded(client):
    """Session 19: a reload lost a finished run's plots (500 games played again to see them). A result carries
    `kept`, a key the page keeps for its tab; a page reloaded sends `resume` with it and gets the result again, and
    its coverage charts draw as before. A key the studio no longer holds is said, not guessed at."""
    with client.websocket_connect(WS, headers=ORIGIN) as ws:
        ws.send_json({"type": "start", "ruleset": "pig.yaml", "games": 6, "seed": 3, "workers": 1,
                      "agents": ["random"], "set": ["target_score=20"]})
        result, _ = until(ws, {"result", "error"})
        assert result["type"] == "result" and isinstance(result["kept"], str) and len(result["kept"]) >= 16, result
    with client.websocket_connect(WS, headers=ORIGIN) as ws:  # the page reloaded: a socket of its own
        ws.send_json({"type": "resume", "kept": result["kept"]})
        again = ws.receive_json()
        assert again["type"] == "result" and again["resumed"] is True
        assert again["runs"][0]["text"] == result["runs"][0]["text"]
        seq = again["runs"][0]["coverage"]["sequences"][0]
        ws.send_json({"type": "chart", "run": 0, "sequence": seq["id"]})
        chart = ws.receive_json()
        assert chart["type"] == "chart" and chart["svg"].startswith("<svg"), chart
        ws.send_json({"type": "resume", "kept": "not-a-key-it-holds"})
        gone = ws.receive_json()
    assert gone["type"] == "error" and "not kept" in gone["message"] and "Run" in gone["message"], gone
