"""The hand-written baselines and how to read the same state from the engine's games.

Each entry of GAMES pairs a bundled ruleset with its plain-Python baseline
(benchmarks/pig_baseline.py, auction_baseline.py, dune_baseline.py): `baseline(seed, players,
**settings)` plays one game and returns its end as plain data; `engine_state(game, players)`
reads the same data from a finished `Game`. The same seed gives the same game in both,
decision for decision (same chance draws, same bot choices), so the two must be equal:
benchmarks/ratio.py --check plays 2,000 seeds, tests/test_baselines.py a few.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any, Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from auction_baseline import play_game as auction_game  # noqa: E402
from dune_baseline import play_phase as dune_phase  # noqa: E402
from pig_baseline import play_game as pig_game  # noqa: E402
from rulecraft.agents.base import RandomAgent  # noqa: E402
from rulecraft.runtime.game import Game  # noqa: E402


def zone(g: Game, name: str, key: Any = None) -> list[str]:
    """The ids of the cards in one zone of a game, bottom first."""
    return [c.id for ref, cards in g.zones.items() if ref.zone == name and ref.key == key for c in cards]


def _pig(g: Game, n: int) -> dict:
    return {"score": [pv["score"] for pv in g.pvars], "winners": list(g.winners), "decisions": g.decisions,
            "turns": g.tallies["turns"][None][0]}  # the ruleset's `tally turns`: [count, sum, sum of squares]


def _auction(g: Game, n: int) -> dict:
    return {"coins": [pv["coins"] for pv in g.pvars], "won": [zone(g, "won", s) for s in range(n)],
            "unsold": zone(g, "unsold"), "lots": zone(g, "lots"), "sold": g.vars["sold"],
            "decisions": g.decisions, "winners": list(g.winners)}


def _dune(g: Game, n: int) -> dict:
    return {"hands": [zone(g, "hand", s) for s in range(n)], "spice": [pv["spice"] for pv in g.pvars],
            "bought": [pv["bought"] for pv in g.pvars], "bank": g.vars["bank"], "deck": zone(g, "treachery_deck"),
            "decisions": g.decisions, "winners": list(g.winners)}


@dataclass(frozen=True)
class Pair:
    ruleset: str  # a bundled ruleset
    players: int  # the count the ratio is measured at
    baseline: Callable[..., dict]
    engine_state: Callable[[Game, int], dict]
    unit: str = "games"


GAMES = {
    "pig": Pair("pig", 2, pig_game, _pig),
    "sealed-auction": Pair("sealed-auction", 3, auction_game, _auction),
    "dune-bidding": Pair("dune-bidding", 6, dune_phase, _dune, "phases"),
}


def play_engine(rs, seed: int, players: int) -> Game:
    """One game as `rulecraft simulate` plays it: no story, one RandomAgent per seat answering in the game."""
    g = Game(rs, players, seed, story=False, start=False)
    g.play([RandomAgent(p.seat, seed) for p in g.players], views=False)
    return g


def differences(pair: Pair, rs, seeds, players_of: Callable[[int], int], settings: dict | None = None) -> list[str]:
    """The seeds whose engine game and baseline game end differently (empty: all the same)."""
    out = []
    for seed in seeds:
        n = players_of(seed)
        engine = pair.engine_state(play_engine(rs, seed, n), n)
        base = pair.baseline(seed, n, **(settings or {}))
        if engine != base:
            out.append(f"seed {seed}, {n} players: engine {engine} != baseline {base}")
    return out
