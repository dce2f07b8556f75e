"""The hand-written baselines (benchmarks/*_baseline.py) play the engine's games, decision for decision.

benchmarks/ratio.py measures the engine against them, which means something only while both sides
play the same games: the same chance draws and the same bot choices for the same seed. This plays 20
seeds of each bundled game with the player count going round its range (and a few option settings);
`python benchmarks/ratio.py --check 2000` plays 2,000.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rulecraft.loader import load_ruleset

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from baselines import GAMES, differences  # noqa: E402

CASES = [
    ("pig", {}),
    ("pig", {"target_score": 30, "wipe_face": 6, "first_player": "random"}),
    ("sealed-auction", {}),
    ("sealed-auction", {"tie_rule": "no_sale", "start_coins": 3, "lots_for_sale": 8}),
    ("dune-bidding", {}),
]


@pytest.mark.parametrize("name,settings", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_baseline_plays_the_engines_games(name, settings):
    pair = GAMES[name]
    loaded = load_ruleset(pair.ruleset, overrides={k: str(v) for k, v in settings.items()})
    assert loaded.ok, [d.message for d in loaded.diagnostics]
    rs = loaded.ruleset
    lo, hi = rs.players.min, rs.players.max
    assert differences(pair, rs, range(20), lambda seed: lo + seed % (hi - lo + 1), settings) == []


def test_a_different_seed_is_a_different_game():
    """The comparison can fail: the baseline's game for one seed is not the engine's for another."""
    pair = GAMES["pig"]
    rs = load_ruleset("pig").ruleset

    class Shifted:
        baseline = staticmethod(lambda seed, n, **kw: pair.baseline(seed + 1, n, **kw))
        engine_state = pair.engine_state

    assert len(differences(Shifted, rs, range(5), lambda seed: 2)) >= 4
