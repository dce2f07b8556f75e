"""Frames: calls and returns, and what lapses with a frame (modifiers 'until end of KIND'), stay exact through copies,
saves and loads, with and without the generated functions that run through calls and returns (runtime/machine/blocks.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rulecraft.agents.base import RandomAgent
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.runtime.machine import blocks
from rulecraft.runtime.state_io import from_json, to_json

CASE = Path(__file__).resolve().parent / "cases" / "constructs" / "modifiers"


def _answers():
    return json.loads((CASE / "script.json").read_text())


@pytest.mark.parametrize("way", ["straight", "copy", "save"])
@pytest.mark.parametrize("hot", [True, False])
def test_modifiers_lapse_with_their_frame_through_copies_and_saves(way, hot, monkeypatch):
    """'until end of turn' / 'of round' lapse when that frame ends: also in a copy, and in a game loaded from a save
    made while the frame that owns them runs (the frame knows it owns modifiers: handlers.pop_frame)."""
    monkeypatch.setattr(blocks, "ENABLED", hot)
    monkeypatch.setattr(blocks, "HOT", 0)
    monkeypatch.setattr(blocks, "STRAIGHT_VISITS", 0)
    rs = load_ruleset(str(CASE / "ruleset.yaml")).ruleset
    g = Game(rs, 2, 1)
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
