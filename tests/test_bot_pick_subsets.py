"""A subset with bounds asked without make_decision's steps (machine/generic.bounded): the bot's `pick_subset` answered
without a Decision is the Decision answered by the bot's `choose`, for every kind of wire a pick may give (dml's
"Choose the {t} to buy" and its bids of primaries, subsets with a `min`); and the route's own work (who decides, the
options, the bounds, their errors) ends a game as make_decision's steps end it, on both engines."""

from __future__ import annotations

from functools import cache

import pytest

from rulecraft.agents.base import RandomAgent
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.runtime.machine import plans
from rulecraft.runtime.machine.answers import pick_of, subset_pick_of
from rulecraft.runtime.state_io import state_hash


class _Wire:
    """The random bot, but its answer to the game's decision numbered `at` is `wire` (a function of the count of
    options), given by its pick_subset and its choose alike; `asked`: the numbers its pick_subset was asked at."""

    def __init__(self, seat: int, seed: int, wire, at: int, asked: list):
        self.random = RandomAgent(seat, seed)
        self.wire, self.at, self.asked = wire, at, asked

    def choose(self, d, view):
        if d.number == self.at:
            return self.wire(d.count)
        return self.random.choose(d, view)

    def pick(self, kind, count, number):
        return self.random.pick(kind, count, number)

    def pick_subset(self, low, high, count, number):
        self.asked.append(number)
        if number == self.at:
            return self.wire(count)
        return self.random.pick_subset(low, high, count, number)


class _Chooser(_Wire):
    """The same bot, asked through its choose only (its choose is declared by another class than its picks)."""

    def choose(self, d, view):
        return super().choose(d, view)


@cache
def _dml():
    return load_ruleset("dml").ruleset


def _end(bot, wire, at: int, max_steps: int = 5_000_000, seed: int = 5) -> tuple:
    g = Game(_dml(), 4, seed, story=False, start=False, max_steps=max_steps)
    asked: list = []
    try:
        g.play([bot(p.seat, seed, wire, at, asked) for p in g.players], views=False)
        error = None
    except Exception as exc:  # (IllegalChoice, RuleError: raised out of play, the decision left pending)
        error = (type(exc).__name__, str(exc), getattr(exc, "code", None))
    d = g.pending
    return (error, state_hash(g), g.steps, g.decisions, g.over,
            None if d is None else (d.number, d.player, d.count, d.min, d.max)), asked


WIRES = [lambda n: None, lambda n: 0, lambda n: [], lambda n: [0], lambda n: [1], lambda n: [0, 1], lambda n: [1, 0],
         lambda n: [0, 0], lambda n: [-1], lambda n: [n], lambda n: [n - 1], lambda n: list(range(n)), lambda n: [True],
         lambda n: [1.0], lambda n: [[0]], lambda n: (0,), lambda n: "0"]


def test_the_subset_pick_is_asked_where_it_may_be():
    bot = RandomAgent(0, 1)
    assert subset_pick_of(pick_of(bot)) == bot.pick_subset
    assert subset_pick_of(pick_of(_Wire(0, 1, None, -1, []))) is not None
    assert subset_pick_of(pick_of(_Chooser(0, 1, None, -1, []))) is None

    class Other(RandomAgent):  # (changes how it chooses: neither pick is asked)
        def choose(self, d, view):
            return super().choose(d, view)
    assert pick_of(Other(0, 1)) is None and subset_pick_of(None) is None
    picked, asked = _end(_Wire, WIRES[0], -1)
    assert len(asked) > 10  # dml's subsets with a min are picked, not made Decisions
    assert picked == _end(_Chooser, WIRES[0], -1)[0]


