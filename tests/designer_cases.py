"""The games written from the docs alone (tests/cases/games/), as their tests play them: loaded once, played by random
bots on both engines, which must tell the same game (story, winners, scores, steps), each game ending with a winner;
and the keys a game's YAML uses (to show it builds no loop of its own)."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import yaml
from conftest import play_seeded

from rulecraft.loader import load_ruleset

GAMES = Path(__file__).parent / "cases" / "games"


@lru_cache(maxsize=None)
def case_ruleset(name: str):
    loaded = load_ruleset(str(GAMES / f"{name}.yaml"))
    assert loaded.ok and not loaded.diagnostics, [d.message for d in loaded.diagnostics]
    return loaded.ruleset


def both_engines(name: str, seeds=range(3), players: int = 3) -> list:
    """The reference engine's games of `seeds`, each checked against the compiled engine's game of the same seed."""
    out = []
    for seed in seeds:
        ref, comp = (play_seeded(case_ruleset(name), seed, players, engine=e, check_conservation=seed == 0)
                     for e in ("reference", "compiled"))
        assert (ref.narrative, ref.winners, ref.scores, ref.steps) == \
            (comp.narrative, comp.winners, comp.scores, comp.steps), f"{name} seed {seed}"
        assert ref.over and ref.winners, f"{name} seed {seed} ends with a winner"
        out.append(ref)
    return out


def yaml_keys(node) -> set:
    """Every mapping key anywhere in a YAML document's data."""
    if isinstance(node, dict):
        return set(node) | set().union(*(yaml_keys(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(yaml_keys(v) for v in node)) if node else set()
    return set()


def has_no_loop_of_its_own(name: str) -> None:
    """The game's YAML builds no loop of its own: no `while`, `loop` or `repeat` step, no `break` in its sequences."""
    data = yaml.safe_load((GAMES / f"{name}.yaml").read_text(encoding="utf-8"))
    assert not yaml_keys(data) & {"while", "loop", "repeat"}, name
    assert not re.search(r"\bbreak\b", yaml.safe_dump(data["sequences"])), name
