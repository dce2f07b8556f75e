"""Three games written from docs/format.md and docs/language.md alone (s17b), each of a shape the earlier test games
do not have (tests/cases/games/): a lowest-unique-bid game, where every player bids in secret and the lowest bid
nobody else made wins (odd-one-low: `sealed:` and `unique_keys`); an elimination game of hidden roles, where a fallen
player's role is turned face up, turns skip them, and the last two settle it in a showdown (masked-duel: `turns:` with
`until:`, `target:`); and an all-pay bribery game with a tie rule, where a tie for the top bid wins nothing though
every bidder pays, and the top bid is marked for all to see (favour-climb: `auction: {form: sealed, all_pay: true,
ties: nobody}`).

Each is played by random bots on both engines, which must tell the same game; then what each game is about is
checked in its story and its end.
"""

from __future__ import annotations

import re

import pytest
import yaml

from designer_cases import GAMES, both_engines, yaml_keys

from rulecraft.values import ZoneRef

NAMES = ("odd-one-low", "masked-duel", "favour-climb")


def _games(name: str, seeds=range(4), players: int = 4) -> list:
    return both_engines(name, seeds, players)


def _bids(line: str) -> dict | None:
    """'Revealed: P1: 3, P2: pass' as {'P1': 3, 'P2': None}."""
    if not line.startswith("Revealed: "):
        return None
    return {who: None if said == "pass" else int(said)
            for who, said in re.findall(r"(P\d): (pass|\d+)", line[len("Revealed: "):])}


@pytest.mark.parametrize("name", NAMES)
def test_the_game_has_no_loop_of_its_own(name):
    data = yaml.safe_load((GAMES / f"{name}.yaml").read_text(encoding="utf-8"))
    assert not yaml_keys(data) & {"while", "loop", "repeat"}
    assert not re.search(r"\bbreak\b", yaml.safe_dump(data["sequences"]))  # the notes may break a tie


def test_odd_one_low_the_lowest_bid_nobody_else_made_wins_and_only_it_pays():
    """Each round the winner is the player whose bid is the lowest of the bids (above 0) nobody else made; when every
    bid is matched the lot goes unsold; only the winner pays; and a lot is either won or back in the pile."""
    won = unsold = 0
    for g in _games("odd-one-low", seeds=range(6), players=3):
        paid = {f"P{s + 1}": 0 for s in range(3)}
        lines = g.narrative
        for i, line in enumerate(lines):
            bids = _bids(line)
            if bids is None:
                continue
            alone = [p for p, b in bids.items() if b and list(bids.values()).count(b) == 1]
            said = lines[i + 1]
            if alone:
                best = min(alone, key=lambda p: bids[p])
                assert re.fullmatch(rf"{best} wins Lot \d with the lone bid of {bids[best]}", said), (bids, said)
                paid[best] += bids[best]
                won += 1
            else:
                assert said.startswith("Every bid is matched: Lot "), (bids, said)
                unsold += 1
        assert all(g.pvars[s]["coins"] == 15 - paid[f"P{s + 1}"] for s in range(3))
        assert sum(len(g.zones[ZoneRef("won", s)]) for s in range(3)) + len(g.zones[ZoneRef("lots")]) == 8
        best = max(g.scores)
        assert {f"P{s + 1}" for s in range(3) if g.scores[s] == best} >= {f"P{w + 1}" for w in g.winners}
    assert won > 15 and unsold > 0  # both outcomes happen over these seeds


def test_masked_duel_the_fallen_show_their_role_are_skipped_and_the_last_two_show_down():
    """A player whose lives run out has their role turned up for all to read, never strikes nor is struck again; the
    turns stop when two are left (or after the last round); the two show their roles; the winner has the best
    strength and lives."""
    strengths = {"Squire": 1, "Guard": 2, "Knight": 3, "Duke": 4, "Queen": 5, "King": 6}
    showdowns = falls = 0
    for g in _games("masked-duel", seeds=range(8)):
        fallen: list = []
        shown: dict = {}
        for line in g.narrative:
            struck = re.fullmatch(r"(P\d): Strike whom\? -> (P\d)", line)
            if struck:
                assert not set(struck.groups()) & set(fallen), line
            fell = re.fullmatch(r"(P\d) falls: they were the (\w+)", line)
            if fell:
                fallen.append(fell.group(1))
                shown[fell.group(1)] = fell.group(2)
            told = re.fullmatch(r"(P\d) shows the (\w+)", line)
            if told:
                assert told.group(1) not in fallen
                shown[told.group(1)] = told.group(2)
        falls += len(fallen)
        left = [f"P{s + 1}" for s in range(4) if f"P{s + 1}" not in fallen]
        assert set(shown) == {f"P{s + 1}" for s in range(4)}  # every role ends face up
        assert len(set(shown.values())) == 4
        if len(left) == 2:
            showdowns += 1
        assert len(left) >= 2
        score = {p: strengths[shown[p]] + g.pvars[int(p[1]) - 1]["lives"] for p in left}
        assert {f"P{w + 1}" for w in g.winners} == {p for p in left if score[p] == max(score.values())}
        assert all(g.pvars[int(p[1]) - 1]["lives"] <= 0 for p in fallen)
    assert showdowns >= 4 and falls >= 8


def test_favour_climb_every_bidder_pays_a_tie_wins_nothing_and_the_top_bid_is_marked():
    """Every bid above 0 is paid, won or not; a single highest bid climbs its bidder by the favour's worth; a tie for
    the highest wins nothing though the tied bidders pay; the top bid is marked for all after every round."""
    ties = wins = 0
    for g in _games("favour-climb", seeds=range(6), players=3):
        paid = {f"P{s + 1}": 0 for s in range(3)}
        lines = g.narrative
        for i, line in enumerate(lines):
            bids = _bids(line)
            if bids is None:
                continue
            made = {p: b for p, b in bids.items() if b is not None}
            top = max(made.values(), default=0)
            block = lines[i + 1:next((j for j in range(i + 1, len(lines)) if lines[j].startswith("Revealed: ")),
                                     len(lines))]
            at_top = [p for p, b in made.items() if b == top]
            if not made:
                assert block[0] == "Nobody bids"
            elif len(at_top) == 1:
                assert block[0] == f"{at_top[0]} wins the auction for {top}"
                wins += 1
            else:
                assert block[0].startswith("Nobody wins the auction: ") and block[0].endswith(" tie")
                assert not any(" climbs to " in b for b in block)
                ties += 1
            for p, b in made.items():
                paid[p] += b
                if b and (len(at_top) > 1 or p != at_top[0]):
                    assert f"{p} pays their bid of {b} too" in block, (line, block)
            assert f"The top bid, {top}, is marked on the board" in block
        assert all(g.pvars[s]["coins"] == 20 - paid[f"P{s + 1}"] for s in range(3))
        assert len(g.zones[ZoneRef("spent")]) + len(g.zones[ZoneRef("favours")]) == 12  # every favour turned up is spent
        assert max(g.pvars[s]["height"] for s in range(3)) >= 8 or len(g.zones[ZoneRef("favours")]) == 0
    assert wins > 20 and ties > 3
