"""Four games written from docs/format.md and docs/language.md alone (s17), each of a shape the earlier test games do
not have (tests/cases/games/): a betting game of elimination, where each hand one round of betting goes round the
table, fold, call or raise until everyone still in has matched the top stake (ante-up: `auction: {form: betting}`);
an open ascending auction with drop-outs and a reserve printed on each lot (reserve-room: `min_bid:` as the reserve,
`pass_is_final:`); a last-player-standing game whose fallen players' hands go to the next player still in, with a Rope
that makes the next player step twice (ice-floe: `turns:` with `again:`); and a deck-builder with a market row that
refills, coins from the cards in hand, a draw pile made again from the discard pile, and an end at the end of the round
in which a pile runs out (copper-works: `repeat_choice:`, `refill:`, `turns:` with `until_round:`).

Each is played by random bots on both engines, which must tell the same game; then what each game is about is
checked in its story and its end.
"""

from __future__ import annotations

import re

import pytest
import yaml

from designer_cases import GAMES, both_engines, yaml_keys

from rulecraft.values import ZoneRef

NAMES = ("ante-up", "reserve-room", "ice-floe", "copper-works")


def _games(name: str, seeds=range(3), players: int = 3) -> list:
    return both_engines(name, seeds, players)


@pytest.mark.parametrize("name", NAMES)
def test_the_game_has_no_loop_of_its_own(name):
    text = (GAMES / f"{name}.yaml").read_text(encoding="utf-8")
    assert not yaml_keys(yaml.safe_load(text)) & {"while", "loop", "repeat"}
    assert not re.search(r"\bbreak\b", text)


def test_ante_up_every_player_still_in_has_matched_the_top_stake():
    """Within a round of betting a player who folded is not asked again; everyone who stays in last staked the top
    stake; the pot is every stake; and no chip is made or lost over the game."""
    rounds = raises = 0
    for g in _games("ante-up", seeds=range(4), players=4):
        stakes: dict = {}
        folded: set = set()
        for line in g.narrative:
            asked = re.fullmatch(r"(P\d): (?:Check \(0\) or bet|Call (\d+) or raise), or fold \(pass\) -> (pass|\d+)",
                                 line)
            if asked:
                who, top, said = asked.group(1), int(asked.group(2) or 0), asked.group(3)
                assert who not in folded
                if said == "pass":
                    folded.add(who)
                else:
                    assert int(said) >= top
                    raises += int(said) > top > 0
                    stakes[who] = int(said)
                continue
            short = re.fullmatch(r"(P\d) cannot call and folds", line)
            if short:
                folded.add(short.group(1))
            end = re.fullmatch(r"(.+) stay in at (\d+) \(pot (\d+)\)|(P\d) is the last in: the others fold \(pot (\d+)\)",
                               line)
            if end:
                rounds += 1
                if end.group(1):
                    called = end.group(1).split(", ")
                    assert all(stakes.get(p, 0) == int(end.group(2)) for p in called), (line, stakes)
                    assert not set(called) & folded
                pot = int(end.group(3) or end.group(5))
                assert pot == sum(stakes.values())
                stakes, folded = {}, set()
        assert sum(g.pvars[s]["chips"] for s in range(4)) == 4 * 10  # chips are only moved, never made
    assert rounds >= 8 and raises >= 3


def test_reserve_room_no_lot_sells_below_its_reserve_and_a_pass_is_final():
    unsold = 0
    for g in _games("reserve-room", players=4):
        asked_on: dict = {}
        passed: set = set()
        for line in g.narrative:
            bid = re.fullmatch(r"(P\d): Bid for (.+) \(reserve (\d+), top \d+, you have \d+\) -> (pass|\d+)", line)
            if bid:
                who, lot, reserve, said = bid.groups()
                if asked_on.get("lot") != lot:
                    asked_on, passed = {"lot": lot, "reserve": int(reserve)}, set()
                assert who not in passed  # a pass is final
                if said == "pass":
                    passed.add(who)
                else:
                    assert int(said) >= int(reserve)
            won = re.fullmatch(r"P\d wins the auction for (\d+)", line)
            if won:
                assert int(won.group(1)) >= asked_on["reserve"]
        back = len(g.zones[ZoneRef("back_room")])
        unsold += back
        assert back + sum(len(g.zones[ZoneRef("bought", s)]) for s in range(4)) == 12  # every lot sold or kept back
        assert all(g.pvars[s]["coins"] >= 0 for s in range(4))
    assert unsold >= 1  # some lot met nobody's bid at its reserve


def _turns_after(story: list, i: int) -> list:
    """Whose turns follow line i, and who falls through, in order ('P2' a turn, 'P2 falls' a fall)."""
    out = []
    for line in story[i + 1:]:
        turn = re.fullmatch(r"(P\d): Throw a Rope to P\d\? -> .+", line)
        fall = re.fullmatch(r"(P\d) falls through the ice", line)
        if turn or fall:
            out.append(turn.group(1) if turn else fall.group(1) + " falls")
    return out


def test_ice_floe_a_fallen_player_is_skipped_and_their_hand_goes_on():
    ropes = 0
    for g in _games("ice-floe", seeds=range(3), players=4):
        story = g.narrative
        for i, line in enumerate(story):
            rope = re.fullmatch(r"(P\d): Throw a Rope to (P\d)\? -> Rope", line)
            if rope:  # the next player still in steps twice in a row (unless they fall through on the first step)
                ropes += 1
                thrower, who = rope.groups()
                after = _turns_after(story, i)
                while after and after[0] in (thrower, f"{thrower} falls"):  # the thrower still steps (twice, when
                    after = after[1:]                                       # owed a second step) and may fall
                if after:  # (none: the thrower fell and only the next player is left)
                    assert after[0] == who and after[1:2] in ([who], [f"{who} falls"]), (line, after[:3])
        fallen = []
        for i, line in enumerate(story):
            m = re.fullmatch(r"(P\d) falls through the ice", line)
            if m:
                fallen.append(m.group(1))
                assert not any(later.startswith(f"{m.group(1)}: ") for later in story[i + 1:])  # never asked again
        assert len(fallen) == 3 and len(g.winners) == 1
        assert f"P{g.winners[0] + 1}" not in fallen
        assert all(len(g.zones[ZoneRef("hand", int(p[1]) - 1)]) == 0 for p in fallen)  # their hands went on
    assert ropes >= 2


def test_copper_works_ends_at_the_end_of_the_round_a_pile_runs_out():
    reshuffled = False
    for g in _games("copper-works", seeds=range(3)):
        assert len(g.zones[ZoneRef("crown_pile")]) == 0 or len(g.zones[ZoneRef("supply")]) == 0
        turns = {g.pvars[s]["turns"] for s in range(3)}
        assert len(turns) == 1 and turns.pop() >= 5  # the round was played out: everyone had as many turns
        assert len(g.zones[ZoneRef("row")]) == 4 or len(g.zones[ZoneRef("supply")]) == 0  # the row is refilled
        reshuffled |= any("shuffles their discard pile to make a new draw pile" in line for line in g.narrative)
    assert reshuffled
