"""The `first` agent takes a decision's default when it is legal; an optional `number` decision whose
default is the pass is passed, not bid at its minimum (docs/agents.md)."""

from __future__ import annotations

import pytest

from rulecraft.agents.base import FirstAgent
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game

RULESET = """\
ruleset: number-optional
title: Number with a pass
players: {{min: 2, max: 2, default: 2}}
variables:
  bid: 0
start: game
sequences:
  game:
    kind: game
    steps:
      - choose: {{player: "players[0]", kind: number, min: 1, max: 3, optional: true, prompt: Bid or pass,
                 as: b{default}}}
      - "set bid = b"
"""


@pytest.mark.parametrize("default, want", [(', default: "none"', None), ("", None), (', default: "2"', 2)])
def test_first_agent_on_an_optional_number(tmp_path, default, want):
    path = tmp_path / "r.yaml"
    path.write_text(RULESET.format(default=default), encoding="utf-8")
    loaded = load_ruleset(str(path))
    assert loaded.ok, loaded.diagnostics
    g = Game(loaded.ruleset, 2, 1)
    d = g.pending
    assert d.kind == "number" and d.optional
    assert FirstAgent(0).choose(d, g.view(0)) == want


def test_first_agent_bids_the_minimum_when_a_pass_is_not_allowed(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text(RULESET.format(default="").replace("optional: true, ", ""), encoding="utf-8")
    g = Game(load_ruleset(str(path)).ruleset, 2, 1)
    assert FirstAgent(0).choose(g.pending, g.view(0)) == 1
