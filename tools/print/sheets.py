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
from rulecraft.tools.chart.legend import FONT, legend_dot
from rulecraft.tools.loading import EXIT_ERRORS, EXIT_OK, fail, load_for, read_coverage_for, write_bytes
from rulecraft.tools.print.sheetlayout import FOOTER, HEADER, MARGIN
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


def title_dot(rs, plan: SheetPlan, callers: dict[str, list[str]], coverage, width: float, detail: str = "players",
              subs: Optional[dict] = None, pages: Optional[dict] = None) -> str:
    """The title page's text: the game, then the index of sheets (with the page each begins on; a page may carry
    several sheets) and the interrupts."""
    rows = [f'<TR><TD ALIGN="LEFT" COLSPAN="4"><FONT POINT-SIZE="26"><B>{esc(rs.title)}</B></FONT></TD></TR>',
            f'<TR><TD ALIGN="LEFT" COLSPAN="4"><FONT POINT-SIZE="13">Sequence sheets · ruleset {esc(rs.name)}'
            + (f" · version {esc(str(rs.version))}" if rs.version else "")
            + f" · {rs.players.min}-{rs.players.max} players</FONT></TD></TR>"]
    if rs.source and detail == "full":  # sources are the designer's: players' pages cite none
        for ln in text_lines(rs.source, 110):
            rows.append(f'<TR><TD ALIGN="LEFT" COLSPAN="4"><FONT POINT-SIZE="10" COLOR="#444444">{ln}'
                        f"</FONT></TD></TR>")
    if coverage is not None:
        rows.append(f'<TR><TD ALIGN="LEFT" COLSPAN="4"><FONT POINT-SIZE="10">Shaded by how often each step ran in '
                    f"{coverage.games:,} simulated games; a red dashed box never ran.</FONT></TD></TR>")
    rows.append('<TR><TD COLSPAN="4" HEIGHT="8"></TD></TR>')
    rows.append('<TR><TD ALIGN="LEFT" COLSPAN="4"><FONT POINT-SIZE="16"><B>Index</B></FONT></TD></TR>')
    head = ("sheet", "page", "sequences", "called from")
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
        if (subs or {}).get(sheet.number):
            names.append(f'<FONT POINT-SIZE="10" COLOR="#555555">details on {", ".join(subs[sheet.number])}</FONT>')
        names = [(n, len(rs.sequences[s_].title)) for n, s_ in zip(names, sheet.sequences)] + \
                [(n, 30) for n in names[len(sheet.sequences):]]
        cell = _wrap_names(names, f'<FONT POINT-SIZE="10" COLOR="#555555">({kinds})</FONT>')
        rows.append(f'<TR><TD ALIGN="RIGHT" VALIGN="TOP"><B>{sheet.number}</B></TD>'
                    f'<TD ALIGN="RIGHT" VALIGN="TOP">{(pages or {}).get(sheet.number, "")}</TD>'
                    f'<TD ALIGN="LEFT" BALIGN="LEFT">{cell}</TD><TD ALIGN="LEFT" VALIGN="TOP">{esc(src) or "-"}</TD></TR>')
    if rs.triggers:
        rows.append('<TR><TD COLSPAN="4" HEIGHT="8"></TD></TR>')
        rows.append('<TR><TD ALIGN="LEFT" COLSPAN="4"><FONT POINT-SIZE="16"><B>Interrupts</B></FONT></TD></TR>')
        for t in rs.triggers:
            text = Words(rs, detail=detail).label(t.label) if t.label else Words(rs, detail=detail).stmt(t)
            sheet = plan.sheet_of.get(t.run)
            rows.append(f'<TR><TD ALIGN="RIGHT">⚡</TD><TD ALIGN="LEFT" COLSPAN="3">{esc(text)} '
                        f'<FONT COLOR="#555555">→ {esc(rs.sequences[t.run].title)}, sheet {sheet}'
                        f'{f", page {pages[sheet]}" if pages and sheet in pages else ""}</FONT></TD></TR>')
    table = (f'<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="3" WIDTH="{int(width)}">'
             + "".join(rows) + "</TABLE>")
    return _block(table)


INDEX_LINE = 62  # characters of sequence names on a line of the index (it keeps the index at its size)


