"""Every example ruleset validates cleanly, plays seeded random games to the end, and replays.

- every ruleset file in rulesets/examples loads with no diagnostic at all;
- it plays 20 seeded games between random agents to the end, with card conservation
  checked after every step (the two example games written for the docs, sealed-auction
  and stack-duel, play seeds 1..50; Hearts plays 5: a game of it is 9-12 hands to 100
  points, 8,000-11,000 steps each checked, so 5 games are 54 hands, every pass direction
  many times over, and checking every step makes a game about 4 times dearer: 20 games
  were over half the file's time);
- `rulecraft play NAME --seed 1 --log FILE` then `rulecraft replay FILE` reports the
  replay identical.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import play_seeded

from rulecraft.diagnostics import render_text
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.runtime.replay import replay
from rulecraft.runtime.state_io import state_hash
from rulecraft.tools.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[1] / "rulesets" / "examples"
FILES = sorted(EXAMPLES.glob("*.yaml"))
SEEDS = {"sealed-auction": range(1, 51), "stack-duel": range(1, 51), "hearts": range(1, 6)}
DEFAULT_SEEDS = range(1, 21)
MAX_STEPS = 200_000  # far above what any example needs; a game that hangs fails fast

_LOADED: dict[Path, object] = {}


def _load(path: Path):
    if path not in _LOADED:
        loaded = load_ruleset(str(path))
        assert loaded.ok and not loaded.diagnostics, render_text(loaded.diagnostics, loaded.sources)
        _LOADED[path] = loaded.ruleset
    return _LOADED[path]


def test_the_two_documentation_games_are_there():
    names = {_load(p).name for p in FILES}
    assert {"sealed-auction", "stack-duel", "pig"} <= names


def play_random(rs, seed: int, players: int | None = None) -> Game:
    n = players or rs.players.default
    return play_seeded(rs, seed, n, views=True, check_conservation=True, max_steps=MAX_STEPS)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_random_games_play_to_the_end(path: Path):
    rs = _load(path)
    for seed in SEEDS.get(rs.name, DEFAULT_SEEDS):
        g = play_random(rs, seed)
        assert g.over and g.pending is None, (rs.name, seed)
        assert isinstance(g.winners, list), (rs.name, seed)
        assert all(0 <= s < len(g.players) for s in g.winners), (rs.name, seed)
        assert g.narrative and g.narrative[-1].startswith("Winner: "), (rs.name, seed)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_same_seed_same_game(path: Path):
    rs = _load(path)
    a, b = play_random(rs, 7), play_random(rs, 7)
    assert state_hash(a) == state_hash(b) and a.narrative == b.narrative


@pytest.mark.parametrize("name,players", [("sealed-auction", 2), ("sealed-auction", 5), ("stack-duel", 3),
                                          ("stack-duel", 4)])
def test_other_player_counts(name: str, players: int):
    rs = _load(EXAMPLES / f"{name}.yaml")
    for seed in range(1, 11):
        g = play_random(rs, seed, players)
        assert g.over and g.narrative[-1].startswith("Winner: ")


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_a_logged_game_replays_identically(path: Path, tmp_path: Path, capsys):
    rs = _load(path)
    log = tmp_path / f"{rs.name}.jsonl"
    assert main(["play", str(path), "--seed", "1", "--log", str(log), "--quiet", "--check"]) == 0
    played = capsys.readouterr().out
    assert played.startswith("winner: "), played
    assert main(["replay", str(log)]) == 0
    out = capsys.readouterr().out
    assert "identical" in out and "warning" not in out, out
    report = replay(str(log))
    assert report.ok and report.complete, report.message
    assert report.game.winners == play_random(rs, 1).winners  # the CLI's random agents are these


@pytest.mark.parametrize("name", ["sealed-auction", "stack-duel"])
def test_rulecraft_play_by_name(name: str):
    """The documented command line, as a user types it (the bundled name, not a path)."""
    exe = Path(sys.executable).with_name("rulecraft")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "rulecraft.tools.cli.main"]
    done = subprocess.run(cmd + ["play", name, "--seed", "1"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].startswith("Winner: "), done.stdout[-500:]
    assert "Traceback" not in done.stderr
