"""Generated functions for stretches of steps (runtime/machine/blocks.py, RULECRAFT_BLOCKS) change nothing a game shows.

Seeded games of every bundled ruleset are played with the functions made at the first visit of each position
(HOT = 0, so every position a game reaches runs through one) and without them, with and without coverage:
the winners, scores, steps, decisions, narrative, final state, work charged and coverage are the same. So are
run-time errors (message, span, hint, code), the step budget's included, and games saved and loaded at
every decision. A small ruleset walks each kind of loop, break and continue, and a trigger that interrupts.
"""

from __future__ import annotations

import pytest
from pathlib import Path

from rulecraft.agents.base import RandomAgent
from rulecraft.diagnostics import RuleError
from rulecraft.loader import load_ruleset
from rulecraft.runtime.machine import blocks, blockwriter
from rulecraft.runtime.game import Game, programs_for
from rulecraft.runtime.machine.interpreter import run
from test_codegen import _SOURCE_NAMES  # the names codegen's source may hold, which is copied in here
from test_fast_steps import TEMPLATE  # a two-player game whose steps each error case gives
import sale_cases

BUNDLED = {"dml": 12, "dune-bidding": 30, "dml-classic": 4, "dml-2016": 4, "dml-mayhem": 4, "dml-smackdown": 4,
           "pig": 10, "sealed-auction": 10, "stack-duel": 10, "reference": 6, "bluff": 10}


def _load(name: str):
    result = load_ruleset(name)
    assert result.ok, name
    return result.ruleset


def _play(rs, seed: int, on: bool, monkeypatch, story: bool = False, **options) -> tuple:
    monkeypatch.setattr(blocks, "ENABLED", on)
    monkeypatch.setattr(blocks, "HOT", 0)
    monkeypatch.setattr(blocks, "STRAIGHT_VISITS", 0)
    g = Game(rs, None, seed, story=story, **options)
    agents = [RandomAgent(p.seat, seed) for p in g.players]
    while not g.over:
        d = g.pending
        g.apply(agents[d.player].choose(d, None))
    # cards of two loads of a ruleset are distinct objects: the state is compared as text
    return (g.winners, g.scores, g.steps, g.decisions, g.narrative, repr(g.vars), repr(g.pvars), repr(g.zones),
            repr(g.marks), getattr(g, "work", None), dict(g.coverage) if g.coverage is not None else None)


def _generated(rs) -> int:
    return sum(callable(e) for prog in programs_for(rs).values() for e in prog.entries + prog.entries_cov)


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_seeded_games_are_the_same_with_and_without_generated_steps(name, monkeypatch):
    on, off = _load(name), _load(name)
    for seed in range(BUNDLED[name]):
        options = {"coverage": seed % 2 == 0}
        story = seed % 3 == 0
        assert (_play(on, seed, True, monkeypatch, story, **options)
                == _play(off, seed, False, monkeypatch, story, **options)), f"{name}, seed {seed}"
    assert _generated(on) > 0 and _generated(off) == 0


CONSTRUCTS = """\
ruleset: blocks
title: Every kind of loop
players: {min: 2, max: 2, default: 2}
start: game
variables: {x: 0, trail: [], hits: 0}
events:
  big: {fields: [value]}
triggers:
  - event: big
    run: react
sequences:
  game:
    kind: game
    steps:
      - id: outer
        loop: outer
        do:
          - do: "x += 1"
          - if: "x > 6"
            then: ["break outer"]
          - if: "x % 2 == 0"
            then: ["continue outer"]
            else: ["trail += x"]
          - for_each: q
            in: players
            do:
              - if: "q == players[1] and x == 3"
                then: ["continue"]
              - id: ask
                choose: {player: q, kind: yesno, as: agreed}
              - if: agreed
                then: ["hits += 1; emit big with value: hits"]
          - do: "let k = 0"
          - while: "k < 3"
            do:
              - do: "k += 1"
              - if: "k == 2"
                then: ["continue"]
              - do: "trail += k"
          - repeat:
              - do: "k -= 1"
              - if: "k == 1"
                then: ["break"]
            until: "k <= 0"
      - do: "trail += 'end'"
  react:
    kind: reaction
    params: [value]
    steps:
      - if: "value % 3 == 0"
        then: ["trail += 'three'"]
"""


