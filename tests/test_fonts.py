"""The printed font is a decision: Liberation Sans, named in every chart and page, embedded in the PDFs.

Without the decision Graphviz asked fontconfig for "Helvetica", which is whatever a machine maps it
to (Nimbus Sans where fonts-urw-base35 is installed, which sets ligatures: 'roll-oﬀ').
"""

from __future__ import annotations

import io
import shutil
import subprocess

import pytest
from pypdf import PdfReader

from rulecraft.loader import load_ruleset
from rulecraft.tools.chart.flowchart import chart_dot
from rulecraft.tools.chart.legend import CODE_FONT, FONT, FONT_PACKAGE

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


def test_charts_name_the_chosen_font_first():
    loaded = load_ruleset("pig")
    dot = chart_dot(loaded.ruleset, loaded.graph, next(iter(loaded.ruleset.sequences)))
    names = {part.split('"')[0] for part in dot.split('fontname="')[1:]}
    assert names == {FONT}, names
    assert FONT.split(",")[0] == "Liberation Sans" and CODE_FONT.split(",")[0] == "Liberation Mono"
    assert "Helvetica" not in dot


def test_setup_installs_the_font_and_the_pages_name_it():
    assert FONT_PACKAGE in (ROOT / "Makefile").read_text(encoding="utf-8")
    for name in ("aid.html.j2", "book.html.j2"):
        css = (ROOT / "tools" / "print" / "templates" / name).read_text(encoding="utf-8")
        assert '"Liberation Sans"' in css
        for line in css.splitlines():  # wherever a sans face is listed, the chosen one comes first
            if "sans-serif" in line and "font" in line:
                assert line.split("font")[1].find('"Liberation Sans"') >= 0, line


def _installed(family: str) -> bool:
    if shutil.which("fc-match") is None:
        return False
    out = subprocess.run(["fc-match", "-f", "%{family}", family], capture_output=True, text=True).stdout
    return family in out


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_a_chart_pdf_embeds_liberation_sans():
    if not _installed("Liberation Sans"):
        pytest.skip(f"Liberation Sans is not installed (make setup installs {FONT_PACKAGE})")
    from rulecraft.tools.chart.dotrun import run_dot

    pdf = run_dot(f'digraph {{ node [fontname="{FONT}"]; a [label="roll-off, fifty"] }}', "pdf")
    page = PdfReader(io.BytesIO(pdf)).pages[0]
    fonts = {str(f["/BaseFont"]) for f in page["/Resources"]["/Font"].values()}
    assert fonts and all(f.split("+")[-1].startswith("LiberationSans") for f in fonts), fonts
