"""`rulecraft sheets`: printable sequence sheets, one PDF: a title page with the index, then a sheet per stage or phase.

Graphviz draws the charts, the index and the legend; `sheetpaging` packs the charts in reading order onto
portrait pages (the title page's foot first); pypdf places them on the paper (`pdfcompose`). Headings, captions
and page numbers are plain PDF text.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional

from rulecraft.tools.chart.dotlabels import esc, text_lines
from rulecraft.tools.chart.legend import FONT, legend_dot
from rulecraft.tools.loading import EXIT_ERRORS, EXIT_OK, EXIT_USAGE, fail, load_for, misnamed, read_coverage_for, write_bytes
from rulecraft.tools.print.sheetlayout import FOOTER, HEADER, MARGIN, MIN_SCALE
from rulecraft.tools.chart.sheetplan import SheetPlan, callers_of, plan_sheets
from rulecraft.tools.words import Words
from rulecraft.tools.words.core import sequence_title

PAPER = {"a4": (595.0, 842.0), "letter": (612.0, 792.0)}  # points, portrait


@dataclass(frozen=True)
class SheetsResult:
    pdf: bytes
    pages: int
    scales: tuple[float, ...]  # the scale the charts of each page print at (the sheet pages, then the title page)


def _ref(rs, plan: SheetPlan, sid: str) -> str:
    return f"{sequence_title(rs.sequences[sid])} ({plan.sheet_of[sid]})" if sid in plan.sheet_of else sequence_title(rs.sequences[sid])


# ----------------------------------------------------------------------------- text blocks (DOT)


def _block(label: str) -> str:
    return ("digraph block {\n"
            f'  graph [pad=0.02, margin=0]; node [shape=plaintext, fontname="{FONT}", fontsize={INDEX_PT}, margin=0];\n'
            f"  b [label=<{label}>];\n}}\n")


INDEX_PT = 11  # the index's type, its notes' too (in grey): printed at TITLE_MIN_SCALE or more it stays legible
NOTE_PT = INDEX_PT
INDEX_LINE = 56  # characters of sequence names on a line of the index
TRIGGER_LINE = 92  # characters of an interrupt's line on the title page


def title_dot(rs, plan: SheetPlan, callers: dict[str, list[str]], coverage, width: float, detail: str = "players",
              subs: Optional[dict] = None, pages: Optional[dict] = None, win: object = False) -> str:
    """The title page's text: the game, How to win (with `win`; and the Set-up with `win='setup'`), then the index
    of sheets (with the page each begins on; a page may carry
    several sheets) and the interrupts. Its height does not depend on the page numbers (digits are all as wide),
    so it can be drawn once with stand-ins to learn the room it leaves."""
    rows = [f'<TR><TD ALIGN="LEFT" COLSPAN="3"><FONT POINT-SIZE="22"><B>{esc(rs.title)}</B></FONT></TD></TR>',
            '<TR><TD ALIGN="LEFT" COLSPAN="3"><FONT POINT-SIZE="11">Sequence sheets'
            + (f" · version {esc(str(rs.version))}" if rs.version else "")
            + f" · {rs.players.min}{'' if rs.players.min == rs.players.max else f'-{rs.players.max}'} players"
            + "</FONT></TD></TR>"]
    if rs.source and detail == "full":  # sources are the designer's: players' pages cite none
        for ln in text_lines(rs.source, 100):
            rows.append(f'<TR><TD ALIGN="LEFT" COLSPAN="3"><FONT POINT-SIZE="{NOTE_PT}" COLOR="#444444">{ln}'
                        f"</FONT></TD></TR>")
    if coverage is not None:
        rows.append(f'<TR><TD ALIGN="LEFT" COLSPAN="3"><FONT POINT-SIZE="{NOTE_PT}">Shaded by how often each step ran in '
                    f"{coverage.games:,} simulated games; a red dashed box never ran.</FONT></TD></TR>")
    rows += _win_rows(rs, setup=win == "setup") if win else []
    rows.append('<TR><TD COLSPAN="3" HEIGHT="4"></TD></TR>')
    rows.append('<TR><TD ALIGN="LEFT" COLSPAN="3"><FONT POINT-SIZE="14"><B>Index</B></FONT></TD></TR>')
    head = ("sheet&#160;&#160;", "sequences", "called from")  # pages follow the sheets' order: no page numbers
    rows.append("<TR>" + "".join(f'<TD ALIGN="LEFT"><FONT POINT-SIZE="{NOTE_PT}"><B>{h}</B></FONT></TD>' for h in head)
                + "</TR>")
    for sheet in plan.sheets:
        names = [f"<B>{esc(sequence_title(rs.sequences[s]))}</B>" if i == 0 else esc(sequence_title(rs.sequences[s]))
                 for i, s in enumerate(sheet.sequences)]
        kinds = esc(rs.sequences[sheet.main].kind.replace("_", " "))
        from_ = sorted({plan.sheet_of[c] for s in sheet.sequences for c in callers.get(s, ())
                        if plan.sheet_of.get(c) != sheet.number})
        runs = [t for t in rs.triggers if t.run in sheet.sequences]
        src = (("sheet" if len(from_) == 1 else "sheets") + " " + ", ".join(map(str, from_)) if from_ else "") \
            + (("; " if from_ else "") + "interrupt" if runs else "")
        if (subs or {}).get(sheet.number):
            names.append(f'<FONT POINT-SIZE="{NOTE_PT}" COLOR="#555555">details on {", ".join(subs[sheet.number])}</FONT>')
        names = [(n, len(sequence_title(rs.sequences[s_]))) for n, s_ in zip(names, sheet.sequences)] + \
                [(n, 30) for n in names[len(sheet.sequences):]]
        cell = _wrap_names(names, f'<FONT POINT-SIZE="{NOTE_PT}" COLOR="#555555">({kinds})</FONT>')
        rows.append(f'<TR><TD ALIGN="RIGHT" VALIGN="TOP"><B>{sheet.number}</B>&#160;&#160;</TD>'
                    f'<TD ALIGN="LEFT" BALIGN="LEFT">{cell}</TD><TD ALIGN="LEFT" VALIGN="TOP">{esc(src) or "-"}</TD></TR>')
    if rs.triggers:
        rows.append('<TR><TD COLSPAN="3" HEIGHT="4"></TD></TR>')
        rows.append('<TR><TD ALIGN="LEFT" COLSPAN="3"><FONT POINT-SIZE="14"><B>Interrupts</B></FONT></TD></TR>')
        for t in rs.triggers:
            text = Words(rs, detail=detail).label(t.label) if t.label else Words(rs, detail=detail).stmt(t)
            sheet = plan.sheet_of.get(t.run)
            where = f"→ {sequence_title(rs.sequences[t.run])}, sheet {sheet}"
            lines = text_lines(text, TRIGGER_LINE)
            gray = f'<FONT COLOR="#555555">{esc(where)}</FONT>'
            if len(textwrap_last(text, TRIGGER_LINE)) + len(where) < TRIGGER_LINE:
                lines[-1] += " " + gray
            else:
                lines.append(gray)
            rows.append(f'<TR><TD ALIGN="RIGHT" VALIGN="TOP">⚡</TD><TD ALIGN="LEFT" BALIGN="LEFT" COLSPAN="2">'
                        f'{"<BR/>".join(lines)}</TD></TR>')
    rows += _house_rule_rows(rs, plan)
    table = (f'<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1" WIDTH="{int(width)}">'
             + "".join(rows) + "</TABLE>")
    return _block(table)


def _win_rows(rs, setup: bool = False) -> list[str]:
    """How to win (and with `setup`, the Set-up), in the aid's own lines (tools/print/aid.aid_view): a chart ends in
    'end game' and the sheets said nowhere who then wins, or on a tie, or what each player starts with."""
    from rulecraft.tools.print.aid import aid_view

    view = aid_view(rs)
    rows = []
    for heading, lines, mark in (("How to win", view.win, "•"), ("Set-up", view.setup if setup else [], "")):
        if not lines:
            continue
        rows += ['<TR><TD COLSPAN="3" HEIGHT="4"></TD></TR>',
                 f'<TR><TD ALIGN="LEFT" COLSPAN="3"><FONT POINT-SIZE="14"><B>{heading}</B></FONT></TD></TR>']
        for n, line in enumerate(lines, 1):
            rows.append(f'<TR><TD ALIGN="RIGHT" VALIGN="TOP">{mark or f"{n}."}</TD><TD ALIGN="LEFT" BALIGN="LEFT" '
                        f'COLSPAN="2">{"<BR/>".join(text_lines(line, TRIGGER_LINE))}</TD></TR>')
    return rows


def _house_rule_rows(rs, plan: SheetPlan) -> list[str]:
    """The house rules the sheets are drawn with: each as the game plays it by default (the rule drawn), the
    other choices only named as house rules, so no sheet leaves a step hanging on a rule no page gives."""
    from rulecraft.tools.words.bookkeeping import folded_house_rules
    from rulecraft.tools.words.core import capital
    from rulecraft.tools.words.text import humanize

    found = folded_house_rules(rs)
    if not found:
        return []
    rows = ['<TR><TD COLSPAN="3" HEIGHT="4"></TD></TR>',
            '<TR><TD ALIGN="LEFT" COLSPAN="3"><FONT POINT-SIZE="14"><B>House rules</B></FONT></TD></TR>',
            f'<TR><TD ALIGN="LEFT" COLSPAN="3"><FONT POINT-SIZE="{NOTE_PT}" COLOR="#555555">The sheets draw the rule '
            "each house rule sets; a table that changes one plays the other way.</FONT></TD></TR>"]
    for oid, sids in found.items():
        o = rs.options[oid]
        name = o.title or capital(humanize(oid))
        others = [humanize(str(c)) for c in o.choices if c != o.value]
        sheets = sorted({plan.sheet_of[s] for s in sids if s in plan.sheet_of})
        where = ("sheet" if len(sheets) == 1 else "sheets") + " " + ", ".join(map(str, sheets)) if sheets else ""
        text = f"{name}: drawn as {humanize(str(o.value))}" + (
            f". House rule: {' or '.join(others)}" if others else "") + "."
        lines = text_lines(text, TRIGGER_LINE)
        if where:
            lines[-1] += f' <FONT COLOR="#555555">({esc(where)})</FONT>'
        rows.append(f'<TR><TD ALIGN="RIGHT" VALIGN="TOP">•</TD><TD ALIGN="LEFT" BALIGN="LEFT" COLSPAN="2">'
                    f'{"<BR/>".join(lines)}</TD></TR>')
    return rows


def textwrap_last(text: str, width: int) -> str:
    """The last line of `text` wrapped as `text_lines` wraps it, unescaped."""
    return text_lines(text, width, escape=False)[-1]


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
    big = 15 if text_width(title, 15, bold=True) <= inner else 12
    title = _wrap(title, inner / 1.06, big, 1)[0]
    top = size[1] - MARGIN - 12
    items = [(MARGIN, top, big, title, True, 0)]
    for i, line in enumerate(_wrap(sub, inner, 8, 2)):
        items.append((MARGIN, top - 12 - 9 * i, 8, line, False, 0.27))
    return items  # the rule under them: HEADER - 4 below the top margin


def footer_text(text: str, size: tuple[float, float]) -> tuple:
    from rulecraft.tools.print.pdfcompose import text_width

    return ((size[0] - text_width(text, 8)) / 2, MARGIN, 8, text, False, 0)


# ----------------------------------------------------------------------------- assembling


def _sub_heading(rs, plan: SheetPlan, callers: dict[str, list[str]], sheet, detail: str = "players") -> str:
    titles = [sequence_title(rs.sequences[s]) for s in sheet.sequences]
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
    """The whole sheets PDF, as bytes: every chart drawn by Graphviz (in rounds, a process each), the charts
    packed in reading order onto portrait pages (the title page's foot first), a chart too big for a legible
    page drawn with a block folded onto a drill-down sheet."""
    from concurrent.futures import ThreadPoolExecutor

    from rulecraft.tools.chart.dotrun import run_dot_layout
    from rulecraft.tools.print.pdfcompose import Composer, read_page
    from rulecraft.tools.print.sheetfold import TIGHT, SheetPages, Unit, draw_shapes, sheet_charts
    from rulecraft.tools.print.sheetpaging import LEAD_MOST, Paging, box, heading, place
    from rulecraft.tools.words.bookkeeping import players_graph

    if detail != "full":
        graph = players_graph(rs, graph)

    plan = plan or plan_sheets(rs, graph)
    callers = callers_of(graph)
    portrait = PAPER[paper]  # one orientation for the whole document: flowcharts run down the page
    inner_w = portrait[0] - 2 * MARGIN
    with ThreadPoolExecutor(max_workers=1) as pool:  # the legend is drawn while the charts are
        legend_job = pool.submit(run_dot_layout, legend_dot(coverage is not None, columns=LEGEND_COLUMNS), "pdf", TIGHT)
        origins = sheet_charts(rs, graph, plan, portrait, coverage, detail)
        # every chart drawn wider and narrower too: the page layout picks the shapes that pack the pages tightest
        draw_shapes(rs, graph, plan, [u for o in origins for u in o.units], portrait, coverage, detail)
        legend_pdf = legend_job.result()[0]
    subs: dict[int, list[str]] = {}
    for o in origins:
        for u in o.units:
            if u.only is not None:
                subs.setdefault(o.number, []).append(u.label)
    # the title page is drawn first with every page number '88' (its size does not depend on the numbers) to
    # learn the room it leaves for charts; then again with the true numbers
    dummy = {sheet.number: 88 for sheet in plan.sheets}
    legend = SheetPages("", "Legend", "", [], 0, [], [Unit("", label="", piece=read_page(legend_pdf))], legend=True)

    def lay_out(win: bool):
        first_page = read_page(run_dot_layout(title_dot(rs, plan, callers, coverage, inner_w, detail, subs, dummy,
                                                        win=win), "pdf", TIGHT)[0])
        front = _title_geometry(first_page.size, legend.units[0].natural(), portrait)
        paging = Paging([legend, *origins])  # the legend first: under the index if it fits there
        head, pages_ = paging.paginate(portrait, front["room"])
        if head is None:  # else at the top of page 2 or at the end, whichever takes fewer pages
            last = Paging([*origins, legend])
            got = last.paginate(portrait, front["room"])
            if len(got[1]) < len(pages_):
                paging, (head, pages_) = last, got
        return front, paging, head, pages_

    # How to win and the Set-up on the title page (players' sheets), as much of them as costs no page: a sheet 1
    # pushed off the index page for four lines left half of it empty (siege-row, 3 pages -> 4)
    win: object = False
    front, paging, head, pages_ = lay_out(False)
    for more in (("setup", True) if detail != "full" and _win_rows(rs) else ()):
        got = lay_out(more)
        if (len(got[3]), _cut(*got[1:])) <= (len(pages_), _cut(paging, head, pages_)):  # no page, no sheet cut more
            win, (front, paging, head, pages_) = more, got
            break
    pages: dict[int, int] = {}  # sheet number -> the page it begins on
    for at, pg in enumerate(([head] if head else []) + pages_, 1 if head else 2):
        for k, _u in paging.items[pg.first:pg.end]:
            for n in paging.origins[k].numbers:
                pages.setdefault(n, at)
    title_page = read_page(run_dot_layout(title_dot(rs, plan, callers, coverage, inner_w, detail, subs, pages,
                                                    win=win), "pdf", TIGHT)[0])
    total = 1 + len(pages_)

    legend_at = next(i for i, pg in enumerate(([head] if head else [None]) + pages_, 1)
                     if pg is not None and any(paging.origins[k].legend for k, _u in paging.items[pg.first:pg.end]))
    out = Composer()
    s, th = front["scale"], title_page.size[1]
    parts = [(title_page, s, MARGIN, portrait[1] - MARGIN - th * s)]
    texts = [footer_text(f"{rs.title} · sequence sheets · index", portrait)]
    rules = []
    if head is not None:
        room = front["room"]
        pp = place(paging, head, room, MARGIN, MARGIN + FOOTER + room[1], portrait, LEAD_MOST)
        parts += pp.parts
        texts += pp.notes
        rules += pp.rules
    out.add_page(portrait, parts, texts=texts, rules=rules)
    out.outline("Index", 0)

    scales = []
    for pg in pages_:
        label, title, numbers, origin, sub = heading(paging, pg)
        if numbers == [origin.number] and sub == "":
            sub = _sub_heading(rs, plan, callers, plan.sheet(origin.number), detail)
        pp = place(paging, pg, box(portrait), MARGIN, portrait[1] - MARGIN - HEADER, portrait)
        texts = heading_texts(f"Sheet{'s' if '–' in label else ''} {label} · {title}", sub, portrait)
        texts.append(footer_text(f"{rs.title} · sheet {label} of {len(plan.sheets)} · legend on the "
                                 + ("index page" if legend_at == 1 else "first sheet's page"), portrait))
        index = out.add_page(portrait, pp.parts, rules=[(MARGIN, portrait[0] - MARGIN, portrait[1] - MARGIN - HEADER + 4)]
                             + pp.rules, texts=texts + pp.notes)
        names = [sequence_title(rs.sequences[s]) for n in numbers for s in plan.sheet(n).sequences] or [title]
        out.outline(f"{label}. " + ", ".join(names), index)
        scales.append(pp.scale)
    if head is not None:
        scales.append(place(paging, head, front["room"], 0, 0, portrait, LEAD_MOST).scale)
    out.metadata({"/Title": f"{rs.title}: sequence sheets", "/Creator": "rulecraft sheets"})
    pdf = out.to_bytes()
    return SheetsResult(pdf, total, tuple(scales))


def _cut(paging, head, pages_) -> int:
    """How many sheets the pages cut in two (a sheet's charts on more than one page)."""
    on: dict[int, set] = {}
    for at, pg in enumerate(([head] if head else []) + pages_):
        for k, _u in paging.items[pg.first:pg.end]:
            on.setdefault(k, set()).add(at)
    return sum(1 for pages in on.values() if len(pages) > 1)


LEAD_GAP = 12.0  # between the index and what follows it on the title page (the legend, charts)


def _title_geometry(title: tuple[float, float], legend: tuple[float, float], portrait) -> dict:
    """The scale of the title page's title block with the index (never below TITLE_MIN_SCALE: 8 pt) and the room
    (width, height) it leaves under it for the legend and charts. The index is printed a little smaller if that
    lets the legend (at MIN_SCALE or more) share its page."""
    inner_w = portrait[0] - 2 * MARGIN
    (tw, th), (_lw, lh) = title, legend
    room = portrait[1] - 2 * MARGIN - FOOTER
    s = max(TITLE_MIN_SCALE, min(1.0, inner_w / tw, room / th))
    with_legend = (room - LEAD_GAP - lh * MIN_SCALE - 1) / th
    if TITLE_MIN_SCALE <= with_legend < s:
        s = with_legend
    return {"scale": s, "room": (inner_w, max(0.0, room - th * s - LEAD_GAP))}


TITLE_MIN_SCALE = 8.0 / INDEX_PT  # the index's smallest type prints at 8 pt (LEGIBLE_PT) or more
LEGEND_COLUMNS = 4  # the legend's shapes a row: 4 keep it narrow enough to print its 10 pt type at 8 pt or more


def run(args) -> int:
    from rulecraft.tools.chart.dotrun import DotError

    verb = "sheets"
    if misnamed(args.output, (".pdf",)):  # as the aid: never a PDF in x.html
        return fail(verb, f"the sheets are a PDF: name the output FILE.pdf, not {args.output}", EXIT_USAGE)
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
