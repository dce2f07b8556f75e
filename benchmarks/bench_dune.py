"""The engine against a hand-written baseline on one Dune Bidding Phase (random bidders).

    python benchmarks/bench_dune.py [--phases 500] [--repeat 5] [--players 6]

Each repeat plays seeds 0..phases-1: the engine (rulecraft.runtime.game.Game on the
bundled ruleset dune-bidding, one RandomAgent per seat, without the story, as in
bench_games.py and as `rulecraft simulate` plays; the baseline writes no story either) and the
baseline (benchmarks/dune_baseline.py, the same rules and the same random draws). Loading
the ruleset is not timed; one short warm-up run precedes the timed ones. Prints phases per
second for each (median and best of the repeats), the ratio baseline / engine, decisions per
phase, and the machine. Targets (from the brief): the engine >= 5,000 phases/s and within
2x of the baseline.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_games import play_seeds  # noqa: E402  (one play loop for every benchmark)

from bench_validate import machine  # noqa: E402
from dune_baseline import run as baseline_run  # noqa: E402
from rulecraft.loader import load_ruleset  # noqa: E402

TARGET_PHASES_PER_S = 5_000
TARGET_RATIO = 2.0


def engine_run(rs, phases: int, players: int) -> tuple[float, int]:
    t0 = time.perf_counter()
    decisions, _steps = play_seeds(rs, range(phases), players)
    return time.perf_counter() - t0, decisions


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--phases", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--players", type=int, default=6)
    args = ap.parse_args(argv)
    m = machine()
    print(f"machine: {m['cpu']}, {m['cores']}, Python {m['python']}")
    loaded = load_ruleset("dune-bidding")
    if not loaded.ok:
        print("dune-bidding does not load")
        return 1
    rs = loaded.ruleset
    engine_run(rs, 20, args.players)  # warm-up (compiles the programs once)
    baseline_run(20, args.players)
    eng, base = [], []
    for _ in range(args.repeat):  # interleaved, so a slow moment of the machine hits both
        eng.append(engine_run(rs, args.phases, args.players))
        base.append(baseline_run(args.phases, args.players))
    if eng[0][1] != base[0][1]:
        print(f"warning: the engine asked {eng[0][1]} decisions and the baseline {base[0][1]}: not the same games")
    e_med, e_best = statistics.median(t for t, _ in eng), min(t for t, _ in eng)
    b_med, b_best = statistics.median(t for t, _ in base), min(t for t, _ in base)
    e_rate, b_rate = args.phases / e_med, args.phases / b_med
    ratio = b_rate / e_rate
    per_phase = eng[0][1] / args.phases
    print(f"dune-bidding, {args.players} players, {args.phases} phases x {args.repeat} "
          f"({per_phase:.1f} decisions per phase)")
    print(f"  engine:   {e_rate:,.0f} phases/s median ({args.phases / e_best:,.0f} best)")
    print(f"  baseline: {b_rate:,.0f} phases/s median ({args.phases / b_best:,.0f} best)")
    print(f"  ratio baseline/engine: {ratio:.1f}x (target <= {TARGET_RATIO:g}x: "
          f"{'met' if ratio <= TARGET_RATIO else 'not met'}); engine target >= {TARGET_PHASES_PER_S:,} phases/s: "
          f"{'met' if e_rate >= TARGET_PHASES_PER_S else 'not met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
