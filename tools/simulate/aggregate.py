"""What a simulation keeps of its games: partial aggregates that workers build and the parent merges.

A worker plays a chunk of games and returns one `Tally` of them instead of every game's result
(a DML game's result is about 10 KiB, more than half of it coverage); the parent merges the
tallies in seed order, so its memory does not grow with the number of games. A tally holds
exactly what the reports need, and the rows built from it are the rows `metrics.all_rows`
builds from the list of results (tests/test_scaleout.py checks it):

- counts: games, finished games, wins per seat, games without a winner;
- histograms (value -> how many games) of every per-game sample: decisions, steps, and for
  each metric its tallies per game, its sum per game, its count per game under each key, and
  its per-game value; medians, minima and maxima come out of a histogram exactly;
- each metric's pooled count, sum and sum of squares per key, summed exactly (whole numbers
  as Python ints, fractions as `Fraction`), so the order of the chunks cannot change a digit;
  a sum is a float when any value was one, as when the results were added in seed order;
- coverage counts, in the order the nodes were first reached;
- a histogram of each seat's final score (numeric scores only), for the score plot;
- the games that ended in an error (seed and message), in seed order.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections import Counter
from operator import add, itemgetter
from fractions import Fraction
from typing import Any, Iterator

from rulecraft.tools.simulate.spool import RunRefused, Spool  # noqa: F401 - Spool: tests read it here


class Exact:
    """A sum without rounding: an int, or a Fraction once a float was added; `value` is what plain addition
    in any order would give when no rounding happens (an int for ints, else a float)."""

    __slots__ = ("total", "floats")

    def __init__(self) -> None:
        self.total: Any = 0
        self.floats = False

    def add(self, x) -> None:
        if isinstance(x, float):
            self.floats = True
            self.total = self.total + (Fraction(x) if math.isfinite(x) else x)
        else:
            self.total = self.total + x

    def merge(self, other: "Exact") -> None:
        self.floats = self.floats or other.floats
        self.total = self.total + other.total

    @property
    def value(self):
        return float(self.total) if self.floats or isinstance(self.total, float) else self.total

    def __getstate__(self):
        return (self.total, self.floats)

    def __setstate__(self, state) -> None:
        self.total, self.floats = state


class Samples:
    """Per-game samples kept as a histogram: a sequence of the values in ascending order (len, index, iteration,
    median, min, max), for rows whose samples used to be a list of one value per game."""

    def __init__(self, counts: Counter) -> None:
        self._values = sorted(v for v, c in counts.items() if c)
        self._counts = [counts[v] for v in self._values]
        self._ends = list(itertools.accumulate(self._counts))

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def __getitem__(self, i: int):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(i)
        return self._values[bisect.bisect_right(self._ends, i)]

    def __iter__(self) -> Iterator:
        for v, c in zip(self._values, self._counts):
            yield from itertools.repeat(v, c)

    def __array__(self, dtype=None, copy=None):  # for plots (numpy): the values, repeated, without a Python loop
        import numpy

        return numpy.repeat(numpy.asarray(self._values, dtype=dtype), self._counts)

    def min(self):
        return self._values[0]

    def max(self):
        return self._values[-1]

    def median(self):
        n = len(self)
        if not n:
            return None
        m = n // 2
        return self[m] if n % 2 else (self[m - 1] + self[m]) / 2

    def total(self, power: int = 1) -> float:
        """The sum of the samples (or of their squares), added without rounding, as a float."""
        t: Any = 0
        for v, c in zip(self._values, self._counts):
            t += (Fraction(v) if isinstance(v, float) and math.isfinite(v) else v) ** power * c
        return float(t)

    def __repr__(self) -> str:
        return f"Samples({dict(zip(self._values, self._counts))})"


# The keys a simulation keeps of its metrics, all metrics together, over its games: each is a row of the report (games
# each within the game's 10,000 keys a metric, but with new keys every game, grew the run's memory with its games)
MAX_POOLED_KEYS = 200_000


class TooManyKeys(RunRefused):
    """The metrics of the games are grouped by more keys than a simulation keeps (MAX_POOLED_KEYS)."""


_FIRST, _SECOND = itemgetter(0), itemgetter(1)


class MetricTally:
    """One metric over the games of a tally."""

    def __init__(self) -> None:
        self.games = 0  # games that have an entry for this metric
        self.pooled: dict = {}  # key -> [Exact n, Exact s, Exact ss]
        self.count_hist: Counter = Counter()  # tallies per game
        self.sum_hist: Counter = Counter()  # sum of values per game
        self.key_hist: dict = {}  # key -> Counter of the count per game, over games with the key
        self.none_hist: Counter = Counter()  # the value under no key, over games that have it

    def add(self, rows: list) -> int:
        """Count one game's rows; the keys new to this tally."""
        self.games += 1
        new = 0
        g = {k: (n, s, ss) for k, n, s, ss in rows}
        for k, (n, s, ss) in g.items():
            p = self.pooled.get(k)
            if p is None:
                p = self.pooled[k] = [Exact(), Exact(), Exact()]
                new += 1
            if n.__class__ is int and s.__class__ is int and ss.__class__ is int:  # Exact.add of whole numbers, here
                p[0].total += n
                p[1].total += s
                p[2].total += ss
            else:
                p[0].add(n)
                p[1].add(s)
                p[2].add(ss)
            h = self.key_hist.get(k)
            if h is None:  # (not `setdefault(k, Counter())`: a Counter made, in Python, for every row of every game)
                h = self.key_hist[k] = Counter()
            h[n] += 1
        self.count_hist[sum(map(_FIRST, g.values()))] += 1
        self.sum_hist[sum(map(_SECOND, g.values()))] += 1
        if None in g:
            self.none_hist[g[None][1]] += 1
        return new

    def merge(self, other: "MetricTally") -> int:
        """Add the games of `other`; the keys new to this tally."""
        self.games += other.games
        new = 0
        for k, p in other.pooled.items():
            mine = self.pooled.get(k)
            if mine is None:
                self.pooled[k] = p
                new += 1
            else:
                for a, b in zip(mine, p):
                    a.merge(b)
        self.count_hist.update(other.count_hist)
        self.sum_hist.update(other.sum_hist)
        for k, h in other.key_hist.items():
            self.key_hist.setdefault(k, Counter()).update(h)
        self.none_hist.update(other.none_hist)
        return new


