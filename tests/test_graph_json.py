"""`render --format json` (the graph as data), `render --overview`, and standalone charts without sheet wording."""

from __future__ import annotations

import json
import re

import pytest

from cli_fork import run_cli

from rulecraft.bundled import bundled_rulesets
from rulecraft.loader import load_ruleset
from rulecraft.tools.chart.dotlabels import esc
from rulecraft.tools.chart.graphjson import graph_data
from rulecraft.tools.chart.overview import overview_dot, skeleton
from rulecraft.tools.chart.render import chart_sources
from rulecraft.tools.chart.sheetplan import plan_sheets
from rulecraft.tools.simulate.runs import simulate, write_coverage

NAMES = [b.name for b in bundled_rulesets()]


def _cli(*args):
    """`rulecraft ARGS` in a child process forked from one with the command line imported (tests/cli_fork.py)."""
    return run_cli(list(args), timeout=120)


@pytest.mark.parametrize("name", NAMES)
def test_every_node_and_edge_is_there_with_its_text_and_line(name):
    loaded = load_ruleset(name)
    data = graph_data(loaded.ruleset, loaded.graph)
    assert data["format"] == "rulecraft-graph" and data["version"] == 1 and data["ruleset"] == loaded.ruleset.name
    ids = [n["id"] for n in data["nodes"]]
    assert sorted(ids) == sorted(loaded.graph.nodes) and len(set(ids)) == len(ids)
    assert len(data["edges"]) == len(loaded.graph.edges)
    for e in data["edges"]:
        assert set(e) == {"from", "to", "kind", "label"} and e["from"] in ids and e["to"] in ids
    for n in data["nodes"]:
        assert set(n) == {"id", "sequence", "kind", "number", "text", "file", "line"}
        assert n["text"] and not re.search(r"</?[A-Za-z]", n["text"]) and "&amp;" not in n["text"], n
        if n["kind"] in ("end",):
            continue
        assert isinstance(n["line"], int) and n["line"] >= 1, n
        node = loaded.graph.nodes[n["id"]]
        if node.step is not None:  # the line where the step begins: its own '- ' item in the YAML
            assert n["line"] == node.step.span.line and n["number"], n


def test_the_text_is_what_the_chart_draws():
    loaded = load_ruleset("pig")
    data = graph_data(loaded.ruleset, loaded.graph)
    dot = chart_sources(loaded.ruleset, loaded.graph, plan_sheets(loaded.ruleset, loaded.graph), only="turn")["turn"]
    for n in data["nodes"]:
        if n["sequence"] == "turn" and n["kind"] not in ("start", "end"):
            for line in n["text"].split("\n"):
                assert esc(line) in dot, (line, n)


def test_coverage_files_use_the_same_node_ids(tmp_path):
    loaded = load_ruleset("pig")
    summary = simulate("pig", 20, seed=1, workers=1, coverage=True)
    path = tmp_path / "cov.json"
    write_coverage(summary, loaded.graph, str(path))
    counts = json.loads(path.read_text())["counts"]
    ids = {n["id"] for n in graph_data(loaded.ruleset, loaded.graph)["nodes"]}
    assert counts and set(counts) <= ids


def test_render_json_from_the_command_line(tmp_path):
    out = tmp_path / "g.json"
    r = _cli("render", "stack-duel", "--format", "json", "-o", str(out))
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    assert any(e["kind"] == "repeat" and e["label"] == "then resolve, top card first" for e in data["edges"]) is False
    assert any(e["label"] == "then resolve, top card first" for e in data["edges"])
    r = _cli("render", "pig", "--format", "json", "--sequence", "turn", "-o", "-")
    assert r.returncode == 0 and {n["sequence"] for n in json.loads(r.stdout)["nodes"]} == {"turn"}
    r = _cli("render", "pig", "--format", "json", "--sequence", "trun", "-o", "-")
    assert r.returncode == 2 and "did you mean 'turn'" in r.stderr


@pytest.mark.parametrize("name", NAMES)
def test_standalone_charts_say_nothing_of_sheets(name):
    loaded = load_ruleset(name)
    plan = plan_sheets(loaded.ruleset, loaded.graph)
    for sid, dot in chart_sources(loaded.ruleset, loaded.graph, plan).items():
        assert "on this sheet" not in dot and "sheet " not in dot.replace("see its sheet", "!"), (sid, dot)
        assert "see its sheet" not in dot


def test_overview_shows_the_skeleton_of_dml():
    loaded = load_ruleset("dml")
    order, edges = skeleton(loaded.ruleset, loaded.graph)
    titles = [loaded.ruleset.sequences[s].title for s in order]
    for t in ("Setup Stage", "Game Stage", "Round", "Action Phase", "Turn", "End Phase"):
        assert t in titles
    assert not any(loaded.ruleset.sequences[s].kind in ("step", "action", "interrupt") for s in order)
    turn = next(s for s in order if loaded.ruleset.sequences[s].kind == "turn")
    assert any(dst == turn and "for each" in how for _src, dst, how in edges)  # each player takes a turn
    dot = overview_dot(loaded.ruleset, loaded.graph)
    assert dot.startswith("digraph overview") and "Round" in dot


@pytest.mark.parametrize("name", NAMES)
def test_overview_for_every_bundled_ruleset(name, tmp_path):
    out = tmp_path / "o.dot"
    r = _cli("render", name, "--overview", "--format", "dot", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_text().count("->") >= 1
    r = _cli("render", name, "--overview", "--format", "json", "-o", str(out))
    assert r.returncode == 2
