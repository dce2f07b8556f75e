"""Review of runtime/machine/blocks.py: cases where a generated stretch of steps differed from the instruction loop."""

from __future__ import annotations

from rulecraft.diagnostics import RuleError
from rulecraft.loader import load_ruleset
from rulecraft.runtime.machine import blocks
from rulecraft.runtime.game import Game
from rulecraft.runtime.machine.interpreter import run


def _outcome(path, on: bool, monkeypatch, max_steps: int = 5_000_000) -> tuple:
    monkeypatch.setattr(blocks, "ENABLED", on)
    monkeypatch.setattr(blocks, "HOT", 0)
    monkeypatch.setattr(blocks, "STRAIGHT_VISITS", 0)
    result = load_ruleset(str(path))
    assert result.ok, [d.message for d in result.diagnostics]
    g = Game(result.ruleset, None, 1, max_steps=max_steps, start=False)
    error = None
    try:
        g._setup()
        g.push(result.ruleset.start, {})
        run(g)
    except RuleError as exc:
        error = (exc.message, str(exc.span), exc.code)
    return error, g.steps, g.work, repr(g.vars), g.over


TEXT_WORK = """\
ruleset: textwork
title: Long texts cost work
players: {min: 2, max: 2, default: 2}
start: game
variables: {x: 0, s: ""}
sequences:
  game:
    kind: game
    steps:
      - while: "x < 20"
        do:
          - do: "x += count([q for q in 1..50])"
          - do: "set s = '{x} and a rather long tail of text'"
"""


def test_a_long_text_charges_the_same_work_in_a_generated_stretch(tmp_path, monkeypatch):
    """codegen charges a long text `size >> _COPY_SHIFT` units; written inline as `ctx.work + size >> shift`,
    Python shifted the whole sum, so the work counted shrank (and the budget no longer held)."""
    path = tmp_path / "textwork.yaml"
    path.write_text(TEXT_WORK, encoding="utf-8")
    on, off = _outcome(path, True, monkeypatch), _outcome(path, False, monkeypatch)
    assert on == off
    assert off[2] > 50


def test_the_work_of_long_texts_stops_a_game_at_the_same_step(tmp_path, monkeypatch):
    path = tmp_path / "textwork.yaml"
    path.write_text(TEXT_WORK.replace('"x < 20"', '"x > 0 or true"').replace("1..50", "1..2"), encoding="utf-8")
    on, off = (_outcome(path, flag, monkeypatch, max_steps=400) for flag in (True, False))
    assert off[0] is not None and on == off
