"""A hand-written Python implementation of Pig, for comparison with the engine.

    python benchmarks/pig_baseline.py [--games 2000] [--repeat 5] [--players 2]

It plays the same rules as rulesets/examples/pig.yaml (its parameters and option by keyword)
with the same random policy as the engine's RandomAgent: after each roll that neither wipes the
turn nor wins, the player is asked "roll again?" and answers yes or no with even odds. It draws
its random numbers in the same order from the same generators (SplitMix64: the game's for the
dice and a random first player, one per decision for the bots, seeded as RandomAgent seeds
them), so for a given seed it plays exactly the engine's game, decision for decision
(`python benchmarks/ratio.py --check 2000`, and tests/test_baselines.py for a few seeds).

`play_game(seed)` plays one game and returns the final state as plain data.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from rulecraft.runtime.rng import SplitMix  # the engine's generator: the same chance results

DEFAULTS = {"target_score": 100, "wipe_face": 1, "first_player": "seat_one"}
_MASK = (1 << 64) - 1


def play_game(seed: int, players: int = 2, **settings) -> dict:
    """Play one game of Pig with random players; return the final state as plain data."""
    cfg = dict(DEFAULTS)
    unknown = set(settings) - set(cfg)
    if unknown:
        raise TypeError(f"unknown settings: {', '.join(sorted(unknown))}")
    cfg.update(settings)
    target, wipe = cfg["target_score"], cfg["wipe_face"]
    rng = SplitMix(seed)
    # each bot's choice comes from a generator seeded by (seed, seat, the decision's number): agents.base
    bases = [(seed * 1_000_003 + seat * 7919 + 17) & _MASK for seat in range(players)]
    first = rng.below(players) if cfg["first_player"] == "random" else 0
    order = [(first + i) % players for i in range(players)]
    score = [0] * players
    decisions = turns = 0
    winner = None
    while winner is None:
        for p in order:
            turns += 1
            total = 0
            while True:
                face = 1 + rng.below(6)
                if face == wipe:
                    break
                total += face
                if score[p] + total >= target:
                    score[p] += total
                    winner = p
                    break
                again = _agent_rng(bases[p], decisions).below(2) == 0
                decisions += 1
                if not again:
                    score[p] += total
                    break
            if winner is not None:
                break
    return {"score": score, "winners": [winner], "decisions": decisions, "turns": turns}


def _agent_rng(base: int, number: int) -> SplitMix:
    """The generator a RandomAgent with this base draws its choice from at the game's decision `number`."""
    return SplitMix(SplitMix((base + (number + 1) * 0xD1B54A32D192ED03) & _MASK).next64())


def run(games: int, players: int = 2) -> tuple[float, int]:
    """Seconds to play seeds 0..games-1, and the decisions made in all."""
    decisions = 0
    t0 = time.perf_counter()
    for seed in range(games):
        decisions += play_game(seed, players)["decisions"]
    return time.perf_counter() - t0, decisions


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--players", type=int, default=2)
    args = ap.parse_args(argv)
    run(min(20, args.games), args.players)  # warm-up
    times = [run(args.games, args.players)[0] for _ in range(args.repeat)]
    med = statistics.median(times)
    print(f"baseline ({args.players} players, {args.games} games x {args.repeat}): "
          f"{args.games / med:,.0f} games/s median ({args.games / min(times):,.0f} best)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
