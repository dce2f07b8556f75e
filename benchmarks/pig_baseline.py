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

import sys

from baseline_common import agent_bases, agent_rng, main as cli, timed
from rulecraft.runtime.rng import SplitMix  # the engine's generator: the same chance results

DEFAULTS = {"target_score": 100, "wipe_face": 1, "first_player": "seat_one"}


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
    bases = agent_bases(seed, players)
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
                again = agent_rng(bases[p], decisions).below(2) == 0
                decisions += 1
                if not again:
                    score[p] += total
                    break
            if winner is not None:
                break
    return {"score": score, "winners": [winner], "decisions": decisions, "turns": turns}


def run(games: int, players: int = 2) -> tuple[float, int]:
    """Seconds to play seeds 0..games-1, and the decisions made in all."""
    return timed(play_game, games, players)


def main(argv=None) -> int:
    return cli(play_game, __doc__, argv, games=2000, players=2, unit="games")


if __name__ == "__main__":
    sys.exit(main())
