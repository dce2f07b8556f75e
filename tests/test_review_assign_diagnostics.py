"""A mistake in the player of a player-variable assignment is reported once (the fast assignments of
statements.py compiled the object a second time, and its diagnostics came twice)."""

from __future__ import annotations

from rulecraft.loader import load_ruleset

RULESET = """\
ruleset: dup
title: Dup
version: "1"
start: game
players: {min: 2, max: 2, default: 2}
player_variables:
  score: 0
sequences:
  game:
    kind: stage
    steps:
      - "set qq.score = 1"
      - "qq.score += 1"
      - "end game"
"""


def test_a_bad_player_in_an_assignment_is_reported_once(tmp_path):
    path = tmp_path / "dup.yaml"
    path.write_text(RULESET, encoding="utf-8")
    found = [(d.code, d.span.line, d.span.col) for d in load_ruleset(str(path)).diagnostics]
    assert found == [("E301", 12, 14), ("E301", 13, 10)]
