"""`rulecraft compare`: seed-matched runs, differences with 95% intervals, and the statistics behind them."""

from __future__ import annotations

import json
import math

import pytest

from rulecraft.tools.cli.main import main
from rulecraft.tools.simulate.compare import compare
from rulecraft.tools.simulate.runs import simulate
from rulecraft.tools.simulate.stats import mean_interval, newcombe, t_quantile, welch, wilson


def test_t_quantile_is_close_to_the_table():
    for df, exact in ((3, 3.182), (5, 2.571), (10, 2.228), (30, 2.042), (1000, 1.962)):
        assert abs(t_quantile(df) - exact) < 0.01, df


def test_newcombe_and_welch():
    d, lo, hi = newcombe(56, 70, 48, 80)  # Newcombe (1998), example (a): 0.1813 .. 0.3210 for p1 - p2
    assert math.isclose(-d, 0.2, abs_tol=1e-9)
    assert math.isclose(-hi, 0.0524, abs_tol=0.001) and math.isclose(-lo, 0.3339, abs_tol=0.001)
    same = welch(10, 50, 270, 10, 50, 270)
    assert same[0] == 0 and same[1] < 0 < same[2]
    m, lo, hi = mean_interval(4, 10, 30)  # values 1..4: mean 2.5, sd 1.29
    assert m == 2.5 and math.isclose(hi - m, 3.182 * 1.291 / 2, rel_tol=0.01)
    assert wilson(0, 10)[0] == 0.0


def test_seed_matched_runs_of_the_same_ruleset_do_not_differ():
    a = simulate("pig", 20, seed=7, workers=1)
    b = simulate("pig", 20, seed=7, workers=1)
    rows = compare(a, b)
    assert rows and all(r["diff"] in (0, None) for r in rows) and not any(r["significant"] for r in rows)


def test_cli_compare_a_variant(tmp_path, capsys):
    variant = tmp_path / "pig-fast.yaml"
    variant.write_text("ruleset: pig-fast\nextends: pig\ntitle: Pig to 30\nparameters:\n  target_score: {default: 30}\n")
    out = tmp_path / "cmp.json"
    assert main(["compare", "pig", str(variant), "--games", "40", "--workers", "1", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "40 seed-matched games each" in text and "decisions per game" in text
    data = json.loads(out.read_text())
    length = next(r for r in data["rows"] if r["label"] == "decisions per game")
    assert length["significant"] and length["diff"] < 0 and length["high"] < 0
    turns = next(r for r in data["rows"] if r["metric"] == "turns")
    assert turns["significant"] and turns["b"] < turns["a"]


@pytest.mark.parametrize("argv,code", [
    (["compare", "pig", "pig", "--games", "2", "--players", "9"], 2),
    (["compare", "pig", "pig", "--games", "2", "--agent-b", "nobody"], 2),
])
def test_cli_compare_usage_errors(argv, code, capsys):
    assert main(argv) == code
    assert "rulecraft compare:" in capsys.readouterr().err
