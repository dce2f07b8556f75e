"""Sheets onto pages: which charts share a page, where each goes, and the caption that says whose it is.

The charts keep their reading order. The page breaks are the fewest pages at which every chart prints at
MIN_SCALE or more, and among those the ones that cut the fewest sheets between two pages (`paginate`, a
shortest path over the break points). The title page's foot, under the index and the legend, takes the first
charts when they fit. On a page that holds charts of more than one sheet each sheet's first chart carries a
caption ('Sheet 12 · Market Phase') over a thin rule, so a reader always knows which chart is which sheet.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from rulecraft.tools.print.sheetlayout import (FOOTER, HEADER, MARGIN, MAX_SCALE, MIN_SCALE, Fronts, PagePlan, best,
                                               caption_room, choose, places, shapes)

CAPTION_PT = 9.0  # a chart's caption, bold
LEAD_MOST = 1.0  # the title page's charts (and the legend) print at their natural size at most, as its index does
MAX_PER_PAGE = 12  # charts a page may take (a bound on the search, never reached by a legible page)


@dataclass(frozen=True)
class Page:
    """The charts of one page: items [first, end) of the flat reading order, and whether they carry captions."""
    first: int
    end: int
    captions: bool


def box(page: tuple[float, float]) -> tuple[float, float]:
    """The room for charts on a sheet page: inside the margins, under the heading, over the footer."""
    return (page[0] - 2 * MARGIN, page[1] - 2 * MARGIN - HEADER - FOOTER)


class Paging:
    """The flat list of charts in reading order (each with the index of its origin: a sheet, or a sheet's
    drill-down sheets, and the shapes it may be printed in) and the page breaks chosen for them."""

    def __init__(self, origins) -> None:
        self.origins = origins
        self.items = [(k, u) for k, o in enumerate(origins) for u in o.units]
        self.shapes = [[u, *u.alts] for _k, u in self.items]
        self._fronts: dict = {}

    def captioned(self, first: int, end: int, always: bool) -> list[bool]:
        """Which charts of a page carry a caption: where a page carries captions, the first chart of each sheet."""
        ks = [self.items[i][0] for i in range(first, end)]
        labels = [self.items[i][1].label for i in range(first, end)]
        if not (always or self._captions(first, end, False)):
            return [False] * len(ks)
        return [(i == 0 or labels[i] != labels[i - 1]) and not self.origins[ks[i]].legend for i in range(len(ks))]

    def fronts(self, first: int, room: tuple[float, float], captions: bool) -> Fronts:
        """The ways to set the charts from `first` on in the room (with captions or without)."""
        key = (first, room, captions)
        if key not in self._fronts:
            end = min(len(self.items), first + MAX_PER_PAGE)
            caps = self.captioned(first, end, True) if captions else [False] * (end - first)
            extra = caption_room()
            options = tuple(tuple((u.natural()[0], u.natural()[1] + (extra if c else 0.0)) for u in self.shapes[i])
                            for i, c in zip(range(first, end), caps))
            self._fronts[key] = Fronts(options, room[0] / MIN_SCALE, room[1] / MIN_SCALE)
        return self._fronts[key]

    def _captions(self, first: int, end: int, always: bool) -> bool:
        """Whether a page's charts carry captions: on the title page, and where they belong to more than one sheet
        (a drill-down sheet, '7a', is a sheet of its own)."""
        return always or len({u.label for k, u in self.items[first:end] if not self.origins[k].legend}) > 1

    def _least_area(self, first: int, end: int) -> float:
        return sum(min(u.natural()[0] * u.natural()[1] for u in self.shapes[i]) for i in range(first, end))

    def _ends(self, first: int, room, always: bool, most: float = MAX_SCALE) -> list[tuple[int, float]]:
        """The ends a page beginning at `first` may have (every chart at MIN_SCALE or more), with the scale each
        prints at."""
        out = []
        for end in range(first + 1, min(len(self.items), first + MAX_PER_PAGE) + 1):
            if self._least_area(first, end) * MIN_SCALE ** 2 > room[0] * room[1]:
                break
            got = best(self.fronts(first, room, self._captions(first, end, always)).page(end - first), room, most)
            if got is not None:
                out.append((end, got[0]))
        if not out and most == MAX_SCALE:  # a chart too big even alone still gets a page (printed smaller)
            out.append((first + 1, MIN_SCALE))
        return out

    def _cuts(self, end: int) -> int:
        """1 when a page break before item `end` cuts a sheet's charts apart."""
        return int(0 < end < len(self.items) and self.items[end - 1][0] == self.items[end][0])

    def paginate(self, page: tuple[float, float], lead: Optional[tuple[float, float]] = None):
        """(charts on the title page's foot: a Page or None, the sheet pages in order): the fewest pages, then the
        fewest sheets cut between pages, then the charts printed largest (the sum of the pages' log scales)."""
        n, room = len(self.items), box(page)
        cost: list = [None] * (n + 1)  # cost[i]: ((pages, cuts, -sum of log scales), next break) for items i..
        cost[n] = ((0, 0, 0.0), None)
        for i in range(n - 1, -1, -1):
            for end, scale in self._ends(i, room, False):
                c = cost[end][0]
                c = (c[0] + 1, c[1] + self._cuts(end), c[2] - math.log(min(scale, 1.0)))
                if cost[i] is None or c < cost[i][0]:
                    cost[i] = (c, end)
        start = 0
        if lead is not None and lead[0] > 0 and lead[1] > 0:
            best_cost = cost[0][0][:2]
            for end, _scale in self._ends(0, lead, True, LEAD_MOST):
                c = (cost[end][0][0], cost[end][0][1] + self._cuts(end))
                if c <= best_cost:  # as many pages or fewer: the title page's room is used
                    best_cost, start = c, end
        head = Page(0, start, True) if start else None
        pages, i = [], start
        while i < n:
            end = cost[i][1]
            pages.append(Page(i, end, self._captions(i, end, False)))
            i = end
        return head, pages


