"""`rulecraft sheets`: printable sequence sheets, one PDF: a title page with the index, then a sheet per stage or phase.

Graphviz draws the charts, the index and the legend (all at once, a process each); pypdf
places them on the paper (`pdfcompose`), each sheet's charts scaled to fill its page and
the page turned to landscape when that prints them larger. Headings and page numbers are
plain PDF text.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional

from rulecraft.tools.chart.dotlabels import esc, text_lines
from rulecraft.tools.chart.flowchart import ChartOptions, chart_dot, part_of_nodes
from rulecraft.tools.chart.legend import FONT, legend_dot
from rulecraft.tools.loading import EXIT_ERRORS, EXIT_OK, fail, load_for, read_coverage_for, write_bytes
from rulecraft.tools.print.sheetlayout import FOOTER, HEADER, MARGIN, MAX_SCALE, arrange, layout_pages, orient as _orient  # noqa: F401
from rulecraft.tools.chart.sheetplan import SheetPlan, callers_of, plan_sheets
from rulecraft.tools.words import Words

PAPER = {"a4": (595.0, 842.0), "letter": (612.0, 792.0)}  # points, portrait


@dataclass(frozen=True)
class SheetsResult:
    pdf: bytes
    pages: int
    scales: tuple[float, ...]  # the scale each chart was printed at, by sheet


def _ref(rs, plan: SheetPlan, sid: str) -> str:
    return f"{rs.sequences[sid].title} ({plan.sheet_of[sid]})" if sid in plan.sheet_of else rs.sequences[sid].title


# ----------------------------------------------------------------------------- text blocks (DOT)


def _block(label: str) -> str:
    return ("digraph block {\n"
            f'  graph [pad=0.02, margin=0]; node [shape=plaintext, fontname="{FONT}", margin=0];\n'
            f"  b [label=<{label}>];\n}}\n")


def title_dot(rs, plan: SheetPlan, callers: dict[str, list[str]], coverage, width: float, detail: str = "players") -> str:
    """The title page's text: the game, then the index of sheets and the interrupts."""
    rows = [f'<TR><TD ALIGN="LEFT" COLSPAN="3"><FONT POINT-SIZE="26"><B>{esc(rs.title)}</B></FONT></TD></TR>',
            f'<TR><TD ALIGN="LEFT" COLSPAN="3"><FONT POINT-SIZE="13">Sequence sheets · ruleset {esc(rs.name)}'
            + (f" · version {esc(str(rs.version))}" if rs.version else "")
            + f" · {rs.players.min}-{rs.players.max} players</FONT></TD></TR>"]
    if rs.source and detail == "full":  # sources are the designer's: players' pages cite none
        for ln in text_lines(rs.source, 110):
            rows.append(f'<TR><TD ALIGN="LEFT" COLSPAN="3"><FONT POINT-SIZE="10" COLOR="#444444">{ln}'
                        f"</FONT></TD></TR>")
    if coverage is not None:
        rows.append(f'<TR><TD ALIGN="LEFT" COLSPAN="3"><FONT POINT-SIZE="10">Shaded by how often each step ran in '
                    f"{coverage.games:,} simulated games; a red dashed box never ran.</FONT></TD></TR>")
    rows.append('<TR><TD COLSPAN="3" HEIGHT="8"></TD></TR>')
    rows.append('<TR><TD ALIGN="LEFT" COLSPAN="3"><FONT POINT-SIZE="16"><B>Index</B></FONT></TD></TR>')
    head = ("sheet", "sequences", "called from")
    rows.append("<TR>" + "".join(f'<TD ALIGN="LEFT"><FONT POINT-SIZE="10"><B>{h}</B></FONT></TD>' for h in head)
                + "</TR>")
    for sheet in plan.sheets:
        names = [f"<B>{esc(rs.sequences[s].title)}</B>" if i == 0 else esc(rs.sequences[s].title)
                 for i, s in enumerate(sheet.sequences)]
        kinds = esc(rs.sequences[sheet.main].kind.replace("_", " "))
        from_ = sorted({plan.sheet_of[c] for s in sheet.sequences for c in callers.get(s, ())
                        if plan.sheet_of.get(c) != sheet.number})
        runs = [t for t in rs.triggers if t.run in sheet.sequences]
        src = ", ".join(f"sheet {n}" for n in from_) + (("; " if from_ else "") + "interrupt" if runs else "")
        rows.append(f'<TR><TD ALIGN="RIGHT"><B>{sheet.number}</B></TD>'
                    f'<TD ALIGN="LEFT" BALIGN="LEFT">{", ".join(names)} <FONT POINT-SIZE="10" COLOR="#555555">'
                    f"({kinds})</FONT></TD><TD ALIGN=\"LEFT\">{esc(src) or '-'}</TD></TR>")
    if rs.triggers:
        rows.append('<TR><TD COLSPAN="3" HEIGHT="8"></TD></TR>')
        rows.append('<TR><TD ALIGN="LEFT" COLSPAN="3"><FONT POINT-SIZE="16"><B>Interrupts</B></FONT></TD></TR>')
        for t in rs.triggers:
            text = Words(rs, detail=detail).label(t.label) if t.label else Words(rs, detail=detail).stmt(t)
            sheet = plan.sheet_of.get(t.run)
            rows.append(f'<TR><TD ALIGN="RIGHT">⚡</TD><TD ALIGN="LEFT" COLSPAN="2">{esc(text)} '
                        f'<FONT COLOR="#555555">→ {esc(rs.sequences[t.run].title)}, sheet {sheet}</FONT></TD></TR>')
    table = (f'<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="3" WIDTH="{int(width)}">'
             + "".join(rows) + "</TABLE>")
    return _block(table)


