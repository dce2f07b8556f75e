"""`rulecraft simulate`: play many seeded games with bots, in parallel, and summarise them.

Game i is played with seed `seed + i`, so the results for a seed are the same whatever
the number of worker processes. Each worker loads the ruleset once and plays chunks of
games; a chunk comes back as one partial aggregate (tools/simulate/aggregate.py), merged in seed order,
so the parent's memory does not grow with the number of games. Where chunks run and how a run
is stopped: tools/simulate/executors.py.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import time
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from rulecraft.tools.simulate.aggregate import Tally, stats
from rulecraft.tools.simulate.spool import RunRefused, Spool
from rulecraft.tools.simulate.executors import Interrupted, Stopped, cores, interrupted_signum, kill_pool, local_pool, run_ordered
from rulecraft.tools.simulate.stats import wilson  # noqa: F401  (re-exported: reports and tests use it from here)
from rulecraft.tools.simulate.metrics import write_csv  # noqa: F401  (re-exported: the command line and tests)

# ----------------------------------------------------------------------------- one worker

_CACHE: dict = {}


def load(ref: str, overrides: dict):
    """`ref` loaded with `overrides` (the command reads its diagnostics and graph); one that loads is kept for the
    games this process plays (`rulecraft simulate` loaded dml twice: 0.4 s of CPU, 1-2% of 2,000 games)."""
    from rulecraft.loader import load_ruleset
    from rulecraft.runtime.gamelog import ruleset_fingerprint  # (the files' contents, as a log's header names them)

    loaded = load_ruleset(ref, overrides=overrides)
    if loaded.ok:
        _CACHE[(ref, tuple(sorted(overrides.items())))] = (loaded.ruleset, ruleset_fingerprint(loaded.ruleset))
    return loaded


def _ruleset(ref: str, overrides: dict) -> tuple[Any, str]:
    """The ruleset a worker plays and the fingerprint of its files, loaded once per process while its files stay as
    they were: a worker of a Dask cluster lives on from run to run, and kept a ruleset by its path, so a run after the
    designer saved an edit (the studio's Simulate tab) played the old rules on it and reported them as the new ones."""
    from rulecraft.runtime.gamelog import ruleset_fingerprint

    key = (ref, tuple(sorted(overrides.items())))
    kept = _CACHE.get(key)
    if kept is None or kept[1] != ruleset_fingerprint(kept[0]):
        loaded = load(ref, overrides)
        if not loaded.ok:
            raise RuntimeError("; ".join(d.message for d in loaded.diagnostics[:3]))
        kept = _CACHE[key]
    return kept


def play_one(rs, seed: int, players: Optional[int], agent_kinds: Sequence[str], check: bool, coverage: bool,
             max_steps: int) -> dict:
    """Play one game; a dict of what happened (never raises for a rules error)."""
    Game, GameError, RuleError, make_agent, encode = _engine()
    out: dict[str, Any] = {"seed": seed}
    try:
        # nobody reads a simulated game's story, so it is not written (the game is the same); --check writes it,
        # so that a 'log' text that cannot be worked out is reported too
        # (started by play: every decision, the first too, is answered where it is asked)
        game = Game(rs, players, seed, check_conservation=check, coverage=coverage, max_steps=max_steps, story=check,
                    start=False)
        n = len(game.players)
        kinds = list(agent_kinds) or ["random"]
        kinds += [kinds[-1]] * (n - len(kinds))
        agents = [make_agent(k, seat, seed) for seat, k in enumerate(kinds[:n])]
        plain = [k in ("random", "greedy") or k.startswith("greedy:") for k in kinds[:n]]  # bots that ignore the view
        # each bot answers where its decision is asked, and the game goes on at once (Game.play)
        game.play(agents, views=[not p for p in plain])
        out.update(winners=game.winners, scores=encode(game.scores), decisions=game.decisions, steps=game.steps,
                   players=n, rounds=game.vars.get("round_number"),
                   metrics={m: [[k, *v] for k, v in per_key.items()] for m, per_key in game.tallies.items()})
        if coverage:
            out["coverage"] = game.coverage  # (a dict of its own)
    except RuleError as exc:
        d = exc.diagnostic()
        out["error"] = f"{d.span}: {d.code}: {d.message}" if d.span else f"{d.code}: {d.message}"
    except GameError as exc:
        out["error"] = str(exc)
    return out


@functools.cache
def _engine() -> tuple:
    """The engine's names a game needs, imported once (not at every game: a few percent of a short game's time)."""
    from rulecraft.agents import make_agent
    from rulecraft.diagnostics import RuleError
    from rulecraft.runtime.game import Game, GameError
    from rulecraft.runtime.state_io import encode
    return Game, GameError, RuleError, make_agent, encode


class RulesetChanged(RunRefused):
    """A worker found the ruleset's files other than the run began with (edited, or broken, while it ran)."""


def run_chunk(ref: str, overrides: dict, seeds: list[int], players, agents, check, coverage, max_steps,
              keep: str = "", expect: str = "") -> tuple[Tally, Optional[list]]:
    """Play a chunk of games in a worker: their `Tally`, and their results when `keep` is 'all' or 'lean'
    (without coverage); with keep '' only the tally travels back. `expect`: the fingerprint of the ruleset's files
    when the run began; a worker that finds others refuses (the games of one run are all of one ruleset)."""
    try:
        rs, fingerprint = _ruleset(ref, overrides)
    except RuntimeError as exc:
        if not expect:
            raise
        raise RulesetChanged(f"the ruleset {ref} changed while its games were played, and no longer loads ({exc})") \
            from None
    if expect and fingerprint != expect:
        raise RulesetChanged(f"the ruleset {ref} changed while its games were played: a run's games are all of the "
                             "rules it began with")
    tally = Tally()
    kept: Optional[list] = [] if keep else None
    for s in seeds:
        r = play_one(rs, s, players, agents, check, coverage, max_steps)
        tally.add(r)
        if kept is not None:
            kept.append(_kept(r, keep))
    return tally, kept


def _kept(r: dict, keep: str) -> dict:
    return {k: v for k, v in r.items() if k != "coverage"} if keep == "lean" and "coverage" in r else r


# ----------------------------------------------------------------------------- the runner

@dataclass
class Summary:
    ruleset: str
    games: int
    players: int
    seed: int
    results: list = field(default_factory=list)  # every game's result, in seed order, when kept (see simulate)
    seconds: float = 0.0
    metric_defs: dict = field(default_factory=dict)  # metric id -> {kind, doc, role}
    agents: list = field(default_factory=list)
    never_reached: Optional[list] = None  # graph nodes no game reached (when coverage was on)
    tally: Tally = field(default_factory=Tally)  # what the reports are made of (tools/simulate/aggregate.py)
    kept: str = "memory"  # what `results` holds: every game ('memory', 'disk') or nothing ('none')

    def __post_init__(self) -> None:
        if self.results and not self.tally.games:  # made from a list of results
            for r in self.results:
                self.tally.add(r)

    def rows(self):
        """(metric description, rows of statistics) for the game itself and each metric of the ruleset."""
        return self.tally.all_rows(self.players, self.metric_defs)

    @property
    def errors(self) -> list[dict]:
        return self.tally.errors

    @property
    def done(self) -> int:
        """The number of games that finished without an error."""
        return self.tally.done

    def finished(self) -> "Finished":
        """The games that finished without an error: len() and truth always; their results when kept."""
        return Finished(self)

    def coverage_counts(self) -> dict:
        """How often each node of the sequence graph ran, over all finished games (coverage on)."""
        return self.tally.coverage

    def win_rates(self) -> list[tuple[float, float, float]]:
        """Per seat: share of games won (a shared win counts for each winner), with a 95% Wilson interval."""
        n = self.tally.done
        return [(self.tally.wins.get(seat, 0) / n if n else 0.0, *wilson(self.tally.wins.get(seat, 0), n))
                for seat in range(self.players)]

    def to_json(self) -> dict:
        cov = self.tally.coverage
        return {
            "ruleset": self.ruleset, "games": self.games, "players": self.players, "seed": self.seed,
            "seconds": round(self.seconds, 3), "errors": self.errors, "no_winner": self.tally.no_winner,
            "win_rate": [{"seat": i, "rate": round(w, 4), "low": round(lo, 4), "high": round(hi, 4)}
                         for i, (w, lo, hi) in enumerate(self.win_rates())],
            "decisions": stats(self.tally.decisions),
            "steps": stats(self.tally.steps), "coverage": dict(cov) if cov else None,
            "never_reached": self.never_reached, "agents": self.agents,
            "metrics": [{**d, "rows": [r.to_json() for r in rows]} for d, rows in self.rows()[1:]],
            "results": self.results,
        }


class Finished:
    """`Summary.finished()`: the number of finished games (len, truth) from the aggregates; iterating gives
    their results, which needs the results kept (`simulate(keep='memory' or 'disk')`)."""

    def __init__(self, summary: Summary) -> None:
        self._summary = summary

    def __len__(self) -> int:
        return self._summary.tally.done

    def __bool__(self) -> bool:
        return self._summary.tally.done > 0

    def __iter__(self):
        if self._summary.kept == "none":
            raise RuntimeError("the games' results were not kept (simulate(keep='none')): use the summary's rows")
        return (r for r in self._summary.results if "error" not in r)


def simulate(ref: str, games: int, *, players: Optional[int] = None, seed: int = 1, workers: Optional[int] = None,
             agents: Sequence[str] = (), overrides: Optional[dict] = None, check: bool = False, coverage: bool = False,
             max_steps: int = 5_000_000, progress: Optional[Callable[[int, int], None]] = None,
             executor: Optional[Executor] = None, keep: str = "memory", keep_coverage: bool = True) -> Summary:
    """Play `games` games (seeds seed..seed+games-1) and aggregate them (see tools/simulate/executors.py for `executor`).

    `keep` says what becomes of every game's result besides the aggregates: 'memory' (a list in
    `summary.results`), 'disk' (a `Spool` in a temporary file: memory stays bounded) or 'none';
    `keep_coverage=False` leaves each kept result's coverage out. Raises `Interrupted` on Ctrl-C
    (and on SIGTERM inside `sigterm_raises()`), after stopping the workers it started."""
    overrides = dict(overrides or {})
    rs, fingerprint = _ruleset(ref, overrides)
    n = players or rs.players.default
    summary = Summary(rs.name, games, n, seed, agents=list(agents) or ["random"],
                      metric_defs={k: {"kind": m.kind, "doc": m.doc, "role": m.role, "by": m.by.text if m.by else None}
                                   for k, m in rs.metrics.items()})
    if keep not in ("memory", "disk", "none"):
        raise ValueError(f"keep must be 'memory', 'disk' or 'none', not {keep!r}")
    summary.results = Spool() if keep == "disk" else []
    summary.kept = keep
    mode = "" if keep == "none" else "all" if keep_coverage else "lean"
    seeds = range(seed, seed + games)
    if executor is None:  # local processes: no more than the cores, nor than the games (each takes a whole chunk)
        workers = max(1, min(workers or cores(), cores(), games))
    else:
        workers = workers or cores()
    t0 = time.perf_counter()

    def merge(part) -> None:
        tally, kept = part
        summary.tally.merge(tally)
        if kept:
            summary.results.extend(kept)
        if progress:
            progress(summary.tally.games, games)

    try:
        if workers <= 1 and executor is None:  # each game counted into the summary's tally (no tally of one merged)
            for s in seeds:
                r = play_one(rs, s, players, agents, check, coverage, max_steps)
                summary.tally.add(r)
                if mode:
                    summary.results.append(_kept(r, mode))
                if progress:
                    progress(summary.tally.games, games)
        else:
            size = max(1, min(50, games // (workers * 4) or 1))
            where = os.path.abspath(ref) if os.path.isfile(ref) else ref  # the same file from any working folder
            tasks = ((where, overrides, list(seeds[i:i + size]), players, list(agents), check, coverage, max_steps, mode,
                      fingerprint) for i in range(0, games, size))  # the files as loaded here: an edit during the run
            # is refused (RulesetChanged)
            ex = executor or local_pool(workers)
            try:
                run_ordered(ex, run_chunk, tasks, workers * 4, merge, cancel=executor is not None)
            except BaseException:
                if executor is None:
                    kill_pool(ex)
                raise
            if executor is None:
                ex.shutdown()
    except (KeyboardInterrupt, Stopped, RuntimeError) as exc:  # Ctrl-C inside a lock's `with` may surface as
        cause = exc.__context__ if isinstance(exc, RuntimeError) else exc  # 'cannot release un-acquired lock'
        if not isinstance(cause, (KeyboardInterrupt, Stopped)):
            raise
        raise Interrupted(summary.tally.games, games, interrupted_signum(cause)) from None
    summary.seconds = time.perf_counter() - t0
    summary.tally.wide()  # (TooManyKeys: the metrics' keys past what a run keeps)
    if isinstance(summary.results, Spool):
        summary.results.kept()  # (RunRefused: the temporary folder is full)
    return summary


# ----------------------------------------------------------------------------- printing

def progress_printer(stream=None) -> Optional[Callable[[int, int], None]]:
    stream = stream or sys.stderr
    stream = getattr(stream, "unfiltered", stream)  # its carriage return is its own (standard error's map: cli.main)
    if not stream.isatty():
        return None
    start = time.perf_counter()
    gone: list = []  # a terminal that went away (EIO) stops the bar, never the run: it is called inside the pool's merge

    def show(done: int, total: int) -> None:
        if gone:
            return
        width = 30
        filled = int(width * done / total) if total else width
        rate = done / max(1e-9, time.perf_counter() - start)
        try:
            stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games, {rate:.0f}/s "
                         + ("\n" if done == total else ""))
            stream.flush()
        except (OSError, ValueError):
            gone.append(True)

    return show


_MAX_ROWS = 16  # a metric's rows shown in the text report


def report(summary: Summary) -> str:
    """The text report: win rates, game length, victory types, the ruleset's metrics, coverage."""
    from rulecraft.tools.simulate.metrics import row_text
    from rulecraft.tools.simulate.stats import median

    data, agents = summary.to_json(), summary.agents or ["random"]
    lines = [f"{summary.ruleset}: {summary.games} games, {summary.players} players ({', '.join(agents)}), seeds "
             f"{summary.seed}..{summary.seed + summary.games - 1}, {summary.seconds:.1f} s "
             f"({summary.games / max(summary.seconds, 1e-9):.0f} games/s)"]
    if summary.errors:
        lines.append(f"ERRORS in {len(summary.errors)} games; first: seed {summary.errors[0]['seed']}: "
                     f"{summary.errors[0]['error']}")
        if not summary.finished():  # nothing to count: no table of 0% win rates, only the errors
            others = list(dict.fromkeys(str(e["error"]) for e in summary.errors[1:]))
            others = [e for e in others if e != str(summary.errors[0]["error"])]
            lines += [f"  also: {e}" for e in others[:5]]
            return "\n".join(lines)
    lines.append("win rate by seat (95% interval):")
    for w in data["win_rate"]:
        lines.append(f"  seat {w['seat'] + 1}: {w['rate']:6.1%}  [{w['low']:.1%} .. {w['high']:.1%}]")
    lines.append(f"games with no winner: {data['no_winner']}")
    if d := data["decisions"]:
        lines.append(f"decisions per game: median {d['median']}, mean {d['mean']}, min {d['min']}, max {d['max']}")
    groups = summary.rows()[1:]
    for desc, rows in groups:
        if desc.get("role") == "length" and rows and rows[0].values:
            v = rows[0].values
            lines.append(f"{desc['name']} per game: median {median(v):g}, mean {sum(v) / len(v):.2f}, min {min(v):g}, "
                         f"max {max(v):g}")
    for desc, rows in groups:
        if desc.get("role") == "victory":
            shares = [r for r in rows if r.stat == "rate" or r.values]
            lines.append(f"victory types ({desc['name']}): " + ", ".join(
                f"{r.label.split(':')[0]} {r.interval()[0]:.1%}" if r.stat == "rate" else f"{r.label} {r.interval()[0]:.2f}"
                for r in shares))
    if groups:
        lines.append("metrics (mean or rate, 95% interval):")
        for desc, rows in groups:
            lines.append(f"  {desc['name']} ({desc['kind']}){': ' + desc['doc'] if desc['doc'] else ''}")
            shown = rows
            if len(rows) > _MAX_ROWS:  # the whole-metric rows, then the keys tallied most, in key order
                keyed = sorted((r for r in rows if r.key is not None), key=lambda r: -r.n)
                room = max(0, _MAX_ROWS - sum(1 for r in rows if r.key is None))
                keep = {id(r) for r in keyed[:room]}
                shown = [r for r in rows if r.key is None or id(r) in keep]
            lines += ["    " + row_text(r) for r in shown]
            if len(shown) < len(rows):
                lines.append(f"    ... {len(rows) - len(shown)} keys tallied less often: see --json, --csv or --report")
    if summary.never_reached is not None:
        lines.append(f"never reached: {len(summary.never_reached)} step nodes of the sequence graph")
    return "\n".join(lines)


def unreached(summary: Summary, graph) -> list[str]:
    """The step nodes of the sequence graph that no game of the summary ran (needs coverage)."""
    counts = summary.coverage_counts()
    return sorted(nid for nid, node in graph.nodes.items() if node.step is not None and counts.get(nid, 0) == 0)


def write_json(summary: Summary, path: str) -> None:
    """Every game's result and the summary as JSON (`-`: standard output); OutputError when it cannot be written."""
    from rulecraft.files import write_output

    write_output(path, json.dumps(summary.to_json(), indent=1) + "\n")


def write_coverage(summary: Summary, graph, path: str) -> int:
    """Node counts over all games, and the step nodes never reached; returns how many those are."""
    counts = summary.coverage_counts()
    steps = [nid for nid, node in graph.nodes.items() if node.step is not None]
    never = sorted(nid for nid in steps if counts.get(nid, 0) == 0)
    data = {"ruleset": summary.ruleset, "games": summary.games, "counts": dict(sorted(counts.items())),
            "never_reached": never, "nodes": len(steps)}
    from rulecraft.files import write_output

    write_output(path, json.dumps(data, indent=1) + "\n")
    return len(never)
