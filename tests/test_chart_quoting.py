"""A ruleset's text never rewrites a chart (issue 38, item 1): every text a ruleset gives reaches DOT, SVG, HTML and
PDF only through one quoting function per format.

The case `tests/cases/hostile/chart-injection/g.yaml` gives every title, label, name, note, prompt, doc, reason and
table cell the text `<x>, href="javascript:alert(1)", image="private.png", label=<"]; evil [ INJECTED>`. Its twin
says as many letters instead. Every DOT source any command sends to Graphviz (flowcharts at both details, the
overview, the legend, the cases tables, the book's charts, the sheets' title page and blocks, the diff chart) is
parsed by Graphviz itself: the hostile charts have the same objects, each with the same attributes, as the twin's
(no node, edge or attribute added, no `href` or `image`). The SVG, the book's HTML and the aid's HTML are parsed
too: no element or attribute comes from the text.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CASE = ROOT / "tests" / "cases" / "hostile" / "chart-injection" / "g.yaml"
PAYLOAD = '<x>, href="javascript:alert(1)", image="private.png", label=<"]; evil [ INJECTED>'
PLAIN = re.sub(r"[^ ,]", "a", PAYLOAD)  # the same words, as long: the charts wrap and fold alike

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")


def _rulesets(tmp_path: Path) -> tuple[Path, Path]:
    hostile = tmp_path / "g.yaml"
    twin = tmp_path / "plain.yaml"
    text = CASE.read_text(encoding="utf-8")
    assert text.count("INJECTED") >= 20  # every kind of text field carries it
    hostile.write_text(text, encoding="utf-8")
    twin.write_text(text.replace(PAYLOAD.replace("'", "''"), PLAIN).replace("ruleset: reference", "ruleset: plain"),
                    encoding="utf-8")
    return hostile, twin


from rulecraft.tools.chart.dotrun import check_size as _REAL_CHECK  # noqa: E402


def _sources(monkeypatch, argv_of) -> list[str]:
    """Every DOT source the commands send to Graphviz (they all pass `dotrun.check_size` first)."""
    from rulecraft.tools.chart import dotrun
    from rulecraft.tools.cli.main import main

    seen: list[str] = []
    real = _REAL_CHECK

    def record(sources):
        seen.extend(sources)
        return real(sources)

    monkeypatch.setattr(dotrun, "check_size", record)
    for argv in argv_of:
        assert main(argv) in (0, 1), argv
    return seen


def _parsed(sources: list[str]) -> list[dict]:
    """Each source as Graphviz reads it (one `dot -Tjson0` for all: it takes graphs one after another)."""
    done = subprocess.run(["dot", "-Tjson0"], input="\n".join(sources).encode(), capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    text, out, pos = done.stdout.decode(), [], 0
    dec = json.JSONDecoder()
    while text[pos:].strip():
        obj, end = dec.raw_decode(text, pos + len(text[pos:]) - len(text[pos:].lstrip()))
        out.append(obj)
        pos = end
    assert len(out) == len(sources)
    return out


def _shape(graph: dict) -> list:
    """What a chart is made of: each object's and edge's attribute names, and how many of each."""
    def keys(o):
        return tuple(sorted(k for k in o if k not in ("_gvid", "_draw_", "_ldraw_", "nodes", "edges", "subgraphs",
                                                      "objects", "head", "tail")))
    return sorted([("graph", keys(graph))] + [("object", keys(o)) for o in graph.get("objects", [])]
                  + [("edge", keys(e)) for e in graph.get("edges", [])])


def _commands(g: Path, out: Path) -> list[list[str]]:
    """The commands whose charts have the same objects for the same words (the sheets fold by measured size)."""
    return [["render", str(g), "--format", "svg", "-o", str(out / "r.svg")],
            ["render", str(g), "--format", "svg", "--detail", "full", "-o", str(out / "f.svg")],
            ["render", str(g), "--format", "svg", "--overview", "-o", str(out / "o.svg")],
            ["book", str(g), "-o", str(out / "b.html")]]


def _assert_no_injection(graph: dict, allowed: set) -> None:
    for o in [graph] + graph.get("objects", []) + graph.get("edges", []):
        assert set(o) <= allowed, set(o) - allowed
        assert "image" not in o and not str(o.get("href", "#")).startswith("javascript")
        assert o.get("label") != "INJECTED" and o.get("name") != "evil"


def test_no_text_of_a_ruleset_adds_or_changes_anything_in_a_chart(tmp_path, monkeypatch):
    hostile, twin = _rulesets(tmp_path)
    other = twin.with_name("plain2.yaml")
    other.write_text(twin.read_text(encoding="utf-8").replace(PLAIN, PLAIN.replace("a", "b")), encoding="utf-8")
    (tmp_path / "h").mkdir()
    (tmp_path / "p").mkdir()
    diff_h = ["diff", str(twin), str(hostile), "--format", "svg", "-o", str(tmp_path / "h" / "d.svg")]
    diff_p = ["diff", str(twin), str(other), "--format", "svg", "-o", str(tmp_path / "p" / "d.svg")]
    h_src = _sources(monkeypatch, _commands(hostile, tmp_path / "h") + [diff_h])
    p_src = _sources(monkeypatch, _commands(twin, tmp_path / "p") + [diff_p])
    assert len(h_src) == len(p_src) >= 12
    assert sum("INJECTED" in s for s in h_src) >= 8  # the text did reach the charts, quoted
    h_graphs, p_graphs = _parsed(h_src), _parsed(p_src)
    allowed = {k for g in p_graphs for o in [g] + g.get("objects", []) + g.get("edges", []) for k in o}
    for h, p in zip(h_graphs, p_graphs):
        assert _shape(h) == _shape(p)
        _assert_no_injection(h, allowed)
    # the sheets: their title page, legend and every block, each as Graphviz reads it
    sheets = _sources(monkeypatch, [["sheets", str(hostile), "-o", str(tmp_path / "h" / "s.pdf")]])
    assert any("INJECTED" in s for s in sheets)
    for g in _parsed(sheets):
        _assert_no_injection(g, allowed | {"pad", "margin", "size", "ratio", "nodesep", "ranksep", "bb"})
    for svg in (tmp_path / "h").glob("*.svg"):
        _assert_inert(svg.read_text(encoding="utf-8"))
    _assert_inert((tmp_path / "h" / "b.html").read_text(encoding="utf-8"))


def test_the_graph_json_keeps_the_text_as_a_string(tmp_path):
    from rulecraft.loader import load_ruleset
    from rulecraft.tools.chart.graphjson import graph_json

    hostile, _twin = _rulesets(tmp_path)
    loaded = load_ruleset(str(hostile))
    data = json.loads(graph_json(loaded.ruleset, loaded.graph))
    texts = [n.get("text") or "" for n in data["nodes"]] + [s.get("title") or "" for s in data["sequences"]]
    assert any(PAYLOAD in t for t in texts)  # the text, whole, as a value: JSON quotes it


def test_the_aid_html_is_inert(tmp_path):
    from rulecraft.loader import load_ruleset
    from rulecraft.tools.print.aid import aid_html, aid_view

    hostile, _twin = _rulesets(tmp_path)
    rs = load_ruleset(str(hostile)).ruleset
    page = aid_html(aid_view(rs))
    assert "INJECTED" in page
    _assert_inert(page)


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.bad: list = []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        for k, v in attrs:
            if (v or "").strip().lower().startswith(("javascript:", "data:", "vbscript:")) or k in ("injected", "evil"):
                self.bad.append((tag, k, v))

    handle_startendtag = handle_starttag


def _assert_inert(page: str) -> None:
    """No element, attribute or link came from the ruleset's text (it is there, as text only)."""
    p = _Elements()
    p.feed(page)
    assert not p.bad
    assert not p.tags & {"x", "injected", "image", "img", "script", "iframe"}


