"""A hand-written Python implementation of the Sealed Auction, for comparison with the engine.

    python benchmarks/auction_baseline.py [--games 2000] [--repeat 5] [--players 3]

It plays the same rules as rulesets/examples/sealed-auction.yaml (its parameters and option by
keyword) with the same random policy as the engine's RandomAgent: each player who can pay the
minimum bid is asked in seat order for a secret bid, one decision among "pass" and every amount
from 1 to the coins held, picked uniformly. It draws its random numbers in the same order from
the same generators (SplitMix64: the game's for the shuffle of the lots, one per decision for
the bots, seeded as RandomAgent seeds them), so for a given seed it plays exactly the engine's
game, decision for decision (`python benchmarks/ratio.py --check 2000`, and
tests/test_baselines.py for a few seeds).

`play_game(seed)` plays one game and returns the final state as plain data.
"""

from __future__ import annotations

import sys

from baseline_common import agent_bases, agent_rng, main as cli, timed
from rulecraft.runtime.rng import SplitMix  # the engine's generator: the same chance results

# the lots in the order the ruleset declares them (the bottom of the pile first), and their worth
LOTS = (("clay_pot", 1), ("brass_lamp", 2), ("old_map", 3), ("silver_cup", 4),
        ("jade_comb", 5), ("gold_ring", 6), ("chess_set", 7), ("ruby_crown", 8))
WORTH = dict(LOTS)
DEFAULTS = {"start_coins": 12, "lots_for_sale": 6, "tie_rule": "earlier_seat"}


def play_game(seed: int, players: int = 3, **settings) -> dict:
    """Play one Sealed Auction with random bidders; return the final state as plain data."""
    cfg = dict(DEFAULTS)
    unknown = set(settings) - set(cfg)
    if unknown:
        raise TypeError(f"unknown settings: {', '.join(sorted(unknown))}")
    cfg.update(settings)
    earlier_seat = cfg["tie_rule"] == "earlier_seat"
    rng = SplitMix(seed)
    bases = agent_bases(seed, players)
    lots = [name for name, _ in LOTS]
    rng.shuffle(lots)
    coins = [cfg["start_coins"]] * players
    won: list[list[str]] = [[] for _ in range(players)]
    unsold: list[str] = []
    sold = decisions = 0
    for _ in range(cfg["lots_for_sale"]):
        if not lots:
            break
        lot = lots.pop()  # the top of the pile
        top, tied = 0, []
        for p in range(players):  # in seat order from the first seat; a player who cannot pay 1 is not asked
            if coins[p] < 1:
                continue
            pick = agent_rng(bases[p], decisions).below(coins[p] + 1)  # option 0 = pass, option k = k coins
            decisions += 1
            if pick > top:
                top, tied = pick, [p]
            elif pick and pick == top:
                tied.append(p)
        winner = tied[0] if tied and (earlier_seat or len(tied) == 1) else None
        if winner is None:
            unsold.append(lot)
        else:
            coins[winner] -= top
            won[winner].append(lot)
            sold += 1
    points = [sum(WORTH[lot] for lot in hand) for hand in won]
    best = max(zip(points, coins))
    winners = [p for p in range(players) if (points[p], coins[p]) == best]
    return {"coins": coins, "won": won, "unsold": unsold, "lots": lots, "sold": sold,
            "decisions": decisions, "winners": winners}


def run(games: int, players: int = 3) -> tuple[float, int]:
    """Seconds to play seeds 0..games-1, and the decisions made in all."""
    return timed(play_game, games, players)


def main(argv=None) -> int:
    return cli(play_game, __doc__, argv, games=2000, players=3, unit="games")


if __name__ == "__main__":
    sys.exit(main())
