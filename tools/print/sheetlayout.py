"""The page geometry of the sheets and how charts share a page (`arrange`): shelves of columns, in reading order.

The smallest text of a chart is CHART_MIN_PT; printed at MIN_SCALE or more it stays at or
above `LEGIBLE_PT` on paper. A chart is never cut across pages: one too big for a legible
page is drawn with a block folded onto a drill-down sheet (`sheetfold`).

A page is laid out as a print designer lays out a page of figures: shelves from top to bottom, each shelf a
row of slots from left to right, each slot one chart or a few narrow charts stacked. Read slot by slot, shelf
by shelf, the charts keep their order. Gutters and caption room are counted in the charts' own units (at
MIN_SCALE they are GAP and CAPTION points), so one number, the page's scale, sizes everything on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rulecraft.tools.print.pdfmeasure import LEGIBLE_PT

MARGIN = 24.0  # about 8.5 mm: inside what office printers can print
HEADER = 43.0  # the band above the charts: the sheet's title (15 pt), a line or two of where it is called from, a rule
FOOTER = 16.0  # the band below them: the page's footer (8 pt)
MAX_SCALE = 1.3  # a small chart is enlarged at most this much (its text would look shouted)
CHART_MIN_PT = 10.0  # the smallest type a chart uses (step notes, edge labels, the legend)
MIN_SCALE = LEGIBLE_PT / CHART_MIN_PT
GAP = 14.0  # the gutter between two charts on a page, in points on paper at MIN_SCALE (more when printed larger)
CAPTION = 11.0  # the room above a chart for its caption ('Sheet 12 · Market Phase'), at MIN_SCALE


@dataclass
class PagePlan:
    size: tuple[float, float]
    parts: list = field(default_factory=list)  # (piece, scale, x, y) as for Composer.add_page
    notes: list = field(default_factory=list)  # (x, y, size, text, bold, gray) as for text_ops
    scale: float = 1.0  # the scale the charts print at (natural size = 1)
    rules: list = field(default_factory=list)  # (x0, x1, y) thin lines (over a caption)


# ----------------------------------------------------------------------------- arranging charts on a page
#
# Every way to set a run of charts is summed up by its outline (width, height) in the charts' units; of the
# ways with the same charts only those no other way beats in both width and height are kept (a Pareto front).
# A slot stacks charts; a shelf sets slots side by side; a page stacks shelves. A chart may come in several
# shapes (the same chart drawn wider or narrower): each is one more way. The scale a way prints at is the
# largest at which its outline fits the box, so the best way of a page is read off its front.

_G = GAP / MIN_SCALE  # the gutter in the charts' units


def _pareto(points, wmax: float, hmax: float) -> tuple:
    """The points (w, h, tree) inside wmax x hmax that no other beats in both width and height."""
    out, low = [], float("inf")
    for p in sorted(points, key=lambda p: (p[0], p[1])):
        if p[0] <= wmax + 1e-6 and p[1] <= hmax + 1e-6 and p[1] < low - 1e-6:
            out.append(p)
            low = p[1]
    return tuple(out)


class Fronts:
    """The fronts of laying out runs of charts that begin at the first of `options` (each chart's shapes, as
    natural (width, height) pairs, its default first), inside wmax x hmax (the box at MIN_SCALE)."""

    def __init__(self, options, wmax: float, hmax: float) -> None:
        self.options, self.wmax, self.hmax = options, wmax, hmax
        self._slot: dict = {}
        self._shelf: dict = {}
        self._page: dict = {}

    def _v(self, a, b, kind="v") -> tuple:
        return _pareto([(max(p[0], q[0]), p[1] + _G + q[1], (kind, p[2], q[2])) for p in a for q in b],
                       self.wmax, self.hmax)

    def slot(self, a: int, b: int) -> tuple:
        """Charts a..b-1 stacked in one slot."""
        if (a, b) not in self._slot:
            if b == a + 1:
                got = _pareto([(w, h, ("i", a, k)) for k, (w, h) in enumerate(self.options[a])], self.wmax, self.hmax)
            else:
                got = self._v(self.slot(a, b - 1), self.slot(b - 1, b))
            self._slot[(a, b)] = got
        return self._slot[(a, b)]

    def shelf(self, a: int, b: int) -> tuple:
        """Charts a..b-1 in slots side by side."""
        if (a, b) not in self._shelf:
            pts = list(self.slot(a, b))
            for k in range(a + 1, b):
                pts += [(p[0] + _G + q[0], max(p[1], q[1]), ("h", p[2], q[2]))
                        for p in self.shelf(a, k) for q in self.slot(k, b)]
            self._shelf[(a, b)] = _pareto(pts, self.wmax, self.hmax)
        return self._shelf[(a, b)]

    def page(self, b: int) -> tuple:
        """Charts 0..b-1 in shelves down the page."""
        if b not in self._page:
            pts = list(self.shelf(0, b))
            for k in range(1, b):
                pts += self._v(self.page(k), self.shelf(k, b))
            self._page[b] = _pareto(pts, self.wmax, self.hmax)
        return self._page[b]


def best(front: tuple, box: tuple[float, float], most: float = MAX_SCALE):
    """The way of a front that prints largest in the box (at most `most`): (scale, its tree); None for an empty
    front."""
    found = None
    for w, h, tree in front:
        s = min(most, box[0] / w, box[1] / h)
        if found is None or s > found[0] + 1e-9:
            found = (s, tree)
    return found


def choose(options, box: tuple[float, float]):
    """The way to set the charts (each with its shapes) in the box at the largest scale: (scale, tree). Charts
    that do not all fit at MIN_SCALE are set as well as they can be (a chart too big for any page)."""
    n = len(options)
    got = best(Fronts(options, box[0] / MIN_SCALE, box[1] / MIN_SCALE).page(n), box)
    return got or best(Fronts(options, float("inf"), float("inf")).page(n), box)


def shapes(tree) -> dict:
    """Chart index -> the shape a tree sets it in."""
    if tree[0] == "i":
        return {tree[1]: tree[2]}
    return {**shapes(tree[1]), **shapes(tree[2])}


def places(options, tree, scale: float, box_w: float) -> tuple[list, list]:
    """Where each chart of a tree goes at `scale`, (x, y_from_top) from the box's top-left corner, and its room
    (the width from its left edge to the end of the space it was given: a caption may run that far). A stack
    centres its charts; a shelf, centred across the box, sets its slots from the left with their tops aligned."""
    n = len(options)
    pos: list = [None] * n
    rooms: list = [None] * n

    def size(t):
        if t[0] == "i":
            return options[t[1]][t[2]]
        (w1, h1), (w2, h2) = size(t[1]), size(t[2])
        return (max(w1, w2), h1 + _G + h2) if t[0] == "v" else (w1 + _G + w2, max(h1, h2))

    def put(t, x: float, y: float, width: float) -> None:
        w, h = size(t)
        if t[0] == "i":
            pos[t[1]] = (x + (width - w * scale) / 2, y)
            rooms[t[1]] = (width + w * scale) / 2
        elif t[0] == "v":
            put(t[1], x, y, width)
            put(t[2], x, y + (size(t[1])[1] + _G) * scale, width)
        else:
            x0 = x + (width - w * scale) / 2
            put(t[1], x0, y, size(t[1])[0] * scale)
            put(t[2], x0 + (size(t[1])[0] + _G) * scale, y, size(t[2])[0] * scale)

    put(tree, 0.0, 0.0, box_w)
    return pos, rooms


def arrange(sizes, box: tuple[float, float]):
    """The largest scale (at most MAX_SCALE) at which the charts fit the box, and where each goes:
    (scale, [(x, y_from_top), ...]), positions relative to the box's top-left corner."""
    options = tuple(((float(w), float(h)),) for w, h in sizes)
    scale, tree = choose(options, box)
    return scale, places(options, tree, scale, box[0])[0]


def fits(sizes, box: tuple[float, float], scale: float = MIN_SCALE) -> bool:
    """Whether the charts (natural sizes, in order) all fit the box at `scale`."""
    options = tuple(((float(w), float(h)),) for w, h in sizes)
    return bool(Fronts(options, box[0] / scale, box[1] / scale).page(len(options)))


def caption_room() -> float:
    """The room a caption takes above a chart, in the charts' units (CAPTION points at MIN_SCALE)."""
    return CAPTION / MIN_SCALE
