"""What the studio draws, from the code that draws it everywhere else: the chart of the sequence under the
cursor (with where each box's step is written), the player aid and the book as HTML, the sheets as PDF,
and the structural diff of two rulesets. Plain functions, run on worker threads by the app.
"""

from __future__ import annotations

import html
import os
import re

from rulecraft.loader import LoadResult, load_ruleset
from rulecraft.model.ruleset import walk_steps


class NotDrawn(Exception):
    """A ruleset with errors, or a sequence it does not have: nothing drawn; the message says why."""


def sequence_at(rs, path: str, line: int) -> str | None:
    """The sequence written around 1-based `line` of `path`: the last one that starts at or above it (the
    start sequence when the cursor is above them all, or the sequences come from another file)."""
    best, best_line = getattr(rs, "start", None), 0
    for sid, seq in rs.sequences.items():
        span = getattr(seq, "span", None)
        if span is not None and _same(span.file, path) and best_line < span.line <= line:
            best, best_line = sid, span.line
    return best


def chart(result: LoadResult, path: str, line: int, sequence: str | None = None, steps: str = "every") -> dict:
    """The SVG of one sequence's chart as `rulecraft render` draws it, and each box's step: its SVG id and the
    lines (1-based) its step is written on. `sequence` (if the ruleset has it) wins over the cursor's line.
    `steps`: "every" step the designer wrote (`render --detail full`: a step that only sets values is a box too, so
    the cursor on it has a box to outline), or "players": the sheets' chart, without the engine's bookkeeping and
    the branches the house rules in force never take."""
    from rulecraft.tools.chart.dotlabels import safe_id
    from rulecraft.tools.chart.dotrun import run_dot
    from rulecraft.tools.chart.flowchart import ChartOptions, chart_dot
    from rulecraft.tools.words.bookkeeping import players_graph

    rs = result.ruleset
    if rs is None or not result.ok:
        raise NotDrawn("the text has errors")
    sid = sequence if sequence in rs.sequences else sequence_at(rs, path, line)
    graph = players_graph(rs, result.graph) if steps == "players" else result.graph
    svg = run_dot(chart_dot(rs, graph, sid, ChartOptions()), "svg").decode("utf-8")
    drawn = set(re.findall(r'id="(?:a_)?([^"]+)"', html.unescape(svg)))  # Graphviz writes '-' as &#45;
    boxes = []
    for nid in graph.sequences.get(sid, ()):
        step = graph.nodes[nid].step
        span = getattr(step, "span", None)
        if span is not None and _same(span.file, path) and safe_id(nid) in drawn:
            boxes.append({"id": safe_id(nid), "line": span.line, "col": span.col})
    sequences = [{"id": s, "title": q.title, "line": _written_here(q, path)} for s, q in rs.sequences.items()]
    seq = rs.sequences[sid]
    return {"sequence": sid, "title": seq.title, "line": seq.span.line if seq.span else None,
            "svg": _strip_prolog(svg), "boxes": boxes, "sequences": sequences}


def _written_here(q, path: str) -> int | None:
    """The line of this file where sequence `q` is written, or where a step of it is (a variant's `overrides:`
    inserting or replacing steps of its parent's sequence); None for a sequence all written in a parent."""
    if q.span and _same(q.span.file, path):
        return q.span.line
    return min((st.span.line for st in walk_steps(q.steps) if getattr(st, "span", None) and _same(st.span.file, path)),
               default=None)


def _strip_prolog(svg: str) -> str:
    """The <svg> element alone (no XML declaration or doctype), to put into the page."""
    at = svg.find("<svg")
    return svg[at:] if at >= 0 else svg


def _same(a: str, b: str) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def _loaded(path: str) -> LoadResult:
    result = load_ruleset(path)
    if not result.ok:
        raise NotDrawn(f"{os.path.basename(path)} has errors: fix them and save to see its printed pages")
    return result


def aid_page(path: str) -> str:
    """The player aid as the HTML Chromium prints."""
    from rulecraft.tools.print.aid import aid_html, aid_view

    return aid_html(aid_view(_loaded(path).ruleset))


def book_page(path: str) -> str:
    """The rules as one HTML page (`rulecraft book`)."""
    from rulecraft.tools.print.book import build_book

    result = _loaded(path)
    return build_book(result.ruleset, result.graph)


def printed_pdf(kind: str, path: str) -> bytes:
    """The player aid ('aid', fitted to two pages as `rulecraft aid` prints it) or the book ('book') as a PDF,
    printed by headless Chromium; NotDrawn with the hint when there is none."""
    from rulecraft.tools.print.htmlpdf import PrintError, html_to_pdf

    try:
        if kind == "aid":
            from rulecraft.tools.print.aid import build_aid

            return build_aid(_loaded(path).ruleset)[0]
        return html_to_pdf(book_page(path), timeout=300)
    except PrintError as exc:
        raise NotDrawn(str(exc)) from None


def sheets_pdf(path: str) -> bytes:
    """The printable sequence sheets (`rulecraft sheets`), a PDF."""
    from rulecraft.tools.print.sheets import build_sheets

    result = _loaded(path)
    return build_sheets(result.ruleset, result.graph).pdf


_diffs: dict = {}  # (A, B) -> (the files' stamps, A, B, their diff, its text): the last pair compared


def _stamps(*results: LoadResult) -> tuple:
    """Each file the rulesets were read from (a parent under 'extends' too) with its size and time, or None when gone."""
    out: list[tuple] = []
    for name in sorted({n for r in results for n in r.sources.names()}):
        try:
            st = os.stat(name)
            out.append((name, st.st_size, st.st_mtime_ns))
        except OSError:
            out.append((name, None))
    return tuple(out)


MAX_DRAWN = 6  # sequences that differ drawn in one chart; past that, one at a time (400 took 15 s, fitted to a strip)


def diff(path_a: str, path_b: str, sequence: str = "") -> dict:
    """`rulecraft diff` of two rulesets: its text, the sequences that differ, and the chart (SVG) of every one of them
    when there are at most MAX_DRAWN, else of `sequence` (one that differs; the first when it is not one)."""
    from rulecraft.tools.chart.dotrun import run_dot
    from rulecraft.tools.diff.chart import differing, to_dot
    from rulecraft.tools.diff.report import diff_rulesets, to_text

    kept = _diffs.get((path_a, path_b))  # another sequence picked: the same two files, not loaded and compared again
    if kept is not None and kept[0] == _stamps(kept[1], kept[2]):
        _, a, b, found, text = kept
    else:
        a, b = _loaded(path_a), _loaded(path_b)
        found = diff_rulesets(a.ruleset, b.ruleset)
        text = to_text(found, os.path.basename(path_a), os.path.basename(path_b), b.ruleset)
        _diffs.clear()  # (one kept: the pair the page shows)
        _diffs[(path_a, path_b)] = (_stamps(a, b), a, b, found, text)
    # no chart where no sequence differs (a number, an option, a title changed): it was a legend and 'no sequence
    # differs' standing over the words that say what changed
    ids = differing(found, a.ruleset, b.ruleset)
    drawn = ids if len(ids) <= MAX_DRAWN else [sequence if sequence in ids else ids[0]]
    svg = run_dot(to_dot(found, a.ruleset, b.ruleset, a.graph, b.graph, drawn), "svg").decode("utf-8") if ids else ""
    seqs = [{"id": sid, "title": (b.ruleset.sequences.get(sid) or a.ruleset.sequences[sid]).title or sid,
             "status": found.sequences[sid].status} for sid in ids]
    return {"same": found.empty, "text": text, "svg": _strip_prolog(svg), "sequences": seqs, "drawn": drawn}
