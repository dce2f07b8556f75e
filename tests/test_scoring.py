"""The end of a game (runtime/machine/scoring.py): scores, tie-breaks and winners, the same on both engines, and a
score that is no number stopped with an error that names the scoring. Outcomes only: a few tiny games."""

from __future__ import annotations

import pytest

from conftest import play_seeded

from rulecraft.diagnostics import RuleError
from rulecraft.loader import load_ruleset

GAME = """ruleset: s
title: S
players: {min: 3, max: 3, default: 3}
player_variables: {points: 0, coins: 0}
start: game
sequences:
  game:
    kind: game
    steps:
      - "players[0].points += 2; players[1].points += 2; players[1].coins += 1; players[2].coins += 5"
scoring:
  score: "SCORE"
  highest_wins: true
  tie_break: [TIE]
  on_tie: shared
"""


def _load(tmp_path, score: str, tie: str):
    path = tmp_path / "s.yaml"
    path.write_text(GAME.replace("SCORE", score).replace("TIE", tie), encoding="utf-8")
    loaded = load_ruleset(str(path))
    assert loaded.ok, loaded.diagnostics
    return loaded.ruleset


@pytest.mark.parametrize("tie, winners", [('"p.coins"', [1]), ("{fewest: \"p.coins\"}", [0])])
def test_a_tie_break_decides_on_both_engines(tie, winners, tmp_path):
    rs = _load(tmp_path, "p.points", tie)
    for engine in ("reference", "compiled"):
        for seed in range(3):  # (the compiled engine writes the tie-break's function once it is hot)
            g = play_seeded(rs, seed, engine=engine)
            assert g.scores == [2, 2, 0] and g.winners == winners, engine


def test_a_score_that_is_no_number_stops_the_game(tmp_path):
    rs = _load(tmp_path, "'x' if p.seat == 1 else p.points", '"p.coins"')
    for engine in ("reference", "compiled"):
        with pytest.raises(RuleError, match="not a number, so no winner"):
            play_seeded(rs, 0, engine=engine)
