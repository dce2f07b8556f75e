"""Drill-down charts: a block of a sequence folded into one box that points to its own chart.

A sequence too big for one legible page is never sliced across pages: a step that holds
others (an `if`, a loop, a `for_each`, a construct's parts) is drawn in its sequence's chart
as one box ("→ sheet 7a"), and on a sheet of its own as a chart of that block, entered from
a "from sheet 7" box and left through a "back to sheet 7" box (BPMN's collapsed
sub-process; Graphviz's linked sub-charts). `choose_fold` picks the block: one the designer
named (a step with a label that holds others) first, else the one nearest half the chart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from rulecraft.model import ruleset as M

FOLD_SHAPE = {"shape": "folder", "fillcolor": "#eef5ee", "margin": "0.12,0.06"}
CONNECTOR_SHAPE = {"shape": "cds", "style": "filled,bold", "fillcolor": "#eeeeee"}


@dataclass(frozen=True)
class Fold:
    path: str  # the step (its node id) whose block is drawn elsewhere: the first of `members`
    ref: str  # where: 'sheet 7a'
    members: tuple = ()  # a run of consecutive steps folded together (the layout's pick); () = just `path`

    @property
    def steps(self) -> tuple:
        return self.members or (self.path,)

    def holds(self, nid: str) -> bool:
        return any(under(nid, p) for p in self.steps)


def under(nid: str, path: str) -> bool:
    """Whether node `nid` is the step at `path` or inside it."""
    return nid == path or nid.startswith(path + ".")


def fold_map(ids, folds) -> dict[str, str]:
    """Node id -> the folded step drawn in its place, for the nodes inside folds."""
    out = {}
    for f in folds:
        for n in ids:
            if n not in out and f.holds(n):
                out[n] = f.path
    return out


def _steps(steps):
    for s in steps:
        yield s
        for _n, body in s.bodies:
            yield from _steps(body)


MIN_BLOCK = 4  # a block of fewer nodes is not worth a sheet of its own


def choose_folds(rs: M.Ruleset, graph, sid: str, only: Optional[Fold], folds, share: float) -> list[tuple]:
    """The steps whose blocks to fold next in the chart of `sid` (or of its block `only`) so that about `share`
    of its boxes leave it: blocks the designer named (a step with a label that holds others) first, then the
    largest that leave at least a few boxes behind; none that overlap."""
    from rulecraft.tools.chart.sheetplan import designer_label

    ids = [n for n in graph.sequences.get(sid, ()) if only is None or only.holds(n)]
    folded = fold_map(ids, folds)
    shown = [n for n in ids if n not in folded]
    total = len(shown)
    cands = []
    for s in _steps(rs.sequences[sid].steps):
        if not s.bodies or s.path not in graph.nodes or s.path in folded:
            continue
        if only is not None and (s.path in only.steps or not only.holds(s.path)):
            continue
        size = sum(1 for n in shown if under(n, s.path))
        if MIN_BLOCK <= size <= total - 3:
            cands.append((0 if designer_label(s) else 1, -size, s.path, size))
    chosen, gone = [], 0
    for _named, _neg, path, size in sorted(cands):
        if gone >= share * total:
            break
        if any(under(path, c) or under(c, path) for c in chosen) or gone + size > total - 3:
            continue
        chosen.append(path)
        gone += size - 1
    out = [(p,) for p in chosen]
    if gone < share * total:  # not enough in named or nested blocks: the layout picks a run of steps
        run = _run(rs, graph, sid, only, folded, chosen, share * total - gone, total)
        if run:
            out.append(run)
    return out


def _block_steps(rs: M.Ruleset, sid: str, only: Optional[Fold]) -> list:
    """The steps of the block a chart draws, in order: the sequence's own, or the largest body of its block."""
    steps = {s.path: s for s in _steps(rs.sequences[sid].steps)}
    if only is None:
        block = list(rs.sequences[sid].steps)
    elif len(only.steps) > 1:
        block = [steps[p] for p in only.steps if p in steps]
    else:
        step = steps.get(only.path)
        bodies = [body for _n, body in step.bodies] if step is not None else []
        block = list(max(bodies, key=len)) if bodies else []
    while len(block) == 1 and block[0].bodies:  # one step holding all the rest: its body is the block
        block = list(max((body for _n, body in block[0].bodies), key=len))
    return block


def _run(rs, graph, sid, only, folded, chosen, want: float, total: int) -> tuple:
    """Consecutive steps of the chart's block, none folded yet, holding about `want` boxes (at least two steps,
    leaving at least three boxes)."""
    steps = [s for s in _block_steps(rs, sid, only) if s.path in graph.nodes and s.path not in folded
             and not any(under(s.path, c) or under(c, s.path) for c in chosen)]
    ids = [n for n in graph.sequences.get(sid, ()) if n not in folded]
    size = {s.path: sum(1 for n in ids if under(n, s.path)) for s in steps}
    best, most = (), ()
    for i in range(len(steps)):
        got = 0
        for j in range(i, len(steps)):
            got += size[steps[j].path]
            if got > total - 3:
                break
            if j > i and (not most or got > most[0]):
                most = (got, tuple(s.path for s in steps[i:j + 1]))
            if j > i and got >= min(want, total - 3) and (not best or got < best[0]):
                best = (got, tuple(s.path for s in steps[i:j + 1]))
                break
    best = best or (most if most and most[0] >= MIN_BLOCK else ())  # short of the aim: the most that can go
    return best[1] if best else ()
