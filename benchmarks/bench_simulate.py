"""Full-game simulation speed: random-agent games per second on one core, memory, and `rulecraft simulate` wall time.

    python benchmarks/bench_simulate.py [--ruleset dml] [--games 50] [--repeat 5] [--cli-games 200] [--profile]

1. In this process, one core: the same seeded games (seeds 0..games-1, 4 random agents for
   dml) played `--repeat` times after a 3-game warm-up; games/s and decisions/s are the
   median (and best) of the repeats. Loading the ruleset is not timed.
2. Memory: the peak of Python allocations while one game is played (tracemalloc), and the
   process's peak resident size (getrusage) after all the games.
3. `rulecraft simulate RULESET --games N --workers 2` as a new process: wall time, median
   of `--cli-runs` runs (it includes starting Python, loading the ruleset in each worker,
   and the report).
4. `--profile`: the functions with the most own time over the games (cProfile), to see
   the hot path of the game loop.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import resource
import statistics
import subprocess
import sys
import time

from bench_games import play_seeds  # one play loop for every benchmark
import tracemalloc

from bench_validate import machine  # one description of the machine for every benchmark
from rulecraft.loader import load_ruleset


def play(rs, seeds, players):
    return play_seeds(rs, seeds, players)


def timed(rs, games, players):
    t0 = time.perf_counter()
    dec, steps = play(rs, range(games), players)
    return time.perf_counter() - t0, dec, steps


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ruleset", default="dml", help="a bundled name or a file (default dml)")
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cli-games", type=int, default=200, help="games of the 'rulecraft simulate' run (0: skip it)")
    ap.add_argument("--cli-runs", type=int, default=3)
    ap.add_argument("--profile", action="store_true", help="print the 25 functions with the most own time")
    args = ap.parse_args(argv)
    m = machine()
    print(f"machine: {m['cpu']}, {m['cores']}, Python {m['python']}; load average {os.getloadavg()[0]:.2f}")
    loaded = load_ruleset(args.ruleset)
    if not loaded.ok:
        print(f"{args.ruleset}: does not load")
        return 1
    rs = loaded.ruleset
    n = args.players or rs.players.default
    play(rs, range(3), args.players)  # warm-up
    runs = [timed(rs, args.games, args.players) for _ in range(args.repeat)]
    times = sorted(r[0] for r in runs)
    med, best = statistics.median(times), times[0]
    _, dec, steps = runs[0]
    print(f"{args.ruleset} ({n} players, {args.games} games x {args.repeat}, one core): "
          f"{args.games / med:.1f} games/s median ({args.games / best:.1f} best); "
          f"{dec / med:,.0f} decisions/s; {steps / med:,.0f} steps/s; "
          f"{dec / args.games:.0f} decisions and {steps / args.games:.0f} steps per game")

    tracemalloc.start()
    play(rs, [0], args.players)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
    print(f"memory: {peak / 1024:.0f} KiB peak Python allocations during one game; process peak RSS {rss:.1f} MiB")

    if args.cli_games:
        # `python -m` rather than the installed script, so that PYTHONPATH can point at another copy of the engine
        cmd = [sys.executable, "-m", "rulecraft.tools.cli.main", "simulate", args.ruleset, "--games", str(args.cli_games),
               "--workers", "2"]
        walls = []
        for _ in range(args.cli_runs):
            t0 = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            walls.append(time.perf_counter() - t0)
        print(f"'{' '.join(['rulecraft'] + cmd[3:])}': {statistics.median(walls):.2f} s wall median of {args.cli_runs} "
              f"({min(walls):.2f} best); {args.cli_games / statistics.median(walls):.0f} games/s")

    if args.profile:
        prof = cProfile.Profile()
        prof.runcall(play, rs, range(min(args.games, 20)), args.players)
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
