"""The sequence graph: every step is a node, every edge joins known nodes, calls reach their sequences."""

import pytest

from rulecraft.bundled import bundled_rulesets
from rulecraft.graph import build_graph
from rulecraft.loader import load_ruleset

NAMES = [b.name for b in bundled_rulesets()]


@pytest.mark.parametrize("name", NAMES)
def test_graph_is_consistent(name):
    rs = load_ruleset(name).ruleset
    g = build_graph(rs)
    steps = {s.path for _seq, s in rs.iter_steps()}
    assert steps <= set(g.nodes), steps - set(g.nodes)
    for e in g.edges:
        assert e.src in g.nodes and e.dst in g.nodes, e
    for sid in rs.sequences:
        assert f"{sid}/start" in g.nodes and f"{sid}/end" in g.nodes


def test_if_has_yes_and_no_and_loops_come_back():
    g = build_graph(load_ruleset("pig").ruleset)
    kinds = {(g.nodes[e.src].kind, e.kind) for e in g.edges}
    assert ("condition", "yes") in kinds and ("condition", "no") in kinds
    assert any(e.kind == "repeat" for e in g.edges)
    assert any(e.kind == "break" for e in g.edges)
    assert any(e.kind == "call" and e.dst == "turn/start" for e in g.edges)


def test_dml_trigger_edge():
    g = build_graph(load_ruleset("dml").ruleset)
    assert any(e.kind == "trigger" and e.dst == "foreign_merchant/start" for e in g.edges)


def test_results_of_sequences_label_their_edges():
    """'return VALUE' ends its sequence on an edge that says the value; a call that binds the result says its name."""
    from pathlib import Path
    path = Path(__file__).parent / "cases" / "constructs" / "sequence_result" / "ruleset.yaml"
    g = build_graph(load_ruleset(str(path)).ruleset)
    returns = sorted(e.label for e in g.edges if e.kind == "end" and e.dst == "challenge/end")
    assert returns == ["return 'caught'", "return 'let go'"]
    assert [e.label for e in g.edges if e.kind == "end" and e.dst == "twice/end"] == ["return n * 2"]
    calls = {(e.dst, e.label) for e in g.edges if e.kind == "call"}
    assert {("challenge/start", "as outcome"), ("challenge/start", "as again"), ("twice/start", "as six"),
            ("quiet/start", "as nothing")} <= calls
