"""Every sheet on whole pages of one orientation: charts side by side while they stay legible, and a chart too
big for a legible page drawn with a block folded into one box that opens its own chart (a drill-down sheet
'7a' after sheet 7), never sliced across pages.

The charts are drawn by Graphviz in rounds (all of a round at once, a process each): first every sequence;
then, for each chart still too small, its next fold (`folds.choose_fold`) and the chart of that block.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from rulecraft.tools.chart.folds import Fold
from rulecraft.tools.print.sheetlayout import FOOTER, HEADER, MARGIN, MIN_SCALE, PagePlan, arrange

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


def _box(page) -> tuple[float, float]:
    return (page[0] - 2 * MARGIN, page[1] - 2 * MARGIN - HEADER - FOOTER)


def _scale(units, page) -> tuple[float, list]:
    return arrange([u.natural() for u in units], _box(page))


def _page(units, page) -> PagePlan:
    scale, places = _scale(units, page)
    box_top = page[1] - MARGIN - HEADER
    parts = [(u.piece, scale / u.shrink, MARGIN + x, box_top - y - u.natural()[1] * scale)
             for u, (x, y) in zip(units, places)]
    return PagePlan(page, parts, [], scale)


def _draw(rs, graph, plan, units, page, coverage, detail, alone: bool, box=None) -> None:
    from rulecraft.tools.chart.dotrun import run_dot_layout, run_many
    from rulecraft.tools.chart.flowchart import ChartOptions, chart_dot
    from rulecraft.tools.print.pdfcompose import read_page

    box = box or _box(page)
    fit = (box[0] / 72, box[1] / 72)
    jobs = []
    for u in units:
        mates = plan.sheet(plan.sheet_of[u.sid]).sequences
        jobs.append((chart_dot(rs, graph, u.sid, ChartOptions(
            detail=detail, sheet_of=plan.sheet_of, coverage=coverage, fit=fit if alone or len(mates) == 1 else None,
            same_sheet=frozenset(mates), folds=u.folds, only=u.only, wrap=u.wrap)), "pdf"))
    done = run_many(jobs, fn=run_dot_layout)
    pieces = [read_page(pdf) for pdf, _k, _boxes in done]
    inked = ink_boxes([pdf for pdf, _k, _boxes in done])
    for u, piece, (_pdf, k, _boxes), ink in zip(units, pieces, done, inked):
        u.piece, u.shrink = _trim(piece, ink), (k if k >= 1 else k * SHRINK_SAFETY)


SHRINK_SAFETY = 0.985  # Graphviz reports the factor it shrank a drawing by in few digits: count it a little smaller
INK_DPI = 36  # the resolution the charts are rasterized at to find their ink (a pixel is 2 points)
INK_MARGIN = 4.0  # points kept around the ink


def ink_boxes(pdfs: list) -> list:
    """Each one-page PDF's inked rectangle (x0, y0, x1, y1 in points) found by rasterizing it with poppler's
    pdftoppm (all in one run); None for each when pdftoppm is missing or fails (then nothing is trimmed)."""
    import shutil
    import subprocess
    import tempfile

    from pypdf import PdfReader, PdfWriter

    exe = shutil.which("pdftoppm")
    if not pdfs or exe is None:
        return [None] * len(pdfs)
    import io
    import os

    writer, boxes = PdfWriter(), []
    for data in pdfs:
        page = PdfReader(io.BytesIO(data)).pages[0]
        mb = page.mediabox
        boxes.append((float(mb.left), float(mb.bottom), float(mb.right), float(mb.top)))
        writer.add_page(page)
    with tempfile.TemporaryDirectory(prefix="rulecraft-ink-") as tmp:
        src = os.path.join(tmp, "all.pdf")
        with open(src, "wb") as fh:
            writer.write(fh)
        try:
            subprocess.run([exe, "-r", str(INK_DPI), "-gray", src, os.path.join(tmp, "p")], check=True,
                           capture_output=True, timeout=60)
        except (OSError, subprocess.SubprocessError):
            return [None] * len(pdfs)
        names = sorted(f for f in os.listdir(tmp) if f.endswith(".pgm"))
        if len(names) != len(pdfs):
            return [None] * len(pdfs)
        out = []
        for name, box in zip(names, boxes):
            with open(os.path.join(tmp, name), "rb") as fh:
                out.append(_ink(fh.read(), box))
        return out


def _ink(pgm: bytes, box) -> tuple | None:
    """The inked rectangle of a binary PGM image of the page `box`, in the page's points; None if blank."""
    fields, pos = [], 0
    while len(fields) < 4:  # magic, width, height, maxval (no comments: pdftoppm writes none)
        while pgm[pos:pos + 1].isspace():
            pos += 1
        start = pos
        while not pgm[pos:pos + 1].isspace():
            pos += 1
        fields.append(pgm[start:pos])
    pos += 1
    w, h = int(fields[1]), int(fields[2])
    px = pgm[pos:pos + w * h]
    top = bottom = None
    left, right = w, -1
    for y in range(h):
        row = px[y * w:(y + 1) * w]
        rest = row.lstrip(b"\xff")
        if not rest:
            continue
        top = y if top is None else top
        bottom = y
        left = min(left, w - len(rest))
        right = max(right, len(row.rstrip(b"\xff")) - 1)
    if top is None:
        return None
    x0, y0, x1, y1 = box
    kx, ky = (x1 - x0) / w, (y1 - y0) / h
    return (x0 + left * kx, y1 - (bottom + 1) * ky, x0 + (right + 1) * kx, y1 - top * ky)