def _add_counts(into: dict, counts: dict) -> None:
    """Add `counts` into `into` as Counter.update adds them (new keys after the others, in their order), with a
    dict's own stores: a Counter's store goes through a slot wrapper (its `__delitem__` is Python), and a dml
    game's coverage (some 220 nodes) took about 95 us to add, 20 us with a loop of Python, and the loop's 3,600
    bytecodes a game are now C's (`update` stores the sums in the order of `counts`, as the loop did)."""
    keys = counts.keys()
    into.update(zip(keys, map(add, map(into.get, keys, itertools.repeat(0)), counts.values())))


class Tally:
    """The partial aggregate of some games (see the module's doc)."""

    def __init__(self) -> None:
        self.games = 0
        self.done = 0
        self.errors: list[dict] = []
        self.wins: Counter = Counter()
        self.no_winner = 0
        self.decisions: Counter = Counter()
        self.steps: Counter = Counter()
        self.coverage: dict = {}  # node -> visits over the games, in the order first reached (see _add_counts)
        self.metrics: dict[str, MetricTally] = {}
        self.scores: Counter = Counter()  # (seat, final score) -> games, numeric scores of finished games (for plots)
        self.keys = 0  # the metrics' keys, all metrics together (MAX_POOLED_KEYS)
        self.too_wide = ""  # a metric whose new keys were not kept, past MAX_POOLED_KEYS: the run ends in an error

    def add(self, r: dict) -> None:
        """Count one game's result (a dict from `simulate.play_one`)."""
        self.games += 1
        if "error" in r:
            self.errors.append({k: r[k] for k in r if k != "coverage"})
            return
        self.done += 1
        winners = r.get("winners") or []
        self.wins.update(set(winners))
        if not winners:
            self.no_winner += 1
        self.decisions[r["decisions"]] += 1
        self.steps[r["steps"]] += 1
        _add_counts(self.coverage, r.get("coverage") or {})
        for seat, score in enumerate(r.get("scores") or []):
            if isinstance(score, (int, float)) and not isinstance(score, bool):
                self.scores[(seat, score)] += 1
        for m, rows in (r.get("metrics") or {}).items():
            mt = self.metrics.get(m)
            if mt is None:
                mt = self.metrics[m] = MetricTally()
            if self.keys + len(rows) > MAX_POOLED_KEYS \
                    and self.keys + sum(1 for row in rows if row[0] not in mt.pooled) > MAX_POOLED_KEYS:
                self.too_wide = self.too_wide or m
                rows = [row for row in rows if row[0] in mt.pooled]  # (no figure of it is reported)
            self.keys += mt.add(rows)

    def merge(self, other: "Tally") -> None:
        """Add the games of `other`, which come after this tally's games in seed order."""
        self.games += other.games
        self.done += other.done
        self.errors.extend(other.errors)
        self.wins.update(other.wins)
        self.no_winner += other.no_winner
        self.decisions.update(other.decisions)
        self.steps.update(other.steps)
        _add_counts(self.coverage, other.coverage)
        self.scores.update(getattr(other, "scores", ()))
        self.too_wide = self.too_wide or getattr(other, "too_wide", "")
        for m, mt in other.metrics.items():
            mine = self.metrics.get(m)
            if self.keys + sum(1 for k in mt.pooled if mine is None or k not in mine.pooled) > MAX_POOLED_KEYS:
                self.too_wide = self.too_wide or m  # not merged: no figure of it is reported
            elif mine is not None:
                self.keys += mine.merge(mt)
            else:
                self.metrics[m] = mt
                self.keys += len(mt.pooled)

    def wide(self) -> None:
        """Raise TooManyKeys if the games' metrics were grouped by more keys than a simulation keeps: a pool of
        workers ends as usual first (its games are bounded), then the run is refused in one line."""
        if self.too_wide:
            raise TooManyKeys(f"the games' metrics are grouped by more than {MAX_POOLED_KEYS:,} keys in all "
                              f"('{self.too_wide}' among them): a report cannot show them; group the metrics by "
                              "fewer values")

    # ------------------------------------------------------------------ rows, as metrics.all_rows gives them

    def all_rows(self, players: int, defs: dict) -> list:
        from rulecraft.tools.simulate.metrics import rate_row

        n = self.done
        game = [rate_row("", seat, f"win rate, seat {seat + 1}", self.wins.get(seat, 0), n) for seat in range(players)]
        game.append(rate_row("", None, "no winner", self.no_winner, n))
        game.append(samples_row("", None, "decisions per game", Counter(self.decisions)))
        out = [({"name": "", "kind": "game", "doc": "", "role": None}, game)]
        for name, d in defs.items():
            out.append(({"name": name, **d}, self.metric_rows(name, d["kind"])))
        return out

    def metric_rows(self, name: str, kind: str) -> list:
        from rulecraft.tools.simulate.metrics import Row, key_text, rate_row, shape, sorted_keys

        mt = self.metrics.get(name) or MetricTally()
        absent = self.done - mt.games  # finished games without an entry: no tallies, sum 0
        pooled = {k: tuple(e.value for e in p) for k, p in mt.pooled.items()}
        form = shape(pooled)
        keys = sorted_keys(pooled)
        keyed = keys != [None] and bool(keys)
        rows: list = []

        def with_zeros(h: Counter, zeros: int) -> Counter:
            h = Counter(h)
            if zeros:
                h[0] += zeros
            return h

        if kind == "tally":
            rows.append(samples_row(name, None, "per game", with_zeros(mt.count_hist, absent)))
            if form == "numeric":
                rows.append(samples_row(name, None, "sum per game", with_zeros(mt.sum_hist, absent)))
            if form == "binary":
                rows.append(rate_row(name, None, "rate", _total(p[1] for p in mt.pooled.values()),
                                     _total(p[0] for p in mt.pooled.values())))
            if keyed:
                for k in keys:
                    n, s, ss = pooled[k]
                    if form == "count":
                        h = mt.key_hist.get(k, Counter())
                        rows.append(samples_row(name, k, f"{key_text(k)} per game",
                                                with_zeros(h, self.done - sum(h.values()))))
                    elif form == "binary":
                        rows.append(rate_row(name, k, key_text(k), s, n))
                    else:
                        rows.append(Row(name, k, key_text(k), "mean", n, s, ss))
        elif kind == "per_player":
            for k in keys:
                n, s, ss = pooled[k]
                label = key_text(k) if keyed else "all players"
                rows.append(rate_row(name, k, label, s, n) if form in ("binary", "count")
                            else Row(name, k, label, "mean", n, s, ss))
        else:  # per_game
            if not keyed:
                rows.append(samples_row(name, None, "per game", Counter(mt.none_hist)))
            else:
                for k in keys:
                    rows.append(rate_row(name, k, f"{key_text(k)}: share of games",
                                         sum(mt.key_hist.get(k, Counter()).values()), self.done))
                    if form == "numeric":
                        n, s, ss = pooled[k]
                        rows.append(Row(name, k, f"{key_text(k)}: mean", "mean", n, s, ss))
        return rows


def _total(exacts) -> Any:
    """The sum over keys of pooled sums, as `sum(...)` of their values gives it."""
    acc = Exact()
    for e in exacts:
        acc.merge(e)
    return acc.value


def samples_row(metric: str, key: Any, label: str, hist: Counter):
    """`metrics.sample_row` for samples given as a histogram."""
    from rulecraft.tools.simulate.metrics import Row

    values = Samples(hist)
    return Row(metric, key, label, "mean", len(values), values.total(1), values.total(2), values)


def stats(hist: Counter) -> dict:
    """`simulate._stats` of the samples: min, the value at the middle index, mean (2 places), max."""
    values = Samples(hist)
    n = len(values)
    if not n:
        return {}
    return {"min": values.min(), "median": values[n // 2], "mean": round(values.total(1) / n, 2), "max": values.max()}
