"""Every scenario under tests/scenarios/ runs and meets its expectations (see runtime/scenario.py).

A scenario file with a top-level `xfail: "reason"` records a known problem of the engine
(not of the ruleset): it is still run, reported as an expected failure while it fails, and
as a test failure once it passes (then remove its `xfail` key).

The 131 scenarios name 8 rulesets: each ruleset (with a scenario's `set:` overrides) is loaded once for the
module and every scenario plays its own game on it, as `rulecraft simulate` plays many games on one load (loading
DML is about 0.2 s of CPU; loaded per scenario it was most of this file's time). Loading a scenario file as
`rulecraft test` does (`run_scenario_file`) is tested by tests/test_scenario_command.py.
"""

import json
from pathlib import Path

import pytest
import yaml

from rulecraft.diagnostics import render_text
from rulecraft.loader import load_ruleset
from rulecraft.runtime.scenario import run_scenario

ROOT = Path(__file__).parent / "scenarios"
FILES = sorted(ROOT.rglob("*.yaml"))
_LOADED: dict = {}


def _ruleset(spec: dict):
    """The scenario's ruleset with its `set:` overrides, as run_scenario_file loads it; loaded once per module."""
    overrides = {k: v for k, v in (spec.get("set") or {}).items()}
    key = (str(spec["ruleset"]), json.dumps(overrides, sort_keys=True, default=repr))
    if key not in _LOADED:
        loaded = load_ruleset(str(spec["ruleset"]), overrides=overrides)
        assert loaded.ok, render_text(loaded.diagnostics, loaded.sources)
        _LOADED[key] = loaded.ruleset
    return _LOADED[key]


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_scenario(path):
    with open(path, encoding="utf-8") as fh:
        spec = yaml.safe_load(fh) or {}
    reason = spec.get("xfail")
    outcome = run_scenario(_ruleset(spec), spec)
    report = "\n".join(outcome.problems + ["--- narrative:"] + outcome.game.narrative)
    if reason:
        assert not outcome.ok, f"marked xfail ({reason}) but it passes now: remove its 'xfail' key"
        pytest.xfail(f"{reason}\n{report}")
    assert outcome.ok, report
