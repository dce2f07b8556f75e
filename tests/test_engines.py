"""The two engines play the same games: the reference (the instruction loop and the closures of dsl/closures) and
the compiled one (stretches of steps written as Python with their expressions, rulecraft.compiler).

Every bundled ruleset, the test games (tests/cases/games) and every construct case (tests/cases/constructs) is loaded
once and played seed for seed by both engines (`Game(engine=...)`), the compiler writing a stretch at the first visit
of each position (HOT = 0) with its failures raised (STRICT): the same story, the same decisions (who was asked,
what kind, how many options, the answer), winners, scores, steps, state hash, work and coverage, or the same
run-time error at the same step. Some seeds check the cards after every step, count coverage or write no story.
A few targeted cases follow: loops with break, continue and triggers; errors and the step budget inside a
stretch; saves at every decision; no ruleset text in a stretch's source.
"""

from __future__ import annotations

import io
import keyword
import re
import tokenize
from pathlib import Path

import pytest

from rulecraft.agents.base import RandomAgent
from rulecraft.compiler import expressions, running, steps, stretches
from rulecraft.diagnostics import RuleError
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import ENGINES, Game, GameError, programs_for
from rulecraft.runtime.machine.interpreter import run
from rulecraft.runtime.state_io import clone, from_json, state_hash, to_json

CASES = Path(__file__).parent / "cases"
BUNDLED = {"dml": 2, "dml-2016": 1, "dml-classic": 1, "dml-mayhem": 1, "dml-smackdown": 1, "dune-bidding": 4,
           "bluff": 3, "hearts": 1, "pig": 3, "reference": 3, "sealed-auction": 3, "stack-duel": 3}
GAMES = sorted(str(p) for p in (CASES / "games").glob("*.yaml"))
CONSTRUCTS = sorted(str(p) for p in (CASES / "constructs").glob("*/ruleset.yaml"))


@pytest.fixture(autouse=True)
def _eager(monkeypatch):
    monkeypatch.setattr(stretches, "HOT", 0)
    monkeypatch.setattr(stretches, "STRAIGHT_VISITS", 0)
    monkeypatch.setattr(stretches, "STRICT", True)
    monkeypatch.setattr(expressions, "STRICT", True)


def _load(path: str):
    result = load_ruleset(path)
    assert result.ok, [d.message for d in result.diagnostics]
    return result.ruleset


def _play(rs, seed: int, engine: str, max_steps: int = 200_000, **options) -> tuple:
    """What a game shows: its story, decisions, end and state; or the error that stopped it, and where."""
    asked: list = []
    g = Game(rs, None, seed, engine=engine, max_steps=max_steps, start=False, **options)
    try:
        g._setup()  # as Game() does, keeping the game to look at after an error
        g.push(rs.start, {})
        run(g)
        agents = [RandomAgent(p.seat, seed) for p in g.players]
        while not g.over:
            d = g.pending
            wire = agents[d.player].choose(d, None)
            asked.append((d.player, d.kind, d.count, repr(wire)))
            g.apply(wire)
        end = (g.winners, repr(g.scores), state_hash(g))
    except RuleError as exc:
        end = (exc.message, str(exc.span), exc.hint, exc.code, repr(g.vars), repr(g.pvars))
    return (end, asked, g.narrative, g.steps, g.decisions, getattr(g, "work", None),
            dict(g.coverage) if g.coverage is not None else None)


def _both(rs, seed: int, **options) -> None:
    if seed % 3 == 1:
        options.setdefault("check_conservation", True)
    options.setdefault("coverage", seed % 2 == 0)
    options.setdefault("story", seed % 4 != 3)
    reference, compiled = (_play(rs, seed, engine, **options) for engine in ("reference", "compiled"))
    assert compiled == reference, f"seed {seed}"


def _written(rs) -> int:
    return sum(callable(e) for prog in programs_for(rs).values() for e in prog.entries + prog.entries_cov)


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_bundled_rulesets_play_the_same_on_both_engines(name):
    rs = _load(name)
    for seed in range(BUNDLED[name]):
        _both(rs, seed)
    assert _written(rs) > 0


