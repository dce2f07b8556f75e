"""`rulecraft render RULESET --format json`: the sequence graph as data (docs/sheets.md, "The graph as data").

Every node with the text its chart draws and where its step begins in the ruleset file, every edge with its
label. The node ids are the ones coverage files count (`rulecraft simulate --coverage`), so the two join.
"""

from __future__ import annotations

import html
import json
import re

from rulecraft.tools.chart.sheetplan import plan_sheets

FORMAT = "rulecraft-graph"
VERSION = 1
_TAG = re.compile(r"<[^>]*>")


def _plain(row: str) -> str:
    return html.unescape(_TAG.sub("", row)).strip()


def graph_data(rs, graph, only: str | None = None) -> dict:
    """The graph as a JSON-ready dict: {format, version, ruleset, title, start, sequences, nodes, edges}
    (`only`: one sequence's nodes and the edges that leave them)."""
    from rulecraft.tools.chart.flowchart import ChartOptions, _Chart

    plan = plan_sheets(rs, graph)
    order = list(plan.order) + [sid for sid in rs.sequences if sid not in plan.order]
    if only is not None:
        order = [only]
    sequences, nodes = [], []
    for sid in order:
        seq = rs.sequences[sid]
        sequences.append({"id": sid, "title": seq.title, "kind": seq.kind, "params": list(seq.params),
                          "file": seq.span.file if seq.span else None, "line": seq.span.line if seq.span else None})
        chart = _Chart(rs, graph, sid, ChartOptions())  # a standalone chart: no sheet numbers in its text
        for nid in graph.sequences.get(sid, ()):
            node = graph.nodes[nid]
            entry = {"id": nid, "sequence": sid, "kind": node.kind, "number": chart.numbers.get(nid)}
            if node.kind == "start":
                entry["text"] = seq.title
                span = seq.span
            elif node.kind == "end":
                entry["text"] = node.label
                span = None
            else:
                rows = chart.body_rows(nid)
                rows = rows[: len(rows) - len(chart.extra_rows(node))] or rows[:1]
                lines = [_plain(r) for r in rows]
                if entry["number"] and lines and lines[0].startswith(entry["number"]):
                    lines[0] = lines[0][len(entry["number"]):].strip()
                entry["text"] = "\n".join(lines)
                span = node.step.span if node.step is not None else None
            entry["file"] = span.file if span is not None else None
            entry["line"] = span.line if span is not None else None
            nodes.append(entry)
    for t in (rs.triggers if only is None else ()):
        nid = f"trigger/{t.id}"
        node = graph.nodes[nid]
        nodes.append({"id": nid, "sequence": None, "kind": "trigger", "number": None, "text": node.label,
                      "file": t.span.file if t.span else None, "line": t.span.line if t.span else None})
    edges = [{"from": e.src, "to": e.dst, "kind": e.kind, "label": e.label}
             for e in (graph.edges if only is None else graph.edges_of(only))]
    return {"format": FORMAT, "version": VERSION, "ruleset": rs.name, "title": rs.title, "start": rs.start,
            "sequences": sequences, "nodes": nodes, "edges": edges}


def graph_json(rs, graph, only: str | None = None) -> str:
    return json.dumps(graph_data(rs, graph, only), indent=1, ensure_ascii=False) + "\n"
