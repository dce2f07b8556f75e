"""What knowing the hidden cards is worth to the greedy bot: seat 1 greedy against random bots, with its rollouts
determinized (the bot as it plays) and peeking (it reads the hidden cards), on the same engine and seeds.

    python benchmarks/bench_greedy_hidden.py bluff 200
"""

from __future__ import annotations

import sys

from rulecraft.agents.base import RandomAgent
from rulecraft.agents.greedy import GreedyAgent
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game


def win_rate(rs, games: int, peek: bool) -> float:
    wins = 0.0
    for seed in range(1, games + 1):
        g = Game(rs, None, seed, story=False)
        agents = [GreedyAgent(0, seed, peek=peek)] + [RandomAgent(s, seed) for s in range(1, len(g.players))]
        while not g.over:
            d = g.pending
            a = agents[d.player]
            g.apply(a.choose(d, g.view(d.player), g) if isinstance(a, GreedyAgent) else a.choose(d, None))
        won = g.winners or []
        wins += 1.0 / len(won) if 0 in won else 0.0
    return wins / games


def main() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 else "bluff"
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    rs = load_ruleset(name).ruleset
    for peek in (False, True):
        print(f"{name}: seat 1 greedy ({'peeking' if peek else 'determinized'}) vs random: "
              f"{win_rate(rs, games, peek):.1%} of {games} games", flush=True)


if __name__ == "__main__":
    main()
