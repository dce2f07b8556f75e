"""What the hand-written baselines share: the random bot's generators (as `agents.base` seeds them, written out
here so a baseline never calls the engine's agents) and the command line that times one baseline alone."""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Callable

from rulecraft.runtime.rng import SplitMix  # the engine's generator: the same chance results

MASK = (1 << 64) - 1


def agent_bases(seed: int, players: int) -> list[int]:
    """Each seat's RandomAgent(seat, seed) base: its choices come from (seed, seat, the decision's number)."""
    return [(seed * 1_000_003 + seat * 7919 + 17) & MASK for seat in range(players)]


def agent_rng(base: int, number: int) -> SplitMix:
    """The generator a RandomAgent with this base draws its choice from at the game's decision `number`."""
    return SplitMix(SplitMix((base + (number + 1) * 0xD1B54A32D192ED03) & MASK).next64())


def timed(play: Callable[..., dict], games: int, players: int) -> tuple[float, int]:
    """Seconds to play seeds 0..games-1, and the decisions made in all."""
    decisions = 0
    t0 = time.perf_counter()
    for seed in range(games):
        decisions += play(seed, players)["decisions"]
    return time.perf_counter() - t0, decisions


def main(play: Callable[..., dict], doc: str, argv, games: int, players: int, unit: str = "games") -> int:
    """`python BASELINE.py [--games N] [--repeat R] [--players P]`: games (or phases) a second, the median."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument(f"--{unit}", dest="n", type=int, default=games)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--players", type=int, default=players)
    args = ap.parse_args(argv)
    timed(play, min(20, args.n), args.players)  # warm-up
    times = [timed(play, args.n, args.players)[0] for _ in range(args.repeat)]
    med = statistics.median(times)
    print(f"baseline ({args.players} players, {args.n} {unit} x {args.repeat}): "
          f"{args.n / med:,.0f} {unit}/s median ({args.n / min(times):,.0f} best)")
    return 0
