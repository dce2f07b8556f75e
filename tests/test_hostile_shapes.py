"""Session 15: hostile inputs of the kinds earlier rounds guarded, in shapes they had not tried (docs/security.md,
section 12). Each test failed before its fix; each counts outcomes and files, never seconds."""

from __future__ import annotations

import gc
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cli_fork import run_cli
from rulecraft.tools.studio.folder import Folder, Refused

ROOT = Path(__file__).resolve().parents[1]
PIG = ROOT / "tests" / "cases" / "_rulesets" / "pig.yaml"

HOLD = """
import sys
from rulecraft.claims import claim
class Writer: pass
w = Writer()
for path in sys.argv[1:]:
    claim(path, w)
print("held", flush=True)
sys.stdin.read()
"""


def _holding(folder: Path, *names: str) -> subprocess.Popen:
    """Another process that writes the game files `names` of `folder` (as a game going on in another terminal)."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD, *names], cwd=folder, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    return proc


def _released(home: Path, seconds: float = 60.0) -> None:
    """Wait until this process holds no claim in `home`: a closed studio's game writers go once the step its engine
    thread was playing has ended (the thread is not waited for at close), which on a loaded machine is not at once."""
    import time

    from rulecraft import claims

    end = time.monotonic() + seconds
    while any(str(home) in held[0] for held in claims._HELD.values()):
        assert time.monotonic() < end, "the closed studio's game writers still hold their claims"
        gc.collect()
        time.sleep(0.05)


def _studio(folder: Path):
    from starlette.testclient import TestClient

    from rulecraft.tools.studio.app import make_app
    from rulecraft.tools.studio.guard import Guard

    return TestClient(make_app(str(folder), Guard("t", bound="127.0.0.1"), pace=0), base_url="http://127.0.0.1:5151")


STUDIO = {"authorization": "token t", "origin": "http://127.0.0.1:5151"}


def test_a_game_written_by_another_process_is_refused_and_nothing_of_it_changes(tmp_path):
    """Two `play --resume s.save --log g.log` at once: the log was cut back and written into at two places at once
    (lines run together) and the save held whichever process wrote last, the other's decisions lost unsaid."""
    shutil.copy(PIG, tmp_path / "pig.yaml")
    made = run_cli(["play", "pig.yaml", "--agent", "human", "--seed", "5", "--save", "s.save", "--log", "g.log"],
                   cwd=tmp_path, input="y\ny\nquit\n")
    assert made.returncode == 130, made.stdout + made.stderr
    before = {name: (tmp_path / name).read_bytes() for name in ("s.save", "g.log")}
    other = _holding(tmp_path, "s.save", "g.log")
    try:
        for run in (["play", "pig.yaml", "--resume", "s.save", "--log", "g.log", "--agent", "random"],
                    ["play", "pig.yaml", "--resume", "s.save", "--agent", "random"],
                    ["play", "pig.yaml", "--seed", "9", "--agent", "random", "--save", "s.save"],
                    ["play", "pig.yaml", "--seed", "9", "--agent", "random", "--log", "g.log"]):
            got = run_cli(run, cwd=tmp_path)
            out = got.stdout + got.stderr
            assert got.returncode == 1, out
            assert "is being written by another rulecraft process" in out and "Traceback" not in out
            assert {name: (tmp_path / name).read_bytes() for name in before} == before, run
    finally:
        other.communicate("")
    assert not list(tmp_path.glob(".*.lock")), "the other process's lock files go with it"
    done = run_cli(["play", "pig.yaml", "--resume", "s.save", "--log", "g.log", "--agent", "random", "--quiet"],
                   cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert run_cli(["replay", "g.log"], cwd=tmp_path).returncode == 0
    assert not list(tmp_path.glob(".*.lock"))


def test_a_lock_file_left_by_a_killed_game_or_planted_as_a_link_is_never_followed_nor_a_bar(tmp_path):
    shutil.copy(PIG, tmp_path / "pig.yaml")
    (tmp_path / ".s.save.lock").write_text("")  # a game killed with -9 left it; the kernel released its lock
    outside = tmp_path / "elsewhere"
    outside.write_text("keep me\n")
    (tmp_path / ".g.log.lock").symlink_to(outside)
    got = run_cli(["play", "pig.yaml", "--seed", "3", "--agent", "random", "--save", "s.save", "--log", "g.log",
                   "--quiet"], cwd=tmp_path)
    assert got.returncode == 0, got.stdout + got.stderr
    assert outside.read_text() == "keep me\n"
    assert run_cli(["replay", "g.log"], cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("name", ["x.yaml\n", "x\n", "sub\n.yaml", "x.yaml\n.yaml"])
def test_a_new_file_of_the_studio_is_never_named_with_a_line_break(tmp_path, name):
    """The name's pattern ended in '$', which in Python also matches before a last line break: the studio made
    'x.yaml\\n.yaml', a file whose name breaks every listing of the folder."""
    with pytest.raises(Refused):
        Folder(str(tmp_path)).create(name, None)
    assert list(tmp_path.iterdir()) == []


def test_a_game_of_the_studio_written_by_another_studio_is_listed_as_a_problem_and_left_as_it_is(tmp_path):
    """Two studios serving one folder each made its games again from their saves and played their bots in both, the
    two writing one game.log at once and game.save by turns."""
    from starlette.testclient import TestClient

    from rulecraft.bundled import resolve
    from rulecraft.tools.studio.app import make_app
    from rulecraft.tools.studio.guard import Guard

    shutil.copy(resolve("sealed-auction"), tmp_path / "auction.yaml")
    auth = {"authorization": "token t", "origin": "http://127.0.0.1:5151"}

    def studio():
        return TestClient(make_app(str(tmp_path), Guard("t", bound="127.0.0.1"), pace=0),
                          base_url="http://127.0.0.1:5151")

    with studio() as c:
        r = c.post("/api/play/new", json={"ruleset": "auction.yaml", "seats": ["human", "random"], "seed": 5,
                                          "options": {"lots_for_sale": 2}}, headers=auth)
        assert r.status_code == 200, r.text
    home = tmp_path / ".rulecraft" / "games" / r.json()["id"]
    del c
    _released(home)  # (this process's studio is gone: its claims go with its game's writers)
    before = {p.name: p.read_bytes() for p in home.iterdir()}
    other = _holding(home, "game.save", "game.log")
    try:
        with studio() as c:
            listed = c.get("/api/play/games", headers=auth).json()
    finally:
        other.communicate("")
    assert listed["games"] == []
    assert "is being written by another rulecraft process" in "\n".join(listed["problems"])
    assert {p.name: p.read_bytes() for p in home.iterdir()} == before


def test_an_undo_refused_is_not_worked_out_again_while_the_game_stays_where_it_is(tmp_path, monkeypatch):
    """A seat's link may send 'undo' ten times a second; each one played the whole game again from its seed before
    finding it could not be taken back (dice were rolled since): one seat kept the studio's engine busy for ever."""
    from rulecraft.tools.studio.play import table as tables

    table = tables.PlayTable.new(str(tmp_path / "g"), "g", str(PIG), ["human", "random"], 5, {},
                                 {"0": "a", "spectator": "b"})
    while table.step():
        pass
    table.decide(0, table.decisions(), True)  # roll again: a die is rolled, so this answer can no longer be taken back
    while table.step():
        pass
    assert table.game.pending.player == 0 and any(t.player == 0 for t in table.history)
    rebuilt = []
    real = tables.take_back
    monkeypatch.setattr(tables, "take_back", lambda *a, **k: rebuilt.append(1) or real(*a, **k))
    said = {table.undo(0) for _ in range(20)}
    assert len(said) == 1 and "Cannot take back" in said.pop()
    assert len(rebuilt) == 1, "the same refusal is said again without playing the game again"
    table.decide(0, table.decisions(), True)
    while table.step():
        pass
    table.undo(0)
    assert len(rebuilt) == 2, "once the game moved on, an undo is worked out anew"


@pytest.mark.parametrize("edit", [(b'"choice":true', b'"choice":1'), (b'"seed":5', b'"seed":5.0')])
def test_a_log_edited_to_a_value_python_finds_equal_is_not_taken_as_the_game_s(tmp_path, edit):
    """Resuming with `--log` keeps what the log holds of the saved game. It compared records with Python's `==`, for
    which true is 1 and 5.0 is 5: a log edited so was kept and continued, and then did not replay."""
    shutil.copy(PIG, tmp_path / "pig.yaml")
    made = run_cli(["play", "pig.yaml", "--agent", "human", "--seed", "5", "--save", "s.save", "--log", "g.log"],
                   cwd=tmp_path, input="y\ny\nquit\n")
    assert made.returncode == 130, made.stdout + made.stderr
    log = tmp_path / "g.log"
    assert edit[0] in log.read_bytes()
    log.write_bytes(log.read_bytes().replace(*edit, 1))
    before = log.read_bytes()
    got = run_cli(["play", "pig.yaml", "--resume", "s.save", "--log", "g.log", "--agent", "random", "--quiet"],
                  cwd=tmp_path)
    assert got.returncode == 1 and "cannot go on with this log" in got.stdout + got.stderr, got.stdout + got.stderr
    assert log.read_bytes() == before


@pytest.mark.parametrize("kind", ["fifo", "device", "huge"])
def test_a_parser_table_swapped_for_a_fifo_a_device_or_a_huge_file_is_never_read(tmp_path, monkeypatch, kind):
    """The tables ship with the package, so only who can write there can swap them; a FIFO in their place had every
    command wait for ever, a link to /dev/zero read without end. Such a file is passed over: the parser is built."""
    import os
    import pathlib

    from rulecraft.dsl import parser_cache

    target = tmp_path / parser_cache.TABLES
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "device":
        target.symlink_to("/dev/zero")
    else:
        with open(target, "wb") as fh:
            fh.truncate(1 << 30)  # a sparse gigabyte
    opened = []  # (what reading it would give is beside the point: whether it is read at all)
    monkeypatch.setattr(pathlib.Path, "read_text", lambda self, *a, **k: opened.append(self) or "{}")
    monkeypatch.setattr(pathlib.Path, "read_bytes", lambda self, *a, **k: opened.append(self) or b"{}")
    assert parser_cache._read(tmp_path, parser_cache.TABLES) is None
    assert opened == []


@pytest.mark.parametrize("seed", [10**30, -2**63 - 1, True])
def test_a_studio_game_whose_seed_no_game_takes_is_listed_as_a_problem(tmp_path, seed):
    """game.json came with the folder: a seed past the range `play --seed` and a new game take was taken."""
    import json

    from rulecraft.bundled import resolve

    shutil.copy(resolve("sealed-auction"), tmp_path / "auction.yaml")
    auth = STUDIO
    with _studio(tmp_path) as c:
        made = c.post("/api/play/new", json={"ruleset": "auction.yaml", "seats": ["human", "random"], "seed": 5,
                                             "options": {"lots_for_sale": 2}}, headers=auth).json()
    del c
    _released(tmp_path / ".rulecraft" / "games" / made["id"])  # (nothing of the first studio writes any more)
    meta = tmp_path / ".rulecraft" / "games" / made["id"] / "game.json"
    meta.write_text(json.dumps({**json.loads(meta.read_text()), "seed": seed}))
    with _studio(tmp_path) as c:
        listed = c.get("/api/play/games", headers=auth).json()
    assert listed["games"] == [] and "its seed, options or ruleset" in "\n".join(listed["problems"])