def test_a_subset_pick_of_every_wire_is_taken_or_refused_as_the_decision_takes_it():
    asked = _end(_Wire, WIRES[0], -1)[1]
    for at in (asked[0], asked[len(asked) // 2]):
        for i, wire in enumerate(WIRES):
            assert _end(_Wire, wire, at)[0] == _end(_Chooser, wire, at)[0], (at, i)


def test_a_subset_pick_past_the_budget_is_refused_where_the_decision_is():
    asked = _end(_Wire, WIRES[0], -1, seed=6)[1]
    g = Game(_dml(), 4, 6, story=False, start=False)  # the steps the game has run when its first subset is picked
    g.play([RandomAgent(p.seat, 6) for p in g.players], views=False, decisions=asked[0])
    ends = set()
    for most in range(g.steps + asked[0] * 64 - 70, g.steps + asked[0] * 64 + 140, 3):
        picked = _end(_Wire, WIRES[0], -1, max_steps=most, seed=6)[0]
        assert picked == _end(_Chooser, WIRES[0], -1, max_steps=most, seed=6)[0], most
        ends.add(picked[0] and picked[0][2])
    assert "R002" in ends


_BOUNDS = """
ruleset: subset-bounds
title: Subsets with bounds
version: "1"
players: {min: 2, max: 2, default: 2}
cards:
  - for: {n: [1, 2, 3, 4, 5, 6]}
    id: "gem{n}"
    name: "Gem {n}"
    attributes: {rank: "=n"}
zones:
  pool: {visibility: open, initial: all}
  kept: {per: player, visibility: open}
start: game
sequences:
  game:
    kind: game
    steps:
      - "move [c for c in cards(pool) if c.rank > COUNT] to players[0].kept"
      - id: rounds
        repeat:
          - id: take
            for_each: taker
            in: players
            do:
              - id: pick
                choose:
                  player: taker
                  kind: subset
                  LOW
                  HIGH
                  options: "cards(pool)"
                  prompt: "Take gems"
                  as: got
              - "move got to taker.kept"
        until: "count(cards(pool)) == 0"
scoring:
  score: "count(cards(p.kept))"
"""


@pytest.mark.parametrize("count,low,high", [
    ("6", "min: 1", ""), ("6", "min: 2", "max: 3"), ("3", "min: 2", ""), ("0", "min: 1", ""), ("6", "", "max: 2"),
    ("6", "min: 0", "max: 0"), ("6", "min: \"count(cards(pool)) - 9\"", "max: 1"), ("6", "min: true", ""), ("6", "min: \"'a'\"", ""),
    ("6", "min: 1", "max: \"count(cards(pool)) - 9\""), ("6", "min: 7", "max: 9"), ("4", "min: 4", ""), ("6", "min: 1", "max: none"),
])
def test_a_subset_with_bounds_ends_as_make_decision_ends_it(count, low, high, tmp_path, monkeypatch):
    """The route's own steps (generic.bounded) against make_decision's (the plan's `bounded` off): the same games, or
    the same errors, on both engines; the first asked of seed 0's game through the route, not its errors."""
    path = tmp_path / "bounds.yaml"
    path.write_text(_BOUNDS.replace("COUNT", count).replace("LOW", low).replace("HIGH", high))
    routed: list = []

    def run(bounded: bool, compiled: bool) -> tuple:
        rs = load_ruleset(str(path)).ruleset  # (new specs: plans of their own)
        assert rs is not None
        real = plans.plan_of

        def plan_of(g, spec):
            plan = real(g, spec)
            routed.append(plan.bounded)
            plan.bounded = plan.bounded and bounded
            return plan
        monkeypatch.setattr("rulecraft.runtime.machine.questions.plan_of", plan_of)
        ends = []
        for seed in range(12):
            g = Game(rs, 2, seed, story=False, start=False, max_steps=20_000,
                     engine="compiled" if compiled else "reference")
            try:
                g.play([RandomAgent(p.seat, seed) for p in g.players], views=False, decisions=200)
                error = None
            except Exception as exc:
                error = (type(exc).__name__, str(exc))
            d = g.pending
            ends.append((error, state_hash(g), g.steps, g.decisions,
                         None if d is None else (d.number, d.count, d.min, d.max)))
        return tuple(ends)

    for compiled in (False, True):
        assert run(True, compiled) == run(False, compiled)
    assert routed and all(routed)