def _wrap(text: str, width: float, size: float, lines: int) -> list[str]:
    """Words into at most `lines` lines that fit `width` points in Helvetica at `size`; '…' if cut."""
    from rulecraft.tools.print.pdfcompose import text_width

    out: list[str] = []
    for word in text.split():
        if out and text_width(out[-1] + " " + word, size) <= width:
            out[-1] += " " + word
        else:
            out.append(word)
    if len(out) > lines:
        out = out[:lines]
        while out[-1] and text_width(out[-1] + " …", size) > width:
            out[-1] = out[-1].rsplit(" ", 1)[0] if " " in out[-1] else out[-1][:-1]
        out[-1] += " …"
    return out


def heading_texts(title: str, sub: str, size: tuple[float, float]) -> list[tuple]:
    """A sheet's heading as plain text lines: its number and title, then where it comes from."""
    from rulecraft.tools.print.pdfcompose import text_width

    inner = size[0] - 2 * MARGIN
    big = 17 if text_width(title, 17, bold=True) <= inner else 13
    title = _wrap(title, inner / 1.06, big, 1)[0]
    top = size[1] - MARGIN - big
    items = [(MARGIN, top, big, title, True, 0)]
    for i, line in enumerate(_wrap(sub, inner, 8, 2)):
        items.append((MARGIN, top - 14 - 10 * i, 8, line, False, 0.27))
    return items


def footer_text(text: str, size: tuple[float, float]) -> tuple:
    from rulecraft.tools.print.pdfcompose import text_width

    return ((size[0] - text_width(text, 8)) / 2, MARGIN, 8, text, False, 0)


# ----------------------------------------------------------------------------- assembling


def _sub_heading(rs, plan: SheetPlan, callers: dict[str, list[str]], sheet, detail: str = "players") -> str:
    titles = [rs.sequences[s].title for s in sheet.sequences]
    parts = []
    if len(titles) > 1:
        parts.append("with " + ", ".join(titles[1:]))
    calls_from = [c for s in sheet.sequences for c in callers.get(s, ()) if c not in sheet.sequences]
    if calls_from:
        parts.append("called from " + ", ".join(dict.fromkeys(_ref(rs, plan, c) for c in calls_from)))
    if any(t.run in sheet.sequences for t in rs.triggers):
        parts.append("run by an interrupt")
    if rs.sequences[sheet.main].source and detail == "full":
        parts.append(rs.sequences[sheet.main].source)
    return " · ".join(parts)


RETRY_BELOW = 0.62  # a chart alone on its sheet printed smaller than this is drawn once more, re-wrapped


