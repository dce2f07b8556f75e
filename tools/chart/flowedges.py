"""The flowchart's edges and the boxes at its rim: terminals ('end game'), interrupts, the connectors of a
drill-down chart and its folded blocks (a mixin of `flowchart._Chart`, split off along that seam)."""

from __future__ import annotations

from typing import Optional

from rulecraft.model import ruleset as M

from rulecraft.tools.chart.dotlabels import attrs, esc, html, quote, text_lines
from rulecraft.tools.chart.folds import CONNECTOR_SHAPE, FOLD_SHAPE
from rulecraft.tools.chart.sheetplan import trigger_sources

# Above this many steps, edges from a step to a trigger it may fire would be spaghetti:
# the trigger box lists the steps instead.
TRIGGER_EDGES_MAX = 2
# The one `end` that leaves only this sequence (drawn as a plain return); `end turn`, `end game`
# ... leave the sequences around it too and get a dark terminal.
_SEQUENCE_END = "end sequence"


class EdgesMixin:
    def trigger_node(self, name: str, t: M.Trigger, steps: list[str], runs_here: bool, indent: int) -> None:
        head = self.words.label(t.label) if t.label else self.words.stmt(t)
        rows = [f"<B>⚡</B> {r}" if i == 0 else r for i, r in enumerate(text_lines(head, self.w(32)))]
        small = []
        if not runs_here:
            small.append(f"→ {self.sheet_ref(t.run)}")
        when = "at once" if t.timing == "now" else f"after the {t.after_kind or 'step'}"
        small.append(f"interrupts {when}")
        if steps and len(steps) > TRIGGER_EDGES_MAX:
            nums = [self.numbers.get(p, p) for p in steps]
            small += text_lines("may interrupt steps " + ", ".join(nums), 40, escape=False)
        rows += [f'<FONT POINT-SIZE="10">{esc(s)}</FONT>' for s in small]
        cite = (t.source, f"{_basename(t.span.file)}:{t.span.line}") if self.opts.detail == "full" else ()
        a = {"id": self.svg_id(name), "tooltip": " · ".join(p for p in cite if p) or " ",
             "shape": "box", "style": "dashed,rounded", "penwidth": "1.5", "label": html("<BR/>".join(rows))}
        if not runs_here and self.opts.link and self.opts.link(t.run):
            a["href"] = self.opts.link(t.run)
        self.line(f"{quote(name)} [{attrs(a)}];", indent)

    # ------------------------------------------------------------------ edges
    def edge(self, src: str, dst: str, a: dict, indent: int = 1) -> None:
        self.edge_count += 1
        a = {"id": self.svg_id(f"edge{self.edge_count}"), **a}
        self.line(f"{quote(src)} -> {quote(dst)} [{attrs(a)}];", indent)

    def terminals(self, sid: str, indent: int) -> None:
        """'end game', 'end turn' ...: a terminal of their own, so no edge has to run to the bottom."""
        for nid in self.ids:
            for e in self.g.out(nid):
                if e.kind == "end":
                    name = f"{nid}/{e.label}"
                    self.ends[nid] = name
                    # leaves this sequence only: the same as its normal return ('return VALUE' says its value in its box)
                    if e.label == _SEQUENCE_END or e.label.split(" ", 1)[0] == "return":
                        a = {"shape": "box", "style": "rounded,filled", "fillcolor": "#d9d9d9", "fontsize": "10",
                             "height": "0.3", "label": html("return")}
                    else:
                        a = {"shape": "box", "style": "filled,rounded,bold", "fillcolor": "#404040",
                             "fontcolor": "white", "fontsize": "10", "height": "0.3",
                             "label": html(f"<B>{esc(e.label)}</B>")}
                    a = {"id": self.svg_id(name), **a, "tooltip": self.cite(nid)}
                    self.line(f"{quote(name)} [{attrs(a)}];", indent)

    def triggers(self, sid: str, indent: int, rep: dict[str, str]) -> None:
        """Interrupts: the ones that run this sequence above its start; the ones its steps may fire beside them
        (in a part of a sequence, those of its own steps)."""
        sources = trigger_sources(self.rs, sid)
        for t in self.rs.triggers:
            when = "at once" if t.timing == "now" else f"after the {t.after_kind or 'step'}"
            if t.run == sid and f"{sid}/start" in rep:
                name = f"trigger/{t.id}@{sid}/runs"
                self.trigger_node(name, t, [], True, indent)
                self.trig_edges.append((name, f"{sid}/start", {"label": f" {when}"}))
            steps = [p for p in sources.get(t.id, []) if self.opts.only is None or p in rep]
            if steps and self.opts.detail == "full":  # players find the interrupts in the index, each on its sheet
                name = f"trigger/{t.id}@{sid}"
                self.trigger_node(name, t, steps, False, indent)
                if len(steps) <= TRIGGER_EDGES_MAX:
                    for p in steps:
                        self.trig_edges.append((p, name, {}))

    def continued(self, rep: dict[str, str], e) -> Optional[tuple[str, str]]:
        """For the chart of one block: an edge between a step drawn here and one of the rest of the sequence
        becomes an edge from a "from sheet N" box or to a "back to sheet N" box; None for other edges."""
        if self.opts.only is None or e.kind in ("call", "end", "trigger"):
            return None
        own = self.g.sequences[self.sid]
        where = self.opts.only.ref
        if e.src in rep and e.dst in own and e.dst not in rep:
            name = f"{self.sid}/back"
            if name not in self.connectors:
                self.connector(name, f"back to {where}")
            return rep[e.src], name
        if e.dst in rep and e.src in own and e.src not in rep:
            name = f"{self.sid}/from"
            if name not in self.connectors:
                self.connector(name, f"from {where}")
            return name, rep[e.dst]
        return None

    def connector(self, name: str, text: str) -> None:
        self.connectors.add(name)
        a = {"id": self.svg_id(name), **CONNECTOR_SHAPE, "fontsize": "11", "label": html(f"<I>{esc(text)}</I>"),
             "tooltip": text}
        self.line(f"{quote(name)} [{attrs(a)}];")

    def fold_node(self, nid: str, indent: int) -> None:
        """A folded block: its step's words, and the sheet that draws it."""
        rows = self.body_rows(nid)
        ref, count = self.fold_ref[nid]
        if count > 1:
            rows[-1] += " …"
            after = "the step after it" if count == 2 else f"the {count - 1} steps after it"
            rows.append(f'<FONT POINT-SIZE="10">and {after}: see {esc(ref)}</FONT>')
        else:
            rows.append(f'<FONT POINT-SIZE="10">→ details on {esc(ref)}</FONT>')
        a = {"id": self.svg_id(nid), "tooltip": self.cite(nid), **FOLD_SHAPE, "style": "filled",
             "label": html("<BR/>".join(rows))}
        self.line(f"{quote(nid)} [{attrs(a)}];", indent)

    def edges(self, rep: dict[str, str]) -> None:
        self.connectors: set[str] = set()
        self.fold_edges: set[tuple[str, str]] = set()
        crossed: set[tuple[str, str]] = set()
        for e in self.g.edges_of(self.sid):  # the only edges that can start at a node drawn here
            across = self.continued(rep, e)
            if across is not None:
                if across not in crossed:  # several ways from one page to the other: one arrow
                    crossed.add(across)
                    self.edge(across[0], across[1], {"penwidth": "1.6", "weight": "4"})
                continue
            if e.src not in rep:
                continue
            src = rep[e.src]
            if e.kind == "call":
                continue  # a call box names the sheet of the sequence it runs
            if e.kind == "end":
                self.edge(src, self.ends[e.src], {"penwidth": "1.6", "weight": "4"})
                continue
            if e.dst not in rep or (rep[e.dst] == src and (e.kind == "next" or src in self.folded)):
                continue
            if src in self.case_of or rep[e.dst] in self.case_of:  # a table of cases: one plain arrow in, one out
                if rep[e.dst] == src or (src, rep[e.dst]) in self.fold_edges:
                    continue
                self.fold_edges.add((src, rep[e.dst]))
                if src in self.case_of:
                    e = type(e)(e.src, e.dst, "next", "")
            if src in self.folded or rep[e.dst] in self.folded:  # into or out of a folded block: one plain arrow
                if (src, rep[e.dst]) in self.fold_edges:
                    continue
                self.fold_edges.add((src, rep[e.dst]))
                if src in self.folded:
                    e = type(e)(e.src, e.dst, "next", "")
            if e.kind in ("yes", "no") and self.g.nodes[e.src].kind != "condition":  # a condition not drawn (its
                # branches only keep records: the edges that went through it start before it):
                if (src, rep[e.dst]) in self.fold_edges:  # its yes and its no are one plain arrow, never two labelled
                    continue
                self.fold_edges.add((src, rep[e.dst]))
                e = type(e)(e.src, e.dst, "next", "")
            a: dict = {}
            # Labels sit beside their edge (xlabel) or at its tail: neither takes a rank of its
            # own in the layout, which keeps the charts compact.
            if e.kind in ("yes", "no"):
                a.update(xlabel=html(f"<B>{esc(e.kind)}</B>"))
            elif e.kind == "break":
                a["style"] = "bold"
                if e.label != self.g.nodes[e.src].label:  # the step itself already says 'break NAME'
                    a["xlabel"] = f" {e.label} "
            elif e.kind == "repeat":
                if e.label:
                    a["xlabel"] = f" {e.label} "
                else:
                    a["color"] = "#555555"
            elif e.kind == "done":
                a["taillabel"] = "done"
            elif e.label:
                a["xlabel"] = f" {e.label} "
            if e.kind in ("next", "done", "no", "break") and _block_of(e.src) == _block_of(e.dst):
                a["weight"] = "4"  # each block's own line of steps runs straight down; branches go aside
            elif e.dst.startswith(e.src + "."):
                a["weight"] = "2"  # into a step's own body: the body hangs below it
            if e.kind == "next" and self.g.nodes[e.src].kind == "stack":  # the graph's label: played, resolve
                a.pop("xlabel", None)
                if e.label == "each card played":
                    a["taillabel"] = e.label
                else:
                    a["xlabel"] = f" {e.label or 'all resolved'} "
            self.edge(src, rep[e.dst], a)
        for src, dst, a in self.trig_edges:
            if src in rep:
                src = rep[src]
            self.edge(src, dst, {"style": "dashed", "arrowhead": "open", **a})


def _block_of(node_id: str) -> str:
    """The block a node's step sits in, from its path: 'seq/2.do.3' -> 'seq/2.do'; start, end and top level -> 'seq/'."""
    seq, _, pos = node_id.partition("/")
    if "." not in pos:
        return seq + "/"
    return seq + "/" + pos.rsplit(".", 1)[0]


def _basename(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]
