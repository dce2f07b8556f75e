"""Every sheet's charts, drawn: a chart too big for a legible page drawn with a block folded into one box that
opens its own chart (a drill-down sheet '7a' after sheet 7), never sliced across pages; then every chart in
other shapes too (wider, narrower), for the page layout (`sheetpaging`) to choose from.

The charts are drawn by Graphviz in rounds (all of a round at once, in a process per core): first every
sequence; then, for each chart still too small, its next fold (`folds.choose_fold`) and the chart of that block;
then the shapes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from rulecraft.tools.chart.folds import Fold
from rulecraft.tools.print.sheetlayout import FOOTER, GAP, HEADER, MARGIN, MIN_SCALE, arrange
from rulecraft.tools.words.core import sequence_title

FOLD_ROUNDS = 6  # at most this many rounds of folding (each round folds one more block of each small chart)
RETRY_WRAPS = (0.7, 1.4)  # a chart still too small after folding is drawn again with its text wrapped so


@dataclass
class Unit:
    """One chart to print: a sequence, or one block of it (`only`), with the blocks folded out of it."""
    sid: str
    only: Optional[Fold] = None
    folds: tuple = ()
    label: str = ""  # its sheet label ('7', '7a')
    wrap: float = 1.0  # text lines wider (> 1) or narrower (< 1) than usual
    spacing: float = 1.0  # the gaps between boxes, this much of the usual
    cases: bool = True  # a long run of rules by case drawn as a table (chart/cases.py), not a tall chain
    fit: Optional[tuple] = None  # (width, height) in points to draw it into (Graphviz's size), if not the page's
    alts: list = field(default_factory=list)  # the same chart drawn in other shapes (Units), for the page layout
    piece: object = None
    shrink: float = 1.0

    def natural(self) -> tuple[float, float]:
        return (self.piece.size[0] / self.shrink, self.piece.size[1] / self.shrink)


@dataclass
class SheetPages:
    label: str  # '7' or '7a'
    title: str
    sub: str
    pages: list = field(default_factory=list)  # PagePlans
    number: int = 0  # the plan's sheet number (the first, on a shared page)
    numbers: list = field(default_factory=list)  # the plan's sheets on these pages ([] for drill-down sheets)
    units: list = field(default_factory=list)  # the charts, for a sheet of one page
    legend: bool = False  # the legend of the shapes (printed among the charts, under the index if there is room)


def _box(page) -> tuple[float, float]:
    return (page[0] - 2 * MARGIN, page[1] - 2 * MARGIN - HEADER - FOOTER)


def _scale(units, page) -> tuple[float, list]:
    return arrange([u.natural() for u in units], _box(page))


def _draw(rs, graph, plan, units, page, coverage, detail, alone: bool, box=None) -> None:
    from rulecraft.tools.chart.dotrun import run_layouts
    from rulecraft.tools.chart.flowchart import ChartOptions, chart_dot
    from rulecraft.tools.print.pdfcompose import read_page

    box = box or _box(page)
    fit = (box[0] / 72, box[1] / 72)
    jobs = []
    for u in units:
        mates = plan.sheet(plan.sheet_of[u.sid]).sequences
        size = (u.fit[0] / 72, u.fit[1] / 72) if u.fit else fit if alone or len(mates) == 1 else None
        jobs.append((chart_dot(rs, graph, u.sid, ChartOptions(
            detail=detail, sheet_of=plan.sheet_of, coverage=coverage, fit=size,
            same_sheet=frozenset(mates), folds=u.folds, only=u.only, wrap=u.wrap, spacing=u.spacing,
            cases=u.cases)), "pdf"))
    done = run_layouts([src for src, _fmt in jobs], "pdf", TIGHT)
    for u, (pdf, k, _boxes) in zip(units, done):
        u.piece, u.shrink = read_page(pdf), (k if k >= 1 else k * SHRINK_SAFETY)


SHRINK_SAFETY = 0.985  # Graphviz reports the factor it shrank a drawing by in few digits: count it a little smaller
# A chart's page is its drawing and a few points round it: no device margin (Graphviz's PDF has 36 points on
# every side by default), a pad of 0.06 inch (strokes at the edge of the layout stay whole).
TIGHT = ("margin=0", "pad=0.06")

# The other shapes a chart may be printed in, (text wrap, gaps between boxes): wider and lower, drawn into the
# page's width (to stack); narrower, drawn into half of it (to go two abreast).
WIDER = ((1.3, 0.85), (1.6, 0.85))
NARROWER = (0.65, 0.8)


def _tries(u: Unit, bw: float, bh: float) -> list[Unit]:
    """The other shapes worth drawing a chart in: wider (two wraps; a shape wider than the page at MIN_SCALE is
    dropped after drawing), and narrower unless it is narrow already."""
    w0 = u.natural()[0] * MIN_SCALE
    out = [Unit(u.sid, u.only, u.folds, u.label, wrap=u.wrap * w, spacing=sp,
                fit=(bw / MIN_SCALE, bh / MIN_SCALE)) for w, sp in WIDER]
    if w0 > bw / 4:
        out.append(Unit(u.sid, u.only, u.folds, u.label, wrap=u.wrap * NARROWER[0], spacing=NARROWER[1],
                        fit=((bw - GAP) / 2 / MIN_SCALE, bh / MIN_SCALE)))
    return out


def draw_shapes(rs, graph, plan, units, page, coverage=None, detail: str = "players") -> None:
    """Each chart drawn again in other shapes (all in one round), kept in `alts` where narrower or lower than it
    is; the page layout picks the shapes that print a page largest (a chart's words are the same in every shape)."""
    bw, bh = _box(page)
    tries = [_tries(u, bw, bh) for u in units]
    _draw(rs, graph, plan, [t for ts in tries for t in ts], page, coverage, detail, alone=True)
    for u, ts in zip(units, tries):
        (w, h) = u.natural()
        u.alts = [t for t in ts
                  if (t.natural()[0] < w - 1 or t.natural()[1] < h - 1) and t.natural()[0] * MIN_SCALE <= bw]


def _words(rs, path: str) -> str:
    from rulecraft.tools.words import Words

    from rulecraft.tools.chart.sheetplan import designer_label

    w = Words(rs, detail="players")
    for _seq, s in rs.iter_steps():
        if s.path == path:
            return w.label(designer_label(s)) or w.step(s, own_label=False)
    return path


def _need(scale: float) -> float:
    """The share of a chart's boxes to fold away so that it prints at MIN_SCALE (its area goes with its boxes)."""
    return min(0.8, max(0.2, 1 - (scale / MIN_SCALE) ** 2 + 0.1))


def _pack(units, page) -> list[list]:
    """Consecutive charts on as few pages as keep each legible."""
    pages, group = [], []
    for u in units:
        if group and _scale(group + [u], page)[0] < MIN_SCALE - 1e-6:
            pages.append(group)
            group = []
        group.append(u)
    if group:
        pages.append(group)
    return pages


def sheet_charts(rs, graph, plan, page, coverage=None, detail: str = "players") -> list[SheetPages]:
    """Each sheet with its charts drawn, then its drill-down sheets, in reading order (`sheetpaging` puts them
    on pages)."""
    from rulecraft.tools.chart.folds import choose_folds

    units = {sid: Unit(sid, label=str(plan.sheet_of[sid])) for sheet in plan.sheets for sid in sheet.sequences}
    _draw(rs, graph, plan, list(units.values()), page, coverage, detail, alone=False)
    groups: dict[int, list[list[Unit]]] = {}
    small: list[Unit] = []
    for sheet in plan.sheets:
        groups[sheet.number] = pages = _pack([units[sid] for sid in sheet.sequences], page)
        small += [g[0] for g in pages if len(g) == 1 and _scale(g, page)[0] < MIN_SCALE - 1e-6]
    subs: dict[int, list[Unit]] = {}
    letters: dict[int, int] = {}
    if small:  # a chart alone on its page is packed to the page's shape first
        _draw(rs, graph, plan, small, page, coverage, detail, alone=True)
        small = [u for u in small if _scale([u], page)[0] < MIN_SCALE - 1e-6]
    stuck: list[Unit] = []  # too small, and nothing left to fold
    for _round in range(FOLD_ROUNDS):
        redraw = []
        for u in small:
            paths = choose_folds(rs, graph, u.sid, u.only, u.folds, _need(_scale([u], page)[0]))
            n = plan.sheet_of[u.sid]
            for members in paths:
                letters[n] = letters.get(n, 0) + 1
                label = f"{n}{chr(ord('a') + letters[n] - 1)}"
                many = members if len(members) > 1 else ()
                u.folds = u.folds + (Fold(members[0], f"sheet {label}", many),)
                sub = Unit(u.sid, only=Fold(members[0], f"sheet {u.label}", many), label=label)
                subs.setdefault(n, []).append(sub)
                redraw.append(sub)
            if paths:
                redraw.append(u)
            else:
                stuck.append(u)
        if not redraw:
            small = []
            break
        _draw(rs, graph, plan, redraw, page, coverage, detail, alone=True)
        small = [u for u in redraw if _scale([u], page)[0] < MIN_SCALE - 1e-6]
    small = stuck + small
    if small:  # still a little small: the text wrapped narrower or wider may fit the page better
        tries = [Unit(u.sid, u.only, u.folds, u.label, wrap=w) for u in small for w in RETRY_WRAPS]
        _draw(rs, graph, plan, tries, page, coverage, detail, alone=True)
        for i, u in enumerate(small):
            best = max(tries[i * len(RETRY_WRAPS):(i + 1) * len(RETRY_WRAPS)], key=lambda t: _scale([t], page)[0])
            if _scale([best], page)[0] > _scale([u], page)[0]:
                u.piece, u.shrink, u.wrap = best.piece, best.shrink, best.wrap
    origins: list[SheetPages] = []  # each sheet, then its drill-down sheets, in reading order
    for sheet in plan.sheets:
        title = sequence_title(rs.sequences[sheet.main])
        origins.append(SheetPages(str(sheet.number), title, "", [], sheet.number, [sheet.number],
                                  [units[sid] for sid in sheet.sequences]))
        mine = sorted(subs.get(sheet.number, []), key=lambda x: (len(x.label), x.label))
        if mine:
            what = "; ".join(_words(rs, u.only.path) + (" …" if u.only.members else "") for u in mine)
            origins.append(SheetPages(mine[0].label, f"{title}: {what}",
                                      f"details of sheet {sheet.number} ({title}): each block drawn in full",
                                      [], sheet.number, [], mine))
    return origins