def _second_look(rs, graph, plan, portrait, fit, coverage, chart_of, shrunk, detail) -> None:
    """Charts that came out small: wrap their text narrower (too wide) or wider (too tall), keep the better."""
    from rulecraft.tools.chart.dotrun import run_dot_layout, run_many
    from rulecraft.tools.print.pdfcompose import read_page

    retry = []
    for sheet in plan.sheets:
        if len(sheet.sequences) != 1:
            continue
        sid = sheet.main
        natural = (chart_of[sid].size[0] / shrunk[sid], chart_of[sid].size[1] / shrunk[sid])
        page, scale, _places = _orient(portrait, [natural])
        if scale >= RETRY_BELOW:
            continue
        box_w = page[0] - 2 * MARGIN
        wrap = 0.7 if natural[0] * scale >= box_w - 1 else 1.45
        retry.append((sid, scale, wrap))
    if not retry:
        return
    jobs = [(chart_dot(rs, graph, sid, ChartOptions(detail=detail, sheet_of=plan.sheet_of, coverage=coverage, fit=fit, wrap=wrap,
                                                   same_sheet=frozenset([sid]))), "pdf") for sid, _s, wrap in retry]
    for (sid, scale, _wrap), (pdf, k, _boxes) in zip(retry, run_many(jobs, fn=run_dot_layout)):
        piece = read_page(pdf)
        natural = (piece.size[0] / k, piece.size[1] / k)
        if _orient(portrait, [natural])[1] > scale * 1.02:
            chart_of[sid], shrunk[sid] = piece, k


SPLIT_BELOW = 0.6  # a chart alone on its sheet still printed smaller than this is drawn in two halves ...
SPLIT_GAIN = 1.2  # ... and printed on two pages when both halves come out at least this much larger


def _halves(rs, graph, sid: str) -> Optional[int]:
    """Where to cut a sequence's own steps so that both halves hold about as many nodes; None if it cannot be."""
    part_of = part_of_nodes(rs, graph, sid)
    n = len(rs.sequences[sid].steps)
    if n < 2:
        return None
    sizes = [sum(1 for i in part_of.values() if i == k) for k in range(n)]
    total = sum(sizes)
    return min(range(1, n), key=lambda m: abs(2 * sum(sizes[:m]) - total))


def _split_look(rs, graph, plan, portrait, fit, coverage, chart_of, shrunk, detail) -> dict:
    """Charts alone on their sheet that are still small: sequence id -> its two halves [(piece, shrink), ...],
    for those whose halves print clearly larger on a page each."""
    from rulecraft.tools.chart.dotrun import run_dot_layout, run_many
    from rulecraft.tools.print.pdfcompose import read_page

    tries = []
    for sheet in plan.sheets:
        sid = sheet.main
        if len(sheet.sequences) != 1:
            continue
        natural = (chart_of[sid].size[0] / shrunk[sid], chart_of[sid].size[1] / shrunk[sid])
        scale = _orient(portrait, [natural])[1]
        cut = _halves(rs, graph, sid) if scale < SPLIT_BELOW else None
        if cut is not None:
            tries.append((sid, scale, cut))
    if not tries:
        return {}
    end = {sid: len(rs.sequences[sid].steps) + 1 for sid, _s, _c in tries}
    jobs = [(chart_dot(rs, graph, sid, ChartOptions(detail=detail, sheet_of=plan.sheet_of, coverage=coverage, fit=fit,
                                                   same_sheet=frozenset([sid]), part=part)), "pdf")
            for sid, _s, cut in tries for part in ((-1, cut), (cut, end[sid]))]
    done = run_many(jobs, fn=run_dot_layout)
    out = {}
    for i, (sid, scale, _cut) in enumerate(tries):
        halves = [(read_page(pdf), k) for pdf, k, _boxes in done[2 * i:2 * i + 2]]
        scales = [_orient(portrait, [(p.size[0] / k, p.size[1] / k)])[1] for p, k in halves]
        if min(scales) >= scale * SPLIT_GAIN:
            out[sid] = halves
    return out