@pytest.mark.parametrize("path", GAMES + CONSTRUCTS, ids=[Path(p).stem if Path(p).stem != "ruleset" else
                                                          Path(p).parent.name for p in GAMES + CONSTRUCTS])
def test_test_games_play_the_same_on_both_engines(path):
    result = load_ruleset(path)
    if not result.ok:
        pytest.skip("a case of the loader's diagnostics: no game to play")
    rs = result.ruleset
    for seed in range(2):
        _both(rs, seed)


def test_an_unknown_engine_is_refused():
    assert ENGINES == ("compiled", "reference")
    with pytest.raises(GameError, match="no engine 'fast'"):
        Game(_load("pig"), engine="fast")


def test_the_reference_engine_writes_nothing():
    rs = _load("pig")
    made: list = []
    real = expressions._write
    try:
        expressions._write = lambda closure: made.append(closure) or real(closure)
        _play(rs, 1, "reference")
        assert made == [] and _written(rs) == 0
        _play(rs, 1, "compiled")
        assert made and _written(rs) > 0
    finally:
        expressions._write = real


LOOPS = """\
ruleset: loops
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

TEMPLATE = """\
ruleset: errors
title: Errors
players: {min: 2, max: 2, default: 2}
start: game
variables: {x: 1, s: ""}
sequences:
  game:
    kind: game
    steps:
%s
"""

ERRORS = [
    '      - while: "x > 0"\n        do: ["x += x"]',  # a number grows past the limit
    '      - loop: spin\n        do:\n          - do: "set x = x + 1"\n          - if: "x < 0"\n'
    '            then: ["break spin"]',  # the step budget runs out in a loop
    '      - do: "let y = 1"\n      - repeat: ["y += 1", "x += 1"]\n        until: "y < 0"',
    '      - for_each: q\n        in: "players"\n        do: ["let v = [q, 1]", "x += v[0]"]',
    '      - if: "x > 0"\n        then: ["x += \'a\'"]',
    # the work guard stops the game at the same step, long texts included
    '      - while: "x > 0"\n        do: ["let big = [q for q in 1..40]", "x += 1"]',
    '      - while: "x > 0 or true"\n        do: ["x += count([q for q in 1..2])",'
    ' "set s = \'{x} and a rather long tail of text\'"]',
    '      - for_each: q\n        in: "players"\n        do: ["x += 1 / (x - x)"]',  # a division by zero
    # an expression that charges its work ahead (compiler/writing.py) passes the budget inside a loop, and after it
    '      - while: "x > 0"\n        do: ["x += count([q for q in 1..30 if count([r for r in 1..q if r > 1]) > 2])"]',
    '      - while: "x > 0"\n        do: ["x += count([q for q in 1..3 if q > 1]) + count([r for r in 1..2]) + count([t for t in 1..2])"]',
]


MARKS = """\
ruleset: marks
title: Card variables and modifiers set in a stretch
players: {min: 2, max: 2, default: 2}
start: game
variables: {x: 0}
cards:
  - for: {n: 1..4}
    id: "c{n}"
    name: "Chip {n}"
    classes: [chip]
    attributes: {n: "=n"}
zones:
  pile: {visibility: open, initial: all}
card_variables: {seen: 0}
modifiers:
  slow: {doc: A modifier set and read in a loop.}
sequences:
  game:
    kind: game
    steps:
      - for_each: c
        in: "cards(pile)"
        do:
          - do: "set c.seen = x + c.n"
          - do: "x += c.seen"
          - do: "add modifier slow to players[c.n % 2] value c.n until end of game"
          - do: "x += modifier('slow', players[0])"
          - if: "c.n == 3"
            then: ["remove modifier slow from players[0]"]
      - do: "set x = x + sum([c.seen for c in cards(pile)])"
      - do: "set (x if x > 0 else players[0]).seen = 1"