def test_graphviz_escapes_in_a_label_print_as_written(tmp_path):
    """Graphviz reads '\\N' in a label as the node's name (and '\\G' the graph's, '\\L' ...), even inside an HTML-like
    label: a title 'Round \\N' was drawn as 'Round game/3.do.1'. A backslash of a ruleset's text prints as itself."""
    from rulecraft.tools.cli.main import main

    variant = tmp_path / "v.yaml"
    variant.write_text('ruleset: v\nextends: pig\ntitle: V\nsequences: {turn: {title: "Go \\\\N"}}\noverrides:\n'
                       '  - update: turn.roll_again\n'
                       '    set: {label: "Again \\\\N or \\\\G, \\\\T \\\\H \\\\E \\\\L"}\n', encoding="utf-8")
    assert main(["render", str(variant), "--sequence", "turn", "--format", "svg", "-o", str(tmp_path / "t.svg")]) == 0
    svg = (tmp_path / "t.svg").read_text(encoding="utf-8")
    said = " ".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg))  # the label's lines, as drawn
    assert "Again \\N or \\G, \\T \\H \\E \\L" in said, said
    tips = re.findall(r'<a xlink:title="([^"]*)"', svg)  # a step's tooltip names its sequence's title: read twice
    assert "step 1 of Go \\N" in tips, tips
