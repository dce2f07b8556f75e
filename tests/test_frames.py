"""Frames: calls and returns, and what lapses with a frame (modifiers 'until end of KIND'), stay exact through copies,
saves and loads, with and without the generated functions that run through calls and returns (the compiled engine: rulecraft.compiler.stretches).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import play_seeded

from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.compiler import stretches
from rulecraft.runtime.state_io import from_json, to_json

CASE = Path(__file__).resolve().parent / "cases" / "constructs" / "modifiers"


def _answers():
    return json.loads((CASE / "script.json").read_text())


@pytest.mark.parametrize("way", ["straight", "copy", "save"])
@pytest.mark.parametrize("hot", [True, False])
def test_modifiers_lapse_with_their_frame_through_copies_and_saves(way, hot, monkeypatch):
    """'until end of turn' / 'of round' lapse when that frame ends: also in a copy, and in a game loaded from a save
    made while the frame that owns them runs (the frame knows it owns modifiers: handlers.pop_frame)."""
    monkeypatch.setattr(stretches, "HOT", 0)
    monkeypatch.setattr(stretches, "STRAIGHT_VISITS", 0)
    rs = load_ruleset(str(CASE / "ruleset.yaml")).ruleset
    g = Game(rs, 2, 1, engine="compiled" if hot else "reference")
    told = []
    for wire in _answers():
        if way == "copy":
            g = g.copy()
        elif way == "save":
            told = told + g.narrative
            g = from_json(rs, to_json(g))
        g.apply(wire)
    told += g.narrative
    assert g.over
    assert [line for line in told if "haste" in line or "shield" in line] == [
        "P1 starts: haste 0, shield 2", "P1 now has haste 4; the other has 0",
        "P2 starts: haste 0, shield 0", "P2 now has haste 0; the other has 1",
        "round 1 ends: shield on P1 2",
        "P1 starts: haste 0, shield 0", "P1 now has haste 0; the other has 0",
        "P2 starts: haste 0, shield 0", "P2 now has haste 4; the other has 0",
        "round 2 ends: shield on P1 0", "shield after removing it from P1: 0, 7"]


def test_a_frame_owns_modifiers_only_once_one_is_added_until_its_end(monkeypatch):
    rs = load_ruleset(str(CASE / "ruleset.yaml")).ruleset
    g = Game(rs, 2, 1)
    kinds = {f.kind: f.mods for f in g.frames}
    assert kinds == {"game": False, "round": True, "turn": False}  # shield (round 1); blessing lasts the game
    loaded = from_json(rs, to_json(g))
    assert [f.mods for f in loaded.frames] == [f.mods for f in g.frames] == [f.mods for f in g.copy().frames]


# Calls and returns that the generated functions run themselves (compiler/running.py: _call; a return inline): rounds calling turns calling
# helpers, a result bound with 'as', modifiers until the end of a round, a decision inside a callee, events whose
# 'after round' trigger waits for the round's return, and a game ending by 'end game' deep inside calls.
CALLS = """\
ruleset: calls
title: Calls and returns
players: {min: 2, max: 2, default: 2}
start: game
variables: {x: 0, trail: [], last: 0}
modifiers:
  boost: {doc: More this round.}
events:
  ping: {fields: [value]}
triggers:
  - event: ping
    run: after_ping
    timing: after round
sequences:
  game:
    kind: game
    steps:
      - for_each: n
        in: "1..ROUNDS"
        do:
          - call: round
            with: {n: n}
      - call: deep
        with: {k: 0}
  round:
    kind: round
    params: [n]
    steps:
      - "add modifier boost value n until end of round"
      - call: turn
        with: {p: "players[0]"}
      - call: turn
        with: {p: "players[1]"}
      - call: twice
        with: {v: n}
        as: got
      - "trail += got"
      - "emit ping with value: n"
      - call: helper
  turn:
    kind: turn
    params: [p]
    steps:
      - "x += modifier('boost')"
      - call: helper
      - if: "x % 3 == 0"
        then:
          - choose: {player: p, kind: yesno, as: agreed}
          - if: agreed
            then: ["x += 1"]
      - call: helper
  helper:
    kind: helper
    steps:
      - "set last = x"
      - if: "last > 1000"
        then: ["end game"]
  twice:
    kind: helper
    params: [v]
    steps:
      - "return v * 2 + modifier('boost')"
  after_ping:
    kind: reaction
    params: [value]
    steps:
      - "trail += value * 10"
  deep:
    kind: helper
    params: [k]
    steps:
      - if: "k < DEEP"
        then:
          - call: deep
            with: {k: "k + 1"}
      - "x += k"
