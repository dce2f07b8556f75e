"""Named results that need doubles (model/gates.doubles_only): when every named result of a dice starts its condition
with `doubles and`, a roll of them that shows no doubles asks none of the conditions (rng.Dice.roll); the games are
the same, on both engines, as when every roll asks them."""

from __future__ import annotations

import pytest

from rulecraft.loader import load_ruleset
from rulecraft.model.gates import ByResult, doubles_only
from rulecraft.runtime.game import Game

RULESET = """\
ruleset: case-dice-doubles
title: Named results that need doubles
players: {min: 2, max: 2, default: 2}
cards:
  - id: token
    name: Token
dice:
  pair:
    count: 2
    sides: 6
    results:
      - name: boxcars
        when: "doubles and faces[0] == 6"
        outcome: success
      - name: low_pair
        when: "doubles and total <= 6 and faces[1] > 1"
  mixed:
    count: 2
    sides: 6
    results:
      - name: snake_eyes
        when: "doubles and faces[0] == 1"
      - name: high
        when: "total >= 11"
zones:
  box: {visibility: open, initial: all}
variables: {boxcars: 0, low_pairs: 0, highs: 0, snakes: 0}
start: game
sequences:
  game:
    kind: stage
    steps:
      - for_each: n
        in: "1..30"
        do:
          - "roll pair as r"
          - if: "r.result == 'boxcars'"
            then: ["boxcars += 1"]
          - if: "r.result == 'low_pair'"
            then: ["low_pairs += 1"]
          - "roll mixed as m"
          - if: "m.result == 'high'"
            then: ["highs += 1"]
          - if: "m.result == 'snake_eyes'"
            then: ["snakes += 1"]
      - "log 'boxcars {boxcars}, low pairs {low_pairs}, highs {highs}, snakes {snakes}'"
"""


@pytest.fixture(scope="module")
def ruleset(tmp_path_factory):
    path = tmp_path_factory.mktemp("doubles") / "ruleset.yaml"
    path.write_text(RULESET)
    loaded = load_ruleset(str(path))
    assert loaded.ok, loaded.diagnostics
    return loaded.ruleset


def test_only_dice_whose_every_result_needs_doubles(ruleset):
    assert doubles_only(ruleset) == frozenset({"pair"})  # mixed's 'high' needs no doubles


def _play(rs, seed: int, engine: str, gated: bool) -> tuple:
    """The game's story, variables and steps, and each condition asked: (dice, whether the roll shows doubles)."""
    g = Game(rs, 2, seed, engine=engine, start=False)  # (the ruleset's tables made: doubles_only reads the conditions)
    if not gated:
        g.rolled = ByResult(g.rolled.gates)  # (no dice whose results all need doubles) every roll asks them, as before
    asked: list = []
    kept = []
    for dice in rs.dice.values():
        for r in dice.results:
            fn = r.when.fn

            def counting(ctx, fn=fn, name=dice.id):
                asked.append((name, ctx.locals["doubles"]))
                return fn(ctx)

            kept.append((r.when, fn))
            object.__setattr__(r.when, "fn", counting)  # (a frozen CExpr: put back below)
    try:
        g.play([], views=False)
    finally:
        for when, fn in kept:
            object.__setattr__(when, "fn", fn)
    return g.narrative, dict(g.vars), g.steps, asked


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_a_roll_without_doubles_asks_none_of_them_and_the_game_is_the_same(ruleset, engine):
    named = 0
    for seed in range(4):
        gated = _play(ruleset, seed, engine, True)
        every = _play(ruleset, seed, engine, False)
        assert gated[:3] == every[:3]
        assert ("pair", False) in every[3] and ("mixed", False) in every[3]
        assert ("pair", False) not in gated[3] and ("pair", True) in gated[3]  # pair's: only with doubles
        assert [a for a in gated[3] if a[0] == "mixed"] == [a for a in every[3] if a[0] == "mixed"]
        named += sum(gated[1].values())
    assert named > 0
