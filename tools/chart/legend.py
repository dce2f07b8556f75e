"""The charts' visual vocabulary: fonts, the shape of each kind of node, and the legend that explains them."""

from __future__ import annotations

from rulecraft.model.kinds import KINDS
from rulecraft.tools.chart.dotlabels import attrs, esc, html, quote, safe_id
from rulecraft.tools.chart.folds import CONNECTOR_SHAPE, FOLD_SHAPE

# The printed font is a decision, not whatever fontconfig maps "Helvetica" to (on a machine with
# fonts-urw-base35 that is Nimbus Sans, which sets ligatures such as "ff"): Liberation Sans
# (Arial's metrics, SIL Open Font License; Debian/Ubuntu package fonts-liberation, installed by
# `make setup`), named first so Graphviz's PDF and PNG embed exactly it; the names after it are
# for an SVG opened where it is not installed. Its fixed-width sibling sets rule text.
FONT_PACKAGE = "fonts-liberation"
FONT = "Liberation Sans,Arial,sans-serif"
CODE_FONT = "Liberation Mono,Courier New,monospace"

class _Shapes(dict):
    """The shape of each kind of node; a registered step kind (rulecraft.model.kinds) brings its own."""

    def __missing__(self, kind: str) -> dict:
        registered = KINDS.get(kind)
        return dict(registered.shape) if registered is not None else {"shape": "box"}


SHAPES = _Shapes({
    "action": {"shape": "box"},
    "call": {"shape": "box", "peripheries": "2", "fillcolor": "#efefef"},
    "condition": {"shape": "diamond", "margin": "0.02,0.02"},
    "loop": {"shape": "hexagon", "margin": "0.05,0.04", "fillcolor": "#f4f4f4"},
    "foreach": {"shape": "hexagon", "margin": "0.05,0.04", "fillcolor": "#f4f4f4"},
    "decision": {"shape": "parallelogram", "margin": "0.02,0.04", "penwidth": "1.8"},
    "sealed": {"shape": "parallelogram", "peripheries": "2", "margin": "0.02,0.04", "penwidth": "1.5"},
    "stack": {"shape": "box3d", "fillcolor": "#efefef", "margin": "0.2,0.1"},
    "auction": {"shape": "house", "fillcolor": "#fff8e1", "margin": "0.15,0.06", "penwidth": "1.5"},
    "respond": {"shape": "octagon", "fillcolor": "#f3f3ff", "margin": "0.08,0.05", "penwidth": "1.5"},
    "trick": {"shape": "component", "fillcolor": "#eef7ee", "margin": "0.15,0.06", "penwidth": "1.5"},
    "attack": {"shape": "octagon", "fillcolor": "#f3f3ff", "margin": "0.08,0.05", "penwidth": "1.5"},  # as respond:
    # each other player in turn may answer it (with a card that stops it); the legend's octagon says both
})

_LEGEND = [
    ("step", {"shape": "box"}, "a step"),
    ("steps", {"shape": "box", "margin": "0"}, "steps in a row"),  # drawn as a two-row table below
    ("cond", SHAPES["condition"], "a condition:\nyes / no"),
    ("cases", {"shape": "plain"}, "rules by case"),  # drawn as the table of cases.py below
    ("loop", SHAPES["loop"], "a loop, left by\n'done' or a break"),
    ("decision", SHAPES["decision"], "a player decides"),
    ("sealed", SHAPES["sealed"], "secret choices,\nthen all reveal"),
    ("stack", SHAPES["stack"], "a stack: plays,\nthen last in, first out"),
    ("auction", SHAPES["auction"], "an auction:\nbids, a winner"),
    ("respond", SHAPES["respond"], "any player may\nanswer in turn"),
    ("trick", SHAPES["trick"], "a trick: each plays\na card, best wins"),
    ("call", SHAPES["call"], "another sequence:\nsee its sheet"),
    ("fold", FOLD_SHAPE, "a block drawn in\nfull on its sheet"),
    ("connector", CONNECTOR_SHAPE, "from / back to\nanother sheet"),
    ("trigger", {"shape": "box", "style": "dashed,rounded"}, "⚡ an interrupt\n(dashed)"),
    ("end", {"shape": "box", "style": "filled,rounded,bold", "fillcolor": "#404040", "fontcolor": "white"},
     "ends the turn,\nround or game"),
]


def legend_body(coverage: bool, cluster_id: str, columns: int = 5, sheets: bool = True) -> list[str]:
    """The legend as a DOT cluster: one sample node per shape, in rows of `columns` (`sheets`: the charts are
    printed on numbered sheets; else each sequence is a chart of its own)."""
    items = [it if it[0] != "call" or sheets else (it[0], it[1], "another sequence:\nsee its chart")
             for it in _LEGEND]
    if coverage:
        items.append(("ran", {"shape": "box", "fillcolor": "#6baed6"}, "darker: ran more often"))
        items.append(("never", {"shape": "box", "style": "filled,dashed", "color": "#b00000", "penwidth": "2.5",
                                "fontcolor": "#b00000"}, "never reached"))
    lines = ['subgraph "cluster_legend" {', f'  id={quote(cluster_id)}; label=<<B>Legend</B>>; fontsize=12; '
                                              f'style="rounded"; color="#9a9a9a"; margin=10;']
    names = []
    for key, shape, text in items:
        name = f"legend/{key}"
        names.append(name)
        a = {"style": "filled", "fillcolor": "white", "fontsize": "10", "width": "1.3", "height": "0.45",
             "label": html("<BR/>".join(esc(t) for t in text.split("\n"))), **shape}
        if key == "steps":
            a["label"] = html('<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="2" ROWS="*">'
                          '<TR><TD><FONT POINT-SIZE="10">steps in a row,</FONT></TD></TR>'
                          '<TR><TD><FONT POINT-SIZE="10">one after another</FONT></TD></TR></TABLE>')
        if key == "cases":  # a table: what the rules share, then a row a case
            a["label"] = html('<TABLE BORDER="1" CELLBORDER="1" CELLSPACING="0" CELLPADDING="2" BGCOLOR="white">'
                          '<TR><TD COLSPAN="2"><FONT POINT-SIZE="10">rules by case: if …</FONT></TD></TR>'
                          '<TR><TD><FONT POINT-SIZE="10">a case</FONT></TD>'
                          '<TD><FONT POINT-SIZE="10">its step</FONT></TD></TR></TABLE>')
        lines.append(f"  {quote(name)} [{attrs({'id': safe_id(cluster_id + '-' + key), 'tooltip': ' ', **a})}];")
    for i in range(0, len(names), columns):
        row = names[i:i + columns]
        lines.append("  { rank=same; " + " ".join(quote(n) for n in row) + " }")
        for a, b in zip(row, row[1:]):
            lines.append(f"  {quote(a)} -> {quote(b)} [style=invis];")
        if i + columns < len(names):
            lines.append(f"  {quote(row[0])} -> {quote(names[i + columns])} [style=invis];")
    lines.append("}")
    return lines


def legend_dot(coverage: bool = False, columns: int = 6) -> str:
    """The legend as a DOT graph of its own (sheets print it at the foot of every page)."""
    body = legend_body(coverage, "legend", columns)
    return ("digraph legend {\n"
            f'  graph [fontname="{FONT}", rankdir=TB, nodesep=0.15, ranksep=0.15, pad=0.05];\n'
            f'  node [fontname="{FONT}", fontsize=10, margin="0.06,0.03"];\n'
            + "\n".join("  " + ln for ln in body) + "\n}\n")