def place(paging: Paging, pg: Page, room: tuple[float, float], left: float, top: float, size,
          most: float = MAX_SCALE) -> PagePlan:
    """A page's charts in its room (its top-left corner at left, top), each in the shape that prints the page
    largest, with their captions and rules."""
    fr = paging.fronts(pg.first, room, pg.captions)
    got = best(fr.page(pg.end - pg.first), room, most)
    options = fr.options[:pg.end - pg.first]
    if got is None:  # too big even at MIN_SCALE: as large as it fits
        got = choose(options, room)
    scale, tree = got
    chosen = shapes(tree)
    spots, rooms = places(options, tree, scale, room[0])
    caps = paging.captioned(pg.first, pg.end, pg.captions)
    plan = PagePlan(size, [], [], scale)
    begun = {k for k, _u in paging.items[:pg.first]}
    for i, (c, (x, y), wide) in enumerate(zip(caps, spots, rooms)):
        k, _u = paging.items[pg.first + i]
        u = paging.shapes[pg.first + i][chosen[i]]
        h = options[i][chosen[i]][1]
        cap = caption_room() * scale if c else 0.0
        plan.parts.append((u.piece, scale / u.shrink, left + x, top - y - h * scale))
        if c:
            text = caption(paging.origins[k], u, k in begun, wide)
            base = top - y - cap + 2.5  # just over the chart's top
            plan.notes.append((left + x, base, CAPTION_PT, text, True, 0))
            if y > 1:  # a rule over each caption but those at the top of the room
                plan.rules.append((left + x, left + x + wide, min(top - y, base + CAPTION_PT + 3)))
    return plan


def caption(origin, unit, continued: bool, wide: float) -> str:
    """'Sheet 12 · Market Phase' (or its sheet alone when the title would not fit over the chart)."""
    from rulecraft.tools.print.pdfcompose import text_width

    head = f"Sheet {unit.label}"
    title = origin.title if origin.numbers else f"details of sheet {origin.number}"
    text = f"{head} · {title}" + (", continued" if continued else "")
    for cand in (text, f"{head}, continued" if continued else head):
        if text_width(cand, CAPTION_PT, bold=True) <= max(wide, 60.0):
            return cand
    return head


def heading(paging: Paging, pg: Page):
    """A sheet page's heading: (label '11–12', title, the sheets it begins, the first origin, its own sub-line)."""
    items = [(k, u) for k, u in paging.items[pg.first:pg.end] if not paging.origins[k].legend] \
        or paging.items[pg.first:pg.end]
    ks = list(dict.fromkeys(k for k, _u in items))
    begun = {k for k, _u in paging.items[:pg.first]}
    titles = [paging.origins[k].title + (", continued" if k in begun else "") for k in ks]
    numbers = [n for k in ks if k not in begun for n in paging.origins[k].numbers]
    first, last = items[0][1].label, items[-1][1].label
    label = first if first == last else f"{first}–{last}"
    lone = len(ks) == 1 and ks[0] not in begun
    return label, "; ".join(titles), numbers, paging.origins[ks[0]], paging.origins[ks[0]].sub if lone else ""