"""


def _calls_game(tmp_path, on: bool, monkeypatch, rounds: int = 6, deep: int = 20, seed: int = 1, **options):
    monkeypatch.setattr(stretches, "HOT", 0)
    monkeypatch.setattr(stretches, "STRAIGHT_VISITS", 0)
    path = tmp_path / "calls.yaml"  # one name: the spans name the file
    path.write_text(CALLS.replace("ROUNDS", str(rounds)).replace("DEEP", str(deep)), encoding="utf-8")
    result = load_ruleset(str(path))
    assert result.ok, [d.message for d in result.diagnostics]
    lines: list = []
    try:
        g = play_seeded(result.ruleset, seed, listener=lines.append if options.pop("told", False) else None,
                        engine="compiled" if on else "reference", **options)
        out: tuple = ("over", g.winners)
    except Exception as exc:  # RuleError, or GameError wrapping one
        g = None
        err = getattr(exc, "rule_error", None) or exc
        out = ("error", str(err), str(getattr(err, "span", None)))
    if g is not None:
        out += (g.steps, g.decisions, repr(g.vars), g.narrative, [str(x) for x in lines],
                dict(g.coverage) if g.coverage is not None else None, g.modifiers)
    return out


@pytest.mark.parametrize("options", [{}, {"coverage": True}, {"story": False}, {"told": True, "headers": ("round", "turn")}])
def test_calls_and_returns_run_inline_play_as_the_loop_plays_them(options, tmp_path, monkeypatch):
    for seed in range(4):
        on = _calls_game(tmp_path, True, monkeypatch, seed=seed, **dict(options))
        off = _calls_game(tmp_path, False, monkeypatch, seed=seed, **dict(options))
        assert on == off, seed
        assert on[0] == "over"


def test_a_call_too_deep_and_the_step_budget_stop_the_game_at_the_same_step(tmp_path, monkeypatch):
    """Too deep (max_depth) inside calls the functions run; and every budget from 1 to 400 steps, which runs out at
    calls, at returns, inside callees and at the 'after' trigger, with the same error at the same step."""
    on = _calls_game(tmp_path, True, monkeypatch, deep=500, max_depth=60)
    assert on == _calls_game(tmp_path, False, monkeypatch, deep=500, max_depth=60)
    assert on[0] == "error" and "more than 60 deep" in on[1]
    for budget in range(1, 400, 3):
        on = _calls_game(tmp_path, True, monkeypatch, rounds=3, max_steps=budget)
        assert on == _calls_game(tmp_path, False, monkeypatch, rounds=3, max_steps=budget), budget


def test_a_sequence_start_and_its_calls_get_generated_functions(tmp_path, monkeypatch):
    """What the tests above compare: the functions made (HOT = 0) run the calls and returns themselves."""
    from rulecraft.runtime.game import programs_for

    _calls_game(tmp_path, True, monkeypatch)
    rs = load_ruleset(str(tmp_path / "calls.yaml")).ruleset
    Game(rs, None, 1, story=False)  # (this load's programs: play on, to make its functions)
    made = [e.source for prog in programs_for(rs).values() for e in prog.entries if callable(e)]
    assert any("_call(" in src for src in made) and any("_pop_frame(" in src for src in made)  # (a return: inline)
    # a callee that comes back at once: its caller's function goes on after the call (the rounds' loop stays one loop)
    assert any("if _call(" in src and src.index("_pop_frame(") > src.index("if _call(") for src in made)


def test_a_call_goes_on_in_its_callers_function_only_where_the_callee_can_come_back_at_once(monkeypatch):
    """A sequence holding a step only the instruction loop runs (a kind without a `stretch`), or calling one that does,
    never comes back at once: the code after a call of it is not written into the caller's function (it would be
    compiled twice). Every core kind is written (a stack too), so every dml sequence can come back."""
    from rulecraft.compiler import steps
    from rulecraft.model import ruleset as M
    from rulecraft.runtime.game import programs_for

    rs = load_ruleset("dml").ruleset
    programs = programs_for(rs)
    w = steps.StepWriter(programs["round"], False, True, programs=programs)
    assert all(w.comes_back(seq) for seq in ("round", "power_phase", "acquisition", "game"))
    written = steps.stretch_of
    monkeypatch.setattr(steps, "stretch_of", lambda s: None if isinstance(s, M.StackStep) else written(s))
    rs = load_ruleset("dml").ruleset  # (programs of their own: what comes back is kept per program)
    programs = programs_for(rs)
    w = steps.StepWriter(programs["round"], False, True, programs=programs)
    assert not w.comes_back("power_phase") and not w.comes_back("action_phase") and not w.comes_back("round")
    assert w.comes_back("acquisition") and w.comes_back("resolution") and w.comes_back("supply")


def test_a_dynamic_family_lists_its_zones_as_they_are_made_also_in_copies_and_loads():
    """family_zones keeps a dynamic family's list while the family stays as it was (board.family_zones)."""
    rs = load_ruleset(str(CASE.parent / "create_zone" / "ruleset.yaml")).ruleset
    g = Game(rs, 2, 1)  # two markets made, a decision pending
    assert [z.key for z in g.family_zones("markets")] == [1, 2]
    c = g.copy()
    c.create_zone("markets", None)
    assert [z.key for z in c.family_zones("markets")] == [1, 2, 3]
    assert [z.key for z in g.family_zones("markets")] == [1, 2]
    assert [z.key for z in from_json(rs, to_json(c)).family_zones("markets")] == [1, 2, 3]
    g.create_zone("markets", None)
    g.create_zone("markets", None)
    assert [z.key for z in g.family_zones("markets")] == [1, 2, 3, 4]
