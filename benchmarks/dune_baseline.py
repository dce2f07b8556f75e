"""A hand-written Python implementation of one Dune Bidding Phase, for comparison with the engine.

    python benchmarks/dune_baseline.py [--phases 500] [--repeat 5] [--players 6]

It plays the same rules as rulesets/dune/dune-bidding.yaml with its default options
(and the other option values, by keyword), and the same random policy as the engine's
RandomAgent: a bid is one decision among "pass" and every amount from the top bid + 1
to the spice held, picked uniformly; a player with only one legal answer is not asked.
It also draws its random numbers in the same order from the same generators (SplitMix64:
the game's for the deck shuffle, one per seat for the bots, seeded as RandomAgent seeds
them), so for a given seed it ends in exactly the same state as the engine; the tests
(tests/test_dune.py) check that for many seeds.

`play_phase(seed)` plays one phase and returns the final state as plain data; `main`
prints phases per second (median of the repeats).
"""

from __future__ import annotations

import sys

from baseline_common import agent_bases, agent_rng, main as cli, timed
from rulecraft.runtime.rng import SplitMix  # the engine's generator: the same chance results
KINDS = ("weapon", "defense", "special", "worthless")
MAX_COPIES = 12
DEFAULTS = {
    "starting_spice": 10, "starting_cards": 1, "hand_limit": 4,
    "weapon_cards": 10, "defense_cards": 10, "special_cards": 8, "worthless_cards": 5,
    "first_player": "seat_one", "to_the_right": "counterclockwise", "after_a_pass": "may_bid_again",
    "return_order": "first_dealt_on_top", "short_deck": "deal_what_is_left", "winner": "nobody",
}


def play_phase(seed: int, players: int = 6, **settings) -> dict:
    """Play one Bidding Phase with random bidders; return the final state as plain data."""
    cfg = dict(DEFAULTS)
    unknown = set(settings) - set(cfg)
    if unknown:
        raise TypeError(f"unknown settings: {', '.join(sorted(unknown))}")
    cfg.update(settings)
    n = players
    limit = cfg["hand_limit"]
    step = -1 if cfg["to_the_right"] == "counterclockwise" else 1
    final = cfg["after_a_pass"] == "out_for_this_card"
    rng = SplitMix(seed)
    bases = agent_bases(seed, n)  # each bot's choice: a generator of (seed, seat, the decision's number)

    # the deck, bottom first, in the order the ruleset declares its cards; then shuffled
    deck = [f"{k}_{c}" for k in KINDS for c in range(1, MAX_COPIES + 1) if c <= cfg[f"{k}_cards"]]
    rng.shuffle(deck)
    hands: list[list[str]] = [[] for _ in range(n)]
    spice = [cfg["starting_spice"]] * n
    bought = [0] * n
    bank = 0
    decisions = 0
    for seat in range(n):  # starting hands: the top cards, one at a time
        for _ in range(cfg["starting_cards"]):
            if deck:
                hands[seat].append(deck.pop())
    first = rng.below(n) if cfg["first_player"] == "random" else 0

    # 1.04.01 declaration: public knowledge, nothing changes. 1.04.03/1.04.04 the deal.
    eligible = [s for s in range(n) if len(hands[s]) < limit]
    row: list[str] = []
    over = not eligible or (len(deck) < len(eligible) and cfg["short_deck"] == "no_bidding")
    if not over:
        for _ in range(len(eligible)):
            if deck:
                row.append(deck.pop())  # the row is in dealt order: row[0] was dealt first
    opener = None
    while row and not over:
        # 1.04.06 / 1.04.07: the First Player, then right of the previous opener; the first eligible
        start = first if opener is None else (opener + step) % n
        opener = next(s for s in ((start + step * i) % n for i in range(n)) if len(hands[s]) < limit)
        card = row.pop(0)
        top, top_bidder, passes, bidder = 0, None, 0, opener
        out = set()
        while True:  # 1.04.06.01: raise or pass, going round to the right
            if len(hands[bidder]) >= limit or bidder in out or spice[bidder] <= top:
                passes += 1  # must pass (1.04.03, 1.04.06.03): not asked
            else:
                pick = agent_rng(bases[bidder], decisions).below(spice[bidder] - top + 1)  # option 0 = pass, option k = top + k
                decisions += 1
                if pick == 0:
                    passes += 1
                    if final:
                        out.add(bidder)
                else:
                    top, top_bidder, passes = top + pick, bidder, 0
            if top_bidder is not None and passes >= n - 1:
                break
            if top_bidder is None and passes >= n:
                break
            bidder = (bidder + step) % n
        if top_bidder is not None:  # 1.04.06.02
            spice[top_bidder] -= top
            bank += top
            hands[top_bidder].append(card)
            bought[top_bidder] += 1
        else:  # 1.04.09: the unsold cards go back on top of the deck; bidding is over
            back = [card] + row
            row = []
            deck.extend(reversed(back) if cfg["return_order"] == "first_dealt_on_top" else back)
            break
    if cfg["winner"] == "nobody":
        winners: list[int] = []
    else:
        best = max((bought[s], spice[s]) for s in range(n))
        winners = [s for s in range(n) if (bought[s], spice[s]) == best]
    return {"hands": hands, "spice": spice, "bought": bought, "bank": bank, "deck": deck,
            "decisions": decisions, "winners": winners}


def run(phases: int, players: int = 6) -> tuple[float, int]:
    """Seconds to play seeds 0..phases-1, and the decisions made in all."""
    return timed(play_phase, phases, players)


def main(argv=None) -> int:
    return cli(play_phase, __doc__, argv, games=500, players=6, unit="phases")


if __name__ == "__main__":
    sys.exit(main())
