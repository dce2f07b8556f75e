"""`rulecraft render`: a ruleset's sequences as flowcharts (DOT, SVG, PNG or PDF files).

With `--sequence ID` one file holds that sequence's chart. Without it every sequence is
drawn: OUT holds the start sequence and each other sequence goes next to it as
STEM-SEQUENCE.EXT (a PDF instead gets one page per sequence, in reading order). SVG call
boxes link to the files of the sequences they call. A chart drawn here stands alone: it names
the sequences it calls by their titles, not by the sheet numbers of `rulecraft sheets`.
`--format json` writes the sequence graph as data (graphjson.py); `--overview` draws the
whole game on one page (overview.py).
"""

from __future__ import annotations

import difflib
import os
import sys

from rulecraft.tools.loading import EXIT_ERRORS, EXIT_OK, EXIT_USAGE, fail, load_for, read_coverage_for, write_bytes

PNG_DPI = "144"


def sequence_file(out: str, sid: str, start: str) -> str:
    """Where a full render puts a sequence: OUT itself for the start sequence, STEM-SEQUENCE.EXT otherwise."""
    if sid == start:
        return out
    stem, ext = os.path.splitext(out)
    return f"{stem}-{sid}{ext}"


def chart_sources(rs, graph, plan, coverage=None, link=None, only=None) -> dict[str, str]:
    """The DOT of each sequence's chart as `render` draws it (with its legend, no sheet numbers), in reading
    order."""
    from rulecraft.tools.chart.flowchart import ChartOptions, chart_dot

    out = {}
    for sid in ([only] if only else plan.order):
        out[sid] = chart_dot(rs, graph, sid, ChartOptions(coverage=coverage, link=link, legend=True))
    return out


def _text_out(verb: str, out: str, text: str):
    """Text through the one writer (`-` is standard output)."""
    return write_bytes(verb, out, text)


SUFFIX_FORMATS = {".svg": "svg", ".png": "png", ".pdf": "pdf", ".dot": "dot", ".gv": "dot", ".json": "json"}


def run(args) -> int:
    from rulecraft.tools.chart.dotrun import DotError, run_dot, run_many
    from rulecraft.tools.chart.sheetplan import plan_sheets

    verb = "render"
    if args.format is None:  # the output's suffix says it: 'render dml -o dml.svg'
        args.format = SUFFIX_FORMATS.get(os.path.splitext(args.output)[1].lower())
        if args.format is None:
            return fail(verb, f"give --format (svg, png, pdf, dot or json): the output '{args.output[:100]}' has no "
                              "suffix that says one", EXIT_USAGE)
    loaded = load_for(verb, args.ruleset)
    if loaded is None:
        return EXIT_ERRORS
    rs, graph = loaded.ruleset, loaded.graph
    # charts: the boxes and numbers of the sheets (no bookkeeping); the graph as data keeps every node that runs
    if getattr(args, "detail", "players") != "full" and args.format != "json":
        from rulecraft.tools.words.bookkeeping import players_graph

        graph = players_graph(rs, graph)
    cov, code = read_coverage_for(verb, getattr(args, "coverage", None), loaded)
    if code is not None:
        return code
    fmt, out = args.format, args.output
    extra = (f"-Gdpi={PNG_DPI}",) if fmt == "png" else ()
    if getattr(args, "overview", False):
        if args.sequence or fmt == "json" or cov is not None:
            return fail(verb, "--overview draws the whole game as one chart: give it without --sequence, --coverage "
                              "or --format json", EXIT_USAGE)
        from rulecraft.tools.chart.overview import overview_dot

        charts = [(out, overview_dot(rs, graph))]
    elif fmt == "json":
        from rulecraft.tools.chart.graphjson import graph_json

        if args.sequence and args.sequence not in rs.sequences:
            return _unknown(verb, rs, args.sequence)
        return _text_out(verb, out, graph_json(rs, graph, args.sequence)) or EXIT_OK
    elif args.sequence:
        if args.sequence not in rs.sequences:
            return _unknown(verb, rs, args.sequence)
        charts = [(out, chart_sources(rs, graph, plan_sheets(rs, graph), cov, only=args.sequence)[args.sequence])]
    elif out == "-" and fmt != "pdf" and len(plan_sheets(rs, graph).order) > 1:
        return fail(verb, f"-o - (standard output) takes one chart and {rs.name} has {len(rs.sequences)} sequences: "
                          "give --sequence ID, or --format pdf for all of them", EXIT_USAGE)
    else:
        plan = plan_sheets(rs, graph)
        files = {sid: sequence_file(out, sid, rs.start) for sid in plan.order}
        link = (lambda sid: os.path.basename(files[sid]) if sid in files else None) if fmt == "svg" else None
        charts = [(files[sid], src) for sid, src in chart_sources(rs, graph, plan, cov, link).items()]

    if fmt == "dot" and out == "-" and len(charts) == 1:
        return _text_out(verb, out, charts[0][1]) or EXIT_OK
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
        from rulecraft.diagnostics import UNPRINTABLE  # (file names shown as typed, never driving the terminal)

        print(f"wrote {len(charts)} files, one per sequence: {', '.join(p for p, _s in charts)}".translate(UNPRINTABLE),
              file=sys.stderr)
    return EXIT_OK


def _unknown(verb: str, rs, sid: str) -> int:
    close = difflib.get_close_matches(sid, list(rs.sequences), n=1)
    hint = f"; did you mean '{close[0]}'?" if close else f"; the sequences are: {', '.join(rs.sequences)}"
    return fail(verb, f"{rs.name} has no sequence '{sid}'{hint}", EXIT_USAGE)


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
