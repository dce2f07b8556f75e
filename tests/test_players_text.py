"""Players never read code: the text of every bundled ruleset's sheets, aid, book and `?` help, and of the
small games under tests/cases/games, checked against the patterns in tests/cases/english/players-text.yaml."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
import yaml

from rulecraft.bundled import bundled_rulesets
from rulecraft.loader import load_ruleset

HERE = Path(__file__).parent
PATTERNS = [(what, re.compile(rx)) for what, rx in
            yaml.safe_load((HERE / "cases" / "english" / "players-text.yaml").read_text(encoding="utf-8"))["forbidden"]]
GAMES = sorted(str(p) for p in (HERE / "cases" / "games").glob("*.yaml"))
REFS = [b.name for b in bundled_rulesets()] + GAMES


def _plain(markup: str) -> list[str]:
    """The text a reader sees in a DOT/HTML document: its labels and text, tags and attributes removed."""
    if not markup.lstrip().startswith("digraph"):
        text = re.sub(r"<style.*?</style>|<script.*?</script>|<head>.*?</head>", " ", markup, flags=re.S)
        return [html.unescape(re.sub(r"<[^>]*>", " ", text))]
    out = []
    for m in re.finditer(r'label=(<|")', markup):
        i, depth = m.end(), 1
        if m.group(1) == '"':
            out.append(markup[i:markup.index('"', i)])
            continue
        while depth:
            depth += {"<": 1, ">": -1}.get(markup[i], 0)
            i += 1
        out.append(markup[m.end():i - 1])
    return [html.unescape(re.sub(r"<[^>]*>", " ", t)) for t in out]


def printed_texts(ref: str) -> dict[str, list[str]]:
    """Everything a player reads, by document: each chart, the sheets' title page, the aid, the book, `?` help."""
    from rulecraft.tools.chart.flowchart import ChartOptions, chart_dot
    from rulecraft.tools.chart.sheetplan import callers_of, plan_sheets
    from rulecraft.tools.print.aid import aid_html, aid_view
    from rulecraft.tools.print.book import render_html
    from rulecraft.tools.print.sheets import title_dot
    from rulecraft.tools.words.bookkeeping import players_graph
    from rulecraft.tools.words.seat.help import decision_steps, rule_help

    loaded = load_ruleset(ref)
    rs = loaded.ruleset
    assert rs is not None, loaded.diagnostics
    graph = players_graph(rs, loaded.graph)
    plan = plan_sheets(rs, graph)
    out: dict[str, list[str]] = {}
    for sid in plan.order:
        dot = chart_dot(rs, graph, sid, ChartOptions(sheet_of=plan.sheet_of,
                                                     same_sheet=frozenset(plan.sheet(plan.sheet_of[sid]).sequences)))
        out[f"chart {sid}"] = _plain(dot)
    out["title page"] = _plain(title_dot(rs, plan, callers_of(graph), None, 500))
    out["aid"] = _plain(aid_html(aid_view(rs)))
    out["book"] = _plain(render_html(rs, loaded.graph, {sid: "" for sid in rs.sequences}, plan))
    out["? help"] = ["\n".join(rule_help(rs, step)) for step in decision_steps(rs)]
    return out


@pytest.mark.parametrize("ref", REFS, ids=[Path(r).stem for r in REFS])
def test_players_read_no_code(ref):
    bad = []
    for doc, texts in printed_texts(ref).items():
        for text in texts:
            for what, rx in PATTERNS:
                m = rx.search(text)
                if m:
                    bad.append(f"{doc}: {what} {m.group(0)!r} in: {' '.join(text.split())[:160]}")
    assert not bad, f"{len(bad)} places:\n" + "\n".join(bad[:40])
