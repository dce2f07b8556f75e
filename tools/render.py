"""`rulecraft render`: a ruleset's sequences as flowcharts (DOT, SVG, PNG or PDF files).

With `--sequence ID` one file holds that sequence's chart. Without it every sequence is
drawn: OUT holds the start sequence and each other sequence goes next to it as
STEM-SEQUENCE.EXT (a PDF instead gets one page per sequence, in reading order). SVG call
boxes link to the files of the sequences they call. Cross-references name the sheet
numbers of `rulecraft sheets`, so a chart matches the printed sheets.
"""

from __future__ import annotations

import difflib
import os
import sys

from .loading import EXIT_ERRORS, EXIT_OK, EXIT_USAGE, fail, load_for, read_coverage_for, write_bytes

PNG_DPI = "144"


def sequence_file(out: str, sid: str, start: str) -> str:
    """Where a full render puts a sequence: OUT itself for the start sequence, STEM-SEQUENCE.EXT otherwise."""
    if sid == start:
        return out
    stem, ext = os.path.splitext(out)
    return f"{stem}-{sid}{ext}"


def chart_sources(rs, graph, plan, coverage=None, link=None, only=None) -> dict[str, str]:
    """The DOT of each sequence's chart as `render` draws it (with its legend), in reading order."""
    from .flowchart import ChartOptions, chart_dot

    out = {}
    for sid in ([only] if only else plan.order):
        mates = plan.sheet(plan.sheet_of[sid]).sequences
        out[sid] = chart_dot(rs, graph, sid, ChartOptions(sheet_of=plan.sheet_of, coverage=coverage, link=link,
                                                          legend=True, same_sheet=frozenset(mates)))
    return out


def run(args) -> int:
    from .dotrun import DotError, run_dot, run_many
    from .sheetplan import plan_sheets

    verb = "render"
    loaded = load_for(verb, args.ruleset)
    if loaded is None:
        return EXIT_ERRORS
    rs, graph = loaded.ruleset, loaded.graph
    cov, code = read_coverage_for(verb, getattr(args, "coverage", None), loaded)
    if code is not None:
        return code
    plan = plan_sheets(rs, graph)
    fmt, out = args.format, args.output
    extra = (f"-Gdpi={PNG_DPI}",) if fmt == "png" else ()

    if args.sequence:
        if args.sequence not in rs.sequences:
            close = difflib.get_close_matches(args.sequence, list(rs.sequences), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else f"; the sequences are: {', '.join(rs.sequences)}"
            return fail(verb, f"{rs.name} has no sequence '{args.sequence}'{hint}", EXIT_USAGE)
        charts = [(out, chart_sources(rs, graph, plan, cov, only=args.sequence)[args.sequence])]
    elif out == "-" and fmt != "pdf" and len(plan.order) > 1:
        return fail(verb, f"-o - (standard output) takes one chart and {rs.name} has {len(plan.order)} sequences: "
                          "give --sequence ID, or --format pdf for all of them", EXIT_USAGE)
    else:
        files = {sid: sequence_file(out, sid, rs.start) for sid in plan.order}
        link = (lambda sid: os.path.basename(files[sid]) if sid in files else None) if fmt == "svg" else None
        charts = [(files[sid], src) for sid, src in chart_sources(rs, graph, plan, cov, link).items()]

    try:
        if fmt == "dot":
            blobs = [src.encode("utf-8") for _path, src in charts]
        elif fmt == "pdf" and len(charts) > 1:
            blobs = [_merge_pdfs(run_many([(src, "pdf") for _p, src in charts]))]
            charts = charts[:1]
        else:
            blobs = run_many([(src, fmt, "dot", extra) for _p, src in charts]) if len(charts) > 1 \
                else [run_dot(charts[0][1], fmt, "dot", extra)]
    except DotError as exc:
        return fail(verb, str(exc), EXIT_ERRORS)
    for (path, _src), data in zip(charts, blobs):
        code = write_bytes(verb, path, data.decode("utf-8") if fmt in ("dot", "svg") else data)
        if code is not None:
            return code
    if len(charts) > 1:
        print(f"wrote {len(charts)} files, one per sequence: {', '.join(p for p, _s in charts)}", file=sys.stderr)
    return EXIT_OK


def _merge_pdfs(pages: list[bytes]) -> bytes:
    import io

    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for data in pages:
        for page in PdfReader(io.BytesIO(data)).pages:
            writer.add_page(page)
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()
