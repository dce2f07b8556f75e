"""Auctions and response windows (issue 15): the same games in every execution path, one box per mechanic.

The construct cases under tests/cases/constructs/ (auction_*, respond_*) check each form's narrative,
saves and clones (tests/test_constructs.py). Here they are played again with random agents, once with
closures only and once with generated code (codegen at the first call, strict) and generated stretches
(blocks at the first visit): winners, scores, steps, decisions and narrative must be the same.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import play_seeded

from rulecraft.dsl.codegen import generator as codegen
from rulecraft.dsl.codegen import hotcode as H
from rulecraft.loader import load_ruleset
from rulecraft.runtime.machine import blocks

CASES = Path(__file__).resolve().parent / "cases" / "constructs"
MECHANICS = sorted(p.name for p in CASES.iterdir() if p.name.startswith(("auction_", "respond_", "stack_values")))


def _play(path: str, seed: int, fast: bool, monkeypatch) -> tuple:
    monkeypatch.setattr(H, "CODEGEN", fast)
    monkeypatch.setattr(H, "HOT", 1)
    monkeypatch.setattr(codegen, "STRICT", True)
    monkeypatch.setattr(blocks, "ENABLED", fast)
    monkeypatch.setattr(blocks, "HOT", 0)
    monkeypatch.setattr(blocks, "STRAIGHT_VISITS", 0)
    loaded = load_ruleset(path)
    assert loaded.ok and not loaded.diagnostics, path
    g = play_seeded(loaded.ruleset, seed)
    return g.winners, g.scores, g.steps, g.decisions, g.narrative


@pytest.mark.parametrize("case", MECHANICS)
def test_both_execution_paths_play_the_same(case, monkeypatch):
    path = str(CASES / case / "ruleset.yaml")
    for seed in range(8):
        assert _play(path, seed, True, monkeypatch) == _play(path, seed, False, monkeypatch), (case, seed)