def build_sheets(rs, graph, paper: str = "a4", coverage=None, plan: Optional[SheetPlan] = None,
                 detail: str = "players") -> SheetsResult:
    """The whole sheets PDF, as bytes: every piece drawn by Graphviz at once, then placed on the pages."""
    from rulecraft.tools.chart.dotrun import run_dot_layout, run_many
    from rulecraft.tools.print.pdfcompose import Composer, read_page
    from rulecraft.tools.words.bookkeeping import players_graph

    if detail != "full":
        graph = players_graph(rs, graph)

    plan = plan or plan_sheets(rs, graph)
    callers = callers_of(graph)
    portrait = PAPER[paper]
    inner_w = portrait[0] - 2 * MARGIN
    seqs = [sid for sheet in plan.sheets for sid in sheet.sequences]
    fit = (inner_w / 72, (portrait[1] - 2 * MARGIN - HEADER - FOOTER) / 72)
    jobs = []
    for sid in seqs:
        mates = plan.sheet(plan.sheet_of[sid]).sequences
        # a chart alone on its sheet is packed to the paper's shape (Graphviz's ratio=compress);
        # charts that share a sheet keep their natural layout and are arranged side by side
        jobs.append(chart_dot(rs, graph, sid, ChartOptions(detail=detail, sheet_of=plan.sheet_of, coverage=coverage,
                                                           fit=fit if len(mates) == 1 else None,
                                                           same_sheet=frozenset(mates))))
    jobs += [title_dot(rs, plan, callers, coverage, inner_w, detail), legend_dot(coverage is not None, columns=4)]
    done = run_many([(src, "pdf") for src in jobs], fn=run_dot_layout)
    chart_of = {sid: read_page(pdf) for sid, (pdf, _s, _b) in zip(seqs, done)}
    shrunk = {sid: s for sid, (_pdf, s, _b) in zip(seqs, done)}
    title_page, legend_page = read_page(done[-2][0]), read_page(done[-1][0])

    _second_look(rs, graph, plan, portrait, fit, coverage, chart_of, shrunk, detail)
    halves = _split_look(rs, graph, plan, portrait, fit, coverage, chart_of, shrunk, detail)
    sheet_pages = layout_pages(rs, graph, plan, portrait, coverage, chart_of, shrunk, halves, detail)
    total = 1 + sum(len(p) for p in sheet_pages)

    out = Composer()
    # the title page: the title block and the index at the top, the legend under them
    tw, th = title_page.size
    lw, lh = legend_page.size
    top = portrait[1] - MARGIN
    room = top - MARGIN - FOOTER
    s = min(1.0, inner_w / tw, (room - 20) / (th + lh))
    ls = min(1.0, inner_w / lw, max(0.3, (room - th * s - 16) / lh))
    out.add_page(portrait, [(title_page, s, MARGIN, top - th * s),
                            (legend_page, ls, MARGIN + (inner_w - lw * ls) / 2, top - th * s - 16 - lh * ls)],
                 texts=[footer_text(f"{rs.title} · sequence sheets · page 1 of {total}", portrait)])
    out.outline("Index", 0)

    scales = []
    page = 1
    for sheet, pages in zip(plan.sheets, sheet_pages):
        first_page = None
        for i, pp in enumerate(pages):
            page += 1
            more = i > 0
            title = rs.sequences[sheet.main].title + (", continued" if more else "")
            texts = heading_texts(f"Sheet {sheet.number} · {title}", _sub_heading(rs, plan, callers, sheet, detail), pp.size)
            texts.append(footer_text(f"{rs.title} · sheet {sheet.number} of {len(plan.sheets)}"
                                     + (" (continued)" if more else "")
                                     + f" · page {page} of {total} · legend on page 1", pp.size))
            index = out.add_page(pp.size, pp.parts, rule=(MARGIN, pp.size[0] - MARGIN, pp.size[1] - MARGIN - HEADER + 6),
                                 texts=texts + pp.notes)
            if first_page is None:
                first_page = index
        out.outline(f"{sheet.number}. " + ", ".join(rs.sequences[s].title for s in sheet.sequences), first_page)
        scales.append(min(pp.scale for pp in pages))
    out.metadata({"/Title": f"{rs.title}: sequence sheets", "/Creator": "rulecraft sheets"})
    pdf = out.to_bytes()
    return SheetsResult(pdf, total, tuple(scales))


def run(args) -> int:
    from rulecraft.tools.chart.dotrun import DotError

    verb = "sheets"
    loaded = load_for(verb, args.ruleset)
    if loaded is None:
        return EXIT_ERRORS
    cov, code = read_coverage_for(verb, getattr(args, "coverage", None), loaded)
    if code is not None:
        return code
    try:
        result = build_sheets(loaded.ruleset, loaded.graph, getattr(args, "paper", "a4") or "a4", cov,
                              detail=getattr(args, "detail", "players") or "players")
    except DotError as exc:
        return fail(verb, str(exc), EXIT_ERRORS)
    code = write_bytes(verb, args.output, result.pdf)
    if code is not None:
        return code
    from rulecraft.tools.print.pdfmeasure import LEGIBLE_PT, measure_pdf

    m = measure_pdf(result.pdf)
    if m.smallest_pt < LEGIBLE_PT - 0.05:
        print(f"rulecraft sheets: warning: some text prints at {m.smallest_pt:.1f} pt, below {LEGIBLE_PT:g} pt "
              f"({m.small_share:.0%} of it); consider shorter step labels or splitting the sequence", file=os.sys.stderr)
    return EXIT_OK
