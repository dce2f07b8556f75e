"""`rulecraft simulate --report DIR`: an HTML page with PNG plots of a simulation (matplotlib, Agg backend); the
studio draws the same figures as SVG (`svg_figures`).

Plots: win rate per seat with 95% intervals; the final score per seat; the game-length histogram (decisions, and
each metric with `role: length`); for every tally whose values are 0/1 and whose keys are
numbers, the success rate against the key (e.g. against the target value); the keyed
rates of per_player metrics, the shares of keyed per_game ones and the values of the others; then the table of every
metric row. The page is self-contained apart from the PNG files beside it.
"""

from __future__ import annotations

import html
import os
from rulecraft.tools.simulate.metrics import Row, fmt
from rulecraft.tools.simulate.runs import Summary
from rulecraft.tools.simulate.stats import median

_BLUE = "#3465a4"
_ORANGE = "#ce5c00"
_GREY = "#888a85"


def _plt():
    """pyplot, drawing with matplotlib's own settings and ours alone: never a `matplotlibrc` (security.md, section 18)."""
    import sys

    if "matplotlib" not in sys.modules:
        _import_matplotlib()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    matplotlib.rcdefaults()  # not the user's own file either: every report is drawn alike, and TeX is never asked for
    # labels are a ruleset's own text: a '$' in a name is a dollar sign, never TeX to parse
    plt.rcParams.update({"font.size": 11, "axes.titlesize": 13, "axes.spines.top": False,
                         "axes.spines.right": False, "figure.dpi": 100, "text.parse_math": False,
                         "text.usetex": False, "svg.fonttype": "path", "svg.hashsalt": "rulecraft",
                         "figure.max_open_warning": MAX_FIGURES + 8})
    return plt


def _import_matplotlib() -> None:
    """Import matplotlib without its reading the current folder's `matplotlibrc`, which it reads first of all its
    files as it is imported: a stranger's folder would choose how the report is drawn (a FIFO there hung the report
    for ever, `text.usetex: True` was an internal error or fed the ruleset's texts to TeX, a bad line was printed
    with its escape sequences). When the folder has one, the import is made from an empty folder of its own (the
    root folder if none can be made: never a folder of a package, whose modules '' on sys.path would import)."""
    import tempfile

    if not os.path.lexists("matplotlibrc"):
        import matplotlib  # noqa: F401
        return
    try:
        away = tempfile.TemporaryDirectory(prefix="rulecraft-plot-")
    except OSError:
        away = None
    back = os.open(".", getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY)
    try:
        os.chdir(away.name if away is not None else os.path.abspath(os.sep))
        try:
            import matplotlib  # noqa: F401
        finally:
            os.fchdir(back)
    finally:
        os.close(back)
        if away is not None:
            away.cleanup()


def _image(fig, fmt: str) -> bytes:
    """The figure as PNG or SVG bytes (then closed)."""
    import io

    import matplotlib.pyplot as plt

    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, dpi=100, metadata={"Date": None} if fmt == "svg" else None)
    plt.close(fig)
    return buf.getvalue()


def _save(fig, folder: str, name: str) -> str:
    from rulecraft.files import write_output

    write_output(os.path.join(folder, name), _image(fig, "png"))  # the one writer: OutputError when it cannot
    return name


