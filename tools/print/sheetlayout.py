"""Legible pages for a sheet: its charts at no less than the legible scale, a tall chart cut across pages.

The smallest text of a chart is CHART_MIN_PT; printed at MIN_SCALE or more it stays at or
above `LEGIBLE_PT` on paper. A sheet whose charts would print smaller is laid out again:
its charts at their natural layout, a page (or more) each; a chart taller than a page is cut
between two rows of boxes (never through a box) and continued on the next page, with a
"continued" note at the cut on both pages.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from rulecraft.tools.print.pdfcompose import Piece
from rulecraft.tools.print.pdfmeasure import LEGIBLE_PT

MARGIN = 28.0
HEADER = 52.0  # the band above the chart
FOOTER = 22.0  # the band below it
MAX_SCALE = 1.3  # a small chart is enlarged at most this much (its text would look shouted)
CHART_MIN_PT = 10.0  # the smallest type a chart uses (step notes, edge labels, the legend)
MIN_SCALE = LEGIBLE_PT / CHART_MIN_PT
DOT_PAD = 50.4  # where a natural-size drawing starts in its PDF: the cairo page margin (36) and pad=0.2 inch
NOTE = 14.0  # room for a "continued" note at the top or foot of a cut chart


@dataclass
class PagePlan:
    size: tuple[float, float]
    parts: list = field(default_factory=list)  # (piece, scale, x, y) as for Composer.add_page
    notes: list = field(default_factory=list)  # (x, y, size, text, bold, gray) as for text_ops
    scale: float = 1.0  # the scale the charts print at (natural size = 1)
    continued: bool = False  # a page that goes on from the page before


def _gaps(boxes: dict, height: float) -> list[float]:
    """Heights (from the drawing's top, natural points) where a horizontal cut crosses no box."""
    spans = sorted(((height - (DOT_PAD + y1)), (height - (DOT_PAD + y0))) for x0, y0, x1, y1 in boxes.values())
    cuts, reach = [], 0.0
    for top, bottom in spans:
        if top > reach + 4:
            cuts.append((reach + top) / 2)
        reach = max(reach, bottom)
    return cuts


def _orientation(portrait, w: float, h: float, margin: float, head: float) -> tuple[tuple[float, float], float]:
    """The page and scale for a chart of natural size w x h: the fewest pages at a legible scale,
    then as large as those pages allow (never above natural size)."""
    best = None
    for page in (portrait, (portrait[1], portrait[0])):
        box_w, room = page[0] - 2 * margin, page[1] - 2 * margin - head - 2 * NOTE
        fit_w = min(1.0, box_w / w)
        if fit_w < MIN_SCALE:
            key = (1, -fit_w)  # too wide either way: the wider page shrinks it least
            s = fit_w
        else:
            n = math.ceil(h * MIN_SCALE / room)
            s = max(MIN_SCALE, min(fit_w, (n * room / h) * (0.9 if n > 1 else 1.0)))
            key = (0, n)
        if best is None or key < best[0]:
            best = (key, page, s)
    return best[1], best[2]


def tile_chart(piece: Piece, boxes: dict, portrait: tuple[float, float], margin: float, header: float,
               footer: float) -> list[PagePlan]:
    """One chart (at its natural layout) on as many pages as it needs at a legible scale."""
    w, h = piece.size
    page, s = _orientation(portrait, w, h, margin, header + footer)
    room = page[1] - 2 * margin - header - footer - 2 * NOTE
    if h * s <= room + 2 * NOTE:  # fits on one page
        return [_one(page, piece, s, margin, header, piece.box)]
    cuts = _gaps(boxes, h) + [h]
    plans, top = [], 0.0
    while top < h - 1:
        limit = top + room / s
        left = math.ceil((h - top) / (room / s))  # pages still needed: cut near an even share of what is left
        aim = top + (h - top) / max(1, left)
        fit = [c for c in cuts if top + 20 < c <= limit]
        bottom = max(fit) if fit else min(h, limit)  # fill the page; no gap at all: cut through
        if fit and 0 < h - bottom < 0.3 * room / s:  # ... unless that leaves a scrap: share out what is left
            bottom = min(fit, key=lambda c: (abs(c - aim), -c))
        if h - bottom < 1:
            bottom = h
        x0, y0, x1, y1 = piece.box
        rect = (x0, y1 - bottom, x1, y1 - top)
        plan = _one(page, Piece(piece.page, rect), s, margin, header + (NOTE if top else 0), rect)
        plan.continued = bool(top)
        plans.append(plan)
        top = bottom
    for i, plan in enumerate(plans):
        box_top = page[1] - margin - header
        if i:
            plan.notes.append((margin, box_top - 11, 9, f"continued from the page before ({i + 1} of {len(plans)})", True, 0.3))
        if i < len(plans) - 1:
            y = plan.parts[0][3] - 12
            plan.notes.append((margin, y, 9, f"continued on the next page ({i + 2} of {len(plans)})", True, 0.3))
    return plans


def _one(page, piece: Piece, s: float, margin: float, header: float, rect) -> PagePlan:
    w, h = rect[2] - rect[0], rect[3] - rect[1]
    box_top = page[1] - margin - header
    x = margin + (page[0] - 2 * margin - w * s) / 2
    return PagePlan(page, [(piece, s, x, box_top - h * s)], [], s)


# ----------------------------------------------------------------------------- arranging charts on a page


GAP = 16.0  # between two charts on one sheet, in points on paper


def _groupings(k: int):
    """Ways to cut k charts, kept in order, into consecutive groups (all of them for a handful)."""
    if k <= 9:
        for mask in range(1 << (k - 1)):
            groups, cur = [], [0]
            for i in range(1, k):
                if mask >> (i - 1) & 1:
                    groups.append(cur)
                    cur = []
                cur.append(i)
            groups.append(cur)
            yield groups
    else:
        for n in range(1, k + 1):
            size = -(-k // n)
            yield [list(range(i, min(k, i + size))) for i in range(0, k, size)]


def arrange(sizes: list[tuple[float, float]], box: tuple[float, float]):
    """The largest common scale at which the charts fit the box, in columns or in rows, and where each goes.

    Returns (scale, [(x, y_from_top), ...]) with positions relative to the box's top-left corner.
    """
    bw, bh = box
    best = None
    for groups in _groupings(len(sizes)):
        for mode in ("columns", "rows"):
            across = [max((sizes[i][0] if mode == "columns" else sizes[i][1]) for i in g) for g in groups]
            along = [sum((sizes[i][1] if mode == "columns" else sizes[i][0]) for i in g) for g in groups]
            lim_across, lim_along = (bw, bh) if mode == "columns" else (bh, bw)
            s = (lim_across - GAP * (len(groups) - 1)) / sum(across)
            for g, length in zip(groups, along):
                s = min(s, (lim_along - GAP * (len(g) - 1)) / length)
            s = min(s, MAX_SCALE)
            if best is None or s > best[0] + 1e-6:
                best = (s, mode, groups, across)
    s, mode, groups, across = best
    places: list = [None] * len(sizes)
    total_across = sum(a * s for a in across) + GAP * (len(groups) - 1)
    offset = ((bw if mode == "columns" else bh) - total_across) / 2 if mode == "columns" else 0.0
    for g, a in zip(groups, across):
        pos = 0.0
        for i in g:
            w, h = sizes[i][0] * s, sizes[i][1] * s
            if mode == "columns":
                places[i] = (offset + (a * s - w) / 2, pos)
                pos += h + GAP
            else:
                places[i] = (pos, offset)
                pos += w + GAP
        offset += a * s + GAP
    if mode == "rows":  # centre each row across the page
        for g in groups:
            row_w = sum(sizes[i][0] * s for i in g) + GAP * (len(g) - 1)
            for i in g:
                places[i] = (places[i][0] + (bw - row_w) / 2, places[i][1])
    return s, places


def orient(portrait: tuple[float, float], sizes: list[tuple[float, float]]):
    """The page (portrait or landscape) on which the charts come out largest, with their scale and places."""
    best = None
    for page in (portrait, (portrait[1], portrait[0])):
        scale, places = arrange(sizes, (page[0] - 2 * MARGIN, page[1] - 2 * MARGIN - HEADER - FOOTER))
        if best is None or scale > best[1] * 1.03:  # landscape only when clearly better
            best = (page, scale, places)
    return best


def layout_pages(rs, graph, plan, portrait, coverage, chart_of, shrunk, halves, detail) -> list:
    """Every sheet's pages (PagePlans): its charts together at the largest scale, or, where that prints
    text below the legible size, each chart at its natural layout on as many pages as it needs."""
    from rulecraft.tools.chart.dotrun import run_dot_layout, run_many
    from rulecraft.tools.chart.flowchart import ChartOptions, chart_dot
    from rulecraft.tools.print.pdfcompose import read_page

    out, small = [], []
    for sheet in plan.sheets:
        groups = ([[half] for half in halves[sheet.main]] if sheet.main in halves
                  else [[(chart_of[sid], shrunk[sid]) for sid in sheet.sequences]])
        pages = []
        for charts in groups:
            natural = [(piece.size[0] / k, piece.size[1] / k) for piece, k in charts]
            size, scale, places = orient(portrait, natural)
            box_top = size[1] - MARGIN - HEADER
            parts = [(piece, scale / k, MARGIN + x, box_top - y - h * scale)
                     for (piece, k), (x, y), (_w, h) in zip(charts, places, natural)]
            pages.append(PagePlan(size, parts, [], scale))
        if min(p.scale for p in pages) < MIN_SCALE - 1e-6:
            small.append(len(out))
        out.append(pages)
    if small:
        sids = [sid for i in small for sid in plan.sheets[i].sequences]
        jobs = [(chart_dot(rs, graph, sid, ChartOptions(detail=detail, sheet_of=plan.sheet_of, coverage=coverage,
                                                        same_sheet=frozenset(plan.sheet(plan.sheet_of[sid]).sequences))),
                 "pdf") for sid in sids]
        drawn = dict(zip(sids, run_many(jobs, fn=run_dot_layout)))
        # too wide for a landscape page at a legible scale: wrap the text narrower
        widest = (portrait[1] - 2 * MARGIN) / MIN_SCALE
        wide = [sid for sid in sids if read_page(drawn[sid][0]).size[0] > widest]
        again = run_many([(chart_dot(rs, graph, sid, ChartOptions(
            detail=detail, sheet_of=plan.sheet_of, coverage=coverage, wrap=0.6,
            same_sheet=frozenset(plan.sheet(plan.sheet_of[sid]).sequences))), "pdf") for sid in wide], fn=run_dot_layout)
        for sid, (pdf, k, boxes) in zip(wide, again):
            if read_page(pdf).size[0] < read_page(drawn[sid][0]).size[0]:
                drawn[sid] = (pdf, k, boxes)
        for i in small:
            out[i] = pack([(sid, read_page(drawn[sid][0]), drawn[sid][2]) for sid in plan.sheets[i].sequences],
                           portrait, tile_chart, MIN_SCALE)
    return out


def pack(charts, portrait, tile_chart, min_scale) -> list:
    """Charts in order on as few pages as keep them legible: consecutive ones share a page while they fit
    at `min_scale`; one that fits no page alone is cut across pages."""
    pages, group = [], []

    def flush():
        if not group:
            return
        if len(group) == 1:
            _sid, piece, boxes = group[0]
            pages.extend(tile_chart(piece, boxes, portrait, MARGIN, HEADER, FOOTER))
        else:
            size, scale, places = orient(portrait, [g[1].size for g in group])
            box_top = size[1] - MARGIN - HEADER
            pages.append(PagePlan(size, [(piece, scale, MARGIN + x, box_top - y - piece.size[1] * scale)
                                         for (_sid, piece, _b), (x, y) in zip(group, places)], [], scale))
        group.clear()

    for chart in charts:
        if group and orient(portrait, [g[1].size for g in group + [chart]])[1] < min_scale:
            flush()
        group.append(chart)
    flush()
    return pages
