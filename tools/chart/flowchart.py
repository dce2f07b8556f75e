"""Flowcharts as DOT text: a pure function from the sequence graph (and a print plan) to Graphviz source.

One chart draws one sequence. Shapes say what a node is (see `legend.py`);
labels are the designers' own step labels, or the rule text itself in a fixed-width face
when a step has no label. Nothing here runs Graphviz (that is `dotrun`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Optional

from rulecraft.model import ruleset as M
from rulecraft.model.kinds import kind_of

from rulecraft.tools.chart.cases import case_runs, case_table
from rulecraft.tools.chart.coverage import Coverage
from rulecraft.tools.chart.dotlabels import attrs, code_lines, esc, html, quote, safe_id, text_lines
from rulecraft.tools.chart.flowedges import EdgesMixin, _basename
from rulecraft.tools.chart.folds import Fold, fold_map
from rulecraft.tools.chart.legend import CODE_FONT, FONT, SHAPES as _SHAPES, legend_body
from rulecraft.tools.chart.sheetplan import designer_label, step_numbers
from rulecraft.tools.words.players import offered, only_among
from rulecraft.tools.words import Words
from rulecraft.tools.words.bookkeeping import what_it_does
from rulecraft.tools.words.core import capital, sequence_title
from rulecraft.tools.words.text import unsaid_lead

# A construct's settings in words under its label, up to this many characters (longer: the label says it).
SETTINGS_MAX = 140


@dataclass(frozen=True)
class ChartOptions:
    sheet_of: Optional[Mapping[str, int]] = None  # sequence id -> sheet number, for cross-references
    coverage: Optional[Coverage] = None
    link: Optional[Callable[[str], Optional[str]]] = None  # sequence id -> href of its chart
    same_sheet: frozenset = frozenset()  # sequences printed on the same sheet ("on this sheet")
    legend: bool = False  # draw the legend under the chart
    id_prefix: str = ""  # prefix of the SVG element ids (several charts on one HTML page)
    fit: Optional[tuple[float, float]] = None  # (width, height) in inches: pack the layout to fit, shrink if needed
    wrap: float = 1.0  # wider (> 1) or narrower (< 1) text lines than usual
    spacing: float = 1.0  # the gaps between boxes (nodesep, ranksep) this much of the usual
    # drill-down charts (folds.py): blocks drawn as one box pointing to their own chart, and the one block
    # this chart draws (its ref: where the rest of the sequence is), entered and left through connector boxes
    folds: tuple = ()
    only: Optional[Fold] = None
    detail: str = "players"  # 'players': the rules in words; 'full': the rule text itself, for a designer
    cases: bool = False  # a long run of rules by case drawn as one table (cases.py), not a chain of diamonds


class _Chart(EdgesMixin):
    def __init__(self, rs: M.Ruleset, graph, sid: str, opts: ChartOptions):
        self.rs, self.g, self.opts = rs, graph, opts
        self.sid = sid
        self.here = {sid} | set(opts.same_sheet)
        self.out: list[str] = []
        # steps left out of the graph drawn (bookkeeping, in the players' view) take no number
        self.numbers = step_numbers(rs.sequences[sid], lambda s: s.path not in graph.nodes)
        self.words = Words(rs, detail=opts.detail)
        self.ends: dict[str, str] = {}  # node id -> its 'end game' (etc.) terminal
        self.trig_edges: list = []
        self.steps = {s.path: s for s in _walk(rs.sequences[sid].steps)}  # this sequence's steps
        self.edge_count = 0
        counts = [opts.coverage.count(n) for n in graph.sequences.get(sid, ())
                  if graph.nodes[n].step is not None] if opts.coverage else []
        counts = [c for c in counts if c > 0]
        self.cov_range = (min(counts, default=1), max(counts, default=1))
        self.reached = graph.flow_targets()
        self.ids = list(graph.sequences[sid])  # the nodes drawn: all, or those of one block
        if opts.only is not None:
            self.ids = [n for n in self.ids if opts.only.holds(n)]
        self.folded = fold_map(self.ids, opts.folds)  # node -> the folded step drawn in its place
        self.case_of = self.case_tables() if opts.cases else {}  # node -> the table of cases that draws it
        self.fold_ref = {f.path: (f.ref, len(f.steps)) for f in opts.folds}

    # ------------------------------------------------------------------ helpers
    def line(self, text: str, indent: int = 1) -> None:
        self.out.append("  " * indent + text)

    def title(self, sid: str) -> str:
        return sequence_title(self.rs.sequences[sid]) if sid in self.rs.sequences else sid

    def sheet_ref(self, sid: str) -> str:
        title = self.title(sid)
        if sid in self.here and self.opts.sheet_of is not None:
            return f"{title}, on this sheet"
        n = (self.opts.sheet_of or {}).get(sid)
        return f"{title}, sheet {n}" if n else title

    def w(self, chars: int) -> int:
        """A wrapping width, in characters, after the chart's wrap factor."""
        return max(12, round(chars * self.opts.wrap))

    def svg_id(self, name: str) -> str:
        return safe_id(self.opts.id_prefix + name)

    def cite(self, nid: str) -> str:
        node = self.g.nodes[nid]
        seq = self.rs.sequences.get(node.sequence)
        parts = []
        num = self.numbers.get(nid)
        if num:
            parts.append(f"step {num} of {sequence_title(seq) if seq else node.sequence}")
        if self.opts.detail != "full":  # players' charts cite no sources or files
            return " · ".join(parts) or " "
        parts.append(node.source or (seq.source if seq else "") or "")
        span = node.step.span if node.step is not None else (seq.span if seq else None)
        if span is not None:
            parts.append(f"{_basename(span.file)}:{span.line}")
        return " · ".join(p for p in parts if p)

    # ------------------------------------------------------------------ node labels
    def body_rows(self, nid: str) -> list[str]:
        """The text lines of a step node (HTML-label fragments), number first."""
        node = self.g.nodes[nid]
        step = node.step
        num = self.numbers.get(nid, "")
        designer = bool(designer_label(step))
        text = self.words.label(node.label) if designer else node.label
        if self.opts.detail != "full" and step is not None and not designer:
            text, designer = self.words.step(step, own_label=False), True
        elif self.opts.detail != "full" and _asks(step) and "?" not in text:
            # a label that asks its question and says what a yes does ('Rolled a double? Take a Boost') is kept:
            # the aid prints it so, and the sheet must not ask another question in its place
            from rulecraft.tools.words.labels import condition_question

            text = condition_question(self.words, step) or text  # a statement is no question for yes and no
        if node.kind in ("loop", "foreach", "decision", "sealed", "stack", "auction", "respond", "trick") and not designer:
            designer = True  # a prompt, or the graph's own wording ("for each p in ..."), reads as prose
        targets = self.calls(nid)
        if node.kind == "call" and not designer and len(targets) == 1:
            rows = [f"<B>{r}</B>" for r in text_lines(self.title(targets[0]), self.w(30))]
        else:
            # a diamond or parallelogram is about twice as wide as its text: wrap those narrower
            narrow = node.kind in ("condition", "decision", "sealed")
            rows = (text_lines(text, self.w(22 if narrow else 30)) if designer
                    else code_lines(text, self.w(24 if narrow else 36), CODE_FONT))
        if num:
            rows[0] = f'<B>{esc(num)}</B>  {rows[0]}'
        rows += self.extra_rows(node, text)
        return rows

    def extra_rows(self, node, text: str = "") -> list[str]:
        step = node.step
        small: list[str] = []
        targets = self.calls(node.id)
        if node.kind == "call" and not designer_label(step) and len(targets) == 1:
            n = (self.opts.sheet_of or {}).get(targets[0])
            if targets[0] in self.here and self.opts.sheet_of is not None:  # a standalone chart has no sheets
                small.append("→ on this sheet")
            elif n:
                small.append(f"→ sheet {n}")
        else:
            small += [f"→ {self.sheet_ref(t)}" for t in targets]
        full = self.opts.detail == "full"
        kind = kind_of(step) if step is not None else None
        if kind is not None and kind.notes is not None:  # what its kind says under its box (who decides, ...)
            small += kind.notes(step, self.words, text, designer_label(step), full)
        if not full and node.kind == "decision" and (choices := offered(self.words, getattr(step, "decision", None), text)):
            small.append(f"choices: {choices}")  # as the aid says them ('How it is decided')
        elif not full and node.kind == "decision" and (among := only_among(self.words, getattr(step, "decision", None))):
            small.append(among.strip()[1:-1])  # 'a levee where Water for the levee is more than 0': who may be picked
        elif not full and node.kind == "condition" and (said := self.words.label(designer_label(step))) \
                and text and said != text:  # a label that asks nothing gave way to the question: the aid's words
            small.append(said)
        elif isinstance(step, M.ConstructStep) and designer_label(step):
            # the designer's label says what; the rule in words says how (players: when it says it briefly)
            how = step.rule if full else self.words.step(step, own_label=False)
            if full or len(how) <= SETTINGS_MAX:
                small.append(how)
            elif lead := unsaid_lead(text, how):  # 'who leads the next trick?', which the label leaves out
                small.append(capital(lead))
        if not full and step is not None and (label := designer_label(step)) \
                and (does := what_it_does(self.words, step, self.words.label(label))):
            small.append(capital(does))  # what a label hides ('Step onto the ice'), as the aid says it after the label
        cov = self.opts.coverage
        if cov is not None and step is not None:
            n = cov.count(node.id)
            small.append("NEVER REACHED" if n == 0 else cov.per_game(node.id))
        width = self.w(24 if node.kind in ("condition", "decision", "sealed") else 40)
        return [f'<FONT POINT-SIZE="10">{ln}</FONT>' for s in small for ln in text_lines(s, width)]

    def calls(self, nid: str) -> list[str]:
        return [e.dst.split("/")[0] for e in self.g.out(nid) if e.kind == "call"]

    def coverage_style(self, nid: str) -> dict:
        cov = self.opts.coverage
        node = self.g.nodes[nid]
        if cov is None or node.step is None:
            return {}
        n = cov.count(nid)
        if n == 0:
            return {"color": "#b00000", "penwidth": "2.5", "fillcolor": "white", "fontcolor": "#b00000",
                    "style": "filled,dashed" + (",rounded" if node.kind in ("decision", "start", "end") else "")}
        return {"fillcolor": cov.shade(nid, *self.cov_range)}

    # ------------------------------------------------------------------ nodes
    def node(self, nid: str, indent: int) -> None:
        node = self.g.nodes[nid]
        kind = node.kind
        a: dict = {"id": self.svg_id(nid), "tooltip": self.cite(nid)}
        if kind == "start":
            seq = self.rs.sequences[node.sequence]
            sub = " · ".join(p for p in (seq.kind.replace("_", " "),
                                         _params(seq) if self.opts.detail == "full" else "") if p)
            a.update(shape="box", style="rounded,filled,bold", fillcolor="#d9d9d9", penwidth="2", margin="0.15,0.06",
                     label=html(f'<FONT POINT-SIZE="15"><B>{esc(sequence_title(seq))}</B></FONT>'
                                f'<BR/><FONT POINT-SIZE="10">{esc(sub)}</FONT>'))
        elif kind == "end":
            a.update(shape="box", style="rounded,filled", fillcolor="#d9d9d9", fontsize="10",
                     label=html(esc(node.label)), height="0.3")
        else:
            rows = self.body_rows(nid)
            if kind in ("action", "call"):  # boxes read like a rules page: lines flush left
                a["label"] = html("".join(r + '<BR ALIGN="LEFT"/>' for r in rows))
            else:
                a["label"] = html("<BR/>".join(rows))
            a.update(_SHAPES[kind])
            targets = self.calls(nid)
            if targets and self.opts.link and self.opts.link(targets[0]):
                a["href"] = self.opts.link(targets[0])
            a.update(self.coverage_style(nid))
        self.line(f"{quote(nid)} [{attrs(a)}];", indent)

    def block(self, chain: list[str], indent: int) -> None:
        """Consecutive plain actions as one box, a row per step (each row keeps its tooltip and coverage)."""
        cells = []
        for nid in chain:
            cov = self.opts.coverage
            cell: dict = {"ALIGN": "LEFT", "BALIGN": "LEFT", "TOOLTIP": self.cite(nid), "ID": self.svg_id(nid)}
            if cov is not None:
                cell["BGCOLOR"] = "white" if cov.count(nid) == 0 else cov.shade(nid, *self.cov_range)
            cells.append(f"<TR><TD {_html_attrs(cell)}>{'<BR/>'.join(self.body_rows(nid))}</TD></TR>")
        never = self.opts.coverage is not None and any(self.opts.coverage.count(n) == 0 for n in chain)
        a = {"id": self.svg_id(chain[0] + "+"), "tooltip": self.cite(chain[0]), "shape": "box", "margin": "0",
             "style": "filled" + (",dashed" if never else ""), "fillcolor": "white",
             "label": html('<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="4" ROWS="*">'
                           + "".join(cells) + "</TABLE>")}
        if never:
            a.update(color="#b00000", penwidth="2.5")
        self.line(f"{quote(chain[0])} [{attrs(a)}];", indent)

    # ------------------------------------------------------------------ the chart
    def chains(self, sid: str) -> dict[str, list[str]]:
        """Runs of plain actions joined by single 'next' edges: first node -> the run."""
        ids = self.ids
        outs = {nid: self.g.out(nid) for nid in ids}
        ins: dict[str, list] = {}
        for nid in ids:
            for e in outs[nid]:
                ins.setdefault(e.dst, []).append(e)
        plain = {nid for nid in ids if self.g.nodes[nid].kind == "action" and not self.calls(nid)
                 and nid not in self.folded and nid not in self.case_of}
        follows: dict[str, str] = {}
        for nid in plain:
            o = outs[nid]
            if len(o) == 1 and o[0].kind == "next" and o[0].dst in plain and len(ins.get(o[0].dst, [])) == 1:
                follows[nid] = o[0].dst
        heads = [nid for nid in ids if nid in follows and nid not in follows.values()]
        runs = {}
        for h in heads:
            run = [h]
            while run[-1] in follows:
                run.append(follows[run[-1]])
            runs[h] = run
        return runs

    def render(self) -> str:
        self.out = ["digraph flowchart {"]
        self.line(f'id={quote(self.svg_id("graph"))};')
        sep = self.opts.spacing
        self.line(f'graph [fontname="{FONT}", rankdir=TB, nodesep={round(0.3 * sep, 3):g}, '
                  f'ranksep={round(0.32 * sep, 3):g}, newrank=true, forcelabels=true, pad=0.2, tooltip=" "];')
        if self.opts.fit:
            self.line(f'graph [ratio=compress, size="{self.opts.fit[0]:.2f},{self.opts.fit[1]:.2f}"];')
        self.line(f'node [fontname="{FONT}", fontsize=11, shape=box, style=filled, fillcolor=white, '
                  f'margin="0.1,0.05", height=0.35];')
        self.line(f'edge [fontname="{FONT}", fontsize=10, arrowsize=0.7, penwidth=1.1, labeldistance=1.8, '
                  f'labelangle=-35];')
        rep: dict[str, str] = {}  # node id -> the DOT node that draws it
        runs = self.chains(self.sid)
        inside = {n for run in runs.values() for n in run[1:]}
        for nid in self.ids:
            if self.g.nodes[nid].kind == "end" and nid not in self.reached:
                continue  # nothing returns normally (a loop left only by ending the game)
            if nid in self.folded:
                rep[nid] = self.folded[nid]
                if nid == self.folded[nid]:
                    self.fold_node(nid, 1)
                continue
            if nid in self.case_of:
                rep[nid] = self.case_of[nid]
                if nid == self.case_of[nid]:
                    case_table(self, self.case_runs[nid], 1)
                continue
            if nid in runs:
                self.block(runs[nid], 1)
                for n in runs[nid]:
                    rep[n] = nid
            elif nid not in inside:
                self.node(nid, 1)
                rep[nid] = nid
        self.terminals(self.sid, 1)
        self.beside(rep)
        self.triggers(self.sid, 1, rep)
        self.edges(rep)
        if self.opts.legend:
            self.out.extend("  " + ln for ln in legend_body(self.opts.coverage is not None, self.svg_id("legend"),
                                                            sheets=self.opts.sheet_of is not None))
            last = [n for n in rep.values() if self.g.nodes[n].kind == "end"] or list(rep.values())[-1:]
            for n in last:  # keeps the legend under the chart, not beside it
                self.line(f'{quote(n)} -> "legend/step" [style=invis];')
        self.out.append("}")
        return "\n".join(self.out) + "\n"

    def case_tables(self) -> dict[str, str]:
        """Each long run of rules by case drawn here whole (nothing of it folded, each case's step a plain box):
        every step of it -> its first step, which names the table."""
        drawn, out = set(self.ids), {}
        self.case_runs: dict[str, list] = {}
        for run in case_runs(self.rs.sequences[self.sid].steps):
            paths = [p for s in run for p in (s.path, s.then[0].path)]
            if all(p in drawn and p not in self.folded for p in paths) and all(
                    self.g.nodes[s.then[0].path].kind in ("action", "call") for s in run):
                out.update({p: run[0].path for p in paths})
                self.case_runs[run[0].path] = run
        return out

    def beside(self, rep: dict[str, str]) -> None:
        """An 'if' whose 'then' is one box and no 'else': the box goes beside the condition, not under it.

        A run of such rules (a rule per case) then takes one rank per case instead of two.
        """
        self.flat: set[tuple[str, str]] = set()
        for s in self.steps.values():
            blocks = [body for _name, body in s.bodies]
            if (not _asks(s) or len(blocks[0]) != 1 or any(blocks[1:]) or blocks[0][0].bodies
                    or s.path not in rep or not s.path.startswith(self.sid + "/") or s.path in self.folded):
                continue
            inner = blocks[0][0].path
            if rep.get(inner) != inner or self.g.nodes[inner].kind in ("decision", "sealed"):
                continue
            self.line(f"{{ rank=same; {quote(rep[s.path])}; {quote(inner)} }}")
            self.flat.add((s.path, inner))

def _walk(steps):
    for s in steps:
        yield s
        for _name, body in s.bodies:
            yield from _walk(body)


def _params(seq: M.SequenceDef) -> str:
    return f"with {', '.join(seq.params)}" if seq.params else ""


def _html_attrs(a: dict) -> str:
    return " ".join(f'{k}="{esc(str(v))}"' for k, v in a.items())


def chart_dot(rs: M.Ruleset, graph, sequence: str, opts: ChartOptions = ChartOptions()) -> str:
    """The DOT source of one sequence's chart, with cross-references to sheets and the overlays asked for."""
    if sequence not in rs.sequences:
        raise KeyError(sequence)
    return _Chart(rs, graph, sequence, opts).render()


def _asks(step: Optional[M.Step]) -> bool:
    """A step whose box asks yes or no of its condition (its kind's `question`: an 'if')."""
    kind = kind_of(step) if step is not None else None
    return kind is not None and kind.question
