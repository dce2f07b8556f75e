"""The engine against hand-written Python of the same games: engine time ÷ baseline time.

    python benchmarks/ratio.py [GAME ...] [--blocks 7] [--games N] [--check SEEDS]

For each game (pig with 2 players, sealed-auction with 3, dune-bidding with 6: benchmarks/baselines.py)
this plays, in one process and alternating, blocks of the engine's games and blocks of the baseline's
games, the same seeds 0..N-1 in each block (the engine as `rulecraft simulate` plays: no story, one
RandomAgent per seat). Each pair of blocks gives a ratio of CPU times (`time.process_time`: the
machine is shared, so wall clock would count other people's work); the median of the pairs is the
figure. Before timing, one warm-up block of each; the work counts (decisions and steps per game) are
printed so a change that alters the games shows. The target of issue 39 is <= 4x on all three.

`--instructions` instead counts machine instructions per game under cachegrind (valgrind), which the
load of a shared machine does not move: for each game, the engine as benchmarks/bench_instructions.py
counts it (seeds 1000.., after 5 warm-up games, start-up subtracted) and the baseline the same way,
and prints the ratio of the two. (Instructions are not time: the engine runs fewer instructions per
cycle than the baseline, so its time ratio is higher.)

`--check SEEDS` instead plays seeds 0..SEEDS-1 of every game on both sides, with the player count
going round the ruleset's range, and compares the end of each game (scores, zones, coins, decisions,
winners): it exits 1 if any differs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from baselines import GAMES, differences  # noqa: E402
from bench_instructions import IREFS, measure as engine_instructions  # noqa: E402
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


# the baseline's child under cachegrind: warm-up games (seeds 0-4), then N games from seed 1000, as the engine's
BASELINE_CHILD = r"""
import sys
sys.path.insert(0, sys.argv[1])
from baselines import GAMES
pair = GAMES[sys.argv[2]]
games = int(sys.argv[3])
for seed in range(5):
    pair.baseline(seed, pair.players)
for seed in range(1000, 1000 + games):
    pair.baseline(seed, pair.players)
"""


def baseline_instructions(name: str, games: int) -> float:
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PYTHONHASHSEED="0", RULECRAFT_CACHE="")
    counts = []
    for n in (0, games):
        done = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                               sys.executable, "-c", BASELINE_CHILD, here, name, str(n)],
                              env=env, capture_output=True, text=True)
        m = IREFS.search(done.stderr)
        if done.returncode != 0 or not m:
            sys.exit(f"baseline {name}: the child failed:\n{done.stderr[-2000:]}")
        counts.append(int(m.group(1).replace(",", "")))
    return (counts[1] - counts[0]) / games


def instructions(names: list[str], games: int | None) -> int:
    if shutil.which("valgrind") is None:
        print("valgrind is missing: run `make bench-setup`", file=sys.stderr)
        return 2
    checkout = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    print("instructions per game (cachegrind, 5 warm-up games, seeds from 1000, start-up subtracted)")
    print("| game | players | games | engine | hand-written | engine ÷ hand-written |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for name in names:
        n = games or 40
        engine = engine_instructions(checkout, GAMES[name].ruleset, 5, n)
        base = baseline_instructions(name, n * 5)
        print(f"| {name} | {GAMES[name].players} | {n} (hand-written {n * 5}) | {engine['per_game'] / 1e6:.2f} M | "
              f"{base / 1e6:.3f} M | **{engine['per_game'] / base:.2f}x** |", flush=True)
    return 0


def check(names: list[str], seeds: int) -> int:
    bad = 0
    for name in names:
        pair = GAMES[name]
        rs = load_ruleset(pair.ruleset).ruleset
        lo, hi = rs.players.min, rs.players.max
        t0 = time.process_time()
        wrong = differences(pair, rs, range(seeds), lambda seed, lo=lo, hi=hi: lo + seed % (hi - lo + 1))
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
    ap.add_argument("--instructions", action="store_true", help="count instructions under cachegrind instead")
    ap.add_argument("--check", type=int, metavar="SEEDS", help="compare the engine's games with the baseline's")
    args = ap.parse_args(argv)
    for name in args.names:
        if name not in GAMES:
            ap.error(f"unknown game {name!r} (one of {', '.join(GAMES)})")
    if args.check:
        return check(args.names, args.check)
    if args.instructions:
        return instructions(args.names, args.per_block)
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
