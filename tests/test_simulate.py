"""Simulation: seeded results do not depend on the number of workers; reports and files are right."""

import json

from rulecraft.tools.cli.main import main
from rulecraft.tools.simulate.runs import simulate, wilson


def test_results_do_not_depend_on_workers():
    one = simulate("pig", 12, seed=5, workers=1)
    two = simulate("pig", 12, seed=5, workers=2)
    assert [r["winners"] for r in one.results] == [r["winners"] for r in two.results]
    assert [r["scores"] for r in one.results] == [r["scores"] for r in two.results]


def test_dml_sample_keeps_every_card_in_one_zone():
    """CI's sample of the long run (`rulecraft simulate dml --games 1000 --check`)."""
    s = simulate("dml", 8, seed=100, workers=1, check=True)
    assert not s.errors, s.errors
    assert all(r["decisions"] > 0 for r in s.results)


def test_wilson_interval():
    lo, hi = wilson(50, 100)
    assert 0.40 < lo < 0.41 and 0.59 < hi < 0.60
    assert wilson(0, 0) == (0.0, 1.0)


def test_cli_writes_json_and_coverage(tmp_path, capsys):
    j, c = tmp_path / "r.json", tmp_path / "c.json"
    assert main(["simulate", "pig", "--games", "6", "--workers", "1", "--json", str(j), "--coverage", str(c)]) == 0
    out = capsys.readouterr().out
    assert "win rate by seat" in out
    data = json.loads(j.read_text())
    assert data["games"] == 6 and len(data["results"]) == 6
    cov = json.loads(c.read_text())
    assert cov["counts"] and isinstance(cov["never_reached"], list)


def test_cli_reports_a_bad_ruleset(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("ruleset: x\n")
    assert main(["simulate", str(bad), "--games", "2"]) == 1