def test_every_kind_of_loop_break_continue_and_trigger(tmp_path, monkeypatch):
    path = tmp_path / "blocks.yaml"
    path.write_text(CONSTRUCTS, encoding="utf-8")
    rs_on, rs_off = _load(str(path)), _load(str(path))
    for seed in range(12):
        for coverage in (False, True):
            a = _play(rs_on, seed, True, monkeypatch, True, coverage=coverage)
            b = _play(rs_off, seed, False, monkeypatch, True, coverage=coverage)
            assert a == b, seed
    assert _generated(rs_on) > 0


def test_a_game_saved_and_loaded_at_every_decision_plays_on_the_same(monkeypatch):
    from rulecraft.runtime.state_io import clone, from_json, to_json

    rs = _load("dune-bidding")
    monkeypatch.setattr(blocks, "HOT", 0)
    monkeypatch.setattr(blocks, "STRAIGHT_VISITS", 0)
    for seed in range(8):
        straight = Game(rs, None, seed, story=False)
        agents = [RandomAgent(p.seat, seed) for p in straight.players]
        g = Game(rs, None, seed, story=False)
        while not straight.over:
            d = straight.pending
            wire = agents[d.player].choose(d, None)
            straight.apply(wire)
            # a copy made through JSON, and a clone, go on from the position the generated code left
            g = clone(from_json(rs, to_json(g)), story=False)
            g.apply(wire)
        assert (g.steps, repr(g.pvars), repr(g.zones)) == (straight.steps, repr(straight.pvars), repr(straight.zones))


_ERRORS = [  # steps for test_fast_steps.TEMPLATE (a game of two players, x = 1, score per player)
    '      - while: "x > 0"\n        do: ["x += x"]',  # a number grows past the limit
    '      - loop: spin\n        do:\n          - do: "set x = x + 1"\n          - if: "x < 0"\n'
    '            then: ["break spin"]',  # the step budget runs out in a loop
    '      - while: "x > 0"\n        do: ["set x = x + 1"]',
    '      - do: "let y = 1"\n      - repeat: ["y += 1", "x += 1"]\n        until: "y < 0"',
    '      - for_each: q\n        in: "players"\n        do: ["let v = [q, 1]", "x += v[0]"]',  # a player added to a number (a mixed list: only the run knows)
    '      - if: "x > 0"\n        then: ["x += \'a\'"]',
    # the work guard (a comprehension's items count against the budget) stops the game at the same step
    '      - while: "x > 0"\n        do: ["let big = [q for q in 1..40]", "x += 1"]',
    '      - do: "let y = 0"\n      - repeat: ["y += count([q for q in 1..30 if q > y])"]\n        until: "y < 0"',
    '      - for_each: q\n        in: "players"\n        do: ["x += 1 / (x - x)"]',  # a division by zero
]


@pytest.mark.parametrize("steps", _ERRORS)
def test_errors_are_the_same_with_and_without_generated_steps(steps, tmp_path, monkeypatch):
    outcomes = []
    for on in (True, False):
        path = tmp_path / "e.yaml"  # one name: the spans name the file
        path.write_text(TEMPLATE % steps, encoding="utf-8")
        monkeypatch.setattr(blocks, "ENABLED", on)
        monkeypatch.setattr(blocks, "HOT", 0)
        monkeypatch.setattr(blocks, "STRAIGHT_VISITS", 0)
        result = load_ruleset(str(path))
        if not result.ok:
            outcomes.append(("does not load", [d.code for d in result.diagnostics]))
            continue
        g = Game(result.ruleset, None, 1, max_steps=3_000, start=False)
        try:
            g._setup()  # as Game() does, keeping the game to look at after the error
            g.push(result.ruleset.start, {})
            run(g)
            outcomes.append(("no error", g.steps, g.vars))
        except RuleError as exc:
            # where the game stopped too: the same step, with the same work counted
            outcomes.append((exc.message, str(exc.span), exc.hint, exc.code, g.steps, getattr(g, "work", None),
                             repr(g.vars), repr(g.frames[-1].locals) if g.frames else None))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] not in ("no error", "does not load"), outcomes[0]


