"""Variant edits that change part of something: one key of a step, some rows of a table, one trigger."""

from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game

BASE = """\
ruleset: base
title: Base
players: {min: 2, max: 3}
tables:
  t: {keys: [x, y], columns: [a, b], rows: {x: [10, 20], y: [30, 40]}}
events: {ping: {}}
sequences:
  noise:
    steps: ["log 'noise!'"]
  game:
    steps:
      - id: order
        for_each: p
        in: players
        do: ["log '{p} {t[\\"x\\"].a} {t[\\"y\\"].a}'"]
      - "emit ping"
triggers:
  - {id: noisy, on: ping, run: noise}
start: game
"""

VARIANT = """\
ruleset: var
extends: base.yaml
tables:
  t: {rows: {y: [31, 41]}}
overrides:
  - update: game.order
    set: {in: "reversed(players)", label: Everyone in reverse}
  - remove_entry: triggers.noisy
"""


def _narrative(path):
    result = load_ruleset(str(path))
    assert result.ok, result.diagnostics
    return result.ruleset, Game(result.ruleset, 2, 1).narrative


def test_update_rows_and_trigger_removal(tmp_path):
    (tmp_path / "base.yaml").write_text(BASE)
    (tmp_path / "var.yaml").write_text(VARIANT)
    _, base = _narrative(tmp_path / "base.yaml")
    assert base[:3] == ["P1 10 30", "P2 10 30", "noise!"]
    rs, var = _narrative(tmp_path / "var.yaml")
    assert var[:2] == ["P2 10 31", "P1 10 31"]  # reversed order, row y changed, row x kept
    assert "noise!" not in var
    step = rs.sequences["game"].steps[0]
    assert step.label == "Everyone in reverse" and step.var == "p"  # the rest of the step kept


def test_update_of_a_missing_step_and_trigger_say_so(tmp_path):
    (tmp_path / "base.yaml").write_text(BASE)
    (tmp_path / "bad.yaml").write_text("ruleset: bad\nextends: base.yaml\noverrides:\n"
                                       "  - update: game.ordr\n    set: {label: x}\n"
                                       "  - remove_entry: triggers.nosy\n")
    result = load_ruleset(str(tmp_path / "bad.yaml"))
    hints = [(d.code, d.span.line, d.hint) for d in result.diagnostics if d.is_error]
    assert ("E503", 4, "did you mean 'order'?") in hints
    assert ("E503", 6, "did you mean 'noisy'?") in hints
