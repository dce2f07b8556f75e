"""`rulecraft simulate` reports the ruleset's metrics, writes CSV and an HTML report with plots, on any executor."""

from __future__ import annotations

import csv
import json
from concurrent.futures import ThreadPoolExecutor

from rulecraft.tools.cli.main import main
from rulecraft.tools.simulate.runs import report, simulate


def test_metrics_do_not_depend_on_workers_or_executor():
    one = simulate("pig", 10, seed=3, workers=1)
    two = simulate("pig", 10, seed=3, workers=2)
    with ThreadPoolExecutor(max_workers=2) as ex:
        threads = simulate("pig", 10, seed=3, executor=ex)
    for other in (two, threads):
        assert [r["metrics"] for r in one.results] == [r["metrics"] for r in other.results]
        assert [r["winners"] for r in one.results] == [r["winners"] for r in other.results]


def test_report_shows_length_metrics_and_rows():
    s = simulate("pig", 30, seed=1, workers=1)
    text = report(s)
    assert "turns per game: median" in text
    assert "busts (tally)" in text and "winner_lead (per_game)" in text
    data = s.to_json()
    turns = next(m for m in data["metrics"] if m["name"] == "turns")
    assert turns["role"] == "length" and turns["rows"][0]["label"] == "per game"
    assert turns["rows"][0]["n"] == 30 and turns["rows"][0]["low"] <= turns["rows"][0]["estimate"]


def test_rates_of_a_binary_tally_and_victory_types():
    s = simulate("dml", 4, seed=11, workers=1)
    groups = {d["name"]: rows for d, rows in s.rows()}
    acq = groups["acquisitions"]
    assert [r.label for r in acq[:2]] == ["per game", "rate"] and acq[1].stat == "rate"
    assert all(r.stat == "rate" for r in acq[2:]) and [r.key for r in acq[2:]] == sorted(r.key for r in acq[2:])
    kings = groups["king_wins"]
    assert all(r.stat == "rate" for r in kings) and sum(r.n for r in kings) == 16  # 4 games x 4 players
    assert "victory types (victory): " in report(s)


def test_cli_csv_report_and_never_reached(tmp_path, capsys):
    out_csv, folder = tmp_path / "games.csv", tmp_path / "rep"
    assert main(["simulate", "pig", "--games", "12", "--workers", "1", "--csv", str(out_csv),
                 "--report", str(folder)]) == 0
    text = capsys.readouterr().out
    assert "never reached:" in text and "report:" in text
    rows = list(csv.DictReader(out_csv.open()))
    assert len(rows) == 12 and rows[0]["seed"] == "1"
    assert {"turns.count", "busts.count", "winner_lead.sum", "score_1", "score_2"} <= set(rows[0])
    assert all(int(r["turns.count"]) > 0 for r in rows)
    page = (folder / "index.html").read_text()
    pngs = sorted(p.name for p in folder.glob("*.png"))
    assert {"win_rate.png", "length_decisions.png", "length_turns.png"} <= set(pngs)
    assert all((folder / p).stat().st_size > 5000 and (folder / p).read_bytes()[:4] == b"\x89PNG" for p in pngs)
    assert all(p in page for p in pngs) and "Every row" in page


def test_cli_refuses_an_unknown_agent(capsys):
    assert main(["simulate", "pig", "--games", "2", "--agent", "clever"]) == 2
    assert "unknown agent kind 'clever'" in capsys.readouterr().err


def test_json_has_metric_rows(tmp_path):
    j = tmp_path / "r.json"
    assert main(["simulate", "pig", "--games", "5", "--workers", "1", "--json", str(j)]) == 0
    data = json.loads(j.read_text())
    assert {m["name"] for m in data["metrics"]} == {"turns", "busts", "winner_lead"}
    assert isinstance(data["never_reached"], list)
    assert all("metrics" in r for r in data["results"])


def test_a_count_is_never_below_zero_and_a_label_is_cut_at_a_word():
    from rulecraft.tools.simulate.metrics import Row, row_text

    rare = Row("m", None, "blights gained by the player who went last", "mean", 40, 2, 2, [0] * 38 + [1, 1])
    est, lo, hi = rare.interval()  # every game counted 0 or 1: the Wilson interval of 2 in 40
    assert est == 0.05 and 0 < lo < 0.05 < hi < 0.2
    few = Row("m", None, "cards", "mean", 40, 3, 5, [0] * 38 + [1, 2])
    assert few.interval()[1] == 0.0  # a count's Student-t interval would go below 0: it stops at 0
    signed = Row("m", None, "gain", "mean", 3, 0, 2, [-1, 0, 1])
    assert signed.interval()[1] < 0  # a value that may be negative keeps its interval
    text = row_text(rare)
    assert text.startswith("blights gained by the… ") and "-" not in text.split("[")[1]


def test_no_legend_covers_what_a_plot_draws():
    """Session 20: the comparison's legend stood at the upper right over the orange box of seat 2's final scores (and
    over a histogram's tallest bars, a win rate near 100%). Every legend of every figure is drawn beside the axes,
    never inside them: checked on the figures as laid out for saving (geometry only, no font of the system's)."""
    from rulecraft.tools.simulate.report import compare_figures, figures

    a = simulate("pig", 20, seed=1, workers=1)
    b = simulate("pig", 20, seed=1, workers=1, overrides={"target_score": 30})
    drawn = [*figures(a), *compare_figures(a, b)]
    legends = 0
    for name, _, fig in drawn:
        fig.tight_layout()
        fig.canvas.draw()
        for ax in fig.axes:
            legend = ax.get_legend()
            if legend is None:
                continue
            legends += 1
            box, inside = legend.get_window_extent(), ax.get_window_extent()
            assert not box.overlaps(inside), (name, box, inside)
            assert fig.bbox.contains(box.x1 - 1, box.y1 - 1), (name, "legend cut off at the figure's edge")
    assert legends >= 4
