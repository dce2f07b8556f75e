"""A step kind registered from its own module is validated, played, drawn and worded with no other file touched:
the registry (rulecraft.model.kinds) is what every layer reads. tests/announce_kind.py is a construct (expanded into
plain steps); tests/unless_kind.py a kind with a model class, instructions and a drawing of its own. The core kinds
(do, call, if, the loops, choose, sealed, stack) are registered the same way (rulecraft.loader.kinds)."""

from __future__ import annotations

import pytest

from announce_kind import ANNOUNCE
from conftest import play_seeded

from rulecraft.loader import load_ruleset
from rulecraft.loader.schema import all_forms, load_schema
from rulecraft.model import ruleset as M
from rulecraft.model.kinds import KINDS, registered
from rulecraft.runtime.game import Game
from rulecraft.tools.chart.flowchart import chart_dot
from rulecraft.tools.words import Words

RULESET = """\
ruleset: announcer
title: Announcer
players: {min: 2, max: 2, default: 2}
start: game
variables: {round: 0}
sequences:
  game:
    kind: game
    steps:
      - loop: rounds
        do:
          - "round += 1"
          - announce: "Round {round} begins"
          - if: "round >= 3"
            then: ["end game"]
"""


@pytest.fixture
def announce():
    with registered(ANNOUNCE) as kind:
        yield kind
    assert "announce" not in KINDS and "announce" not in all_forms()


def _load(tmp_path, text: str = RULESET):
    path = tmp_path / "announcer.yaml"
    path.write_text(text, encoding="utf-8")
    return load_ruleset(str(path))


def _announce_step(rs) -> M.ConstructStep:
    return rs.sequences["game"].steps[0].body[1]


def test_the_schema_and_the_loader_know_the_form(announce, tmp_path):
    assert "announce" in all_forms()
    assert load_schema()["$defs"]["announceStep"]["required"] == ["announce"]
    loaded = _load(tmp_path)
    assert loaded.ok, [d.message for d in loaded.diagnostics]
    step = _announce_step(loaded.ruleset)
    assert isinstance(step, M.ConstructStep) and step.construct == "announce"


def test_its_mistakes_are_reported_by_the_schema(announce, tmp_path):
    loaded = _load(tmp_path, RULESET.replace('announce: "Round {round} begins"',
                                            'announce: "Round {round} begins"\n            loud: true'))
    assert not loaded.ok
    assert any("loud" in d.message for d in loaded.diagnostics)


def test_without_the_kind_the_form_is_unknown(tmp_path):
    loaded = _load(tmp_path)
    assert not loaded.ok
    assert any(d.code in ("E205", "E201", "E200") or "announce" in d.message for d in loaded.diagnostics)


@pytest.mark.parametrize("story", [True, False])
def test_it_plays(announce, tmp_path, story):
    rs = _load(tmp_path).ruleset
    g = play_seeded(rs, 1, views=True, story=story)
    assert g.vars["round"] == 3
    if story:
        assert [line for line in g.narrative if "begins" in str(line)] == [
            "Round 1 begins", "Round 2 begins", "Round 3 begins"]


def test_it_is_drawn_with_its_own_shape(announce, tmp_path):
    loaded = _load(tmp_path)
    dot = chart_dot(loaded.ruleset, loaded.graph, "game")
    assert "shape=note" in dot.replace('"', "")


def test_it_is_said_in_its_own_words(announce, tmp_path):
    rs = _load(tmp_path).ruleset
    assert "Everyone hears: Round {round} begins" in Words(rs).step(_announce_step(rs))


def _play_all(rs, seed: int, engine: str = "compiled") -> tuple:
    g = play_seeded(rs, seed, views=True, engine=engine)
    return g.winners, g.steps, [str(line) for line in g.narrative]


def test_it_plays_the_same_on_both_engines(announce, tmp_path, monkeypatch):
    """The reference engine, and the compiled one writing each stretch at its first visit (strict: no fallback)."""
    from rulecraft.compiler import expressions, steps, stretches

    rs = _load(tmp_path).ruleset
    reference = [_play_all(rs, seed, engine="reference") for seed in range(3)]
    monkeypatch.setattr(stretches, "HOT", 0)
    monkeypatch.setattr(stretches, "STRAIGHT_VISITS", 0)
    monkeypatch.setattr(steps, "MIN_STEPS", 1)
    monkeypatch.setattr(expressions, "STRICT", True)
    monkeypatch.setattr(stretches, "STRICT", True)
    assert [_play_all(rs, seed) for seed in range(3)] == reference
    made = [e for prog in Game(rs, None, 0).programs.values() for e in prog.entries if callable(e)]
    assert made, "a stretch of steps was generated"