def test_no_ruleset_text_enters_the_generated_source(tmp_path, monkeypatch):
    """Names of the ruleset (here a loop and a local named like Python code) never appear: the source holds
    the writer's own names, Python keywords and whole numbers (positions) only."""
    import io
    import keyword
    import re
    import tokenize

    path = tmp_path / "blocks.yaml"
    path.write_text(CONSTRUCTS.replace("outer", "import_os_system").replace("let k", "let __import__")
                    .replace('"k ', '"__import__ ').replace("k += 1", "__import__ += 1")
                    .replace("k -= 1", "__import__ -= 1").replace("trail += k", "trail += __import__")
                    .replace("k == ", "__import__ == "), encoding="utf-8")
    rs = _load(str(path))
    for seed in range(4):
        _play(rs, seed, True, monkeypatch, coverage=seed % 2 == 0)
    sources = [e.source for prog in programs_for(rs).values() for e in prog.entries + prog.entries_cov if callable(e)]
    assert len(sources) > 3
    own = {"f", "n", "pc", "lim", "_C", "_s", "_it", "_o", "_i", "_w", "_cw", "work", "_entry", "steps", "max_steps",
           "coverage", "_events", "_foreach_init", *blocks._HELPERS, *_SOURCE_NAMES}
    made = re.compile(r"_[kr][0-9]+|_x[0-9]+_[0-9]+")  # constants, first-pass flags, renamed expression locals
    for src in sources:
        assert "import_os" not in src and "__import__" not in src
        for tok in tokenize.generate_tokens(io.StringIO(src).readline):
            if tok.type == tokenize.NAME:
                assert tok.string in own or keyword.iskeyword(tok.string) or made.fullmatch(tok.string), tok
            elif tok.type == tokenize.NUMBER:
                assert tok.string.isdigit(), tok
            else:
                assert tok.type not in (tokenize.STRING,), tok


def test_a_stretch_without_a_loop_waits_longer_for_its_function(monkeypatch):
    """A loop's function is made at the HOT-th visit; a stretch without one (which saves less per visit) only
    after STRAIGHT_VISITS more, so short runs do not pay for making it; unless it starts with a call or starts a
    sequence (the functions run calls and returns themselves: blockcode._call)."""
    monkeypatch.setattr(blocks, "HOT", 2)
    for straight, expect_straight in ((10**9, False), (0, True)):
        monkeypatch.setattr(blocks, "STRAIGHT_VISITS", straight)
        rs = _load("dml")
        for seed in range(6):
            g = Game(rs, None, seed, story=False)
            agents = [RandomAgent(p.seat, seed) for p in g.players]
            while not g.over:
                d = g.pending
                g.apply(agents[d.player].choose(d, None))
        made = [(e.source, pc == 0 or prog.code[pc].op == "CALL") for prog in programs_for(rs).values()
                for pc, e in enumerate(prog.entries) if callable(e)]
        assert made and any("while" in src for src, _ in made) and any(early for _, early in made)
        assert any("while" not in src and not early for src, early in made) == expect_straight


@pytest.mark.parametrize("case", ["ranking", "sequence_result", "display_names"])
def test_rankings_results_and_display_names_are_the_same_with_and_without_generated_steps(case, monkeypatch):
    """sorted/highest/lowest by a key, 'return VALUE' bound by 'as', decisions with display names (issue 15)."""
    path = str(Path(__file__).parent / "cases" / "constructs" / case / "ruleset.yaml")
    rs_on, rs_off = _load(path), _load(path)
    for seed in range(6):
        assert _play(rs_on, seed, True, monkeypatch, True) == _play(rs_off, seed, False, monkeypatch, True), seed
    if case != "display_names":  # its steps are decisions, with nothing to generate between them
        assert _generated(rs_on) > 0


@pytest.mark.parametrize("inline_max", [0, 100_000])
def test_expressions_called_or_copied_in_play_the_same(inline_max, monkeypatch):
    """A stretch calls an expression's own function (its source is long: blockwriter.INLINE_MAX) or copies its
    source in: the games are the same either way, and as without generated steps."""
    monkeypatch.setattr(blockwriter, "INLINE_MAX", inline_max)
    on, off = _load("dml"), _load("dml")
    for seed in range(3):
        assert _play(on, seed, True, monkeypatch) == _play(off, seed, False, monkeypatch), f"seed {seed}"
    assert _generated(on) > 0


@pytest.mark.parametrize("path", sale_cases.PATHS, ids=sale_cases.IDS)
def test_sales_targets_and_lifetimes_are_the_same_with_and_without_generated_steps(path, monkeypatch):
    """Issue 36's constructs and games, with coverage and the story on for some seeds."""
    on, off = _load(path), _load(path)
    for seed in range(sale_cases.SEEDS):
        options = {"coverage": seed % 2 == 0}
        assert (_play(on, seed, True, monkeypatch, seed % 3 == 0, **options)
                == _play(off, seed, False, monkeypatch, seed % 3 == 0, **options)), f"{path}, seed {seed}"
