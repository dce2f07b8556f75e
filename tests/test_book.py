"""The rulebook page: well-formed HTML, every internal link resolves, the parts a reader expects are there."""

from __future__ import annotations

import functools
import shutil

import pytest

from htmlcheck import check_html
from rulecraft.loader import load_ruleset
from rulecraft.tools.print.book import build_book, inline_svg, paragraphs, render_html
from rulecraft.tools.cli.main import main
from pdftext import page_text

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")


@functools.lru_cache(maxsize=None)
def _book(name: str):
    """A bundled ruleset's book page, built once for the tests that read it: (the loaded ruleset, the HTML)."""
    loaded = load_ruleset(name)
    return loaded, build_book(loaded.ruleset, loaded.graph)


@needs_dot
def test_dml_book_is_well_formed_and_links_resolve():
    _loaded, html = _book("dml")
    c = check_html(html)
    assert not c.problems, c.problems[:10]
    assert len(c.links) > 100  # the contents, the call steps and the charts' call boxes
    for must in ("Wheel of Profit", "House-rule options", "seize_tie", "first in order", "Event types",
                 "Dragon&#39;s Nest", "anyone may count the cards", "<svg", "2.c"):
        assert must in html, must
    assert 'href="#seq-acquisition"' in html  # a chart's call box links to the sequence's section
    assert "/work/" not in html  # no local paths in a page meant to be shared
    assert c.links[0].startswith("#")  # every link, the first too, is an anchor of the page


def _visible_text(html: str) -> str:
    from html.parser import HTMLParser

    class Text(HTMLParser):
        def __init__(self):
            super().__init__()
            self.skip, self.out = 0, []

        def handle_starttag(self, tag, attrs):
            self.skip += tag in ("style", "script", "code")

        def handle_endtag(self, tag):
            self.skip -= tag in ("style", "script", "code")

        def handle_data(self, data):
            if not self.skip:
                self.out.append(data)

    t = Text()
    t.feed(html)
    return " ".join(" ".join(t.out).split())


@needs_dot
@pytest.mark.parametrize("name", ["dml", "dune-bidding"])
def test_the_book_teaches_in_order_and_in_words(name):
    """How to win first (every function scoring uses explained), then components, setup, the round and turn,
    the sequences, and designer notes and sources only in the appendix; no reprs, ids or placeholders."""
    loaded, html = _book(name)
    order = [html.find(f'<section id="{s}"') for s in ("game", "components", "flow", "sequences", "appendix")]
    assert -1 not in order and order == sorted(order), order
    text = _visible_text(html)
    assert "['" not in text and "{" not in text and "<=" not in text
    appendix = text.index("Appendix: designer notes")
    if loaded.ruleset.notes:
        first_note = " ".join(loaded.ruleset.notes.split())[:40]
        assert text.find(first_note) > appendix  # designer notes only in the appendix
    if name == "dml":
        win = text.index("The game and how to win", text.index("Contents") + 30)
        assert win < text.index("Sequences of play", win)
        assert "victory points" in text[win:text.index("Components", win)]
        assert "the Guild House bonus" in text[win:text.index("Components", win)]  # type_points explained
        zones = text[text.index("Where the cards lie"):text.index("Setup", text.index("Where the cards lie"))]
        assert "Merchant Kings (setup)" not in zones.split("The rules also set cards aside")[0]
        assert "Merchant Kings (setup)" in zones  # described as what the table keeps
        assert "declaration_limit" not in text.split("Appendix")[0]
        dice = text[text.index("Named results"):text.index("Where the cards lie")]
        assert "Two six-sided dice (2d6)" in dice and "pair" not in dice  # the dice in words, not their id
        assert "Woot! Woot! (double 6): The roll succeeds." in dice  # a result by its title, then what it does


@needs_dot
@pytest.mark.skipif(__import__("rulecraft.tools.print.htmlpdf", fromlist=["x"]).find_chromium() is None,
                    reason="headless Chromium is not installed")
def test_book_pdf_keeps_headings_with_their_text(tmp_path):
    """A printed book never leaves a heading alone at the foot of a page."""
    import io
    import re

    from pypdf import PdfReader

    out = tmp_path / "dune.pdf"
    assert main(["book", "dune-bidding", "-o", str(out)]) == 0
    _loaded, html = _book("dune-bidding")
    headings = {" ".join(re.sub(r"<[^>]+>", "", h).split()) for h in re.findall(r"<h[234][^>]*>(.*?)</h[234]>", html, re.S)}
    reader = PdfReader(io.BytesIO(out.read_bytes()))
    assert len(reader.pages) > 2
    for i, page in enumerate(reader.pages[:-1]):
        lines = [ln.strip() for ln in page_text(page).splitlines() if ln.strip()]
        assert lines and lines[-1] not in headings, f"page {i + 1} ends with the heading {lines[-1]!r}"