def test_the_book_and_the_diff_read_it(announce, tmp_path):
    from rulecraft.tools.diff.steps import step_fields
    from rulecraft.tools.print.book import build_book

    loaded = _load(tmp_path)
    assert "Everyone hears: Round {round} begins" in build_book(loaded.ruleset, loaded.graph)
    assert step_fields(_announce_step(loaded.ruleset))["form"] == "announce"


# ---------------------------------------------------------------- a kind with a model class and instructions of its own

UNLESS_RULESET = """\
ruleset: unless_toy
title: Unless
players: {min: 2, max: 2, default: 2}
start: game
variables: {round: 0, quiet: 0, loud: 0}
sequences:
  game:
    kind: game
    steps:
      - loop: rounds
        do:
          - "round += 1"
          - choose: {player: "players[0]", kind: yesno, prompt: "Shout?", as: shout}
          - unless: "shout"
            do:
              - "quiet += 1"
              - "log 'a quiet round'"
          - if: "round >= 4"
            then: ["end game"]
"""


@pytest.fixture
def unless():
    from unless_kind import UNLESS

    with registered(UNLESS) as kind:
        yield kind
    assert "unless" not in KINDS and "unless" not in all_forms()


def test_every_step_form_is_a_registered_kind():
    """The core forms too: each is built, binds its names and is lowered by its kind (rulecraft.loader.kinds)."""
    from rulecraft.loader.kinds import CORE
    from rulecraft.model.kinds import of_step

    assert set(all_forms()) <= set(KINDS)
    assert [k.key for k in CORE] == ["do", "call", "if", "while", "repeat", "loop", "for_each", "choose", "sealed",
                                     "stack"]
    step = M.IfStep("s1", "game/s1", "", "", "", None, False)
    assert of_step(step) is KINDS["if"]


def test_a_kind_of_its_own_loads_and_is_lowered_by_it(unless, tmp_path):
    from unless_kind import UnlessStep
    from rulecraft.runtime.machine.program import compile_program

    loaded = _load(tmp_path, UNLESS_RULESET)
    assert loaded.ok, [d.message for d in loaded.diagnostics]
    step = loaded.ruleset.sequences["game"].steps[0].body[2]
    assert isinstance(step, UnlessStep) and step.cond.text == "shout" and len(step.body) == 2
    ops = [ins.op for ins in compile_program(loaded.ruleset)["game"].code if ins.step is step]
    assert ops == ["JUMP_IF_FALSE"]
    assert Words(loaded.ruleset).step(step) == "Unless shout:"


def test_a_kind_of_its_own_is_drawn_and_compared(unless, tmp_path):
    """Its graph hook draws it (a condition: 'no' into its steps, 'yes' past them); the diff names its form."""
    from rulecraft.tools.diff.steps import step_fields

    loaded = _load(tmp_path, UNLESS_RULESET)
    step = loaded.ruleset.sequences["game"].steps[0].body[2]
    after = loaded.ruleset.sequences["game"].steps[0].body[3]
    out = [(e.dst, e.kind) for e in loaded.graph.edges if e.src == step.path]
    assert out == [(step.body[0].path, "no"), (after.path, "yes")]
    assert loaded.graph.nodes[step.path].kind == "condition"
    assert "Unless the answer is<BR/>yes:>, shape=\"diamond\"" in chart_dot(loaded.ruleset, loaded.graph, "game")
    assert step_fields(step)["form"] == "unless"


def test_a_kind_with_no_drawing_is_one_box_its_steps_hanging_off_it(unless, tmp_path):
    from dataclasses import replace

    with registered(replace(unless, graph=None)):
        loaded = _load(tmp_path, UNLESS_RULESET)
        graph = loaded.graph  # (built on first use)
    step = loaded.ruleset.sequences["game"].steps[0].body[2]
    assert graph.nodes[step.path].kind == "unless"
    assert [(e.dst, e.kind, e.label) for e in graph.edges if e.src == step.path][0] == (step.body[0].path, "next", "do")
    assert (step.path, "repeat") in {(e.dst, e.kind) for e in graph.edges if e.src == step.body[-1].path}


def test_a_kind_of_its_own_plays_the_same_on_both_engines(unless, tmp_path, monkeypatch):
    """The reference engine, and the compiled one writing each stretch at its first visit (strict: no fallback)."""
    from rulecraft.compiler import expressions, steps, stretches

    rs = _load(tmp_path, UNLESS_RULESET).ruleset
    games = {"reference": [play_seeded(rs, seed, engine="reference") for seed in range(4)]}
    monkeypatch.setattr(stretches, "HOT", 0)
    monkeypatch.setattr(stretches, "STRAIGHT_VISITS", 0)
    monkeypatch.setattr(steps, "MIN_STEPS", 1)
    monkeypatch.setattr(expressions, "STRICT", True)
    monkeypatch.setattr(stretches, "STRICT", True)
    games["compiled"] = [play_seeded(rs, seed, engine="compiled") for seed in range(4)]
    said = {engine: [([str(line) for line in g.narrative], g.vars["quiet"], g.steps) for g in played]
            for engine, played in games.items()}
    assert said["reference"] == said["compiled"]
    for lines, quiet, _steps in said["reference"]:
        assert quiet == sum("a quiet round" in line for line in lines)
    assert {quiet for _lines, quiet, _steps in said["reference"]} != {0}, "some seed has a quiet round"
    made = [e for prog in Game(rs, None, 0).programs.values() for e in prog.entries if callable(e)]
    assert made, "a stretch of steps was generated"


