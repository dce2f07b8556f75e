"""The player aid, measured from its PDF: every bundled ruleset's fits two pages, with nothing under 9 pt and no code."""

from __future__ import annotations

import pytest
from pypdf import PdfReader
import io

from rulecraft.bundled import bundled_rulesets
from rulecraft.loader import load_ruleset
from rulecraft.tools.print.aid import aid_html, aid_view, build_aid
from rulecraft.tools.cli.main import main
from rulecraft.tools.print.htmlpdf import find_chromium
from rulecraft.tools.print.pdfmeasure import measure_pdf
from pdftext import page_text

needs_chromium = pytest.mark.skipif(find_chromium() is None, reason="headless Chromium is not installed")
NAMES = [b.name for b in bundled_rulesets()]


@needs_chromium
@pytest.mark.parametrize("name", NAMES)
def test_aid_fits_two_pages_at_9_pt_without_code(name):
    loaded = load_ruleset(name)
    pdf, pages = build_aid(loaded.ruleset, "letter" if name == "dune-bidding" else "a4")
    m = measure_pdf(pdf)
    assert pages == m.pages and 1 <= pages <= 2, m.summary()
    assert m.smallest_pt >= 9.0 and m.code_share == 0, m.summary()
    text = "".join(page_text(p) for p in PdfReader(io.BytesIO(pdf)).pages)
    assert "How to win" in text or "Order of play" in text
    assert "['" not in text and "{" not in text and "_" not in text  # no reprs, placeholders or ids


def test_dml_aid_has_the_tables_the_dice_and_how_to_win():
    view = aid_view(load_ruleset("dml").ruleset)
    assert [t["title"] for t in view.tables] == ["Wheel of Profit", "Event types"]
    assert [name for name, _w, _o in view.dice[0]["results"]] == ["Woot", "Wyvern eyes", "Dabo"]
    assert any("Monopoly" in line for line in view.win)
    assert any("victory points" in line for line in view.win)
    assert ("The highest target value an Acquisition Attempt may start with", "12") in view.numbers
    titles = [t for _d, t, _w in view.flow]
    assert titles[:3] == ["Dragon's Money Laundering", "Setup Stage", "Restock Phase"] and "Turn" in titles
    html = aid_html(view)
    assert "Wheel of Profit" in html and "declaration_limit" not in html


def test_an_aid_section_chooses_what_is_shown(tmp_path):
    src = (load_ruleset("pig").ruleset.file)
    text = open(src, encoding="utf-8").read() + (
        "\naid:\n  flow: [turn]\n  numbers: []\n  tables: []\n  win: First to the target wins at once.\n"
        "  notes: [Say 'hold' out loud.]\n")
    path = tmp_path / "pig-aid.yaml"
    path.write_text(text, encoding="utf-8")
    loaded = load_ruleset(str(path))
    assert loaded.ruleset is not None, loaded.diagnostics
    view = aid_view(loaded.ruleset)
    assert [t for _d, t, _w in view.flow] == [loaded.ruleset.sequences["turn"].title]
    assert view.numbers == [] and view.tables == [] and view.win == ["First to the target wins at once."]
    assert view.notes == ["Say 'hold' out loud."]


def test_aid_usage_errors(tmp_path, capsys):
    assert main(["aid", "pig", "-o", str(tmp_path / "aid.html")]) == 2
    assert "FILE.pdf" in capsys.readouterr().err


def test_aid_without_chromium_refuses_with_a_hint(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RULECRAFT_CHROMIUM", "no-such-browser-here")
    assert main(["aid", "pig", "-o", str(tmp_path / "aid.pdf")]) == 2
    assert "apt-get install chromium" in capsys.readouterr().err
    assert not (tmp_path / "aid.pdf").exists()
