"""dml-2016's option committed_market_effect, both settings on one start (issue 14, item 20).

The scenario tests/scenarios/dml-2016/hated-people-changes-committed-commodities.yaml shows
the default (the 2016 reading: a committed Commodity enters the Marketplace, so the Market
Effect changes it); here the same start is also run with 'printed' (the 2015 reading)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rulecraft.loader import load_ruleset
from rulecraft.runtime.scenario import run_scenario

SCENARIO = Path(__file__).parent / "scenarios" / "dml-2016" / "hated-people-changes-committed-commodities.yaml"


@pytest.mark.parametrize("setting, target, two_of_iron", [(None, 3, 4), ("marketplace", 3, 4), ("printed", 5, 2)])
def test_both_settings(setting, target, two_of_iron):
    spec = {k: v for k, v in yaml.safe_load(SCENARIO.read_text(encoding="utf-8")).items() if k != "baseline"}
    overrides = {"committed_market_effect": setting} if setting else {}
    spec["expect"] = {"values": {"target()": target,
                                 "bid_value(first([c for c in cards if c.id == '2spades']))": two_of_iron},
                      "narrative_contains": [f"P1 rolls pair: 4+2=6 against {target}: success"]}
    outcome = run_scenario(load_ruleset("dml-2016", overrides=overrides).ruleset, spec)
    assert outcome.ok, "\n".join(outcome.problems + outcome.game.narrative)


def test_the_option_is_documented_with_its_reason():
    rs = load_ruleset("dml-2016").ruleset
    opt = rs.options["committed_market_effect"]
    assert opt.default == "marketplace" and "r2016-wiki" in (opt.source or "")
    gaps = (Path(__file__).resolve().parents[1] / "docs" / "rules-gaps.md").read_text(encoding="utf-8")
    assert "### `committed_market_effect` (default `marketplace`)" in gaps
