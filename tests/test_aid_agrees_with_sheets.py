"""The aid and the sheets tell one game: a table that reads a step in the aid finds it on the sheets in the same
words and the same order. Every sequence the aid's order of play shows is a chart of the sheets with the same title;
every line the aid gives a sequence opens with the words of one of that chart's boxes (its text, or the small print
under it: a label the diamond's question stands in for), and the lines come in the order of the chart's numbers; the
aid's Set-up says the set-up sequences' steps in their order. Read from the words and the charts' rows (no Graphviz,
no browser): every bundled ruleset and every game under tests/cases/games."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from rulecraft.bundled import bundled_rulesets
from rulecraft.graph import build_graph
from rulecraft.loader import load_ruleset
from rulecraft.tools.chart.flowchart import ChartOptions, _Chart
from rulecraft.tools.print.aid import aid_view
from rulecraft.tools.print.setup.steps import setup_sequences
from rulecraft.tools.words.core import sequence_title

GAMES = sorted(str(p) for p in (Path(__file__).parent / "cases" / "games").glob("*.yaml"))
REFS = [b.name for b in bundled_rulesets()] + GAMES


def _plain(text: str) -> str:
    """Words as a reader compares them: no markup, case or spacing, a clause break read as 'and' (the aid joins a
    box's clauses inside a line with 'and', or a dash after a condition; the box keeps the designer's ';')."""
    text = html.unescape(re.sub(r"<[^>]*>", " ", text)).lower()
    text = re.sub(r"\s*(?:;|—)\s*", " and ", text)
    return re.sub(r"\s+", " ", text).strip().rstrip(".")


def _boxes(rs, graph, sid: str) -> list[tuple[str, list[str]]]:
    """Each numbered box of a sequence's chart, in its order: (number, [its text, each line of its small print])."""
    chart = _Chart(rs, graph, sid, ChartOptions())
    out = []
    for nid in graph.sequences.get(sid, ()):
        num = chart.numbers.get(nid)
        if not num:
            continue
        rows = chart.body_rows(nid)
        small = [r for r in rows[1:] if r.startswith('<FONT POINT-SIZE="10">')]  # the small print under the box
        body = _plain(" ".join(r for r in rows if r not in small)).removeprefix(num.lower()).strip()
        out.append((num, [body] + ([_plain(" ".join(small))] if small else [])))
    return out


def _disagreements(lines: list[str], boxes: list[tuple[str, list[str]]], every: bool) -> list[str]:
    """The aid's lines that open with no box's words (`every`: each line must), or that come before a box an
    earlier line opened with."""
    out, last = [], -1
    for line in lines:
        if line.startswith("…"):  # '…and 2 more steps: see the sheets'
            continue
        said = _plain(line)
        hits = [i for i, (_n, texts) in enumerate(boxes) if any(t and said.startswith(t.split(" → ")[0]) for t in texts)]
        if not hits:
            out += [f"no box says: {line}"] if every else []
        elif not [i for i in hits if i > last]:
            out.append(f"out of the sheets' order: {line}")
        else:
            last = min(i for i in hits if i > last)
    return out


@pytest.mark.parametrize("ref", REFS, ids=[Path(r).stem for r in REFS])
def test_the_aid_says_what_the_sheets_draw_in_the_same_order(ref):
    rs = load_ruleset(ref).ruleset
    graph = build_graph(rs)
    view = aid_view(rs)
    by_title = {sequence_title(q): sid for sid, q in rs.sequences.items()}
    problems = []
    for _depth, title, lines in view.flow:
        sid = by_title.get(title)
        if sid is None:
            problems.append(f"the aid's {title!r} is no sheet's title")
            continue
        problems += [f"{title}: {p}" for p in _disagreements(lines, _boxes(rs, graph, sid), every=True)]
    setup = [b for sid in setup_sequences(rs, list(rs.sequences)) for b in _boxes(rs, graph, sid)]
    problems += [f"Set-up: {p}" for p in _disagreements(view.setup, setup, every=False)]
    assert not problems, "\n".join(problems)


def test_a_condition_s_label_the_question_stands_in_for_is_on_the_sheet():
    """The aid said 'With no higher bid left, you must call the last bid a lie'; the sheet's diamond asked its own
    question in place of the label, and those words were on no page of the sheets."""
    rs = load_ruleset(str(Path(__file__).parent / "cases" / "games" / "under-cups.yaml")).ruleset
    boxes = dict(_boxes(rs, build_graph(rs), "turn"))
    assert "with no higher bid left, you must call the last bid a lie" in boxes["1"], boxes["1"]
