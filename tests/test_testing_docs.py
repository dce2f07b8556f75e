"""Every scenario example in docs/testing.md runs and passes, as written there; and the scenario
features it describes (fixed dice, refused answers, order) fail when they should."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from rulecraft.loader import load_ruleset
from rulecraft.runtime.scenario import run_scenario

DOC = Path(__file__).resolve().parents[1] / "docs" / "testing.md"
EXAMPLES = [b for b in re.findall(r"```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S) if "\nruleset:" in b]


def _run(spec: dict):
    return run_scenario(load_ruleset(spec["ruleset"], overrides=spec.get("set") or {}).ruleset, spec)


def test_the_page_has_its_examples():
    assert len(EXAMPLES) >= 4


@pytest.mark.parametrize("text", EXAMPLES, ids=[b.splitlines()[0] for b in EXAMPLES])
def test_each_example_passes(text):
    outcome = _run(yaml.safe_load(text))
    assert outcome.ok, "\n".join(outcome.problems + outcome.game.narrative)


def _pig(**changes) -> dict:
    spec = {"ruleset": "pig", "run": "turn", "with": {"player": "players[0]"}, "dice": [6, 5],
            "choices": [True, False], "expect": {"values": {"players[0].score": 11}}}
    spec.update(changes)
    return spec


def test_fixed_dice_decide_the_outcome():
    assert _run(_pig()).ok
    assert not _run(_pig(dice=[6, 4])).ok  # 10, not 11


def test_fixed_dice_that_do_not_fit_the_roll_are_said():
    for dice, why in (([[6, 6], 5], "give 1 face from 1 to 6"), ([7, 5], "give 1 face"),
                      ([{"dice": "2d6", "faces": [6]}, 5], "fixes a roll of '2d6'")):
        outcome = _run(_pig(dice=dice))
        assert not outcome.ok and why in " ".join(outcome.problems), outcome.problems


def test_unused_fixed_dice_are_a_problem():
    outcome = _run(_pig(dice=[6, 5, 3]))
    assert "1 fixed dice results were not used" in outcome.problems


def test_a_refused_answer_that_is_taken_fails():
    outcome = _run(_pig(choices=[{"refused": True}, False]))
    assert not outcome.ok and "should be refused" in outcome.problems[0]


def test_the_wrong_player_or_prompt_fails():
    assert "expected players[1] to be asked" in _run(_pig(choices=[{"choice": True, "player": 1}, False])).problems[0]
    assert "expected a prompt" in _run(_pig(choices=[{"choice": True, "prompt": "bid"}, False])).problems[0]


def test_narrative_in_order_is_checked():
    spec = _pig(expect={"narrative_in_order": ["P1 rolls 1d6: 5", "P1 rolls 1d6: 6"]})
    assert "narrative_in_order" in _run(spec).problems[0]