def _legend(ax, **kw) -> None:
    """The legend beside the axes, at their top right, never inside them: at the upper right inside it covered the
    data it names (seat 2's box of final scores, a histogram's tallest bars; session 20)."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, frameon=False, fontsize=10, **kw)


def _title(ax, title: str, doc: str = "") -> None:
    import textwrap

    ax.set_title(title + ("\n" + "\n".join(textwrap.wrap(doc, 90)) if doc else ""), fontsize=12, loc="left")


MAX_FIGURES = 40  # plots a report draws: one a metric, and a ruleset may declare thousands (security.md, section 21)
MAX_BARS = 20  # keys a bar chart shows: a metric keyed anew in every game had one bar a game (security.md, section 18)


def _rate_bars(plt, rows: list[Row], title: str, xlabel: str, baseline: float | None = None, doc: str = ""):
    if len(rows) > MAX_BARS:  # the keys with the most games, in their order; the table lists every one
        kept = {id(r) for r in sorted(rows, key=lambda r: -r.n)[:MAX_BARS]}
        title += f" (the {MAX_BARS} keys of {len(rows):,} seen most; the table lists all)"
        rows = [r for r in rows if id(r) in kept]
    fig, ax = plt.subplots(figsize=(8, 4.4))
    est = [r.interval() for r in rows]
    xs = range(len(rows))
    ax.bar(xs, [e[0] for e in est], color=_BLUE, width=0.6)
    ax.errorbar(xs, [e[0] for e in est], yerr=[[e[0] - e[1] for e in est], [e[2] - e[0] for e in est]],
                fmt="none", ecolor="black", capsize=6, lw=1.2)
    for x, e in zip(xs, est):
        ax.annotate(f"{e[0]:.1%}", (x, e[2]), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=10,
                    bbox={"facecolor": "white", "edgecolor": "none", "pad": 1})  # clear of the cap and the share line
    if baseline is not None:
        ax.axhline(baseline, color=_GREY, ls="--", lw=1, label=f"an even share ({baseline:.0%})")
        _legend(ax)
    ax.set_xticks(list(xs))
    ax.set_xticklabels([r.label for r in rows], rotation=0 if len(rows) <= 8 else 45,
                       ha="center" if len(rows) <= 8 else "right")
    top = max(e[2] for e in est)
    ax.set_ylim(0, min(1.12, top * 1.25 + 0.03))
    ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:.0%}" if v <= 1.0001 else ""))
    _title(ax, title, doc)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("rate (95% interval)")
    return fig


def _histogram(plt, values, title: str, xlabel: str):
    fig, ax = plt.subplots(figsize=(8, 4.2))
    lo, hi = min(values), max(values)
    bins = min(40, max(5, int(hi - lo) + 1))
    ax.hist(values, bins=bins, color=_BLUE, edgecolor="white")
    m = median(values)
    ax.axvline(m, color="black", ls="--", lw=1)
    ax.annotate(f"median {m:g}", (m, ax.get_ylim()[1] * 0.95), xytext=(4, 0), textcoords="offset points", fontsize=10)
    _title(ax, title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("games")
    ax.yaxis.set_major_locator(plt.MaxNLocator(integer=True))
    return fig


def _seat_scores(summary: Summary) -> list:
    """Each seat's final scores, as samples."""
    from collections import Counter

    from rulecraft.tools.simulate.aggregate import Samples

    return [Samples(Counter({s: n for (seat, s), n in summary.tally.scores.items() if seat == i}))
            for i in range(summary.players)]


def _scores(plt, summary: Summary):
    """Each seat's final score: a box per seat (median, quartiles, whiskers at 1.5 IQR, outliers)."""
    per_seat = _seat_scores(summary)
    if not any(len(v) for v in per_seat):
        return None
    fig, ax = plt.subplots(figsize=(8, 4.2))
    ax.boxplot([list(v) or [float("nan")] for v in per_seat], widths=0.5, patch_artist=True,
               boxprops={"facecolor": "#c6dbef", "edgecolor": _BLUE}, medianprops={"color": "black"})
    ax.set_xticks(range(1, summary.players + 1))
    ax.set_xticklabels([f"seat {i + 1}" for i in range(summary.players)])
    _title(ax, f"{summary.ruleset}: final score per seat ({summary.done} games)")
    ax.set_ylabel("score at the end")
    return fig


