"""Assertions a designer states: 'assert' statements and the ruleset's invariants, checked by games that check
themselves (--check, scenarios), free and silent in the others; a failure names the step."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulecraft.diagnostics import RuleError
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.tools.cli.main import main

CASE = Path(__file__).parent / "cases" / "assertions" / "ruleset.yaml"


def _load(bonus: int):
    result = load_ruleset(str(CASE), overrides={"bonus": bonus})
    assert result.ok and not result.diagnostics, result.diagnostics
    return result.ruleset


def _play(rs, check: bool) -> Game:
    g = Game(rs, 2, 1, check_conservation=check)
    assert g.over
    return g


def test_assertions_that_hold_change_nothing():
    rs = _load(1)
    assert _play(rs, True).scores == _play(rs, False).scores == [3, 3]


def test_an_invariant_that_fails_names_the_step_after_which_it_failed():
    rs = _load(2)  # four rounds: the invariant says three at most
    with pytest.raises(RuleError) as exc:
        _play(rs, True)
    err = exc.value
    assert err.code == "R010"
    assert "after the step 'Everyone scores the bonus' in 'game'" in str(err)
    assert "At most three rounds are played" in str(err)
    assert err.span.line == 19  # the step that ran last


def test_an_unchecked_game_runs_no_assertion():
    assert _play(_load(2), False).over  # four rounds, no check: the invariant is not looked at


def test_an_assert_statement_that_fails_reports_its_message_and_line(tmp_path):
    text = CASE.read_text(encoding="utf-8").replace("players[1].score += bonus", "players[1].score += 0")
    path = tmp_path / "r.yaml"
    path.write_text(text, encoding="utf-8")
    rs = load_ruleset(str(path)).ruleset
    with pytest.raises(RuleError) as exc:
        _play(rs, True)
    assert exc.value.code == "R011"
    assert "both score alike (round 1)" in str(exc.value)
    assert exc.value.span.line == 22
    _play(rs, False)  # not checked: plays to the end


def test_simulate_with_check_reports_a_failed_invariant(capsys):
    code = main(["simulate", str(CASE), "--games", "2", "--check", "--set", "bonus=2", "--workers", "1"])
    out = capsys.readouterr()
    assert code == 1
    assert "R010" in out.out + out.err
    assert main(["simulate", str(CASE), "--games", "2", "--set", "bonus=2", "--workers", "1"]) == 0
