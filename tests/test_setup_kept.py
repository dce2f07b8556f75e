"""A game's set-up kept per ruleset and copied into later games (runtime/machine/setup.py), and the compiler's
cheaper writing of built-ins and assignments (tabletop.with_fixed, record(), a list grown by '+='): the same games as
set-up worked out afresh and as the reference engine, asserted on states and work counts (never on time)."""

from __future__ import annotations

import pytest

from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.runtime.machine import setup
from rulecraft.runtime.state_io import to_json

RULESET = """ruleset: kept
title: Kept
players: {min: 2, max: 4, default: 3}
cards:
  - for: {value: [1, 2, 3, 4, 5, 6]}
    id: "c{value}"
    name: "card {value}"
zones:
  deck: {visibility: hidden, initial: "[c for c in cards if c.value > 1]"}
  spare: {visibility: hidden, initial: all}
  hand: {per: player, visibility: owner}
variables:
  first: "=players[1]"
  who: "=[p for p in players]"
  pick: "=%s"
  seen: "=record(who: players[0], n: 2, notes: [])"
player_variables:
  coins: "=3 + count(players)"
start: game
sequences:
  game:
    kind: game
    steps:
      - do: "shuffle deck"
      - for_each: p
        in: "seat_order(first, dir: 'ccw')"
        do: ["draw 1 from deck to p.hand", "who += [p]", "p.coins -= 1"]
      - do: "set first = next_player(first, dir: 'counterclockwise'); set seen = record(who: first, n: 3, notes: [])"
      - choose: {player: first, kind: one, options: "[1, 2]", prompt: "How many?", as: x}
      - do: "first.coins += x"
scoring:
  score: "p.coins"
"""


def _load(tmp_path, pick: str = "2", name: str = "kept.yaml"):
    path = tmp_path / name
    path.write_text(RULESET % pick, encoding="utf-8")
    res = load_ruleset(str(path))
    assert res.ok, [d.message for d in res.diagnostics][:3]
    return res.ruleset


def _played(rs, seed: int, **options) -> Game:
    from rulecraft.agents.base import RandomAgent

    g = Game(rs, 3, seed, start=False, **options)
    g.play([RandomAgent(p.seat, seed) for p in g.players], views=False)
    return g


def test_a_kept_set_up_plays_the_same_games_as_one_worked_out_afresh(tmp_path):
    rs = _load(tmp_path)
    first = Game(rs, 3, 1)
    assert setup.tables(rs).kept, "a set-up that drew nothing by chance is kept"
    assert to_json(Game(rs, 3, 1)) == to_json(first)  # set up from the kept copy, run to the same decision
    a, b = Game(rs, 3, 1, start=False), Game(rs, 3, 1, start=False)
    a._setup()
    b._setup()
    assert a.vars["first"] is a.players[1]  # the game's own player, not the first game's
    assert a.vars["seen"]["who"] is a.players[0] and a.vars["seen"] is not b.vars["seen"]
    assert a.vars["who"] is not b.vars["who"] and a.pvars[0] is not b.pvars[0]
    assert all(a.zones[ref] is not b.zones[ref] for ref in a.zones) and a.where is not b.where
    for seed in range(6):  # every game after the first is set up from the copy: the same as afresh, on both engines
        kept = _played(rs, seed)
        fresh = _played(_load(tmp_path, name=f"fresh{seed}.yaml"), seed)
        reference = _played(rs, seed, engine="reference")
        assert to_json(kept) == to_json(fresh) == to_json(reference)
        assert (kept.steps, kept.work, kept.decisions) == (fresh.steps, fresh.work, fresh.decisions)


def test_a_set_up_that_draws_by_chance_is_never_kept(tmp_path):
    rs = _load(tmp_path, pick="random([1, 2, 3, 4, 5, 6, 7, 8])")
    picks = {Game(rs, 3, seed).vars["pick"] for seed in range(12)}
    assert not setup.tables(rs).kept
    assert len(picks) > 1  # each game drew its own


def test_a_budget_smaller_than_the_kept_work_stops_where_a_first_game_stops(tmp_path):
    from rulecraft.diagnostics import RuleError

    rs = _load(tmp_path)
    g = Game(rs, 3, 0, start=False)
    g._setup()  # kept, with the work of its comprehension
    work = g.work
    assert work > 0
    errors = []
    for ruleset in (rs, _load(tmp_path, name="afresh.yaml")):
        with pytest.raises(RuleError) as got:
            Game(ruleset, 3, 0, max_steps=work - 1)
        errors.append((got.value.code, got.value.span.line, got.value.span.col))
    assert errors[0] == errors[1] and errors[0][0] == "R002"


def test_builtins_with_a_fixed_direction_and_records_are_written_as_the_closures_run_them(tmp_path, monkeypatch):
    from rulecraft.compiler import stretches

    monkeypatch.setattr(stretches, "HOT", 0)  # every stretch written at once: the list grown by "+=" in its code
    monkeypatch.setattr(stretches, "STRAIGHT_VISITS", 0)
    rs = _load(tmp_path)
    for seed in range(4):
        compiled = _played(rs, seed)
        assert to_json(compiled) == to_json(_played(rs, seed, engine="reference"))
        assert [p.seat for p in compiled.vars["who"]][3:] == [1, 0, 2]  # seat_order from P2, the other way round
        assert compiled.vars["seen"]["who"] == compiled.players[0]  # next_player(P2) the other way round: P1


def test_a_player_variable_set_on_something_else_stops_both_engines_alike(tmp_path, monkeypatch):
    from rulecraft.compiler import stretches
    from rulecraft.diagnostics import RuleError

    monkeypatch.setattr(stretches, "HOT", 0)
    monkeypatch.setattr(stretches, "STRAIGHT_VISITS", 0)
    text = (RULESET % "2").replace('"first.coins += x"', '"seen.who.coins += x; set seen = record(who: x); seen.who.coins += x"')
    path = tmp_path / "wrong.yaml"
    path.write_text(text, encoding="utf-8")
    res = load_ruleset(str(path))
    assert res.ok, [d.message for d in res.diagnostics][:3]
    said = []
    for engine in ("compiled", "reference", "compiled"):  # the second compiled game runs the written statement
        g = Game(res.ruleset, 3, 0, engine=engine)
        with pytest.raises(RuleError) as got:  # seen.who is P1 for the first '+=', then the number answered
            g.apply(1)
        said.append((str(got.value), got.value.span.line, got.value.span.col, [dict(pv) for pv in g.pvars]))
    assert said[0] == said[1] == said[2] and "'coins' is a player variable, but this is the number 2" in said[0][0]
    assert said[0][3][0]["coins"] == 3 + 3 - 1 + 2  # P1 gained the 2 before the error
