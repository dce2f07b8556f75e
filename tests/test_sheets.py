"""Printable sheets: one page per sheet after a title page with the index, the plan behind it, paper sizes."""

from __future__ import annotations

import functools
import io
import re
import json
import shutil

import pytest
from pypdf import PdfReader

from rulecraft.loader import load_ruleset
from rulecraft.tools.cli.main import main
from rulecraft.tools.chart.sheetplan import plan_sheets, reading_order
from rulecraft.tools.print.sheetlayout import MIN_SCALE
from rulecraft.tools.words.bookkeeping import players_graph
from rulecraft.tools.print.sheets import PAPER, build_sheets
from rulecraft.tools.print.sheetlayout import arrange
from pdftext import page_text

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")


@pytest.mark.parametrize("name", ["dml", "pig", "stack-duel", "sealed-auction", "reference"])
def test_plan_puts_every_sequence_on_one_sheet(name):
    loaded = load_ruleset(name)
    rs, graph = loaded.ruleset, loaded.graph
    plan = plan_sheets(rs, graph)
    placed = [sid for sheet in plan.sheets for sid in sheet.sequences]
    assert sorted(placed) == sorted(rs.sequences)
    assert plan.sheets[0].main == rs.start and plan.order[0] == rs.start
    assert [s.number for s in plan.sheets] == list(range(1, len(plan.sheets) + 1))
    order, parent = reading_order(rs)
    assert parent[rs.start] is None and set(order) == set(rs.sequences)


def test_dml_stages_and_phases_have_their_own_sheets():
    loaded = load_ruleset("dml")
    plan = plan_sheets(loaded.ruleset, loaded.graph)
    mains = {s.main for s in plan.sheets}
    assert {"setup", "market_phase", "bidding", "declaration"} <= mains
    # small helpers share: the Round rides on the start sequence's sheet
    assert plan.sheet_of["round"] == plan.sheet_of["game"]


def test_arrange_keeps_charts_inside_the_box():
    sizes = [(300.0, 200.0), (100.0, 400.0), (250.0, 250.0)]
    box = (500.0, 700.0)
    scale, places = arrange(sizes, box)
    assert 0 < scale <= 1.3
    for (w, h), (x, y) in zip(sizes, places):
        assert -0.01 <= x and x + w * scale <= box[0] + 0.01
        assert -0.01 <= y and y + h * scale <= box[1] + 0.01


@functools.lru_cache(maxsize=None)
def _dml_a4():
    """dml's sheets on A4, printed once for the tests that read them: the loaded ruleset, the result, its pages
    and their text."""
    loaded = load_ruleset("dml")
    result = build_sheets(loaded.ruleset, loaded.graph, "a4")
    pages = PdfReader(io.BytesIO(result.pdf)).pages
    return loaded, result, pages, [page_text(p) for p in pages]


@needs_dot
def test_dml_sheets_pdf_has_a_page_per_sheet_and_an_index():
    loaded, result, pages, texts = _dml_a4()
    plan = plan_sheets(loaded.ruleset, players_graph(loaded.ruleset, loaded.graph))
    assert len(pages) == result.pages
    index = texts[0]
    assert "Index" in index and "Interrupts" in index
    for sheet in plan.sheets:
        assert loaded.ruleset.sequences[sheet.main].title in index
    on_page = []  # the first sheet each page after the index prints, in order
    for i, page in enumerate(pages[1:], 1):
        w, h = float(page.mediabox.width), float(page.mediabox.height)
        assert (round(w), round(h)) == (595, 842)  # A4, one orientation for the whole document
        text = texts[i]
        assert "legend on the" in text and f"page {i + 1} of" not in text  # sheet numbers only: pages follow them
        assert "continued on the next page" not in text and "continued from" not in text  # never sliced
        label = re.search(r"Sheets? ([0-9a-z–]+) ·", text).group(1)  # '7', '7a', '4–5', '2c–3'
        ends = [int(n) for n in re.findall(r"\d+", label)]
        on_page.append(list(range(ends[0], ends[-1] + 1)))
    # every sheet in order, alone or sharing a page with its neighbours, its drill-down sheets after it
    seen = [n for numbers in on_page for n in numbers]
    assert set(seen) == {s.number for s in plan.sheets} and seen == sorted(seen)
    # the index names each sheet by its number alone (no page numbers that never match the sheets' numbers), and
    # the pages follow the sheets' order, so the number finds the page
    rows = re.findall(r"^\s*(\d+)\s+\S", index, re.M)
    assert [int(n) for n in rows[:len(plan.sheets)]] == [s.number for s in plan.sheets if isinstance(s.number, int)]
    assert not re.search(r"^\s*\d+\s+\d+\s+\S", index, re.M) and "ruleset dml" not in index
    assert min(result.scales) >= MIN_SCALE - 1e-6  # legible: no chart printed smaller than 8 pt text allows


