"""Interpreter speed: seeded random-agent games per second, decisions and steps per second.

    python benchmarks/bench_games.py [RULESET ...] [--games 50] [--repeat 5] [--players N]

Each repeat plays the same seeded games (seeds 0..games-1) in this process, on one core,
with random agents; the figures are the median and best of the repeats. Loading the
ruleset is not timed. Prints the machine it ran on.

Games are played as `rulecraft simulate` plays them: without the story (no narrative is
written and `log` texts are not worked out; the games are the same, tests/test_story.py).
`--story` also times them with the story, as `rulecraft play` writes it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from bench_validate import machine  # one description of the machine for every benchmark
from rulecraft.agents.base import RandomAgent
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game

DEFAULT = ["dml", "pig", "sealed-auction", "stack-duel"]


def play_seeds(rs, seeds, players: int | None, story: bool = False) -> tuple[int, int]:
    """Play one seeded random-agent game per seed; (decisions, steps) in all."""
    decisions = steps = 0
    for seed in seeds:
        g = Game(rs, players, seed, story=story, start=False)  # started by play, as `rulecraft simulate` plays
        g.play([RandomAgent(p.seat, seed) for p in g.players], views=False)
        decisions += g.decisions
        steps += g.steps
    return decisions, steps


def play_all(rs, games: int, players: int | None, story: bool = False) -> tuple[float, int, int]:
    t0 = time.perf_counter()
    decisions, steps = play_seeds(rs, range(games), players, story)
    return time.perf_counter() - t0, decisions, steps


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rulesets", nargs="*", default=None)
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--story", action="store_true", help="also time the games with their story written")
    args = ap.parse_args(argv)
    m = machine()
    print(f"machine: {m['cpu']}, {m['cores']}, Python {m['python']}")
    names = args.rulesets or DEFAULT
    for name in names:
        loaded = load_ruleset(name)
        if not loaded.ok:
            print(f"{name}: does not load, skipped")
            continue
        rs = loaded.ruleset
        play_all(rs, min(3, args.games), args.players)  # warm-up
        modes = [False, True] if args.story else [False]
        runs: dict[bool, list] = {story: [] for story in modes}
        for _ in range(args.repeat):  # the modes interleaved, so a slow moment of the machine hits both
            for story in modes:
                runs[story].append(play_all(rs, args.games, args.players, story))
        n = args.players or rs.players.default
        for story in modes:
            times = [r[0] for r in runs[story]]
            med, best = statistics.median(times), min(times)
            _, dec, steps = runs[story][0]
            print(f"{name}{' with the story' if story else ''} ({n} players, {args.games} games x {args.repeat}): "
                  f"{args.games / med:.1f} games/s median ({args.games / best:.1f} best); "
                  f"{dec / med:,.0f} decisions/s; {steps / med:,.0f} steps/s; "
                  f"{dec / args.games:.0f} decisions and {steps / args.games:.0f} steps per game")
    return 0


if __name__ == "__main__":
    sys.exit(main())
