"""The engine against hand-written Python of the same games: engine time ÷ baseline time.

    python benchmarks/ratio.py [GAME ...] [--blocks 7] [--games N] [--check SEEDS]

For each game (pig with 2 players, sealed-auction with 3, dune-bidding with 6: benchmarks/baselines.py)
this plays, in one process and alternating, blocks of the engine's games and blocks of the baseline's
games, the same seeds 0..N-1 in each block (the engine as `rulecraft simulate` plays: no story, one
RandomAgent per seat). Each pair of blocks gives a ratio of CPU times (`time.process_time`: the
machine is shared, so wall clock would count other people's work); the median of the pairs is the
figure. Before timing, one warm-up block of each; the work counts (decisions and steps per game) are
printed so a change that alters the games shows. The target of issue 39 is <= 4x on all three.

`--check SEEDS` instead plays seeds 0..SEEDS-1 of every game on both sides, with the player count
going round the ruleset's range, and compares the end of each game (scores, zones, coins, decisions,
winners): it exits 1 if any differs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from baselines import GAMES, differences  # noqa: E402
from bench_games import play_seeds  # noqa: E402  (one play loop for every benchmark)
from bench_validate import machine  # noqa: E402
from rulecraft.loader import load_ruleset  # noqa: E402

TARGET = 4.0
DEFAULT_GAMES = {"pig": 300, "sealed-auction": 1000, "dune-bidding": 400}


def _engine_block(rs, games: int, players: int) -> tuple[float, int, int]:
    t0 = time.process_time()
    decisions, steps = play_seeds(rs, range(games), players)
    return time.process_time() - t0, decisions, steps


def _baseline_block(play, games: int, players: int) -> tuple[float, int]:
    t0 = time.process_time()
    decisions = 0
    for seed in range(games):
        decisions += play(seed, players)["decisions"]
    return time.process_time() - t0, decisions


def measure(name: str, games: int, blocks: int) -> dict:
    pair = GAMES[name]
    rs = load_ruleset(pair.ruleset).ruleset
    n = pair.players
    _engine_block(rs, min(games, 50), n)  # warm-up: code generated, caches filled
    _baseline_block(pair.baseline, min(games, 50), n)
    ratios, eng, base = [], [], []
    for _ in range(blocks):
        e = _engine_block(rs, games, n)
        b = _baseline_block(pair.baseline, games, n)
        eng.append(e)
        base.append(b)
        ratios.append(e[0] / b[0])
    return {"ratio": statistics.median(ratios), "low": min(ratios), "high": max(ratios),
            "engine": games / statistics.median(t for t, *_ in eng),
            "baseline": games / statistics.median(t for t, _ in base),
            "decisions": eng[0][1] / games, "steps": eng[0][2] / games, "same": eng[0][1] == base[0][1],
            "players": n, "unit": pair.unit}


def check(names: list[str], seeds: int) -> int:
    bad = 0
    for name in names:
        pair = GAMES[name]
        rs = load_ruleset(pair.ruleset).ruleset
        lo, hi = rs.players.min, rs.players.max
        t0 = time.process_time()
        wrong = differences(pair, rs, range(seeds), lambda seed: lo + seed % (hi - lo + 1))
        for line in wrong[:5]:
            print(f"  {line}")
        bad += len(wrong)
        print(f"{name}: {seeds - len(wrong)} of {seeds} seeds the same game ({lo}-{hi} players, "
              f"{time.process_time() - t0:.1f} s CPU)", flush=True)
    return 1 if bad else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", default=list(GAMES), metavar="GAME", help=f"of {', '.join(GAMES)}")
    ap.add_argument("--blocks", type=int, default=7, help="pairs of blocks (engine, baseline) per game")
    ap.add_argument("--games", type=int, default=None, dest="per_block", help="games per block (default: pig 300, "
                    "sealed-auction 1000, dune-bidding 400: each engine block about a second)")
    ap.add_argument("--check", type=int, metavar="SEEDS", help="compare the engine's games with the baseline's")
    args = ap.parse_args(argv)
    for name in args.names:
        if name not in GAMES:
            ap.error(f"unknown game {name!r} (one of {', '.join(GAMES)})")
    if args.check:
        return check(args.names, args.check)
    m = machine()
    print(f"machine: {m['cpu']}, {m['cores']}, Python {m['python']}; CPU time, {args.blocks} blocks of each, alternating")
    print("| game | players | games a block | decisions, steps a game | engine /s | hand-written /s | "
          "engine ÷ hand-written (median; range) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    worst = 0.0
    for name in args.names:
        games = args.per_block or DEFAULT_GAMES[name]
        r = measure(name, games, args.blocks)
        worst = max(worst, r["ratio"])
        same = "" if r["same"] else " (decisions differ: not the same games!)"
        print(f"| {name} | {r['players']} | {games} | "
              f"{r['decisions']:.1f}, {r['steps']:.0f}{same} | {r['engine']:,.0f} | {r['baseline']:,.0f} | "
              f"**{r['ratio']:.2f}x** ({r['low']:.2f}-{r['high']:.2f}) |", flush=True)
    print(f"worst {worst:.2f}x: target <= {TARGET:g}x {'met' if worst <= TARGET else 'not met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
