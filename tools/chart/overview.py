"""`rulecraft render RULESET --overview`: the whole game on one page.

The skeleton of play, from the start sequence along the calls: the game, its stages, the round, the phases of
a round and the turn (every sequence whose kind is not a single step, an action or an interrupt), one box
each, in the order play reaches them. An arrow says how often the caller runs it: once, or at each pass of
the loop the call sits in (the loop's own words, e.g. "for each p in players"); an arrow without words runs
it once each time its caller runs. Sequences of other kinds that
sit between two of these are looked through, so the skeleton stays whole.
"""

from __future__ import annotations

from rulecraft.tools.chart.dotlabels import attrs, esc, html, quote, text_lines
from rulecraft.tools.chart.legend import FONT

SKELETON_KINDS = ("game", "stage", "setup", "round", "phase", "turn", "auction")


def _loop_words(graph, nid: str) -> list[str]:
    """The loops around a step (outermost first), as the graph words them."""
    seq, _, pos = nid.partition("/")
    parts = pos.split(".")
    out = []
    for i in range(1, len(parts)):
        outer = f"{seq}/{'.'.join(parts[:i])}"
        node = graph.nodes.get(outer)
        if node is not None and node.kind in ("loop", "foreach"):
            out.append(node.label)
    return out


def skeleton(rs, graph) -> tuple[list[str], list[tuple[str, str, str]]]:
    """(the skeleton's sequences in the order play reaches them, edges (caller, callee, how often))."""
    keep = {sid for sid, s in rs.sequences.items() if s.kind in SKELETON_KINDS} | {rs.start}
    order: list[str] = []
    edges: list[tuple[str, str, str]] = []
    seen_edges: set[tuple[str, str]] = set()

    def calls(sid: str, loops: list[str], path: tuple) -> list[tuple[str, list[str]]]:
        """The skeleton sequences `sid` runs, looking through the others, with the loops around each call."""
        out = []
        for nid in graph.sequences.get(sid, ()):
            for e in graph.out(nid):
                if e.kind != "call":
                    continue
                callee = e.dst.split("/")[0]
                around = loops + _loop_words(graph, nid)
                if callee in keep:
                    out.append((callee, around))
                elif callee not in path:
                    out.extend(calls(callee, around, path + (callee,)))
        return out

    def visit(sid: str) -> None:
        order.append(sid)
        for callee, around in calls(sid, [], (sid,)):
            if (sid, callee) in seen_edges:
                continue
            seen_edges.add((sid, callee))
            edges.append((sid, callee, "; ".join(around)))  # no loop around the call: once each time
            if callee not in order:
                visit(callee)

    visit(rs.start)
    return order, edges


def overview_dot(rs, graph) -> str:
    order, edges = skeleton(rs, graph)
    lines = ["digraph overview {",
             f'  graph [fontname="{FONT}", rankdir=TB, nodesep=0.35, ranksep=0.45, pad=0.3, '
             f'label=<<B>{esc(rs.title)}</B>: the game at a glance>, labelloc=t, fontsize=16, ordering=out];',
             f'  node [fontname="{FONT}", fontsize=12, shape=box, style="rounded,filled", fillcolor=white, '
             f'margin="0.15,0.08"];',
             f'  edge [fontname="{FONT}", fontsize=10, arrowsize=0.7, penwidth=1.2];']
    for sid in order:
        seq = rs.sequences[sid]
        steps = sum(1 for n in graph.sequences.get(sid, ()) if graph.nodes[n].step is not None)
        title = "<BR/>".join(f"<B>{r}</B>" for r in text_lines(seq.title, 28))
        sub = f"{seq.kind} · {steps} step{'s' if steps != 1 else ''}"
        fill = "#d9d9d9" if sid == rs.start else "#f2f2f2" if seq.kind in ("stage", "round", "turn") else "white"
        a = {"id": f"overview-{sid}", "fillcolor": fill,
             "label": html(f'{title}<BR/><FONT POINT-SIZE="9">{esc(sub)}</FONT>'), "tooltip": seq.title}
        lines.append(f"  {quote(sid)} [{attrs(a)}];")
    for src, dst, how in edges:
        a = {"label": html("<BR/>".join(text_lines(how, 28)))} if how else {}
        lines.append(f"  {quote(src)} -> {quote(dst)}" + (f" [{attrs(a)}]" if a else "") + ";")
    lines.append("}")
    return "\n".join(lines) + "\n"
