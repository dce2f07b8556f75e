"""A bot's pick answered without a Decision (machine/questions.decide and decision_steps.bids write the pick, its check
as `decisions.usual` checks it and `answers.taken` out) is the Decision answered by the bot's `choose`: for every
kind of wire a pick may give, at a yes or no (pig), a bid of amounts (the sealed auction's bids) and a choice among
options (Dune's bidding), the game goes on the same, or stops with the same error and the same decision pending;
past the step budget, the same R002 at the same place. Each game is played twice: by bots whose pick is asked, and
by the same bots with their pick hidden (`answers.pick_of` gives None), so every decision is a Decision."""

from __future__ import annotations

from functools import cache

import pytest

from rulecraft.agents.base import RandomAgent
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.runtime.machine.answers import pick_of
from rulecraft.runtime.state_io import state_hash


class _Wire:
    """The random bot, but its answer to the game's decision numbered `at` is `wire` (`"past"`: the count of options,
    the first number past them), given by its pick and its choose alike."""

    def __init__(self, seat: int, seed: int, wire, at: int):
        self.random = RandomAgent(seat, seed)
        self.wire, self.at = wire, at

    def choose(self, d, view):
        if d.number == self.at:
            return d.count if self.wire == "past" else self.wire
        return self.random.choose(d, view)

    def pick(self, kind, count, number):
        if number == self.at:
            return count if self.wire == "past" else self.wire
        return self.random.pick(kind, count, number)


class _Chooser(_Wire):
    """The same bot, asked through its choose only (its choose is declared by another class than its pick)."""

    def choose(self, d, view):
        return super().choose(d, view)


@cache
def _rs(name: str):
    return load_ruleset(name).ruleset


def _end(name: str, players: int, bot, wire, at: int, max_steps: int = 5_000_000) -> tuple:
    g = Game(_rs(name), players, 11, story=False, start=False, max_steps=max_steps)
    try:
        g.play([bot(p.seat, 11, wire, at) for p in g.players], views=False)
        error = None
    except Exception as exc:  # (IllegalChoice, RuleError: raised out of play, the decision left pending)
        error = (type(exc).__name__, str(exc), getattr(exc, "code", None))
    d = g.pending
    return error, state_hash(g), g.steps, g.decisions, g.over, None if d is None else (d.number, d.player, d.count)


WIRES = [-1, 0, 1, 2, 4, 5, 30, "past", True, False, None, "1", 1.0, [1]]
GAMES = [("pig", 2, 3), ("sealed-auction", 3, 4), ("dune-bidding", 6, 5)]


def test_the_bots_pick_is_asked_where_it_may_be():
    assert pick_of(_Wire(0, 1, 0, 0)) is not None and pick_of(_Chooser(0, 1, 0, 0)) is None


@pytest.mark.parametrize("name,players,at", GAMES)
def test_a_pick_of_every_wire_is_taken_or_refused_as_the_decision_takes_it(name, players, at):
    for wire in WIRES:
        assert _end(name, players, _Wire, wire, at) == _end(name, players, _Chooser, wire, at), wire


@pytest.mark.parametrize("name,players,at", GAMES)
def test_a_pick_past_the_budget_is_refused_where_the_decision_is(name, players, at):
    ends = set()
    for most in range(2, 400, 7):
        picked = _end(name, players, _Wire, 0, at, max_steps=most)
        assert picked == _end(name, players, _Chooser, 0, at, max_steps=most), most
        ends.add(picked[0] and picked[0][2])
    assert "R002" in ends


def test_a_bid_limit_of_the_bidders_own_variable_is_read_as_its_expression_reads_it():
    """The auction's limit `bidder.coins` (a player variable of the bidder the sealed step asks) is read by
    decision_steps.bids straight from the bidder's variables (plans.high_var), not by calling its expression: the same
    games as when the expression is called."""
    from rulecraft.model import ruleset as M
    from rulecraft.runtime.machine.plans import _COMPILED

    rs = _rs("sealed-auction")

    def ends() -> list:
        out = []
        for seed in range(40):
            g = Game(rs, 2 + seed % 4, seed, story=False, start=False)
            g.play([RandomAgent(p.seat, seed) for p in g.players], views=False)
            out.append((state_hash(g), g.steps, g.decisions))
        return out

    fast = ends()
    sealed = [s for s in rs.sequences["sale"].steps[1].run if isinstance(s, M.SealedStep)]
    plan = _COMPILED[id(sealed[0].decision)]
    assert plan.high_var == "coins"
    plan.high_var = None  # (the expression called, as before)
    try:
        assert ends() == fast
    finally:
        plan.high_var = "coins"


_EDGE = """
ruleset: bid-edge
title: Bids from a local plus a number
version: "1"
players: {min: 2, max: 2, default: 2}
player_variables:
  coins: 5
start: game
sequences:
  game:
    kind: game
    steps:
      - id: start
        do: "let top = TOP"
      - id: bids
        for_each: bidder
        in: players
        do:
          - id: bid
            choose:
              player: bidder
              kind: one
              options: "[none] + ((top + 1)..bidder.coins)"
              as: bid
              default: "none"
          - id: raise
            if: "bid != none"
            then: ["set top = bid", "bidder.coins -= bid"]
scoring:
  score: "p.coins"
"""


@pytest.mark.parametrize("top", ["0", "3", "-7", "4", "10", "true", "'x'", "536870912 * 536870912 * 32",
                                 "536870912 * 536870912 * 32 - 1", "none"])
def test_a_bid_from_a_local_plus_a_number_reads_the_local(top, tmp_path, monkeypatch):
    """questions.decide reads an open bid's lowest written `top + 1` (top a local) as its expression reads it, without
    calling it (plans.low_local); a local that is no whole number, unset or a runaway goes to the call: the game ends
    the same, or stops with the same error, as when the call is made at every asking, on both engines."""
    from rulecraft.runtime.machine import plans, questions

    path = tmp_path / "edge.yaml"
    path.write_text(_EDGE.replace("TOP", top))
    called: list = []

    def run(inline: bool, compiled: bool) -> tuple:
        rs = load_ruleset(str(path)).ruleset  # (new specs: plans of their own)
        real = plans.plan_of

        def plan_of(g, spec):
            plan = real(g, spec)
            if not inline:
                plan.low_local = None
            if not getattr(plan.low, "counted", False):
                low = plan.low

                def counted(g, low=low):
                    called.append(inline)
                    return low(g)
                counted.counted = True  # type: ignore[attr-defined]
                plan.low = counted
            return plan
        monkeypatch.setattr(questions, "plan_of", plan_of)
        ends = []
        for seed in range(40):
            g = Game(rs, 2, seed, story=False, start=False, engine="compiled" if compiled else "reference")
            try:
                g.play([RandomAgent(p.seat, seed) for p in g.players], views=False)
                error = None
            except Exception as exc:
                error = (type(exc).__name__, str(exc))
            ends.append((error, state_hash(g) if error is None else None, g.steps, g.decisions))
        return tuple(ends)

    for compiled in (False, True):
        assert run(True, compiled) == run(False, compiled)
    whole = top.lstrip("-").isdigit() or top.endswith("- 1")
    assert (True in called) == (not whole), called.count(True)  # the call only where the local is no whole number
    assert False in called