def figures(summary: Summary) -> list[tuple[str, str, object]]:
    """The report's plots as matplotlib figures: (name, caption, figure) of each, in the report's order. The one
    home of what is plotted: `rulecraft simulate --report` saves them as PNG (`plots`), the studio as SVG
    (`svg_figures`)."""
    plt = _plt()
    out = []
    groups = summary.rows()
    game = groups[0][1]
    seats = [r for r in game if r.label.startswith("win rate, seat")]
    for r in seats:
        r.label = r.label.replace("win rate, ", "")
    if summary.done:
        fig = _rate_bars(plt, seats, f"{summary.ruleset}: win rate per seat ({summary.done} games)", "",
                         1 / summary.players)
        out.append(("win_rate", "Win rate per seat, with 95% Wilson intervals.", fig))
        fig = _scores(plt, summary)
        if fig is not None:
            out.append(("scores", "Final score per seat: the box holds the middle half of the games, the line "
                                  "is the median.", fig))
    lengths = [("decisions", next(r.values for r in game if r.label == "decisions per game"))]
    for desc, rows in groups[1:]:
        if desc.get("role") == "length" and rows and rows[0].values:
            lengths.append((desc["name"], rows[0].values))
    for name, values in lengths:
        if not values or len(out) >= MAX_FIGURES:
            continue
        fig = _histogram(plt, values, f"{summary.ruleset}: game length in {name} ({len(values)} games)",
                         f"{name} per game")
        out.append((f"length_{name}", f"Game length: {name} per game.", fig))
    for desc, rows in groups[1:]:
        if len(out) >= MAX_FIGURES:  # the metrics after it are in the table only: 2,000 metrics were 2,000 plots
            name, caption, fig = out[-1]
            out[-1] = (name, f"{caption} (At most {MAX_FIGURES} plots a report: the metrics after this one are in "
                             "the table only.)", fig)
            break
        name = desc["name"]
        keyed = [r for r in rows if r.key is not None]
        if desc["kind"] == "tally" and keyed and all(r.stat == "rate" for r in keyed) and all(
                isinstance(r.key, (int, float)) and not isinstance(r.key, bool) for r in keyed):
            out.append((f"rate_{name}", f"{name}: {desc['doc'] or 'rate'} The rate at each key, with 95% intervals; "
                        "the grey bars count the tallies at each key.", _rate_curve(plt, summary, desc, keyed)))
        elif desc["kind"] == "per_player" and keyed and all(r.stat == "rate" for r in keyed):
            fig = _rate_bars(plt, keyed, f"{summary.ruleset}: {name}", f"by {desc['by']}" if desc.get("by") else "key",
                             1 / summary.players if summary.players else None, desc["doc"])
            out.append((f"rate_{name}", f"{name}: {desc['doc']} (95% intervals).", fig))
        elif desc["kind"] == "per_game" and keyed and all(r.stat == "rate" for r in keyed):
            for r in keyed:
                r.label = r.label.split(":")[0]
            fig = _rate_bars(plt, keyed, f"{summary.ruleset}: {name}, share of games",
                             f"by {desc['by']}" if desc.get("by") and len(desc["by"]) < 60 else "", doc=desc["doc"])
            out.append((f"share_{name}", f"{name}: share of games for each key (95% intervals).", fig))
        elif desc["kind"] == "per_game" and not keyed and desc.get("role") != "length" and rows and rows[0].values:
            fig = _histogram(plt, rows[0].values, f"{summary.ruleset}: {name} ({len(rows[0].values)} games)",
                             f"{name} per game")
            out.append((f"values_{name}", f"{name}: {desc['doc'] or 'its value per game'}", fig))
    return out


