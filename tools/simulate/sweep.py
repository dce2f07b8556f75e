"""A sweep of one setting: the same ruleset played at a few values of one numeric parameter (N games each, on the
same seeds), and any row of statistics (a win rate, the game length, a metric of the ruleset or one of its keys)
against the value, with its 95% interval. The studio's Simulate tab runs it (tools/studio/lab) and draws the plot
here, as `report.py` draws the report's: matplotlib, its figure as SVG, shown by the page as an image.
"""

from __future__ import annotations

import io
from typing import Any

from rulecraft.tools.simulate.runs import Summary

MAX_ROWS = 300  # rows a sweep keeps (a ruleset with many keys: dml's acquisitions have 28)
_BLUE = "#3465a4"  # (report.py's)


def sweep_rows(summaries: list[Summary]) -> list[dict]:
    """Every row of statistics of the sweep's runs, in the first run's order (then any a later run has alone):
    {metric, label, stat, doc, points}, `points` one per run, {estimate, low, high, n} or None where that run has no
    such row (a key no game of it tallied)."""
    found: dict[tuple, dict] = {}
    per_run = []
    for summary in summaries:
        mine = {}
        for desc, rows in summary.rows():
            for row in rows:
                mine[row.ident] = row
                if row.ident not in found and len(found) < MAX_ROWS:
                    found[row.ident] = {"metric": row.metric, "label": row.label, "stat": row.stat,
                                        "doc": desc.get("doc") or ""}
        per_run.append(mine)
    out = []
    for ident, row in found.items():
        points = []
        for mine in per_run:
            r = mine.get(ident)
            if r is None or not r.n:
                points.append(None)
                continue
            est, lo, hi = r.interval()
            points.append({"estimate": est, "low": lo, "high": hi, "n": r.n})
        out.append({**row, "points": points})
    return out


def row_title(row: dict) -> str:
    """A row as the page lists it: 'win rate, seat 1', 'busts: per game'."""
    return f"{row['metric']}: {row['label']}" if row["metric"] else row["label"]


def sweep_svg(ruleset: str, name: str, values: list[Any], row: dict) -> str:
    """The row's estimate at each value of the setting `name`, its 95% interval as bars, as an SVG document. Drawn
    with matplotlib's objects, not pyplot (no state shared between two pages drawing at once); labels are a
    ruleset's text, drawn as paths, a '$' a dollar sign (report.py's settings)."""
    import textwrap

    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    points = [(v, p) for v, p in zip(values, row["points"]) if p is not None]
    with matplotlib.rc_context({"font.size": 11, "axes.spines.top": False, "axes.spines.right": False,
                                "text.parse_math": False, "svg.fonttype": "path", "svg.hashsalt": "rulecraft"}):
        fig = Figure(figsize=(8, 4.4))
        ax = fig.subplots()
        xs = [_number(v) for v, _p in points]
        est = [p["estimate"] for _v, p in points]
        if points:
            ax.errorbar(xs, est, yerr=[[p["estimate"] - p["low"] for _v, p in points],
                                       [p["high"] - p["estimate"] for _v, p in points]],
                        fmt="o-", color=_BLUE, ecolor="black", capsize=6, lw=1.6)
            for x, e in zip(xs, est):
                ax.annotate(f"{e:.1%}" if row["stat"] == "rate" else f"{e:.3g}", (x, e), textcoords="offset points",
                            xytext=(8, 4), fontsize=10)
        ax.set_xticks(xs)
        ax.set_xticklabels([str(v) for v, _p in points])
        if row["stat"] == "rate":
            ax.set_ylim(0, 1.02)
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.0%}"))
        elif all(float(p["estimate"]).is_integer() for _v, p in points):
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        title = f"{ruleset}: {row_title(row)} against {name}"
        doc = row.get("doc") or ""
        ax.set_title(title + ("\n" + "\n".join(textwrap.wrap(doc, 90)) if doc else ""), fontsize=12, loc="left")
        ax.set_xlabel(name)
        ax.set_ylabel(("rate" if row["stat"] == "rate" else "mean") + " (95% interval)")
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="svg", metadata={"Date": None})
    return buf.getvalue().decode("utf-8")


def _number(v: Any) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return 0.0
