"""The trick construct against the loop it replaces: the bundled Hearts and benchmarks/hearts_loop.yaml (the same
rules with the trick written by hand) play the same seeded games (checked: same decisions, same scores); run each
under cachegrind to compare instructions per decision:

    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \\
        .venv/bin/python benchmarks/bench_trick.py hearts 1 3
    valgrind ... .venv/bin/python benchmarks/bench_trick.py benchmarks/hearts_loop.yaml 1 3
    (and with 0 games, '1 0', for what loading and start-up cost alone)

Prints the decisions and the scores of each game, so the two runs can be seen to play the same games.
"""

from __future__ import annotations

import sys

from rulecraft.agents.base import RandomAgent
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game


def main(argv: list[str]) -> int:
    name, first, count = argv[0], int(argv[1]), int(argv[2])
    rs = load_ruleset(name).ruleset
    total = 0
    for seed in range(first, first + count):
        g = Game(rs, None, seed)
        agents = [RandomAgent(p.seat, seed) for p in g.players]
        while not g.over:
            d = g.pending
            g.apply(agents[d.player].choose(d, None))
        total += g.decisions
        print(seed, g.decisions, g.scores)
    print("decisions", total)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