def compare_figures(a: Summary, b: Summary) -> list[tuple[str, str, object]]:
    """Two runs on the same seeds drawn in one figure each, on the same axes, A blue and B orange: the win rate per
    seat, the final score per seat, the game length. Each run's own figures have their own scales, so side by side
    they could not be compared by eye (a 40% bar of one as tall as a 60% bar of the other)."""
    plt = _plt()
    out = []
    names = (f"A: {a.ruleset}", f"B: {b.ruleset}") if a.ruleset != b.ruleset else ("A", "B")
    seats = min(a.players, b.players)
    if a.done and b.done:
        fig, ax = plt.subplots(figsize=(8, 4.4))
        for k, (run, colour, name) in enumerate(((a, _BLUE, names[0]), (b, _ORANGE, names[1]))):
            est = run.win_rates()[:seats]
            xs = [i + (k - 0.5) * 0.36 for i in range(seats)]
            ax.bar(xs, [e[0] for e in est], width=0.34, color=colour, label=name)
            ax.errorbar(xs, [e[0] for e in est], yerr=[[e[0] - e[1] for e in est], [e[2] - e[0] for e in est]],
                        fmt="none", ecolor="black", capsize=4, lw=1)
        ax.axhline(1 / seats, color=_GREY, ls="--", lw=1, label=f"an even share ({1 / seats:.0%})")
        ax.set_xticks(range(seats))
        ax.set_xticklabels([f"seat {i + 1}" for i in range(seats)])
        ax.set_ylim(0, 1.02)
        ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:.0%}"))
        ax.set_ylabel("rate (95% interval)")
        _legend(ax)
        _title(ax, f"Win rate per seat, A and B ({a.done} and {b.done} games)")
        out.append(("compare_win_rate", "Win rate per seat of A (blue) and B (orange) on one scale, with 95% Wilson "
                                        "intervals.", fig))
        scores = [_seat_scores(a)[:seats], _seat_scores(b)[:seats]]
        if any(len(v) for side in scores for v in side):
            fig, ax = plt.subplots(figsize=(8, 4.2))
            for k, (side, colour, fill) in enumerate(((scores[0], _BLUE, "#c6dbef"), (scores[1], _ORANGE, "#fdd0a2"))):
                ax.boxplot([list(v) or [float("nan")] for v in side], positions=[i + (k - 0.5) * 0.36 for i in range(seats)],
                           widths=0.3, patch_artist=True, boxprops={"facecolor": fill, "edgecolor": colour},
                           medianprops={"color": "black"}, manage_ticks=False)
            ax.set_xticks(range(seats))
            ax.set_xticklabels([f"seat {i + 1}" for i in range(seats)])
            _legend(ax, handles=[plt.Rectangle((0, 0), 1, 1, facecolor=c, edgecolor=e) for c, e in
                                 (("#c6dbef", _BLUE), ("#fdd0a2", _ORANGE))], labels=list(names))
            ax.set_ylabel("score at the end")
            _title(ax, "Final score per seat, A and B")
            out.append(("compare_scores", "Final score per seat of A (blue) and B (orange) on one scale: each box holds "
                                          "the middle half of the games, its line is the median.", fig))
    lengths = [next(r.values for r in run.rows()[0][1] if r.label == "decisions per game") for run in (a, b)]
    if all(lengths):
        lo, hi = min(min(v) for v in lengths), max(max(v) for v in lengths)
        n = min(40, max(5, int(hi - lo) + 1))
        bins = [lo + (hi - lo + 1) * i / n for i in range(n + 1)]
        fig, ax = plt.subplots(figsize=(8, 4.2))
        for values, colour, name in ((lengths[0], _BLUE, names[0]), (lengths[1], _ORANGE, names[1])):
            ax.hist(values, bins=bins, color=colour, alpha=0.45, label=f"{name} (median {median(values):g})")
            ax.axvline(median(values), color=colour, ls="--", lw=1.2)
        _legend(ax)
        ax.set_xlabel("decisions per game")
        ax.set_ylabel("games")
        ax.yaxis.set_major_locator(plt.MaxNLocator(integer=True))
        _title(ax, "Game length, A and B")
        out.append(("compare_length", "Game length in decisions of A (blue) and B (orange) on the same bins; the "
                                      "dashed lines are the medians.", fig))
    return out


def svg_compare_figures(a: Summary, b: Summary) -> list[dict]:
    """The comparison's figures as SVG documents: {name, caption, svg} of each."""
    return [{"name": name, "caption": caption, "svg": _image(fig, "svg").decode("utf-8")}
            for name, caption, fig in compare_figures(a, b)]


def plots(summary: Summary, folder: str) -> list[tuple[str, str]]:
    """Write the PNG plots into `folder`; (file name, caption) of each."""
    return [(_save(fig, folder, f"{name}.png"), caption) for name, caption, fig in figures(summary)]


def svg_figures(summary: Summary) -> list[dict]:
    """The same plots as SVG documents: {name, caption, svg} of each (the studio shows them as images)."""
    return [{"name": name, "caption": caption, "svg": _image(fig, "svg").decode("utf-8")}
            for name, caption, fig in figures(summary)]