def test_a_kind_of_its_own_is_written_into_a_stretch_by_its_hook(unless, tmp_path):
    """Its `stretch` hook writes it into a generated function (a Python `if` over its steps, not a stop), and a
    stretch may start inside its steps (its `blocks`: the compiler knows where they lie)."""
    from rulecraft.compiler.positions import Positions
    from rulecraft.compiler.steps import StepWriter

    rs = _load(tmp_path, UNLESS_RULESET).ruleset
    game = Game(rs, None, 0)
    prog = game.programs["game"]
    step = rs.sequences["game"].steps[0].body[2]
    pcs = {s.path: min(pc for pc, ins in enumerate(prog.code) if ins.step is s) for s in (step, *step.body)}
    fn = StepWriter(prog, False, False, programs=game.programs).function(pcs[step.path])
    source = fn.source
    assert f"f.pc = {pcs[step.path]}" not in source, "the step is written, not left to the loop"
    # its steps are in the function: an error in one is reported at it (the table of lines, compiler/counts.py)
    assert pcs[step.body[0].path] in {pc for pc, _ahead in fn.where} and "\n            if " in source
    inner = pcs[step.body[1].path]
    assert Positions(prog).path_to(inner)[-1] == (step, "do", step.body, 1)
    assert StepWriter(prog, False, False, programs=game.programs).function(inner).source


def test_a_kind_of_its_own_is_read_by_the_tools_and_the_checks(unless, tmp_path):
    """The sheets' rule text and the designers' book ask its kind (`text`, `book`); the flow checks see inside it."""
    from rulecraft.tools.chart.sheetplan import plan_sheets, rule_text, step_numbers
    from rulecraft.tools.print.book import describe

    loaded = _load(tmp_path, UNLESS_RULESET.replace('- "quiet += 1"', '- "end game"\n              - "quiet += 1"'))
    step = loaded.ruleset.sequences["game"].steps[0].body[2]
    assert rule_text(step) == "unless shout"
    rs = loaded.ruleset
    view = describe(rs, step, step_numbers(rs.sequences["game"]), plan_sheets(rs, loaded.graph))
    assert (view.lead, view.inline, view.tail) == ("Unless", "shout", ":")
    assert [v.code for v in view.groups[0][1]][:2] == ["end game", "quiet += 1"]
    assert any(d.code == "W404" and "step can never run" in d.message for d in loaded.diagnostics)


def test_a_kind_of_its_own_is_compared_said_in_the_aid_and_checked(unless, tmp_path):
    """What the diff compares (`fields`, `summary`), the players' words (`words`), the aid (`decides`: it decides
    nothing, so its steps are spelled out; `outcomes`: they run on an outcome) and the result checks (the steps inside
    it) come from its registration alone."""
    from rulecraft.tools.diff.report import diff_rulesets, to_text
    from rulecraft.tools.diff.steps import step_fields, step_summary
    from rulecraft.tools.print.aid import aid_view

    inside = '- "end game"\n              - "call tally as t"\n              - "quiet += 1"'
    tally = '  tally:\n    kind: phase\n    steps: ["quiet += 0"]\n'
    a = _load(tmp_path, UNLESS_RULESET.replace('- "quiet += 1"', inside) + tally)
    step = a.ruleset.sequences["game"].steps[0].body[2]
    assert step_fields(step)["condition"].text == "shout" and step_summary(step) == "unless shout"
    assert Words(a.ruleset, detail="players").step(step) == "Unless the answer is yes:"
    assert [d.code for d in a.diagnostics] == ["W404", "W407"]  # 'end game' leaves; 'tally' returns nothing
    aid = aid_view(a.ruleset)
    assert "unless the answer is yes:, the game ends, then play Tally" in aid.flow[0][2][0]
    assert [name for name, _said in aid.decisions] == ["Game"]  # a choice players make; the step is no mechanic
    (tmp_path / "b").mkdir()
    b = _load(tmp_path / "b", (UNLESS_RULESET.replace('- "quiet += 1"', inside) + tally)
              .replace('unless: "shout"', 'unless: "shout or round == 1"'))
    assert "condition: 'shout' -> 'shout or round == 1'" in to_text(diff_rulesets(a.ruleset, b.ruleset))
