"""The studio's simulation process: `python -m rulecraft.tools.studio.lab.work`, started by the studio for one run.

It reads one request (JSON, on standard input), plays the games with `tools/simulate` (local worker
processes, or the Dask cluster the studio was started with), and writes JSON lines on standard output:

    {"type": "progress", "run": 0 or 1, "done": D, "total": N}   at most about ten a second
    {"type": "making"}                                            the games are played: the report is being made
    {"type": "result", "runs": [...], "compare": [...] or null,    the end: each run's text report, its plots
     "compareFigures": [...]}                                      (SVG, drawn by `simulate --report`'s code),
                                                                   coverage; the seed-matched comparison and its
                                                                   plots (A and B on one scale)
    {"type": "cancelled", "done": D, "total": N}                  after SIGTERM (the studio's Cancel)
    {"type": "error", "message": "a sentence"}                    a ruleset with errors, bad options, no cluster

The studio sends SIGTERM to cancel: it stops the games (the local workers are killed by the runner), and
the process ends. Like a worker of `simulate`, it ignores Ctrl-C (the studio decides) and ends when the
studio is gone, however it went.
"""

from __future__ import annotations

import json
import math
import signal
import sys
import time
from typing import Any, Optional

PROGRESS_EVERY = 0.1  # seconds between two progress lines (the last one always goes)


def _send(out, message: dict) -> None:
    out.write(json.dumps(_finite(message), allow_nan=False) + "\n")
    out.flush()


