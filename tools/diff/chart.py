"""`rulecraft diff --format dot|svg`: the sequences that differ as flowcharts, additions green, removals red and
dashed, changes orange (a pure function of the diff, the two models and their sequence graphs)."""

from __future__ import annotations

from rulecraft.model import ruleset as M

from rulecraft.tools.diff.values import Diff
from rulecraft.tools.diff.steps import sheet_numbers
from rulecraft.tools.chart.dotlabels import quote
from rulecraft.tools.chart.legend import FONT
from rulecraft.tools.chart.sheetplan import step_numbers

COLORS = {
    "added": ("#2e7d32", "#e8f5e9", "solid"),
    "removed": ("#c62828", "#ffebee", "dashed"),
    "changed": ("#ef6c00", "#fff3e0", "solid"),
    "same": ("#757575", "#ffffff", "solid"),
}
SHAPES = {
    "start": "oval", "end": "oval", "action": "box", "call": "box", "condition": "diamond", "loop": "hexagon",
    "foreach": "hexagon", "decision": "parallelogram", "sealed": "parallelogram", "stack": "box3d",
    "auction": "box3d", "respond": "box3d", "trick": "box3d",
}
LABEL_WIDTH = 36


_q = quote  # the charts' one DOT quoting (tools/chart/dotlabels.py)


def _wrap(text: str, width: int = LABEL_WIDTH, max_lines: int = 4) -> str:
    words, lines, cur = text.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    if cur:
        lines.append(cur)
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = lines[-1][: width - 1] + "…"
    return "\n".join(lines)


def _path_keys(rs: M.Ruleset, sid: str) -> dict[str, str]:
    """Graph node id -> the step's path (what the diff's sets hold), for the steps of one sequence."""
    if sid not in rs.sequences:
        return {}
    return {p: p for p in step_numbers(rs.sequences[sid])}


def differing(diff: Diff, a: M.Ruleset, b: M.Ruleset) -> list[str]:
    """The sequences that differ, in the order the chart draws them (A's, then those B added)."""
    return [sid for sid in list(a.sequences) + [s for s in b.sequences if s not in a.sequences]
            if diff.sequences.get(sid) is not None and diff.sequences[sid].status != "same"]


