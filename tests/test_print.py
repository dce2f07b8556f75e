"""What a reader meets on paper, measured from the PDF files: every bundled ruleset's sheets print no text
below 8 pt and no code; the engine's bookkeeping is not on the charts (unless asked for with --detail full)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rulecraft.bundled import bundled_rulesets
from rulecraft.dsl import ast as A
from rulecraft.model import ruleset as M
from rulecraft.loader import load_ruleset
from rulecraft.tools.print.pdfmeasure import LEGIBLE_PT, measure_pdf
from rulecraft.tools.print.sheets import build_sheets
from rulecraft.tools.words.bookkeeping import hidden_step, players_graph

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
NAMES = [b.name for b in bundled_rulesets()]
GAMES = sorted((Path(__file__).parent / "cases" / "games").glob("*.yaml"))
# A chart too wide for a landscape page at 8 pt: Graphviz spreads this loop sideways (printed at 7.6 pt,
# with a warning). Left for the layout work on loops and 'continue' edges.
TOO_WIDE: set = set()  # every bundled chart fits at 8 pt (reference did once its sealed step got a label)


# the pages the sheets may take (issue 23): charts packed side by side and in other shapes, see docs/sheets.md
PAGE_LIMITS = {("dml", "a4"): 20, ("dml", "letter"): 20, ("dml-2016", "a4"): 24, ("dml-2016", "letter"): 24}


@pytest.fixture(scope="module", autouse=True)
def _each_chart_laid_out_once():
    """Graphviz lays a chart out from its DOT text and options alone: a chart met again in this file (a DML variant's
    sequence drawn as DML draws it, a sheet set printed on a second paper) gets the layout it got the first time,
    not a second `dot` run. Every chart not met before still goes through `run_layouts` as the sheets call it (the five
    DML rulesets and dune-bidding, on the papers tested: 1,300 charts, 797 different)."""
    from rulecraft.tools.chart import dotrun

    real, kept = dotrun.run_layouts, {}

    def run_layouts(sources, fmt="pdf", graph_attrs=(), workers=None):
        keys = [(src, fmt, tuple(graph_attrs)) for src in sources]
        new = [k for k in dict.fromkeys(keys) if k not in kept]
        if new:
            kept.update(zip(new, real([k[0] for k in new], fmt, graph_attrs, workers)))
        return [(kept[k][0], kept[k][1], dict(kept[k][2])) for k in keys]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dotrun, "run_layouts", run_layouts)
        yield


def _cases():
    for name in NAMES:
        marks = [pytest.mark.xfail(reason="one chart too wide at 8 pt", strict=False)] if name in TOO_WIDE else []
        yield pytest.param(name, "a4", marks=marks, id=f"{name}-a4")
    yield pytest.param("dml", "letter", id="dml-letter")
    yield pytest.param("dml-2016", "letter", id="dml-2016-letter")
    yield pytest.param("dune-bidding", "letter", id="dune-bidding-letter")
    for path in GAMES:  # small games written from the docs alone (tests/cases/games)
        yield pytest.param(str(path), "a4", id=path.stem + "-a4")


@needs_dot
@pytest.mark.parametrize("name,paper", list(_cases()))
def test_sheets_are_legible_and_say_the_rules_in_words(name, paper):
    loaded = load_ruleset(name)
    pdf = build_sheets(loaded.ruleset, loaded.graph, paper).pdf
    m = measure_pdf(pdf)
    assert m.smallest_pt >= LEGIBLE_PT - 0.05, m.summary()
    assert m.code_share == 0, m.summary()
    from pypdf import PdfReader
    import io

    pages = PdfReader(io.BytesIO(pdf)).pages
    assert len({(round(float(p.mediabox.width)), round(float(p.mediabox.height))) for p in pages}) == 1  # one way round
    for i, page in enumerate(pages, 1):
        for drawing in placed_drawings(page):  # every chart whole, inside its page: none sliced
            assert drawing["whole"], (i, drawing)
            x0, y0, x1, y1 = drawing["box"]
            assert 0 <= x0 and x1 <= float(page.mediabox.width) and 0 <= y0 and y1 <= float(page.mediabox.height), \
                (i, drawing)
    if (name, paper) in PAGE_LIMITS:
        assert m.pages <= PAGE_LIMITS[(name, paper)], m.summary()


def placed_drawings(page) -> list[dict]:
    """The drawings (form XObjects: a chart, the index, the legend) a page shows, each with the rectangle it
    covers on the page and whether it is a whole drawing (not a clipped piece of a bigger one)."""
    import re

    xobjects = page["/Resources"].get("/XObject", {})
    out = []
    ops = page.get_contents().get_data().decode("latin-1")
    for m in re.finditer(r"q ([-\d.]+) 0 0 ([-\d.]+) ([-\d.]+) ([-\d.]+) cm (/\w+) Do Q", ops):
        sx, sy, tx, ty = (float(v) for v in m.groups()[:4])
        form = xobjects[m.group(5)].get_object()
        bx0, by0, bx1, by1 = (float(v) for v in form["/BBox"])
        inner = form.get("/Resources", {}).get("/XObject", {})
        whole = not (form.get_data().strip() == b"/W Do" and len(inner) == 1)
        out.append({"box": (bx0 * sx + tx, by0 * sy + ty, bx1 * sx + tx, by1 * sy + ty), "whole": whole})
    return out


def test_bookkeeping_is_off_the_players_charts():
    loaded = load_ruleset("dml")
    rs, graph = loaded.ruleset, loaded.graph
    shown = players_graph(rs, graph)
    hidden = [n for n in graph.nodes.values() if n.step is not None and hidden_step(rs, n.step)]
    assert len(hidden) > 20
    # besides bookkeeping, only conditions players need not ask leave: one the house rules decide (with the branch
    # they never take) or one whose branches only keep accounts
    gone = set(graph.nodes) - set(shown.nodes) - {n.id for n in hidden}
    folded = [s for _q, s in rs.iter_steps() if isinstance(s, M.IfStep) and s.cond is not None
              and any(isinstance(x, A.Name) and x.id in rs.options for x in s.cond.ast.walk())]
    inside = {x.path for s in folded for x in M.walk_steps([s])}
    for nid in gone:
        step = graph.nodes[nid].step
        assert isinstance(step, M.IfStep) or nid in inside, nid
    for node in shown.nodes.values():  # what stays is what a player does, or a step the designer named
        if node.step is not None and hasattr(node.step, "stmts") and not node.step.label:
            assert not {type(st.ast) for st in node.step.stmts} <= {A.Let, A.Tally, A.Log, A.Pass}, node.id
    # every edge joins shown nodes, and every shown step is still reached
    assert all(e.src in shown.nodes and (e.dst in shown.nodes or e.kind in ("call", "trigger")) for e in shown.edges)
    reached = {e.dst for e in shown.edges}
    assert all(nid in reached for nid, n in shown.nodes.items() if n.step is not None)


@needs_dot
def test_detail_full_keeps_every_step_and_its_rule_text():
    loaded = load_ruleset("pig")
    full = measure_pdf(build_sheets(loaded.ruleset, loaded.graph, "a4", detail="full").pdf)
    players = measure_pdf(build_sheets(loaded.ruleset, loaded.graph, "a4").pdf)
    assert full.code_share > 0 and players.code_share == 0