def test_book_pdf_without_chromium_refuses_with_a_hint(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RULECRAFT_CHROMIUM", "no-such-browser-here")
    assert main(["book", "pig", "-o", str(tmp_path / "pig.pdf")]) == 2
    err = capsys.readouterr().err
    assert "chromium" in err and "FILE.html" in err
    assert not (tmp_path / "pig.pdf").exists()


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


TINY = """
ruleset: gallery
title: Gallery
players: {min: 2, max: 2, default: 2}
notes: |
  Thanks to Christin P. for the art. Plan B is a second game on the same cards.
parameters:
  tokens_two: {default: 2, title: Tokens a second seat starts with, doc: What the second seat is given.}
options:
  late_bids: {default: never, choices: [never, always], title: Late bids, doc: Whether a bid may come late.}
cards:
  - for: {n: [1, 2], kind: [oil, ink]}
    id: "c{n}{kind}"
    name: "Lite Metal {n} ({medium})"
    attributes: {medium: "=kind", worth: "=n"}
zones:
  deck: {visibility: hidden, initial: all, title: Deck}
  walls: {per: [lite_metal, christin_p], visibility: open, title: Walls}
tables:
  seq_of: {keys: [a, b], columns: [runs], rows: {a: [game], b: [game]}}
start: game
sequences:
  game:
    kind: game
    title: Gallery
    steps:
      - "end game"
"""


def test_book_prints_what_a_stranger_reads_and_nothing_internal(tmp_path):
    """Designer notes keep 'Christin P.' and 'Plan B'; a 2-player game is 'for 2 players'; no 'Play starts with
    Gallery' (the game's own name); no card attribute ids; parameters and options by their titles; a zone family
    by its keys in words; a table players never read by name (a column of sequence ids) left out; a card name
    template fills an attribute."""
    path = tmp_path / "gallery.yaml"
    path.write_text(TINY, encoding="utf-8")
    loaded = load_ruleset(str(path))
    assert loaded.ruleset is not None and not [d for d in loaded.diagnostics if d.severity == "error"], \
        loaded.diagnostics
    rs = loaded.ruleset
    assert {c.name for c in rs.cards} == {"Lite Metal 1 (oil)", "Lite Metal 2 (oil)", "Lite Metal 1 (ink)",
                                          "Lite Metal 2 (ink)"}
    import html
    import re

    page = render_html(rs, loaded.graph, {})
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<style.*?</style>", "", page, flags=re.S))).split())
    assert "Christin P." in text and "Plan B" in text
    assert "a game for 2 players." in text and "to 2 players" not in text
    assert "Play starts with" not in text and "Card attributes" not in text
    assert "Tokens a second seat starts with" in text and "Late bids" in text and "Tokens two" not in text
    assert "one each for Lite Metal and Christin P" in text and "lite metal" not in text and "2–2" not in text
    assert "Seq of" not in text


def test_a_card_name_naming_nothing_is_warned_at_load(tmp_path):
    path = tmp_path / "gallery.yaml"
    path.write_text(TINY.replace("({medium})", "({medium}) {frame}"), encoding="utf-8")
    loaded = load_ruleset(str(path))
    warned = [d for d in loaded.diagnostics if d.code == "W327"]  # once, at the name (the loader's card-name check)
    assert len(warned) == 1 and "'{frame}'" in warned[0].message and warned[0].span.line == 14


@needs_dot
def test_the_book_sets_the_table_up_as_the_aid_does_without_a_setup_sequence():
    """A game with no setup sequence, whose cards start in piles its zones pick (tests/cases/games/last-bid.yaml):
    the book's Setup says where they start, word for word as the aid's set-up; it had no Setup at all."""
    from pathlib import Path

    from rulecraft.tools.print.aid import aid_view

    loaded = load_ruleset(str(Path(__file__).parent / "cases" / "games" / "last-bid.yaml"))
    text = _visible_text(build_book(loaded.ruleset, loaded.graph))
    setup = text[text.index("To set up the table"):text.index("The round and the turn", text.index("To set up"))]
    assert "The coin cards (20) start in the Coin bank." in setup
    assert all(line in setup for line in aid_view(loaded.ruleset).setup)


def test_the_book_is_written_as_html_or_pdf_only(tmp_path, capsys):
    """'-o rules.docx' wrote an HTML page under a name that says otherwise: refused, nothing written."""
    assert main(["book", "pig", "-o", str(tmp_path / "rules.docx")]) == 2
    assert "FILE.html" in capsys.readouterr().err and not (tmp_path / "rules.docx").exists()
