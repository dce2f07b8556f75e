"""The page geometry of the sheets and how charts share a page (`arrange`).

The smallest text of a chart is CHART_MIN_PT; printed at MIN_SCALE or more it stays at or
above `LEGIBLE_PT` on paper. A chart is never cut across pages: one too big for a legible
page is drawn with a block folded onto a drill-down sheet (`sheetfold`).
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


@dataclass
class PagePlan:
    size: tuple[float, float]
    parts: list = field(default_factory=list)  # (piece, scale, x, y) as for Composer.add_page
    notes: list = field(default_factory=list)  # (x, y, size, text, bold, gray) as for text_ops
    scale: float = 1.0  # the scale the charts print at (natural size = 1)


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