def _trim(piece, ink):
    """The piece cut down to its ink and INK_MARGIN around it (the page has its own gaps between charts)."""
    from rulecraft.tools.print.pdfcompose import Piece

    if ink is None:
        return piece
    x0, y0, x1, y1 = piece.box
    return Piece(piece.page, (max(x0, ink[0] - INK_MARGIN), max(y0, ink[1] - INK_MARGIN),
                              min(x1, ink[2] + INK_MARGIN), min(y1, ink[3] + INK_MARGIN)))


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


def sheet_pages(rs, graph, plan, page, coverage=None, detail: str = "players") -> list[SheetPages]:
    """Each sheet's pages, then its drill-down sheets, in reading order; small sheets share a page."""
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
        title = rs.sequences[sheet.main].title
        origins.append(SheetPages(str(sheet.number), title, "", [], sheet.number, [sheet.number],
                                  [units[sid] for sid in sheet.sequences]))
        mine = sorted(subs.get(sheet.number, []), key=lambda x: (len(x.label), x.label))
        if mine:
            what = "; ".join(_words(rs, u.only.path) + (" …" if u.only.members else "") for u in mine)
            origins.append(SheetPages(mine[0].label, f"{title}: {what}",
                                      f"details of sheet {sheet.number} ({title}): each block drawn in full",
                                      [], sheet.number, [], mine))
    out = _shelve(origins, page)
    for sp in out:
        sp.pages = [_page(sp.units, page)]
    return out


def _shelve(origins: list[SheetPages], page) -> list[SheetPages]:
    """Every chart in reading order onto as few pages as keep each legible: a page takes the next charts (of the
    same sheet or the next ones) while `arrange` still fits them all at MIN_SCALE or more; never a chart cut."""
    groups: list[list[tuple[int, Unit]]] = [[]]
    for k, o in enumerate(origins):
        for u in o.units:
            if groups[-1] and _scale([x for _k, x in groups[-1]] + [u], page)[0] < MIN_SCALE - 1e-6:
                groups.append([])
            groups[-1].append((k, u))
    out: list[SheetPages] = []
    begun: set[int] = set()
    for g in groups:
        ks = list(dict.fromkeys(k for k, _u in g))
        titles = [origins[k].title + (", continued" if k in begun else "") for k in ks]
        numbers = [n for k in ks if k not in begun for n in origins[k].numbers]
        first, last = g[0][1].label, g[-1][1].label
        label = first if first == last else f"{first}–{last}"
        lone = len(ks) == 1 and ks[0] not in begun
        sub = origins[ks[0]].sub if lone else ""
        out.append(SheetPages(label, "; ".join(titles), sub, [], origins[ks[0]].number,
                              numbers if lone or len(ks) > 1 else [], [u for _k, u in g]))
        begun.update(ks)
    return out
