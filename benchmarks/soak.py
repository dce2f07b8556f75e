"""Soak: thousands of seeded games across every bundled ruleset, with every invariant checked.

    python benchmarks/soak.py [--games 10000] [--workers W] [--seed S] [--only NAME,...] [--json FILE]

Not part of the test run (tests/test_soak.py plays a sample of about 50 games). The games are
spread over the bundled rulesets by weight (WEIGHTS: the full games more than the examples;
a bundled ruleset not listed gets weight 1), each game with seeded random agents and a
player count that cycles through the ruleset's range. Every game is checked:

  - card conservation after every step (`check_conservation=True`);
  - the game ends within its step budget, with winners that are seats;
  - replaying its seed and decisions gives the same final state (determinism);
  - its state survives a JSON round trip (`to_json` / `from_json`) with the same hash.

Any exception or failed check is an error, printed with the ruleset, seed and players so
that it can be played again alone. Prints per ruleset: games, errors, time (the CPU seconds
of its games, summed over the workers), decisions and steps per game; exit 1 on any error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from typing import Optional

WEIGHTS = {"dml": 4, "dml-classic": 1, "dml-2016": 1, "dml-mayhem": 1, "dune-bidding": 3}
MAX_STEPS = 2_000_000
_RULESETS: dict = {}


def plan(total: int, names: list[str], seed: int) -> list[tuple[str, int]]:
    """(ruleset, seed) for every game: `total` spread by weight, seeds counting up from `seed` per ruleset."""
    weights = {n: WEIGHTS.get(n, 1) for n in names}
    whole = sum(weights.values())
    counts = {n: total * w // whole for n, w in weights.items()}
    for n in sorted(names, key=lambda n: -weights[n])[: total - sum(counts.values())]:
        counts[n] += 1  # the remainder to the heaviest
    return [(n, seed + i) for n in names for i in range(counts[n])]


def _ruleset(name: str):
    rs = _RULESETS.get(name)
    if rs is None:
        from rulecraft.loader import load_ruleset

        loaded = load_ruleset(name)
        if not loaded.ok:
            raise RuntimeError(f"{name} does not load: {[d.code for d in loaded.diagnostics if d.is_error]}")
        rs = _RULESETS[name] = loaded.ruleset
    return rs


def play_one(name: str, seed: int) -> dict:
    """One checked game: its figures, or the error that stopped it."""
    from rulecraft.agents.base import RandomAgent
    from rulecraft.runtime.game import Game
    from rulecraft.runtime.state_io import from_json, state_hash, to_json

    out = {"ruleset": name, "seed": seed, "players": None, "error": None, "decisions": 0, "steps": 0}
    t0 = time.process_time()
    try:
        rs = _ruleset(name)
        t0 = time.process_time()  # loading the ruleset (once per process) is not the game's time
        lo, hi = rs.players.min, rs.players.max
        players = lo + seed % (hi - lo + 1)
        out["players"] = players
        g = Game(rs, players, seed, check_conservation=True, max_steps=MAX_STEPS)
        agents = [RandomAgent(p.seat, seed) for p in g.players]
        taken = []
        while not g.over:
            d = g.pending
            wire = agents[d.player].choose(d, g.view(d.player))
            g.apply(wire)
            taken.append(wire)
        g.check_cards()
        if not isinstance(g.winners, list) or not all(0 <= s < players for s in g.winners):
            raise AssertionError(f"winners {g.winners!r} are not seats")
        final = state_hash(g)
        again = Game(rs, players, seed, max_steps=MAX_STEPS)
        for wire in taken:
            again.apply(wire)
        if not again.over or state_hash(again) != final:
            raise AssertionError("replaying the seed and the decisions gives another game")
        back = from_json(rs, json.loads(json.dumps(to_json(g))))
        if state_hash(back) != final:
            raise AssertionError("the state changed on a JSON round trip")
        out.update(decisions=g.decisions, steps=g.steps)
    except Exception as exc:  # noqa: BLE001 - every failure is a finding to report, not a crash of the soak
        where = traceback.extract_tb(exc.__traceback__)[-1]
        out["error"] = f"{type(exc).__name__}: {exc} ({os.path.basename(where.filename)}:{where.lineno})"[:400]
    out["cpu"] = time.process_time() - t0
    return out


def run_chunk(games: list[tuple[str, int]]) -> list[dict]:
    return [play_one(n, s) for n, s in games]


def soak(total: int, names: list[str], seed: int = 1, workers: Optional[int] = None,
         progress: bool = False) -> tuple[list[dict], float]:
    games = plan(total, names, seed)
    if not workers:
        workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    t0 = time.perf_counter()
    if workers <= 1:
        results = run_chunk(games)
    else:
        chunks = [games[i:i + 25] for i in range(0, len(games), 25)]
        results = []
        with ProcessPoolExecutor(max_workers=workers) as ex:
            for i, part in enumerate(ex.map(run_chunk, chunks), 1):
                results.extend(part)
                if progress and i % 20 == 0:
                    print(f"  {len(results):,}/{len(games):,} games", file=sys.stderr, flush=True)
    return results, time.perf_counter() - t0


def table(results: list[dict]) -> str:
    rows = [("ruleset", "games", "errors", "time (s)", "ms/game", "decisions/game", "steps/game")]
    by: dict[str, list[dict]] = {}
    for r in results:
        by.setdefault(r["ruleset"], []).append(r)
    for name, rs in by.items():
        ok = [r for r in rs if not r["error"]]
        cpu = sum(r["cpu"] for r in rs)
        rows.append((name, f"{len(rs):,}", str(len(rs) - len(ok)), f"{cpu:.1f}", f"{1000 * cpu / len(rs):.1f}",
                     f"{sum(r['decisions'] for r in ok) / max(len(ok), 1):.0f}",
                     f"{sum(r['steps'] for r in ok) / max(len(ok), 1):,.0f}"))
    total_cpu = sum(r["cpu"] for r in results)
    rows.append(("all", f"{len(results):,}", str(sum(1 for r in results if r["error"])), f"{total_cpu:.1f}",
                 f"{1000 * total_cpu / max(len(results), 1):.1f}", "", ""))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
                     for r in rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--workers", type=int, default=None, help="processes (default: the usable cores)")
    ap.add_argument("--seed", type=int, default=1, help="seed of each ruleset's first game")
    ap.add_argument("--only", help="comma-separated ruleset names (default: every bundled one)")
    ap.add_argument("--json", metavar="FILE", help="also write every game's result")
    args = ap.parse_args(argv)
    from rulecraft.bundled import bundled_rulesets

    names = args.only.split(",") if args.only else [b.name for b in bundled_rulesets(include_examples=True)]
    try:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from bench_validate import machine

        m = machine()
        print(f"machine: {m['cpu']}, {m['cores']}, Python {m['python']}")
    except Exception:  # noqa: BLE001 - the description is a nicety
        pass
    print(f"soak: {args.games:,} games over {', '.join(names)}; seed {args.seed}; max_steps {MAX_STEPS:,}; "
          "conservation checked after every step", flush=True)
    results, wall = soak(args.games, names, args.seed, args.workers, progress=True)
    print(table(results))
    print(f"wall time {wall:.1f} s")
    errors = [r for r in results if r["error"]]
    for r in errors[:20]:
        print(f"error: {r['ruleset']} seed {r['seed']} players {r['players']}: {r['error']}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"wall_seconds": wall, "games": results}, fh)
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
