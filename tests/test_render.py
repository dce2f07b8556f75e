"""Flowcharts: golden DOT for the examples, every DML chart laid out by Graphviz, the coverage overlay, the CLI.

Regenerate the golden files after an intended change with

    RULECRAFT_REGEN_GOLDEN=1 pytest tests/test_render.py

and read the diff before committing it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from rulecraft.loader import load_ruleset
from rulecraft.tools.cli.main import main
from rulecraft.tools.chart.coverage import Coverage
from rulecraft.tools.chart.dotlabels import wrap_code
from rulecraft.tools.chart.flowchart import ChartOptions, chart_dot
from rulecraft.tools.chart.legend import legend_dot
from rulecraft.tools.chart.render import chart_sources
from rulecraft.tools.chart.sheetplan import plan_sheets, step_numbers

GOLDEN = Path(__file__).parent / "golden"
REGEN = os.environ.get("RULECRAFT_REGEN_GOLDEN") == "1"
EXAMPLES = ["pig", "sealed-auction", "stack-duel", "reference"]
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")


def _loaded(name):
    loaded = load_ruleset(name)
    assert loaded.ok
    return loaded


@pytest.mark.parametrize("name", EXAMPLES)
def test_golden_dot(name):
    loaded = _loaded(name)
    plan = plan_sheets(loaded.ruleset, loaded.graph)
    sources = chart_sources(loaded.ruleset, loaded.graph, plan)
    expected = {p.name for p in GOLDEN.glob(f"{name}.*.dot")}
    for sid, src in sources.items():
        path = GOLDEN / f"{name}.{sid}.dot"
        if REGEN:
            path.write_text(src, encoding="utf-8")
            continue
        assert path.exists(), f"no golden file {path.name}: run with RULECRAFT_REGEN_GOLDEN=1"
        assert src == path.read_text(encoding="utf-8"), f"{path.name} differs: regenerate if intended"
    if not REGEN:
        assert expected == {f"{name}.{sid}.dot" for sid in sources}, "golden files for sequences that are gone"


@needs_dot
def test_every_dml_sequence_renders():
    loaded = _loaded("dml")
    plan = plan_sheets(loaded.ruleset, loaded.graph)
    sources = chart_sources(loaded.ruleset, loaded.graph, plan)
    assert set(sources) == set(loaded.ruleset.sequences)

    def dot(src):
        return subprocess.run(["dot", "-Tsvg"], input=src.encode(), capture_output=True, timeout=60)

    with ThreadPoolExecutor(4) as pool:
        for sid, done in zip(sources, pool.map(dot, sources.values())):
            assert done.returncode == 0, (sid, done.stderr.decode())
            assert b"<svg" in done.stdout, sid
            assert b"Warning" not in done.stderr and b"Error" not in done.stderr, (sid, done.stderr.decode())


def test_chart_shapes_and_labels():
    loaded = _loaded("pig")
    plan = plan_sheets(loaded.ruleset, loaded.graph)
    src = chart_dot(loaded.ruleset, loaded.graph, "turn", ChartOptions(sheet_of=plan.sheet_of))
    assert 'shape="diamond"' in src and 'shape="hexagon"' in src and 'shape="parallelogram"' in src
    assert "<B>yes</B>" in src and "<B>no</B>" in src
    assert "Roll or bank" in src  # the designers' own label
    assert "end game" in src and "end turn" in src  # terminals of their own
    assert 'tooltip="step 2.a of A turn' in src  # the citation rides along as the SVG tooltip
    game = chart_dot(loaded.ruleset, loaded.graph, "game", ChartOptions(sheet_of=plan.sheet_of))
    assert f"→ sheet {plan.sheet_of['turn']}" in game or "on this sheet" in game  # calls name their sheet


def test_triggers_are_dashed_and_numbers_match_the_book():
    loaded = _loaded("dml")
    rs, graph = loaded.ruleset, loaded.graph
    plan = plan_sheets(rs, graph)
    src = chart_dot(rs, graph, "foreign_merchant", ChartOptions(sheet_of=plan.sheet_of))
    assert 'style="dashed,rounded"' in src and "A Joker drawn from the Event" in src
    numbers = step_numbers(rs.sequences["market_phase"])
    assert numbers["market_phase/2.do.3"] == "2.c" and numbers["market_phase/3.then.2.then.1"] == "3.b.i"


def test_coverage_overlay_changes_styles():
    loaded = _loaded("pig")
    rs, graph = loaded.ruleset, loaded.graph
    plan = plan_sheets(rs, graph)
    steps = [n for n in graph.sequences["turn"] if graph.nodes[n].step is not None]
    counts = {n: 10 * (i + 1) for i, n in enumerate(steps[:-1])}  # the last step never ran
    cov = Coverage(counts, games=5, ruleset="pig", maximum=max(counts.values()))
    plain = chart_dot(rs, graph, "turn", ChartOptions(sheet_of=plan.sheet_of))
    shaded = chart_dot(rs, graph, "turn", ChartOptions(sheet_of=plan.sheet_of, coverage=cov))
    assert plain != shaded
    assert "NEVER REACHED" in shaded and "#b00000" in shaded and "#b00000" not in plain
    assert "a game)" in shaded  # counts per game
    assert cov.shade(steps[0], 10, 100) != cov.shade(steps[-2], 10, 100)


def test_wrapping_code_breaks_long_names():
    assert wrap_code("events[event_type].player_effect == 'discard_random'", 24) == [
        "events[event_type].", "  player_effect ==", "  'discard_random'"]
    assert wrap_code("x", 10) == ["x"]


def test_legend_has_every_shape():
    src = legend_dot(coverage=True)
    for shape in ("diamond", "hexagon", "parallelogram", "box3d"):
        assert f'shape="{shape}"' in src
    assert "never reached" in src


# ----------------------------------------------------------------------------- the command


def test_render_dot_files_for_every_sequence(tmp_path, capsys):
    out = tmp_path / "pig.dot"
    assert main(["render", "pig", "--format", "dot", "--detail", "full", "-o", str(out)]) == 0  # as the golden files
    assert out.read_text() == (GOLDEN / "pig.game.dot").read_text()
    assert (tmp_path / "pig-turn.dot").read_text() == (GOLDEN / "pig.turn.dot").read_text()
    plain = tmp_path / "players.dot"  # by default: the sheets' boxes and numbers, without the engine's bookkeeping
    assert main(["render", "pig", "--sequence", "turn", "--format", "dot", "-o", str(plain)]) == 0
    assert "<B>1.a</B>" in plain.read_text() and "<B>2.a</B>" not in plain.read_text()


@needs_dot
def test_render_svg_one_sequence_with_coverage(tmp_path, capsys):
    cov = tmp_path / "cov.json"
    cov.write_text(json.dumps({"ruleset": "pig", "games": 3, "counts": {"turn/1": 5, "turn/2": 40}}))
    out = tmp_path / "turn.svg"
    assert main(["render", "pig", "--sequence", "turn", "--format", "svg", "-o", str(out), "--coverage", str(cov)]) == 0
    svg = out.read_text()
    assert "<svg" in svg and "NEVER REACHED" in svg
    assert "xlink:title=\"step 1 of A turn" in svg  # tooltips carry the citation


def test_render_usage_errors(tmp_path, capsys):
    assert main(["render", "pig", "--sequence", "trun", "--format", "dot", "-o", str(tmp_path / "x.dot")]) == 2
    assert "did you mean 'turn'?" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["render", "pig", "--format", "dot", "-o", str(tmp_path / "x.dot"), "--coverage", str(bad)]) == 2
    assert "is not JSON" in capsys.readouterr().err
    assert main(["render", "pig", "--format", "dot", "-o", str(tmp_path / "x.dot"),
                 "--coverage", str(tmp_path / "missing.json")]) == 2
    assert main(["render", "pig", "--format", "dot", "-o", str(tmp_path / "no" / "dir" / "x.dot")]) == 1
    assert "cannot write" in capsys.readouterr().err


def test_render_a_broken_ruleset_prints_diagnostics(tmp_path, capsys):
    broken = tmp_path / "broken.yaml"
    broken.write_text("ruleset: broken\ntitle: Broken\nsequences: {}\nstart: nowhere\n")
    assert main(["render", str(broken), "--format", "dot", "-o", str(tmp_path / "x.dot")]) == 1
    assert "error[" in capsys.readouterr().out


def test_missing_graphviz_is_reported_not_raised(tmp_path, capsys, monkeypatch):
    import rulecraft.tools.chart.dotrun as dotrun

    monkeypatch.setattr(dotrun.shutil, "which", lambda name: None)
    assert main(["render", "pig", "--sequence", "turn", "--format", "svg", "-o", str(tmp_path / "x.svg")]) == 1
    assert "is not installed" in capsys.readouterr().err


@pytest.mark.parametrize("name, sid", [("dml", "power_thief"), ("dml", "declaration"), ("pig", "turn")])
def test_a_folded_block_is_one_box_and_its_own_chart_draws_it(name, sid):
    """A drill-down: with a block folded (folds.choose_folds picks it), the sequence's chart draws the block as
    one box pointing to its sheet, and the block's chart draws every step of it, entered from and left back to
    the sequence's sheet; together they draw every step of the whole chart, each once (its box aside)."""
    import re

    from rulecraft.tools.chart.dotlabels import safe_id
    from rulecraft.tools.chart.folds import Fold, choose_folds

    loaded = load_ruleset(name)
    rs, g = loaded.ruleset, loaded.graph
    steps = {safe_id(nid): nid for nid in g.sequences[sid]}
    drawn = lambda src: {steps[m] for m in re.findall(r'\b(?:id|ID)="([^"]+)"', src) if m in steps}  # noqa: E731
    whole = drawn(chart_dot(rs, g, sid))
    picks = choose_folds(rs, g, sid, None, (), 0.5)
    assert picks
    members = picks[0]
    fold = Fold(members[0], "sheet 9a", members if len(members) > 1 else ())
    outer = chart_dot(rs, g, sid, ChartOptions(sheet_of={sid: 9}, folds=(fold,)))
    inner = chart_dot(rs, g, sid, ChartOptions(sheet_of={sid: 9}, only=Fold(members[0], "sheet 9", fold.members)))
    a, b = drawn(outer), drawn(inner)
    assert a | b == whole and a & b == {members[0]}  # the folded step: a box here, the top of its own chart
    assert "sheet 9a" in outer and "folder" in outer
    assert "from sheet 9" in inner and "back to sheet 9" in inner and f"{sid}/start" not in b
    for src in (outer, inner):  # each is a chart Graphviz draws
        subprocess.run(["dot", "-Tsvg"], input=src.encode(), check=True, capture_output=True)


@needs_dot
def test_the_format_is_taken_from_the_output_suffix(tmp_path, capsys):
    # 'render pig -o turn.svg' was a usage error (--format required); the suffix says the format
    assert main(["render", "pig", "--sequence", "turn", "-o", str(tmp_path / "turn.svg")]) == 0
    assert (tmp_path / "turn.svg").read_text().lstrip().startswith(("<?xml", "<svg"))
    assert main(["render", "pig", "--sequence", "turn", "-o", str(tmp_path / "turn.gv")]) == 0
    assert (tmp_path / "turn.gv").read_text().startswith("digraph")
    capsys.readouterr()
    assert main(["render", "pig", "--sequence", "turn", "-o", str(tmp_path / "turn.txt")]) == 2
    assert "give --format" in capsys.readouterr().err and not (tmp_path / "turn.txt").exists()