def _wrap_names(names: list, tail: str) -> str:
    """An index cell: the sheet's names, comma-separated, wrapped into lines of about INDEX_LINE characters."""
    lines, width = [[]], 0
    for markup, n in names:
        if lines[-1] and width + n > INDEX_LINE:
            lines.append([])
            width = 0
        lines[-1].append(markup)
        width += n + 2
    return '<BR ALIGN="LEFT"/>'.join(", ".join(line) for line in lines) + " " + tail


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


def build_sheets(rs, graph, paper: str = "a4", coverage=None, plan: Optional[SheetPlan] = None,
                 detail: str = "players") -> SheetsResult:
    """The whole sheets PDF, as bytes: every chart drawn by Graphviz (in rounds, a process each), each sheet on
    whole portrait pages, a chart too big for a legible page drawn with a block folded onto a drill-down sheet."""
    from rulecraft.tools.chart.dotrun import run_dot_layout, run_many
    from rulecraft.tools.print.pdfcompose import Composer, read_page
    from rulecraft.tools.print.sheetfold import sheet_pages
    from rulecraft.tools.words.bookkeeping import players_graph

    if detail != "full":
        graph = players_graph(rs, graph)

    plan = plan or plan_sheets(rs, graph)
    callers = callers_of(graph)
    portrait = PAPER[paper]  # one orientation for the whole document: flowcharts run down the page
    inner_w = portrait[0] - 2 * MARGIN
    sheets = sheet_pages(rs, graph, plan, portrait, coverage, detail)
    subs: dict[int, list[str]] = {}
    for sp in sheets:
        for u in sp.units:
            if u.only is not None:
                subs.setdefault(plan.sheet_of[u.sid], []).append(u.label)
    pages: dict[int, int] = {}  # sheet number -> the page it begins on
    at = 2
    for sp in sheets:
        for n in sp.numbers:
            pages.setdefault(n, at)
        at += len(sp.pages)
    done = run_many([(title_dot(rs, plan, callers, coverage, inner_w, detail, subs, pages), "pdf"),
                     (legend_dot(coverage is not None, columns=5), "pdf")], fn=run_dot_layout)
    title_page, legend_page = read_page(done[0][0]), read_page(done[1][0])
    total = 1 + sum(len(sp.pages) for sp in sheets)

    out = Composer()
    # the title page: the title block and the index at the top (never below 8 pt), the legend under them
    tw, th = title_page.size
    lw, lh = legend_page.size
    top = portrait[1] - MARGIN
    room = top - MARGIN - FOOTER
    s = min(1.0, inner_w / tw, (room - 20) / (th + lh))
    if s < TITLE_MIN_SCALE:  # the index keeps its legible size; the legend takes the room left
        s = min(1.0, inner_w / tw, (room - 20 - lh * TITLE_MIN_SCALE) / th)
    ls = min(1.0, inner_w / lw, max(TITLE_MIN_SCALE, (room - th * s - 16) / lh))
    out.add_page(portrait, [(title_page, s, MARGIN, top - th * s),
                            (legend_page, ls, MARGIN + (inner_w - lw * ls) / 2, top - th * s - 16 - lh * ls)],
                 texts=[footer_text(f"{rs.title} · sequence sheets · page 1 of {total}", portrait)])
    out.outline("Index", 0)

    scales = []
    page = 1
    for sp in sheets:
        first_page = None
        sub = _sub_heading(rs, plan, callers, plan.sheet(sp.number), detail) if sp.numbers == [sp.number] else sp.sub
        for pp in sp.pages:
            page += 1
            texts = heading_texts(f"Sheet{'s' if '–' in sp.label else ''} {sp.label} · {sp.title}", sub, pp.size)
            texts.append(footer_text(f"{rs.title} · sheet {sp.label} of {len(plan.sheets)}"
                                     f" · page {page} of {total} · legend on page 1", pp.size))
            index = out.add_page(pp.size, pp.parts, rule=(MARGIN, pp.size[0] - MARGIN, pp.size[1] - MARGIN - HEADER + 6),
                                 texts=texts + pp.notes)
            if first_page is None:
                first_page = index
        names = [rs.sequences[s].title for n in sp.numbers for s in plan.sheet(n).sequences] or [sp.title]
        out.outline(f"{sp.label}. " + ", ".join(names), first_page)
        scales.append(min(pp.scale for pp in sp.pages))
    out.metadata({"/Title": f"{rs.title}: sequence sheets", "/Creator": "rulecraft sheets"})
    pdf = out.to_bytes()
    return SheetsResult(pdf, total, tuple(scales))


TITLE_MIN_SCALE = 0.8  # the index's smallest type (10 pt) prints at 8 pt or more


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
