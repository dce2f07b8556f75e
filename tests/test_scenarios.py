"""Every scenario under tests/scenarios/ runs and meets its expectations (see runtime/scenario.py)."""

from pathlib import Path

import pytest

from rulecraft.runtime.scenario import run_scenario_file

ROOT = Path(__file__).parent / "scenarios"
FILES = sorted(ROOT.rglob("*.yaml"))


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_scenario(path):
    outcome = run_scenario_file(str(path))
    assert outcome.ok, "\n".join(outcome.problems + ["--- narrative:"] + outcome.game.narrative)
