"""The bundled DML variants: they load, play, differ from dml where their rules say, and only there.

For each of dml-classic, dml-2016, dml-mayhem and dml-smackdown (rulesets/dml/):

- it is bundled, extends its parent, and validates with no error (`rulecraft validate`);
- 10 seeded games between random bots play to the end, with card conservation checked after
  every step (a game is 2,500-5,300 steps, so 30,000-45,000 checked steps a variant; 30 games
  were most of the file's time, and a variant's games are also played traced up to 100 times
  in test_chart_truth.py, on both engines in test_engines.py and before the referee of
  test_secrecy_games.py);
- `rulecraft diff dml VARIANT` names exactly the sequences the variant is meant to change
  (and `rulecraft diff dml-2016 dml-smackdown` only the Setup);
- every scenario under tests/scenarios/VARIANT/ carries a `baseline:` block: the same start
  (players, seed, zones, variables, sequence run) under `dml`, with its own `choices:` and
  `expect:` (any other key it gives replaces the scenario's). The baseline must meet its own
  expectations, and the variant's expectations must fail on the baseline's game: same start,
  different outcome. tests/test_scenarios.py runs the variant side as for every scenario.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from conftest import play_seeded

from rulecraft.bundled import bundled_rulesets
from rulecraft.diagnostics import render_text
from rulecraft.loader import load_ruleset
from rulecraft.runtime.scenario import check, run_scenario
from rulecraft.tools.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "tests" / "scenarios"
VARIANTS = ["dml-classic", "dml-2016", "dml-mayhem", "dml-smackdown"]
PARENTS = {"dml-classic": "dml", "dml-2016": "dml", "dml-mayhem": "dml", "dml-smackdown": "dml-2016"}
SEEDS = range(1, 11)
MAX_STEPS = 2_000_000

# The sequences `rulecraft diff dml VARIANT` must name (added, removed or changed), and no others.
_2016 = {
    "setup", "round", "event_phase", "resolve_event", "action_phase", "end_phase", "turn", "market_phase",
    "seize_attempt", "bidding", "dragon_siege", "power_phase", "resolve_stack_card",
    "callback", "power_reclamation", "power_exile_one", "stray_egg", "discarded_thief",
    "power_jester", "power_harlot",
}
EXPECTED_SEQUENCES = {
    "dml-classic": {"action_phase", "turn", "power_phase", "market_phase", "black_market_action", "seize_attempt",
                    "face_to_face_card_off"},
    "dml-2016": _2016,
    "dml-smackdown": _2016,
    "dml-mayhem": {"setup", "action_phase", "event_phase", "end_phase", "supply", "market_phase",
                   "power_phase", "resolve_stack_card", "power_confisfactor", "power_embezzeler",
                   "power_inquisitor", "power_jester", "power_heiress", "power_archduchess", "power_harlot",
                   "power_thief"},
}

_LOADED: dict = {}


def _load(name: str):
    if name not in _LOADED:
        loaded = load_ruleset(name)
        assert loaded.ok, render_text(loaded.diagnostics, loaded.sources)
        _LOADED[name] = loaded
    return _LOADED[name]


def _diff_sequences(capsys, a: str, b: str) -> set[str]:
    assert main(["diff", a, b]) == 1  # they differ (diff's exit codes are diff(1)'s)
    out = capsys.readouterr().out
    pat = re.compile(r"^  (?:in (?:.* \()?|added |removed |changed )sequence (\w+)")
    return {m.group(1) for line in out.splitlines() if (m := pat.match(line))}


@pytest.mark.parametrize("name", VARIANTS)
def test_bundled_and_validates(name, capsys):
    assert name in {b.name for b in bundled_rulesets()}
    loaded = _load(name)
    errors = [d for d in loaded.diagnostics if d.is_error]
    assert not errors, render_text(errors, loaded.sources)
    assert main(["validate", name]) == 0
    out = capsys.readouterr().out
    assert "0 with errors" in out
    text = Path(next(b.path for b in bundled_rulesets() if b.name == name)).read_text(encoding="utf-8")
    assert re.search(rf"^extends: {re.escape(PARENTS[name])}$", text, re.M)


@pytest.mark.parametrize("name", VARIANTS)
def test_ten_random_games_play_to_the_end(name):
    rs = _load(name).ruleset
    for seed in SEEDS:
        g = play_seeded(rs, seed, rs.players.default, views=True, check_conservation=True, max_steps=MAX_STEPS)
        assert g.over and g.pending is None, (name, seed)
        assert isinstance(g.winners, list), (name, seed)
        assert g.narrative and g.narrative[-1].startswith("Winner: "), (name, seed)


@pytest.mark.parametrize("name", VARIANTS)
def test_diff_names_the_expected_sequences(name, capsys):
    assert _diff_sequences(capsys, "dml", name) == EXPECTED_SEQUENCES[name]


def test_smackdown_changes_only_the_setup(capsys):
    assert _diff_sequences(capsys, "dml-2016", "dml-smackdown") == {"setup"}
    assert main(["diff", "dml-2016", "dml-smackdown"]) == 1
    out = capsys.readouterr().out
    assert re.search(r"added step [\w.]+ \(undealt_king\)", out) and re.search(r"added step [\w.]+ \(undealt_commodities\)", out)


def test_player_counts():
    assert (_load("dml-2016").ruleset.players.min, _load("dml-2016").ruleset.players.max) == (4, 4)
    assert (_load("dml-smackdown").ruleset.players.min, _load("dml-smackdown").ruleset.players.max) == (3, 3)


# ------------------------------------------------------------------ same start, different outcome

FILES = sorted(p for v in VARIANTS for p in (SCENARIOS / v).glob("*.yaml"))


def test_every_variant_has_scenarios():
    for v in VARIANTS:
        assert list((SCENARIOS / v).glob("*.yaml")), v


_WITH_OVERRIDES: dict = {}


def _run(spec: dict):
    """The scenario's game on its ruleset (with its `set:` overrides), loaded once for every scenario that names the
    same: each baseline is a game of dml (about 0.2 s of CPU to load; 36 scenarios)."""
    overrides = dict(spec.get("set") or {})
    key = (str(spec["ruleset"]), json.dumps(overrides, sort_keys=True, default=repr))
    if key not in _WITH_OVERRIDES:
        loaded = load_ruleset(str(spec["ruleset"]), overrides=overrides)
        assert loaded.ok, [d.message for d in loaded.diagnostics]
        _WITH_OVERRIDES[key] = loaded.ruleset
    return run_scenario(_WITH_OVERRIDES[key], spec)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(SCENARIOS)) for p in FILES])
def test_scenario_differs_from_dml(path):
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert spec["ruleset"] == path.parent.name
    assert "baseline" in spec, "a variant scenario needs a 'baseline:' block (the same start under dml)"
    base = {k: v for k, v in spec.items() if k != "baseline"}
    base.update(spec["baseline"])
    assert base["ruleset"] == "dml"
    assert base.get("expect"), "the baseline needs its own expectations"
    outcome = _run(base)
    report = "\n".join(outcome.problems + ["--- narrative:"] + outcome.game.narrative)
    assert outcome.ok, report
    assert check(outcome.game, spec.get("expect") or {}), (
        "the variant's expectations also hold under dml: the scenario shows no difference\n" + report)