@needs_dot
def test_a_big_chart_folds_a_block_onto_a_drill_down_sheet():
    """A chart too big for one legible page (in dml on A4: the Resolve Event sheet, at least) has a block drawn as
    one box pointing to sheet Na, and that sheet draws the block, entered from and left back to the sheet."""
    texts = _dml_a4()[3]
    numbers = [int(n) for n in re.findall(r"details on (\d+)a", texts[0])]  # the index names the drill-down sheets
    assert numbers
    for number in numbers:
        main = next(t for t in texts if re.search(rf"Sheets? {number}\b(?![a-z])", t))
        sub = next(t for t in texts if re.search(rf"Sheets? (\d+–)?{number}a\b", t))
        assert f"sheet {number}a" in main and f"from sheet {number}" in sub and f"back to sheet {number}" in sub


@needs_dot
def test_sheets_command_letter_paper_and_coverage(tmp_path, capsys):
    cov = tmp_path / "cov.json"
    cov.write_text(json.dumps({"ruleset": "pig", "games": 2, "counts": {"turn/1": 4, "turn/2": 9},
                               "never_reached": []}))
    out = tmp_path / "pig.pdf"
    assert main(["sheets", "pig", "-o", str(out), "--paper", "letter", "--coverage", str(cov)]) == 0
    reader = PdfReader(str(out))
    plan = plan_sheets(*(lambda r: (r.ruleset, r.graph))(load_ruleset("pig")))
    text = "\n".join(page_text(p) for p in reader.pages)
    assert all(f"Sheet {s.number}" in text for s in plan.sheets)  # each sheet named (a page may hold several)
    assert {round(float(reader.pages[0].mediabox.width)), round(float(reader.pages[0].mediabox.height))} == \
        {round(v) for v in PAPER["letter"]}
    assert "simulated games" in page_text(reader.pages[0])


def test_sheets_usage_errors(tmp_path, capsys):
    assert main(["sheets", "pig", "-o", str(tmp_path / "x.pdf"), "--paper", "a3"]) == 2
    assert main(["sheets", "pig", "-o", str(tmp_path / "x.pdf"), "--coverage", str(tmp_path / "none.json")]) == 2
    assert "cannot read the coverage file" in capsys.readouterr().err
    # a PDF written under another name (a page's x.html replaced by a PDF) is refused as the aid refuses it
    assert main(["sheets", "pig", "-o", str(tmp_path / "x.html")]) == 2
    assert "FILE.pdf" in capsys.readouterr().err and not (tmp_path / "x.html").exists()


def test_arrange_sets_narrow_charts_abreast_in_reading_order():
    # two charts each narrower than half the box go side by side, the first on the left; a wide third below
    scale, places = arrange([(200.0, 300.0), (200.0, 300.0), (480.0, 100.0)], (500.0, 460.0))
    (x1, y1), (x2, y2), (x3, y3) = places
    assert y1 == y2 == 0 and x1 < x2 and y3 > y1
    assert scale > 1.0  # stacked, the three would need 700 of the 460 points of height


def test_pdf_measure_counts_a_drawing_at_the_scale_it_is_placed():
    """Text inside a drawing placed at half size measures at half its font size (the index and the charts are
    such drawings: an earlier measure read them at their natural size)."""
    from rulecraft.tools.print.pdfcompose import Composer, read_page
    from rulecraft.tools.print.pdfmeasure import measure_pdf

    inner = Composer()
    inner.add_page((200.0, 100.0), [], texts=[(10, 50, 10, "ten point text", False, 0)])
    piece = read_page(inner.to_bytes())
    outer = Composer()
    outer.add_page((595.0, 842.0), [(piece, 0.5, 100, 100)], texts=[(10, 10, 9, "nine", False, 0)])
    m = measure_pdf(outer.to_bytes())
    assert sorted({s for s, _n, _mono in m.sizes}) == [5.0, 9.0]


def test_rules_by_case_are_drawn_as_one_table_on_sheets():
    """dml's eight 'if the card's power is X, play X' rules: on sheets one table whose head is the words they share
    and a row a case (each cell keeping its step's id for tooltips and coverage), not eight diamonds in a column;
    play goes on from the table once (no edge loops back into it)."""
    from rulecraft.tools.chart.cases import case_runs, shared_words
    from rulecraft.tools.chart.dotlabels import safe_id
    from rulecraft.tools.chart.flowchart import ChartOptions, chart_dot

    loaded = load_ruleset("dml")
    rs, graph = loaded.ruleset, players_graph(loaded.ruleset, loaded.graph)
    (run,) = case_runs(rs.sequences["resolve_stack_card"].steps)
    assert len(run) == 8
    chain = chart_dot(rs, graph, "resolve_stack_card", ChartOptions())
    table = chart_dot(rs, graph, "resolve_stack_card", ChartOptions(cases=True))
    assert chain.count('shape="diamond"') - table.count('shape="diamond"') == 8
    assert "If the card is the …" in table  # each case by the card whose power it is, not the power's id
    assert "Supreme Confisfactor" in table and ">confisfactor<" not in table
    for s in run:  # every case and its step keep their own cell
        assert f'ID="{safe_id(s.path)}"' in table and f'ID="{safe_id(s.then[0].path)}"' in table
    first = run[0].path
    assert len(re.findall(rf'-> "{re.escape(first)}"', table)) == 1  # one arrow in
    assert shared_words(["If a is 1", "If a is 2"]) == ("If a is", ["1", "2"])
    assert shared_words(["If a is 1", "Vice Minister"]) == ("", ["If a is 1", "Vice Minister"])
