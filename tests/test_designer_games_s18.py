"""Four games written from docs/format.md and docs/language.md alone (s18), each of a shape the earlier test games do
not have (tests/cases/games/): a game of tenders, where the lowest bid wins, open (each names a lower price or drops
out) or sealed at the second price, the winner paid what the town pays (low-tender: `auction:` with `lowest_wins:`);
a push-your-luck game on one shared deck, every miner still down deciding in secret after each card whether to climb
out with their share, a second cave-in of a kind burying those still down (deep-shaft: `draw_until:` with a `sealed:`
step, `rounds:` calling a round sequence, players out until the end of the round); a trick-taking game of elimination
by lives, one card fewer each hand, the most tricks naming the next trumps (last-light: `trick:` with `play_out: true`
(in s18 a `for_each` over the tricks), `rounds:`); and a deck-builder of two currencies, runes buying from a centre row refilled from the centre
deck and power defeating its monsters for honour from a shared pool, the end at the end of the round in which the pool
runs out or two piles are empty (honour-road: `repeat_choice:`, `refill:`, `turns:` with `until_round:`).

Each is played by random bots on both engines, which must tell the same game; then what each game is about is
checked in its story and its end.
"""

from __future__ import annotations

import re

import pytest
import yaml

from designer_cases import GAMES, both_engines, case_ruleset, yaml_keys

from rulecraft.values import ZoneRef

NAMES = ("low-tender", "deep-shaft", "last-light", "honour-road")


@pytest.mark.parametrize("name", NAMES)
def test_the_game_has_no_loop_of_its_own(name):
    data = yaml.safe_load((GAMES / f"{name}.yaml").read_text(encoding="utf-8"))
    assert not yaml_keys(data) & {"while", "loop", "repeat"}
    assert not re.search(r"\bbreak\b", yaml.safe_dump(data["sequences"]))


def test_low_tender_the_lowest_tender_wins_and_is_paid():
    """An open tender's bids only go down, each at most the ceiling, and the last bidder wins at their bid; a sealed
    tender goes to the lowest bid, paid the second lowest (or, alone, a contract's ceiling); every builder's coins are
    the start plus what they were paid less their materials."""
    undercut = second = 0
    ceilings = {c.attrs["ceiling"] for c in case_ruleset("low-tender").cards}
    for g in both_engines("low-tender", seeds=range(5), players=4):
        paid = {f"P{s + 1}": 0 for s in range(4)}
        bids: list = []
        sealed = None
        for line in g.narrative:
            asked = re.fullmatch(r"(P\d): Tender for .* \(ceiling (\d+), .*\) -> (pass|\d+)", line)
            if asked and asked.group(3) != "pass":
                bid = int(asked.group(3))
                assert bid <= int(asked.group(2)) and (not bids or bid < bids[-1][1]), line
                undercut += bool(bids)
                bids.append((asked.group(1), bid))
            if line.startswith("Revealed: "):
                sealed = {p: int(b) for p, b in re.findall(r"(P\d): (\d+)", line)}
            won = re.fullmatch(r"(P\d) wins the auction for (\d+)", line)
            if won:
                who, price = won.group(1), int(won.group(2))
                if sealed is not None:
                    low = min(sealed.values())
                    assert sealed[who] == low, line
                    others = sorted(b for p, b in sealed.items() if p != who)
                    assert price == others[0] if others else price in ceilings, (sealed, line)
                    second += bool(others)
                else:
                    assert bids and bids[-1] == (who, price), (bids, line)
                paid[who] += price
            if won or line in ("Nobody bids", "Nobody wins the auction: no bid counts") or "tie" in line:
                bids, sealed = [], None
        for s in range(4):
            materials = sum(c.attrs["materials"] for c in g.zones[ZoneRef("built", s)])
            assert g.pvars[s]["coins"] == 8 + paid[f"P{s + 1}"] - materials
    assert undercut and second  # tenders were undercut, and sealed ones paid at the second lowest


def test_deep_shaft_those_who_climb_out_are_out_of_the_descent():
    """In a descent, a miner who climbed out is never asked again until the next one; after a cave-in buries the
    shaft nobody is asked; every descent starts with everyone down; a buried descent sends one card out of the game;
    nobody banks more ore than was turned up, and the score is what was banked."""
    buried_seen = 0
    for g in both_engines("deep-shaft", seeds=range(5), players=4):
        out: set = set()
        buried = False
        turned = buries = 0
        first = False
        for line in g.narrative:
            if re.fullmatch(r"Descent \d+ begins", line):
                out, buried, first = set(), False, True
                continue
            card = re.fullmatch(r"Ore (\d+) turns up", line)
            turned += int(card.group(1)) if card else 0
            if line.endswith("buries the shaft"):
                buried, buries = True, buries + 1
            said = re.findall(r"(P\d): (yes|no)", line) if line.startswith("Revealed: ") else []
            if said:
                assert not buried and not out & {p for p, _ in said}, line
                assert not first or len(said) == 4, line
                first = False
                out |= {p for p, a in said if a == "yes"}
        assert len(g.zones[ZoneRef("box")]) == buries
        buried_seen += buries
        banked = [g.pvars[s]["banked"] for s in range(4)]
        assert sum(banked) <= turned and g.scores == banked
    assert buried_seen


def _trick_winner(plays: list, trumps: str) -> str:
    led = plays[0][1][1]
    best = max((p for p in plays if p[1][1] == trumps), key=lambda p: p[1][0], default=None)
    return (best or max((p for p in plays if p[1][1] == led), key=lambda p: p[1][0]))[0]


