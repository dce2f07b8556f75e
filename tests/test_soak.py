"""A sample of the soak (benchmarks/soak.py): about 50 seeded games over every bundled ruleset, every check on.

The full soak (10,000 games, several minutes) is an explicit command, not part of the test
run: `python benchmarks/soak.py`; its figures are in docs/reliability.md.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from rulecraft.bundled import bundled_rulesets

SOAK = Path(__file__).resolve().parents[1] / "benchmarks" / "soak.py"


def _soak_module():
    spec = importlib.util.spec_from_file_location("soak", SOAK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_games_are_spread_by_weight_over_every_ruleset():
    soak = _soak_module()
    names = ["dml", "pig", "dune-bidding", "unlisted"]
    games = soak.plan(1000, names, 1)
    counts = {n: sum(1 for g, _ in games if g == n) for n in names}
    assert len(games) == 1000 and counts["dml"] > counts["dune-bidding"] > counts["pig"] == counts["unlisted"] > 0
    assert len({(g, s) for g, s in games}) == 1000  # no game twice


def test_a_sample_of_the_soak_has_no_errors():
    """25 checked games spread by weight, as the soak spreads its thousands: every ruleset plays at least one (dml 6,
    dune-bidding 5, each DML variant 2). 50 played each about twice as often for twice the CPU; the rest of the suite
    plays every ruleset's games besides."""
    soak = _soak_module()
    names = [b.name for b in bundled_rulesets(include_examples=True)]
    results, _ = soak.soak(25, names, seed=1000, workers=1)
    assert {r["ruleset"] for r in results} == set(names)
    errors = [f"{r['ruleset']} seed {r['seed']} players {r['players']}: {r['error']}" for r in results if r["error"]]
    assert not errors, "\n".join(errors)
    assert "all" in soak.table(results)