def to_dot(diff: Diff, a: M.Ruleset, b: M.Ruleset, graph_a, graph_b, only: list[str] | None = None) -> str:
    """The flowcharts of the sequences that differ (or of those of `only` that do), additions green, removals red
    and dashed, changes orange (a pure function of the diff, the two models and their sequence graphs)."""
    out = ["digraph rulecraft_diff {",
           f"  graph [rankdir=TB, fontname=\"{FONT}\", newrank=true,",
           f"         labelloc=t, label={_q(f'rulecraft diff: {diff.name_a} -> {diff.name_b}')}];",
           f"  node [fontname=\"{FONT}\", fontsize=10, style=\"filled\", margin=\"0.12,0.04\"];",
           f"  edge [fontname=\"{FONT}\", fontsize=9, color=\"#757575\"];"]
    drawn = [sid for sid in differing(diff, a, b) if only is None or sid in only]
    if not drawn:
        out.append(f"  nothing [shape=plaintext, style=\"\", label={_q('no sequence differs')}];")
    for i, sid in enumerate(drawn):
        sc = diff.sequences[sid]
        color, _fill, style = COLORS[sc.status]
        seq = b.sequences.get(sid) or a.sequences[sid]
        keys_a, keys_b = _path_keys(a, sid), _path_keys(b, sid)
        nums_a = sheet_numbers(a, a.sequences[sid]) if sid in a.sequences else {}
        nums_b = sheet_numbers(b, b.sequences[sid]) if sid in b.sequences else {}
        path_b = {k: p for p, k in keys_b.items()}
        out.append(f"  subgraph cluster_{i} {{")
        title = f"{sid}: {seq.title}" if seq.title and seq.title != sid else sid
        out.append(f"    label={_q(f'{title} ({sc.status})')}; color={_q(color)}; style={_q('rounded,' + style)}; "
                   "fontsize=12;")
        nodes: set[str] = set()
        # the sequence as B has it (or as A had it, for a removed sequence)
        for nid in graph_b.sequences.get(sid, []) if sid in b.sequences else []:
            key = keys_b.get(nid)
            status = "added" if sc.status == "added" or key in sc.added else \
                "changed" if key in sc.changed else "same"
            nodes.add(f"B:{nid}")
            out.append("    " + _node(f"B:{nid}", graph_b.nodes[nid], status, nums_b.get(nid, "")))
        # what A had and B has not: drawn too, and A's nodes mapped onto B's where B kept them
        a_to_dot: dict[str, str] = {}
        for nid in graph_a.sequences.get(sid, []) if sid in a.sequences else []:
            n = graph_a.nodes[nid]
            key = keys_a.get(nid)
            if sid not in b.sequences or (key is not None and key in sc.removed):
                a_to_dot[nid] = f"A:{nid}"
                num = nums_a.get(nid, "")
                out.append("    " + _node(f"A:{nid}", n, "removed", f"{num} (in A)" if num else ""))
            elif key is not None and key in sc.pairs:
                a_to_dot[nid] = f"B:{path_b[sc.pairs[key]]}"
            elif key is None and f"B:{nid}" in nodes:  # the sequence's start and end
                a_to_dot[nid] = f"B:{nid}"
        # edges: B's (green when A had no such edge), then A's that B no longer has (red, dashed)
        edges_b = {(f"B:{e.src}", f"B:{e.dst}", e.kind, e.label) for e in graph_b.edges
                   if f"B:{e.src}" in nodes and f"B:{e.dst}" in nodes}
        edges_a = {(a_to_dot[e.src], a_to_dot[e.dst], e.kind, e.label) for e in graph_a.edges
                   if e.src in a_to_dot and e.dst in a_to_dot}
        for e in sorted(edges_b):
            out.append("    " + _edge(e, "added" if sc.status == "added" or e not in edges_a else "same"))
        for e in sorted(edges_a - edges_b):
            out.append("    " + _edge(e, "removed"))
        out.append("  }")
    out.append("  subgraph cluster_legend {")
    out.append("    label=\"legend\"; style=\"rounded,dashed\"; color=\"#bdbdbd\"; fontsize=10;")
    for w in ("added", "removed", "changed"):
        color, fill, style = COLORS[w]
        out.append(f"    legend_{w} [shape=box, label={_q(w if w != 'changed' else 'changed or moved')}, "
                   f"color={_q(color)}, fillcolor={_q(fill)}, "
                   f"style={_q('filled,' + style)}, penwidth=2];")
    out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"


def _node(dot_id: str, n, status: str, number: str = "") -> str:
    color, fill, style = COLORS[status]
    text = n.label if n.kind not in ("start", "end") else ("start" if n.kind == "start" else "end")
    if number:  # the step's number on the sheets
        text = f"{number}  {text}"
    attrs = [f"shape={SHAPES.get(n.kind, 'box')}", f"label={_q(_wrap(text))}", f"color={_q(color)}",
             f"fillcolor={_q(fill)}", f"style={_q('filled,' + style)}"]
    if status != "same":
        attrs.append("penwidth=2")
    return f"{_q(dot_id)} [{', '.join(attrs)}];"


def _edge(e: tuple, status: str) -> str:
    src, dst, kind, label = e
    color, _fill, style = COLORS[status]
    attrs = [f"color={_q(color)}", f"style={_q(style)}"]
    if label and label != "next":
        attrs.append(f"label={_q(label)}")
    if status != "same":
        attrs.append("penwidth=2")
        attrs.append(f"fontcolor={_q(color)}")
    return f"{_q(src)} -> {_q(dst)} [{', '.join(attrs)}];"