def test_last_light_tricks_hands_and_lives():
    """Every trick is told and taken by the highest trump or else the highest card of the suit led; each hand has one
    trick fewer than the one before (down to one); a player who took no trick loses a life, and one who is out never
    plays again; the winner is the last player in, or holds the most lives."""
    for g in both_engines("last-light", seeds=range(5), players=4):
        plays: list = []
        hands: list = []
        out: set = set()
        took: set = set()
        for line in g.narrative:
            hand = re.fullmatch(r"Hand \d+: (\d+) cards? each", line)
            if hand:
                hands.append([int(hand.group(1)), 0])
                took = set()
            card = re.fullmatch(r"(P\d): Play a card \((\w+) are trumps\) -> (\d+) of (\w+)( \(the only choice\))?",
                                line)
            if card:
                assert card.group(1) not in out
                trumps = card.group(2).lower()
                plays.append((card.group(1), (int(card.group(3)), card.group(4))))
            taker = re.fullmatch(r"(P\d) takes the trick", line)
            if taker:
                assert taker.group(1) == _trick_winner(plays, trumps), plays
                took.add(taker.group(1))
                plays = []
                hands[-1][1] += 1
            lost = re.fullmatch(r"(P\d) took no trick and loses a life \(\d+ left\)", line)
            assert not lost or lost.group(1) not in took
            gone = re.fullmatch(r"(P\d) is out", line)
            out |= {gone.group(1)} if gone else set()
        assert [n for n, _ in hands] == [max(1, 7 - i) for i in range(len(hands))]
        assert all(tricks == n for n, tricks in hands), hands  # every card of the hand is played, one trick each
        left = [s for s in range(4) if f"P{s + 1}" not in out]
        assert (len(left) == 1 and g.winners == left) or len(hands) == 12


def test_honour_road_buys_within_means_and_ends_at_a_round_end():
    """Every card bought cost at most the runes, every monster defeated at most the power; honour only moves from the
    pool to the players; the game ends at the end of a round (everyone has had as many turns) once the pool is empty or
    two piles always on offer are empty."""
    cost = {c.name: (c.attrs["cost"], "monster" in c.classes) for c in case_ruleset("honour-road").cards}
    ends = set()
    for g in both_engines("honour-road", seeds=range(4), players=3):
        for line in g.narrative:
            got = re.fullmatch(r"P\d: Buy or defeat\? \((\d+) runes?, (\d+) power\) -> (.+)", line)
            if got and got.group(3) != "pass":
                price, monster = cost[got.group(3)]
                assert price <= int(got.group(2) if monster else got.group(1)), line
        assert sum(g.pvars[s]["honour"] for s in range(3)) + g.vars["pool"] == 12 * 3
        assert len({g.pvars[s]["turns"] for s in range(3)}) == 1
        piles = sum(not g.zones[ZoneRef("always", k)] for k in ("mystic", "infantry", "cultist"))
        assert g.vars["pool"] <= 0 or piles >= 2
        ends.add("pool" if g.vars["pool"] <= 0 else "piles")
    assert ends


def test_the_aid_says_a_tender_and_a_family_of_piles_in_players_words():
    """What players read: a tender's price is 'the lowest bid' (it read 'the highest bid', the words of an auction
    that goes up) and its rule says the bids go down; a family of piles is named by its keys' titles ('Mystics, Heavy
    Infantry and Cultists'; it read 'mystic, infantry and cultist')."""
    from rulecraft.loader import load_ruleset
    from rulecraft.tools.print.aidwords import terms
    from rulecraft.tools.words import Words
    from rulecraft.tools.words.steps import players_construct

    case = load_ruleset(str(GAMES.parent / "constructs" / "auction_lowest" / "ruleset.yaml")).ruleset
    w = Words(case, detail="players")
    said = [players_construct(w, s) for _q, s in case.iter_steps() if getattr(s, "construct", "") == "auction"]
    assert said[0].startswith("open auction: bid lower or pass in turn"), said
    assert "the lowest bid wins" in said[1] and "no bid below 3" in said[1], said
    assert "the lowest bidder wins and pays the second lowest bid" in said[2], said
    paid = [w.stmt(s.stmts[0]) for _q, s in case.iter_steps() if type(s).__name__ == "ActionStep"]
    assert paid[1] == "Add the lowest bid to the winner's coins" and not any("highest" in p for p in paid), paid
    rs = case_ruleset("honour-road")
    meant = dict(terms(rs, Words(rs, detail="players")))
    assert meant["Always on offer"].startswith("One for each of Mystics, Heavy Infantry and Cultists"), meant


def _steps(node) -> list:
    """Every step (a mapping in a list of steps) anywhere in a YAML document's data."""
    if isinstance(node, dict):
        return [x for v in node.values() for x in _steps(v)]
    if isinstance(node, list):
        return [x for v in node for x in ([v] if isinstance(v, dict) else []) + _steps(v)]
    return []


@pytest.mark.parametrize("marker, game", [("lowest_wins: true\n    from: opener", "low-tender"),
                                          ("play_out: true\n    to:", "last-light"),
                                          ("call: descent", "deep-shaft")])
def test_the_format_docs_examples_are_the_games_own_steps(marker, game):
    """format.md's examples of a tender, a hand played out and a round with players out until it ends are steps of
    the games played above, as written there (so the docs show what is played and tested)."""
    text = (GAMES.parents[2] / "docs" / "format.md").read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in text.split("```yaml\n")[1:]]
    (block,) = [b for b in blocks if marker in b]
    steps = _steps(yaml.safe_load((GAMES / f"{game}.yaml").read_text(encoding="utf-8")))
    assert all(step in steps for step in yaml.safe_load(block)), block