def _finite(v: Any) -> Any:
    """JSON a browser parses: NaN and infinities (an interval of nothing) become null."""
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, dict):
        return {k: _finite(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_finite(x) for x in v]
    return v


def _load(run: dict):
    from rulecraft.loader import load_ruleset

    loaded = load_ruleset(run["ruleset"], overrides=run["overrides"])
    if not loaded.ok:
        first = loaded.diagnostics[0]
        where = f"{first.span}: " if getattr(first, "span", None) else ""
        raise ValueError(f"{run['name']} cannot be played: {where}{first.code}: {first.message}")
    return loaded


def coverage_of(summary, loaded, path: str) -> dict:
    """What the page needs to shade the chart: the counts, for each sequence its steps never reached, and those
    steps as a designer finds them (`steps`: the sequence's title, the step's number on its chart, and its line
    when it is written in the file at `path`; the node ids alone, 'declaration/7.do.2.then.1', said nothing)."""
    import os

    from rulecraft.tools.chart.sheetplan import step_numbers
    from rulecraft.tools.simulate.runs import unreached

    graph = loaded.graph
    never = set(unreached(summary, graph))
    sequences, steps = [], []
    for sid, seq in loaded.ruleset.sequences.items():
        numbers = step_numbers(seq)
        mine = [n for n in graph.sequences.get(sid, ()) if n in never]
        sequences.append({"id": sid, "title": seq.title, "never": len(mine)})
        for nid in mine:
            step = graph.nodes[nid].step
            span = getattr(step, "span", None)
            here = span is not None and os.path.realpath(span.file) == os.path.realpath(path)
            steps.append({"id": nid, "sequence": sid, "title": seq.title or sid,
                          "number": numbers.get(step.path, "") if step is not None else "",
                          "line": span.line if here else None})
    return {"counts": dict(summary.coverage_counts()), "never": sorted(never), "sequences": sequences, "steps": steps}


def play(request: dict, out, state: dict) -> dict:
    from rulecraft.agents import make_agent
    from rulecraft.tools.simulate.compare import compare
    from rulecraft.tools.simulate.cluster import cluster
    from rulecraft.tools.simulate.report import svg_compare_figures, svg_figures
    from rulecraft.tools.simulate.runs import report, simulate

    runs, games, seed = request["runs"], request["games"], request["seed"]
    state["total"] = games
    loads = [_load(r) for r in runs]
    players = request.get("players") or loads[0].ruleset.players.default
    for r, loaded in zip(runs, loads):
        rs = loaded.ruleset
        if not rs.players.min <= players <= rs.players.max:
            raise ValueError(f"{r['name']} is for {rs.players.min} to {rs.players.max} players, not {players}")
        for seat, kind in enumerate(r["agents"]):
            make_agent(kind, seat, 0)  # AgentError: said before any game
    summaries = []

    def playing(where: dict) -> None:
        for i, r in enumerate(runs):
            last = [0.0]

            def progress(done: int, total: int, i: int = i, last: list = last) -> None:
                now = time.monotonic()
                state["done"] = done
                if done == total or now - last[0] >= PROGRESS_EVERY:
                    last[0] = now
                    _send(out, {"type": "progress", "run": i, "done": done, "total": total})

            state["done"] = 0
            _send(out, {"type": "progress", "run": i, "done": 0, "total": games})
            summaries.append(simulate(r["ruleset"], games, players=players, seed=seed, agents=r["agents"],
                                      overrides=r["overrides"], coverage=True, keep="none", progress=progress,
                                      **{"workers": request.get("workers"), **where}))

    if request.get("cluster"):
        with cluster(request["cluster"], request.get("cluster_timeout")) as (ex, threads):
            playing({"executor": ex, "workers": threads})
    else:
        playing({})
    _send(out, {"type": "making"})  # the plots of a long game take a few seconds: said, not a frozen '200 / 200'
    if request.get("sweep"):  # one setting at a few values: every row at each (the page asks for its plot)
        return swept(request, summaries, players, seed)
    results = []
    for r, summary, loaded in zip(runs, summaries, loads):
        cov = coverage_of(summary, loaded, r["ruleset"])
        summary.never_reached = cov["never"]
        results.append({"name": r["name"], "ruleset": summary.ruleset, "agents": summary.agents,
                        "games": summary.games, "done": summary.done, "errors": summary.errors[:20],
                        "seconds": round(summary.seconds, 3), "text": report(summary),
                        "figures": svg_figures(summary), "coverage": cov,
                        "metrics": {k: m.doc or "" for k, m in loaded.ruleset.metrics.items()}})
    entries = compare(*summaries) if len(summaries) == 2 else None
    return {"type": "result", "players": players, "seed": seed, "runs": results, "compare": entries,
            "compareFigures": svg_compare_figures(*summaries) if len(summaries) == 2 else []}


def swept(request: dict, summaries: list, players: int, seed: int) -> dict:
    """The result of a sweep: each value's text report, and every row of statistics at each value (its plot is
    drawn when the page asks for it: tools/simulate/sweep.py)."""
    from rulecraft.tools.simulate.runs import report
    from rulecraft.tools.simulate.sweep import sweep_rows

    sweep = request["sweep"]
    runs = [{"name": r["name"], "ruleset": s.ruleset, "agents": s.agents, "games": s.games, "done": s.done,
             "errors": s.errors[:20], "seconds": round(s.seconds, 3), "text": report(s)}
            for r, s in zip(request["runs"], summaries)]
    return {"type": "result", "players": players, "seed": seed, "runs": runs, "compare": None, "compareFigures": [],
            "sweep": {"name": sweep["name"], "values": sweep["values"], "ruleset": summaries[0].ruleset,
                      "rows": sweep_rows(summaries)}}


def main(studio: Optional[int] = None) -> int:
    """One run; `studio` is the pid of the studio that started this process (it ends at once if that is gone)."""
    from rulecraft.agents import AgentError
    from rulecraft.tools.simulate.cluster import ClusterError
    from rulecraft.tools.simulate.executors import Interrupted, Stopped, sigterm_raises, worker_init

    worker_init(studio)  # Ctrl-C ignored, SIGTERM's default action, ends when the studio is gone
    out = sys.stdout
    sys.stdout = sys.stderr  # nothing but these JSON lines on the pipe
    state = {"done": 0, "total": 0}  # how far the run being played is
    try:
        with sigterm_raises():
            try:
                request = json.loads(sys.stdin.readline())
                _send(out, play(request, out, state))
            except (Interrupted, Stopped, KeyboardInterrupt) as exc:
                signal.signal(signal.SIGTERM, signal.SIG_IGN)  # stopping already: a second SIGTERM changes nothing
                done = exc.done if isinstance(exc, Interrupted) else state["done"]
                _send(out, {"type": "cancelled", "done": done, "total": state["total"]})
            except (ValueError, AgentError, ClusterError, OSError) as exc:
                _send(out, {"type": "error", "message": str(exc)[:1000]})
    except BrokenPipeError:  # the studio went first
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
