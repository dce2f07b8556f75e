"""The shortcuts for common steps (RULECRAFT_FAST_STEPS) change nothing a game shows.

Seeded games of every bundled ruleset are played with and without them, with and without the story, and
with the card check and coverage on for some seeds: the winners, scores, steps, decisions, narrative,
final state (variables, player variables, zones, card marks), the work charged to the step budget and
the coverage are the same. Their errors are the same too (message, span, hint, code).
"""

from __future__ import annotations

import pytest

from rulecraft.agents.base import RandomAgent
from rulecraft.diagnostics import RuleError
from rulecraft.dsl.closures import assign
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game

import sale_cases

BUNDLED = {"dml": 20, "dune-bidding": 30, "dml-classic": 4, "dml-2016": 4, "dml-mayhem": 4, "dml-smackdown": 4,
           "pig": 10, "sealed-auction": 10, "stack-duel": 10, "reference": 6, "bluff": 10}


def _load(name: str, fast: bool, monkeypatch):
    monkeypatch.setattr(assign, "FAST_STEPS", fast)
    result = load_ruleset(name)
    assert result.ok, name
    return result.ruleset


def _play(rs, seed: int, story: bool, fast: bool, monkeypatch, **options) -> tuple:
    monkeypatch.setattr(assign, "FAST_STEPS", fast)
    g = Game(rs, None, seed, story=story, **options)
    agents = [RandomAgent(p.seat, seed) for p in g.players]
    while not g.over:
        d = g.pending
        g.apply(agents[d.player].choose(d, None))
    # cards of two loads of a ruleset are distinct objects: the state is compared as text
    return (g.winners, g.scores, g.steps, g.decisions, g.narrative, repr(g.vars), repr(g.pvars), repr(g.zones), repr(g.marks),
            getattr(g, "work", None), dict(g.coverage) if g.coverage is not None else None)


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_seeded_games_are_the_same_with_and_without_the_shortcuts(name, monkeypatch):
    plain = _load(name, False, monkeypatch)
    fast = _load(name, True, monkeypatch)
    for seed in range(BUNDLED[name]):
        options = {"check_conservation": seed % 3 == 0, "coverage": seed % 2 == 0}
        for story in (True, False):
            assert (_play(fast, seed, story, True, monkeypatch, **options)
                    == _play(plain, seed, story, False, monkeypatch, **options)), f"{name}, seed {seed}, story {story}"


TEMPLATE = """\
ruleset: e
title: Errors
players: {min: 2, max: 2, default: 2}
start: game
variables: {x: 1}
player_variables: {score: 0}
sequences:
  game:
    kind: game
    steps:
%s
"""

# the steps of a game that stops with a run-time error, each in the statements the shortcuts cover
_ERRORS = [
    '      - while: "x > 0"\n        do: ["x += x"]',  # a game variable grows past the limit
    '      - do: "let y = 1"\n      - while: "y > 0"\n        do: ["y += y"]',  # a local
    '      - while: "x > 0"\n        do: ["players[0].score += 100000000000000000"]',  # a player variable
    '      - do: "x += \'a\'"',  # text added to a number
    '      - do: "x.score += 1"',  # a number as a player
    '      - do: "set x.score = 1"',
    '      - while: "x > 0"\n        do: ["set x = x + 1"]',  # the step budget runs out
]


@pytest.mark.parametrize("steps", _ERRORS)
def test_errors_are_the_same_with_and_without_the_shortcuts(steps, tmp_path, monkeypatch):
    outcomes = []
    for fast in (True, False):
        path = tmp_path / "e.yaml"  # one name: the spans name the file
        path.write_text(TEMPLATE % steps, encoding="utf-8")
        rs = _load(str(path), fast, monkeypatch)
        try:
            g = Game(rs, None, 1, max_steps=3_000)
            outcomes.append(("no error", g.steps, g.vars))
        except RuleError as exc:
            outcomes.append((exc.message, str(exc.span), exc.hint, exc.code))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] != "no error", outcomes[0]


@pytest.mark.parametrize("path", sale_cases.PATHS, ids=sale_cases.IDS)
def test_sales_targets_and_lifetimes_are_the_same_with_and_without_the_shortcuts(path, monkeypatch):
    """Issue 36's constructs and games, with the card check and coverage on for some seeds."""
    plain = _load(path, False, monkeypatch)
    fast = _load(path, True, monkeypatch)
    for seed in range(sale_cases.SEEDS):
        options = {"check_conservation": seed % 3 == 0, "coverage": seed % 2 == 0}
        for story in (True, False):
            assert (_play(fast, seed, story, True, monkeypatch, **options)
                    == _play(plain, seed, story, False, monkeypatch, **options)), f"{path}, seed {seed}, story {story}"