def _rate_curve(plt, summary: Summary, desc: dict, rows: list[Row]):
    fig, ax = plt.subplots(figsize=(8, 4.6))
    total = sum(r.n for r in rows)
    rows = [r for r in rows if r.n >= max(5, total * 0.005)]  # a key seen a handful of times has no rate to speak of
    xs = [r.key for r in rows]
    est = [r.interval() for r in rows]
    counts = ax.twinx()
    counts.bar(xs, [r.n for r in rows], color="#d3d7cf", width=0.8, zorder=0)
    counts.set_ylabel("tallies at this key", color=_GREY)
    counts.tick_params(axis="y", colors=_GREY)
    counts.spines["right"].set_visible(True)
    ax.set_zorder(counts.get_zorder() + 1)
    ax.patch.set_visible(False)
    ax.fill_between(xs, [e[1] for e in est], [e[2] for e in est], color=_BLUE, alpha=0.2, lw=0)
    ax.plot(xs, [e[0] for e in est], "o-", color=_BLUE, lw=2)
    ax.set_ylim(0, 1.02)
    ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:.0%}"))
    if all(float(x).is_integer() for x in xs):
        ax.xaxis.set_major_locator(plt.MaxNLocator(integer=True))
    ax.set_xlabel("key: the value after 'by' in the tally statement")
    ax.set_ylabel("rate (95% interval)")
    _title(ax, f"{summary.ruleset}: {desc['name']}, rate by key (keys tallied at least {max(5, total * 0.005):.0f} times)",
           desc.get("doc") or "")
    return fig


def _table(groups) -> str:
    out = ["<table><tr><th>metric</th><th>row</th><th>estimate</th><th>95% interval</th><th>n</th><th>median</th></tr>"]
    for desc, rows in groups:
        name = desc["name"] or "games"
        for i, r in enumerate(rows):
            est, lo, hi = r.interval()
            first = (f"<td rowspan='{len(rows)}' class='m'><b>{html.escape(name)}</b> <i>{html.escape(desc['kind'])}</i>"
                     f"<br><small>{html.escape(desc.get('doc') or '')}</small></td>") if i == 0 else ""
            med = f"{median(r.values):g}" if r.values else ""
            out.append(f"<tr>{first}<td>{html.escape(r.label)}</td><td class='n'>{fmt(r, est)}</td>"
                       f"<td class='n'>{fmt(r, lo)} .. {fmt(r, hi)}</td><td class='n'>{r.n:g}</td><td class='n'>{med}</td></tr>")
    out.append("</table>")
    return "\n".join(out)


_CSS = """body{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.25em .6em;vertical-align:top}
th{background:#eee}.n{text-align:right;font-variant-numeric:tabular-nums}.m{max-width:18em}
figure{margin:1.5em 0}figcaption{color:#555}img{max-width:100%}.err{color:#a40000}"""


def write_report(summary: Summary, folder: str) -> str:
    """Write index.html and its PNG plots into `folder` (created if needed); the page's path."""
    from rulecraft.files import OutputError, output_folder_problem, write_output

    problem = output_folder_problem(folder)
    if problem:
        raise OutputError(folder, problem)
    figures = plots(summary, folder)
    groups = summary.rows()
    title = f"Simulation of {summary.ruleset}"
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
             f"<style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>",
             f"<p>{summary.games} games, {summary.players} players ({html.escape(', '.join(summary.agents))}), "
             f"seeds {summary.seed}..{summary.seed + summary.games - 1}, {summary.seconds:.1f} s.</p>"]
    if summary.errors:
        e = summary.errors[0]
        parts.append(f"<p class='err'>Errors in {len(summary.errors)} games; the first, seed {e['seed']}: "
                     f"{html.escape(str(e['error']))}</p>")
    if summary.never_reached is not None:
        parts.append(f"<p>Step nodes of the sequence graph that no game reached: {len(summary.never_reached)}"
                     + (f" ({html.escape(', '.join(summary.never_reached[:12]))}"
                        f"{', ...' if len(summary.never_reached) > 12 else ''})" if summary.never_reached else "") + ".</p>")
    for name, caption in figures:
        parts.append(f"<figure><img src='{html.escape(name)}' alt='{html.escape(caption)}'>"
                     f"<figcaption>{html.escape(caption)}</figcaption></figure>")
    parts.append("<h2>Every row</h2><p>Rates with 95% Wilson intervals; means with 95% Student-t intervals.</p>")
    parts.append(_table(groups))
    parts.append("</body></html>")
    path = os.path.join(folder, "index.html")
    write_output(path, "\n".join(parts))
    return path