"""


@pytest.mark.parametrize("text", [LOOPS, MARKS] + [TEMPLATE % e for e in ERRORS])
def test_loops_triggers_errors_and_the_budget_inside_a_stretch(text, tmp_path):
    path = tmp_path / "case.yaml"  # one name: the spans name the file
    path.write_text(text, encoding="utf-8")
    rs = _load(str(path))
    for seed in range(4 if text is LOOPS else 1):
        _both(rs, seed, max_steps=400 if text is not LOOPS else 200_000)
    if text is MARKS:  # (the card variable set on a number: the closure's error, in the compiled code too)
        for steps in range(5, 90, 7):
            _both(rs, 0, max_steps=steps)
    assert _written(rs) > 0


@pytest.mark.parametrize("inline_max", [0, 100_000])
def test_expressions_called_or_copied_into_a_stretch_play_the_same(inline_max, monkeypatch):
    monkeypatch.setattr(steps, "INLINE_MAX", inline_max)
    rs = _load("dml")
    _both(rs, 0)


def test_a_game_saved_and_loaded_at_every_decision_plays_on_the_same():
    rs = _load("dune-bidding")
    for seed in range(4):
        straight = Game(rs, None, seed, story=False)
        agents = [RandomAgent(p.seat, seed) for p in straight.players]
        g = Game(rs, None, seed, story=False)
        while not straight.over:
            wire = agents[straight.pending.player].choose(straight.pending, None)
            straight.apply(wire)
            g = clone(from_json(rs, to_json(g)), story=False)  # on from the position a stretch left
            g.apply(wire)
        assert state_hash(g) == state_hash(straight) and g.steps == straight.steps


def test_no_ruleset_text_enters_a_stretch(tmp_path):
    """The names of the ruleset (a loop and a local named like Python code) never appear: a stretch's source holds
    the writer's own names, Python keywords and whole numbers (positions) only."""
    path = tmp_path / "loops.yaml"
    path.write_text(LOOPS.replace("outer", "import_os_system").replace("let k", "let __import__")
                    .replace('"k ', '"__import__ ').replace("k += 1", "__import__ += 1")
                    .replace("k -= 1", "__import__ -= 1").replace("trail += k", "trail += __import__")
                    .replace("k == ", "__import__ == "), encoding="utf-8")
    rs = _load(str(path))
    for seed in range(4):
        _play(rs, seed, "compiled", coverage=seed % 2 == 0)
    sources = [e.source for prog in programs_for(rs).values() for e in prog.entries + prog.entries_cov if callable(e)]
    assert len(sources) > 3
    for src in sources:
        assert "import_os" not in src and "__import__" not in src
        for tok in tokenize.generate_tokens(io.StringIO(src).readline):
            if tok.type == tokenize.NAME:
                assert (tok.string in running.SOURCE_NAMES or keyword.iskeyword(tok.string)
                        or running.MADE_NAMES.fullmatch(tok.string)), tok
            elif tok.type == tokenize.NUMBER:
                assert tok.string.isdigit(), tok
            else:
                assert tok.type != tokenize.STRING, tok
    assert not re.search(r"\b(exec|eval|open|getattr)\b", "".join(sources))


def _played(rs, seed: int, engine: str, **options) -> tuple:
    """A game played as `rulecraft simulate` plays it (bots answering inside the running code, Game.play)."""
    g = Game(rs, None, seed, engine=engine, start=False, **options)
    try:
        g.play([RandomAgent(p.seat, seed) for p in g.players], views=False)
        end: tuple = (g.winners, state_hash(g))
    except (RuleError, GameError) as exc:
        err = getattr(exc, "rule_error", None) or exc
        end = (str(err), str(getattr(err, "span", None)))
    return end, g.steps, g.decisions, g.narrative, dict(g.coverage) if g.coverage is not None else None


