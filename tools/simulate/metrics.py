"""Turn the per-game results of a simulation into rows of statistics: rates and means with 95% intervals.

The same rows feed the text report, the JSON, the HTML report and `rulecraft compare`
(which matches the rows of two runs by metric, key and label). A row is either a *rate*
(successes out of trials, Wilson interval) or a *mean* (count, sum and sum of squares,
Student-t interval; per-game samples are kept for the median and the plots).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from typing import Any, Optional

from rulecraft.tools.simulate.stats import mean_interval, median, wilson


@dataclass
class Row:
    metric: str  # the metric's id, or '' for what every game has (win rates, length)
    key: Any  # the metric's key this row is about, or None for the whole metric
    label: str
    stat: str  # 'rate' or 'mean'
    n: float = 0
    s: float = 0
    ss: float = 0
    values: Optional[list] = field(default=None, repr=False)  # per-game samples of a mean

    @property
    def ident(self) -> tuple:
        return (self.metric, self.label)

    def interval(self) -> tuple[float, float, float]:
        """(estimate, low, high), 95%."""
        if self.stat == "rate":
            lo, hi = wilson(self.s, self.n)
            return (self.s / self.n if self.n else 0.0), lo, hi
        if self.n and self.values and spread(self.values)[1] >= 0:  # a count: never below 0
            if self.s == self.ss:  # every game counted 0 or 1: a proportion, with its Wilson interval
                lo, hi = wilson(self.s, self.n)
                return self.s / self.n, lo, hi
            est, lo, hi = mean_interval(self.n, self.s, self.ss)
            return est, max(lo, 0.0), hi
        return mean_interval(self.n, self.s, self.ss)

    def to_json(self) -> dict:
        est, lo, hi = self.interval()
        out = {"label": self.label, "key": self.key, "stat": self.stat, "n": self.n, "estimate": _round(est),
               "low": _round(lo), "high": _round(hi)}
        if self.stat == "rate":
            out["count"] = self.s
        if self.values:
            out.update(zip(("median", "min", "max"), spread(self.values)))
        return out


def spread(values) -> tuple:
    """(median, min, max) of per-game samples: a list, or `aggregate.Samples` (a histogram; no pass over every game)."""
    if hasattr(values, "median"):
        return values.median(), values.min(), values.max()
    return median(values), min(values), max(values)


def _round(v: float) -> float:
    return round(v, 5)


def sample_row(metric: str, key: Any, label: str, values: list) -> Row:
    return Row(metric, key, label, "mean", len(values), float(sum(values)), float(sum(v * v for v in values)),
               list(values))


def rate_row(metric: str, key: Any, label: str, k: float, n: float) -> Row:
    return Row(metric, key, label, "rate", n, k, k)


# ----------------------------------------------------------------------------- rows of one run

def game_rows(done: list[dict], players: int) -> list[Row]:
    """Rows every simulation has: win rate per seat, games nobody won, decisions per game."""
    n = len(done)
    rows = [rate_row("", seat, f"win rate, seat {seat + 1}", sum(1 for r in done if seat in (r.get("winners") or [])), n)
            for seat in range(players)]
    rows.append(rate_row("", None, "no winner", sum(1 for r in done if not r.get("winners")), n))
    rows.append(sample_row("", None, "decisions per game", [r["decisions"] for r in done]))
    return rows


def key_text(key: Any) -> str:
    if key is None:
        return "none"
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, float) and key.is_integer():
        return str(int(key))
    return str(key)


def sorted_keys(keys) -> list:
    keys = list(keys)
    if all(isinstance(k, (int, float)) and not isinstance(k, bool) for k in keys):
        return sorted(keys)
    return sorted(keys, key=lambda k: (k is None, key_text(k)))


def shape(pooled: dict) -> str:
    """'count' when every value tallied was 1, 'binary' for 0/1 values, else 'numeric'."""
    n = sum(v[0] for v in pooled.values())
    s = sum(v[1] for v in pooled.values())
    ss = sum(v[2] for v in pooled.values())
    if n and s == n == ss:
        return "count"
    if n and s == ss and float(s).is_integer():
        return "binary"
    return "numeric"


def metric_rows(name: str, kind: str, done: list[dict]) -> list[Row]:
    """The rows of one metric over the finished games."""
    games = [{k: (n, s, ss) for k, n, s, ss in (r.get("metrics") or {}).get(name, [])} for r in done]
    pooled: dict = {}
    for g in games:
        for k, (n, s, ss) in g.items():
            p = pooled.setdefault(k, [0, 0, 0])
            p[0] += n
            p[1] += s
            p[2] += ss
    form = shape(pooled)
    keys = sorted_keys(pooled)
    keyed = keys != [None] and bool(keys)
    rows: list[Row] = []
    if kind == "tally":
        rows.append(sample_row(name, None, "per game", [sum(v[0] for v in g.values()) for g in games]))
        if form == "numeric":
            rows.append(sample_row(name, None, "sum per game", [sum(v[1] for v in g.values()) for g in games]))
        if form == "binary":
            rows.append(rate_row(name, None, "rate", sum(v[1] for v in pooled.values()),
                                 sum(v[0] for v in pooled.values())))
        if keyed:
            for k in keys:
                n, s, ss = pooled[k]
                if form == "count":
                    rows.append(sample_row(name, k, f"{key_text(k)} per game", [g.get(k, (0,))[0] for g in games]))
                elif form == "binary":
                    rows.append(rate_row(name, k, key_text(k), s, n))
                else:
                    rows.append(Row(name, k, key_text(k), "mean", n, s, ss))
    elif kind == "per_player":
        for k in keys:
            n, s, ss = pooled[k]
            label = key_text(k) if keyed else "all players"
            rows.append(rate_row(name, k, label, s, n) if form in ("binary", "count") else Row(name, k, label, "mean", n, s, ss))
    else:  # per_game
        if not keyed:
            rows.append(sample_row(name, None, "per game", [g[None][1] for g in games if None in g]))
        else:
            for k in keys:
                rows.append(rate_row(name, k, f"{key_text(k)}: share of games", sum(1 for g in games if k in g), len(games)))
                if form == "numeric":
                    n, s, ss = pooled[k]
                    rows.append(Row(name, k, f"{key_text(k)}: mean", "mean", n, s, ss))
    return rows


def all_rows(done: list[dict], players: int, defs: dict) -> list[tuple[dict, list[Row]]]:
    """(metric description, rows) for the game itself (description {'name': ''}) and each metric."""
    out = [({"name": "", "kind": "game", "doc": "", "role": None}, game_rows(done, players))]
    for name, d in defs.items():
        out.append(({"name": name, **d}, metric_rows(name, d["kind"], done)))
    return out


# ----------------------------------------------------------------------------- text

def fmt(row: Row, value: float) -> str:
    if row.stat == "rate":
        return f"{value:.1%}"
    if abs(value) >= 100:
        return f"{value:.1f}"
    return f"{value:.2f}" if abs(value) >= 1 else f"{value:.3f}"


def row_text(row: Row, width: int = 26) -> str:
    est, lo, hi = row.interval()
    extra = f"n={row.n:g}" if row.stat == "rate" or row.values is None else ""
    if row.values:
        extra = "median {:g}, min {:g}, max {:g}".format(*spread(row.values))
    label = row.label if len(row.label) <= width else _shortened(row.label, width)
    return f"{label:<{width}} {fmt(row, est):>8}  [{fmt(row, lo)} .. {fmt(row, hi)}]  {extra}".rstrip()


def _shortened(label: str, width: int) -> str:
    """A label cut to `width` at the end of a word ('…' where words were left out); a first word longer than the
    column is kept whole (the column is a minimum, not a knife)."""
    words, out = label.split(" "), ""
    for word in words:
        if len(out) + bool(out) + len(word) + 1 > width:
            break
        out = f"{out} {word}" if out else word
    return (out or words[0]).rstrip(",;:") + "…"


def write_csv(summary, path: str) -> None:
    """One row per game: seed, winners, scores, length, error, and each metric (its total and, per key, its sum)."""
    keys: dict[str, list] = {}
    for r in summary.results:
        for m, rows in (r.get("metrics") or {}).items():
            seen = keys.setdefault(m, [])
            for k, *_ in rows:
                if k is not None and k not in seen and len(seen) < 40:
                    seen.append(k)
    keys = {m: sorted_keys(ks) for m, ks in keys.items()}
    metric_names = list(summary.metric_defs) + [m for m in keys if m not in summary.metric_defs]
    header = ["seed", "winners", *[f"score_{i + 1}" for i in range(summary.players)], "decisions", "steps", "error"]
    for m in metric_names:
        header += [f"{m}.count", f"{m}.sum"] + [f"{m}[{key_text(k)}]" for k in keys.get(m, [])]
    import io

    from rulecraft.files import write_output

    fh = io.StringIO(newline="")
    if True:  # the rows are made in memory, then written by the one writer (raises OutputError)
        w = csv.writer(fh)
        w.writerow([_cell(h) for h in header])
        for r in summary.results:
            scores = list(r.get("scores") or [])
            row = [r["seed"], " ".join(str(s + 1) for s in r.get("winners") or []),
                   *[(scores[i] if i < len(scores) else "") for i in range(summary.players)],
                   r.get("decisions", ""), r.get("steps", ""), r.get("error", "")]
            for m in metric_names:
                per_key = {k: (n, s) for k, n, s, _ss in (r.get("metrics") or {}).get(m, [])}
                row += [sum(v[0] for v in per_key.values()), _num(sum(v[1] for v in per_key.values()))]
                row += [_num(per_key[k][1]) if k in per_key else 0 for k in keys.get(m, [])]
            w.writerow([_cell(v) for v in row])
    write_output(path, fh.getvalue())


def _cell(value):
    """A text cell as a spreadsheet shows it, never as a formula it runs: a game's error quotes the ruleset's path and
    values (`=HYPERLINK(...)`, `=cmd|...`), a key the ruleset's texts; one that starts with = + - @, a tab or a
    return gets a leading ' (OWASP's advice for CSV). Numbers are written as they are."""
    return "'" + value if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def _num(v):
    return int(v) if isinstance(v, float) and v.is_integer() else v
