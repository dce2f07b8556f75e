"""`rulecraft compare A B`: seed-matched simulations of two rulesets (or two line-ups of bots), metric by metric.

Game i of A and game i of B use the same seed. Every row of statistics that both runs
have (win rate per seat, game length, each metric of the rulesets and each of its keys)
is compared: for a rate, the difference of proportions with a 95% interval (Newcombe's
hybrid score method); for a mean, the difference of means with a 95% interval (Welch).
A difference whose interval leaves out 0 is marked as larger than noise.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Optional

from rulecraft.tools.simulate.aggregate import RunRefused
from rulecraft.tools.simulate.metrics import Row, fmt
from rulecraft.tools.simulate.runs import Summary, progress_printer, simulate
from rulecraft.tools.simulate.stats import newcombe, welch


_MAX_ROWS = 16  # rows per metric in the text table (rows beyond, unless marked, are left to --json)


def compare(a: Summary, b: Summary) -> list[dict]:
    """One entry per row of statistics: A's and B's estimates, B - A with its 95% interval."""
    rows_b = {r.ident: (d, r) for d, rows in b.rows() for r in rows}
    seen = set()
    out = []
    for desc, rows in a.rows():
        for ra in rows:
            seen.add(ra.ident)
            got = rows_b.get(ra.ident)
            out.append(_entry(desc, ra, got[1] if got else None))
    for ident, (desc, rb) in rows_b.items():
        if ident not in seen:
            out.append(_entry(desc, None, rb))
    return out


def _entry(desc: dict, ra: Optional[Row], rb: Optional[Row]) -> dict:
    row = ra or rb
    e: dict[str, Any] = {"metric": row.metric, "kind": desc.get("kind"), "label": row.label, "stat": row.stat,
                         "a": ra.interval()[0] if ra else None, "b": rb.interval()[0] if rb else None,
                         "n_a": ra.n if ra else 0, "n_b": rb.n if rb else 0}
    if ra is not None and rb is not None and ra.stat == rb.stat and ra.n and rb.n:
        if ra.stat == "rate":
            d, lo, hi = newcombe(ra.s, ra.n, rb.s, rb.n)
        else:
            d, lo, hi = welch(ra.n, ra.s, ra.ss, rb.n, rb.s, rb.ss)
        e.update(diff=d, low=lo, high=hi, significant=bool(lo > 0 or hi < 0))
    else:
        e.update(diff=None, low=None, high=None, significant=False)
    return e


def _signed(row_stat: str, v: float) -> str:
    text = fmt(Row("", None, "", row_stat), abs(v))
    return ("-" if v < 0 else "+") + text


def text(a: Summary, b: Summary, entries: list[dict], name_a: str, name_b: str) -> str:
    from rulecraft.diagnostics import UNPRINTABLE  # a file's name as typed (a stranger's zip): never drives a terminal

    name_a, name_b = name_a.translate(UNPRINTABLE), name_b.translate(UNPRINTABLE)
    lines = [f"A: {name_a} ({', '.join(a.agents)}), {a.seconds:.1f} s",
             f"B: {name_b} ({', '.join(b.agents)}), {b.seconds:.1f} s",
             f"{a.games} seed-matched games each (seeds {a.seed}..{a.seed + a.games - 1}), {a.players} players"]
    for s, tag in ((a, "A"), (b, "B")):
        if s.errors:
            lines.append(f"ERRORS in {len(s.errors)} games of {tag}; first: seed {s.errors[0]['seed']}: {s.errors[0]['error']}")
    width = max([len(e["label"]) for e in entries] + [20]) + 2
    lines.append("")
    lines.append(f"{'':<{width}}{'A':>10}{'B':>10}   {'B - A':>9}  95% interval")
    metric = None
    shown = hidden = 0
    for e in entries:
        if e["metric"] != metric:
            if hidden:
                lines.append(f"  ... {hidden} more rows, none marked, in --json")
            metric, shown, hidden = e["metric"], 0, 0
            lines.append(f"{metric or 'games'}" + (f" ({e['kind']})" if metric else ""))
        shown += 1
        if shown > _MAX_ROWS and not e["significant"]:
            hidden += 1
            continue
        probe = Row("", None, "", e["stat"])
        av = fmt(probe, e["a"]) if e["a"] is not None else "-"
        bv = fmt(probe, e["b"]) if e["b"] is not None else "-"
        if e["diff"] is None:
            lines.append(f"  {e['label']:<{width - 2}}{av:>10}{bv:>10}")
            continue
        mark = " *" if e["significant"] else ""
        lines.append(f"  {e['label']:<{width - 2}}{av:>10}{bv:>10}   {_signed(e['stat'], e['diff']):>9}  "
                     f"[{_signed(e['stat'], e['low'])} .. {_signed(e['stat'], e['high'])}]{mark}")
    if hidden:
        lines.append(f"  ... {hidden} more rows, none marked, in --json")
    n = sum(1 for e in entries if e["significant"])
    lines.append("")
    lines.append(f"* larger than noise: the 95% interval of B - A leaves out 0 ({n} of {len(entries)} rows; "
                 "with many rows, expect about 1 in 20 by chance)")
    return "\n".join(lines)


def run(args) -> int:
    """The `compare` verb (dispatched from cli.py)."""
    from rulecraft.agents import AgentError, make_agent
    from rulecraft.diagnostics import render_text
    from rulecraft.loader import load_ruleset

    from rulecraft.tools.loading import parse_sets

    try:
        overrides = parse_sets(args.set)
    except ValueError as exc:
        print(f"rulecraft compare: {exc}", file=sys.stderr)
        return 2
    players = args.players
    rulesets = []
    for ref in (args.ruleset_a, args.ruleset_b):
        loaded = load_ruleset(ref, overrides=overrides)
        if not loaded.ok:
            print(render_text(loaded.diagnostics, loaded.sources))
            return 1
        rulesets.append(loaded.ruleset)
        if players is None:
            players = loaded.ruleset.players.default
    for rs in rulesets:
        if not rs.players.min <= players <= rs.players.max:
            print(f"rulecraft compare: {rs.name} is for {rs.players.min} to {rs.players.max} players, not {players}",
                  file=sys.stderr)
            return 2
    agents_a = args.agent_a or args.agent
    agents_b = args.agent_b or args.agent
    try:
        for seat, kind in enumerate(agents_a + agents_b):
            make_agent(kind, seat, 0)
    except AgentError as exc:
        print(f"rulecraft compare: {exc}", file=sys.stderr)
        return 2
    from rulecraft.files import input_problem, output_problem

    if input_problem(args.json):  # a file the loader read (a parent under extends: too): before any game
        print(f"rulecraft compare: {input_problem(args.json)}", file=sys.stderr)
        return 2
    problem = output_problem(args.json) if args.json else None
    if problem:  # said before the games are played
        print(f"rulecraft compare: {problem}", file=sys.stderr)
        return 1
    from rulecraft.tools.cli.codes import CtrlCWatch, end_interrupted_cluster_run
    from rulecraft.tools.simulate.cluster import ClusterError
    from rulecraft.tools.simulate.executors import Interrupted, Stopped, cli_runs, stop_code

    a = None
    watch = CtrlCWatch("rulecraft compare")
    try:
        with watch.armed(bool(args.cluster)), cli_runs(args.cluster, args.cluster_timeout) as where:
            common = dict(players=players, seed=args.seed, overrides=overrides, keep="none",
                          **{"workers": args.workers, **where})
            a = simulate(args.ruleset_a, args.games, agents=agents_a, progress=watch.track(progress_printer()), **common)
            b = simulate(args.ruleset_b, args.games, agents=agents_b, progress=watch.track(progress_printer()), **common)
    except (ClusterError, Interrupted, Stopped, KeyboardInterrupt) as exc:
        code = stop_code("rulecraft compare", exc, "" if a is None else " of B (A was played)")
        if args.cluster and not isinstance(exc, ClusterError):
            end_interrupted_cluster_run(code)
        return code
    except RunRefused as exc:  # a ruleset's metrics: said in one line, nothing written
        print(f"rulecraft compare: {exc}; nothing written", file=sys.stderr)
        return 1
    entries = compare(a, b)
    # with --json - standard output holds only the JSON; the table goes to standard error
    print(text(a, b, entries, args.ruleset_a, args.ruleset_b), file=sys.stderr if args.json == "-" else sys.stdout)
    if args.json:
        data = {"a": {"ruleset": args.ruleset_a, "agents": a.agents, "seconds": round(a.seconds, 3), "errors": a.errors},
                "b": {"ruleset": args.ruleset_b, "agents": b.agents, "seconds": round(b.seconds, 3), "errors": b.errors},
                "games": args.games, "seed": args.seed, "players": players, "rows": entries}
        from rulecraft.tools.loading import write_text

        code = write_text("compare", args.json, json.dumps(data, indent=1) + "\n")
        if code is not None:
            return code
    return 1 if a.errors or b.errors else 0