def test_a_stack_run_in_a_stretch_plays_and_stops_at_the_budget_as_the_loop_does():
    """A stack written into a stretch (its offers answered by bots in the running code, its on_play and resolve
    steps, a call from them that comes back at once): the same games, and every budget stops at the same step."""
    rs = _load("stack-duel")
    for seed in range(3):
        assert _played(rs, seed, "compiled", coverage=True) == _played(rs, seed, "reference", coverage=True)
    sources = [e.source for prog in programs_for(rs).values() for e in prog.entries_cov if callable(e)]
    assert any("_asks(" in src and "while _True:" in src for src in sources)
    for budget in range(1, 300, 7):
        assert _played(rs, 1, "compiled", max_steps=budget) == _played(rs, 1, "reference", max_steps=budget), budget


TOLD = """\
ruleset: told
title: A loop that only tells the story
players: {min: 3, max: 3, default: 3}
start: game
variables: {x: 0, y: -1}
sequences:
  game:
    kind: game
    steps:
      - while: "x < 40"
        do:
          - do: "x += 1"
          - for_each: q
            in: "[p for p in players if x % 3 != 0 or p == players[2]] if x % 5 != 0 else []"
            do:
              - do: "log '{q} waits at {x}'"
              - do: "log 'still {x}'; log 'and on'"
          - do: "set y = q.seat * 100 + x"
"""


def test_a_loop_that_only_tells_the_story_is_counted_without_it_and_stops_at_the_budget_as_the_loop_does(tmp_path):
    """A for_each whose body only logs (loader/kinds/loops.py, handlers.told_each): in a game without a story the
    compiled engine counts its passes instead of running them, and leaves the same steps, variable (read after the
    loop) and state as the loop, with the step budget running out at the same step wherever it falls."""
    path = tmp_path / "told.yaml"
    path.write_text(TOLD, encoding="utf-8")
    rs = _load(str(path))
    for seed in range(4):
        _both(rs, seed)
    for most in range(30, 700, 11):
        reference, compiled = (_play(rs, 0, engine, max_steps=most, story=False) for engine in ENGINES[::-1])
        assert compiled == reference, most
    sources = [e.source for prog in programs_for(rs).values() for e in prog.entries if callable(e)]
    assert any("_told_each(" in src for src in sources)



ASKED = """\
ruleset: asked
title: Decisions asked in a stretch, one of them bound to nothing
players: {min: 3, max: 3, default: 3}
start: game
variables: {total: 0}
player_variables: {got: 0}
sequences:
  game:
    kind: game
    steps:
      - while: "total < 25"
        do:
          - for_each: p
            in: players
            do:
              - choose: {player: p, kind: one, options: "[none] + (1..3)", prompt: "How many?", as: pick}
              - do: "total += 1 if pick == none else pick; p.got += 1"
              - choose: {player: p, kind: yesno, prompt: "Again?"}
"""


def test_a_decision_asked_by_a_stretch_itself_waits_binds_and_stops_at_the_budget_as_the_loop_does(tmp_path):
    """A choose step written into a stretch calls `decide` from the code (loader/kinds/decide.write_choose): answered
    by bots in the running code, or left pending and answered from outside (Game.apply, the position at the step),
    the same games as the loop's; and every budget stops at the same step with the same error (R002 named at the
    step that asks, from f.pc), whether the decision is answered at once or waits."""
    path = tmp_path / "asked.yaml"
    path.write_text(ASKED, encoding="utf-8")
    rs = _load(str(path))
    for seed in range(4):
        _both(rs, seed)
        assert _played(rs, seed, "compiled", coverage=True) == _played(rs, seed, "reference", coverage=True)
    sources = [e.source for prog in programs_for(rs).values() for e in prog.entries + prog.entries_cov if callable(e)]
    assert any("_decide(" in src and "while _True:" in src for src in sources)
    for budget in range(1, 400, 9):
        assert _played(rs, 1, "compiled", max_steps=budget) == _played(rs, 1, "reference", max_steps=budget), budget
        reference, compiled = (_play(rs, 1, engine, max_steps=budget, story=False) for engine in ENGINES[::-1])
        assert compiled == reference, budget
