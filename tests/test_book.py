"""The rulebook page: well-formed HTML, every internal link resolves, the parts a reader expects are there."""

from __future__ import annotations

import shutil

import pytest

from htmlcheck import check_html
from rulecraft.loader import load_ruleset
from rulecraft.tools.book import build_book, inline_svg, paragraphs, render_html
from rulecraft.tools.cli import main

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")


@needs_dot
def test_dml_book_is_well_formed_and_links_resolve():
    loaded = load_ruleset("dml")
    html = build_book(loaded.ruleset, loaded.graph)
    c = check_html(html)
    assert not c.problems, c.problems[:10]
    assert len(c.links) > 100  # the contents, the call steps and the charts' call boxes
    for must in ("Wheel of Profit", "House-rule options", "seize_tie", "first_in_order", "Event types",
                 "Dragon&#39;s Nest", "only the number of cards is known", "<svg", "2.c"):
        assert must in html, must
    assert 'href="#seq-acquisition"' in html  # a chart's call box links to the sequence's section
    assert "/work/" not in html  # no local paths in a page meant to be shared


@pytest.mark.parametrize("name", ["pig", "stack-duel", "sealed-auction", "reference"])
def test_example_books_without_charts(name):
    loaded = load_ruleset(name)
    html = render_html(loaded.ruleset, loaded.graph, charts={})
    c = check_html(html)
    assert not c.problems, c.problems[:10]
    assert loaded.ruleset.title in html


@needs_dot
def test_book_command(tmp_path):
    out = tmp_path / "pig.html"
    assert main(["book", "pig", "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "@media print" in text
    assert not check_html(text).problems


def test_inline_svg_and_paragraphs():
    svg = '<?xml version="1.0"?>\n<!DOCTYPE svg>\n<!-- x -->\n<svg width="100pt" height="50pt" viewBox="0 0 100 50"></svg>'
    assert inline_svg(svg) == '<svg class="chart" style="width:100pt" viewBox="0 0 100 50"></svg>'
    assert paragraphs("a\nb\n\nc") == ["a b", "c"]
