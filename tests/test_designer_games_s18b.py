"""Three games written from docs/format.md and docs/language.md alone (s18b), each of a shape the earlier test games
do not have (tests/cases/games/): an elimination game of secret targets in one ring round the table, where a catch
puts the prey out and the hunter takes on the prey's target (quiet-contract: `shuffled(players)` for the ring,
`turns:`); a draft played to the last card, every player keeping one card of the hand they hold and passing the rest
to the left until the hands are empty (bead-draft: `sealed:`, every hand passed at once, `rounds:` until the hands
are empty); and an auction game of several lots turned up together and sold one after another once around the table,
where a player who has bought a lot that day may bid for no other (stall-day: `auction: {form: once_around}` in a
`for_each` over the lots, the buyer `out` until the end of the day, a sequence of `kind: round`); and a deck-builder
where a card bought goes on top of the draw pile, so it is in the next hand, and a tool trashes cards from the hand
(scrap-yard: `move` to the top of a deck that refills, `repeat_choice:` with `max:`, `turns:` with `until_round:`).

Each is played by random bots on both engines, which must tell the same game; then what each game is about is
checked in its story, its state and its end.
"""

from __future__ import annotations

import re

import pytest
import yaml

from conftest import play_seeded
from designer_cases import GAMES, both_engines, case_ruleset, yaml_keys

from rulecraft.agents.base import RandomAgent
from rulecraft.loader import load_ruleset
from rulecraft.values import ZoneRef

NAMES = ("quiet-contract", "bead-draft", "stall-day", "scrap-yard")


@pytest.mark.parametrize("name", NAMES)
def test_the_game_has_no_loop_of_its_own(name):
    data = yaml.safe_load((GAMES / f"{name}.yaml").read_text(encoding="utf-8"))
    assert not yaml_keys(data) & {"while", "loop", "repeat"}
    assert not re.search(r"\bbreak\b", yaml.safe_dump(data["sequences"]))


def test_quiet_contract_the_targets_make_one_ring_and_a_catch_passes_the_prey_s_target_on():
    """Every player is told a target at the start, and the targets make one ring through every player (a random one:
    not the same ring for every seed); a hunter catches only their own target, takes on the prey's target (told in
    secret), and the prey never plays again; the last one standing wins, else the most catches among those in."""
    rings = set()
    endings = {"last": 0, "rounds": 0}
    for g in both_engines("quiet-contract", seeds=range(8), players=4):
        target: dict = {}
        out: list = []
        for line in g.narrative:
            told = re.fullmatch(r"To (P\d) only: Your (?:new )?target is (P\d)", line)
            if told:
                target[told.group(1)] = told.group(2)
                if len(target) == 4 and not out:
                    seen, at = [], "P1"
                    while at not in seen:
                        seen.append(at)
                        at = target[at]
                    assert len(seen) == 4, target  # one ring through every player
                    rings.add(tuple(target[f"P{s + 1}"] for s in range(4)))
            searched = re.fullmatch(r"(P\d): Search which quarter for your target\? -> \w+", line)
            if searched:
                assert searched.group(1) not in out, line
            caught = re.fullmatch(r"(P\d) catches (P\d) in the \w+", line)
            if caught:
                hunter, prey = caught.groups()
                assert target[hunter] == prey and prey not in out and hunter not in out
                out.append(prey)
                target[hunter] = target[prey]  # what the next line tells the hunter, unless they are the last
        left = [f"P{s + 1}" for s in range(4) if f"P{s + 1}" not in out]
        won = {f"P{w + 1}" for w in g.winners}
        if len(left) == 1:
            endings["last"] += 1
            assert won == set(left)
        else:
            endings["rounds"] += 1
            best = max(g.pvars[int(p[1]) - 1]["catches"] for p in left)
            assert won == {p for p in left if g.pvars[int(p[1]) - 1]["catches"] == best}
        assert sum(g.pvars[int(p[1]) - 1]["catches"] for p in left) == len(out)  # catches pass on with the target
    assert len(rings) >= 3 and endings["last"] >= 2


def test_bead_draft_every_hand_passes_left_until_the_hands_are_empty_and_the_strings_score():
    """Before each pick a player holds the hand their right-hand neighbour held before the last pick, less the bead
    that neighbour kept; every player strings one bead a pick until the hands are empty; the score is the sets, the
    pearl pairs and the knots' award, from the strings."""
    rs = case_ruleset("bead-draft")
    both_engines("bead-draft", seeds=range(3), players=4)
    for seed in range(3):
        rounds: list = []

        def look(game, decision, rounds=rounds):
            hands = [frozenset(c.id for c in game.zones[ZoneRef("hand", s)]) for s in range(4)]
            if not rounds or rounds[-1]["hands"] != hands:
                rounds.append({"hands": hands, "strings": [frozenset(c.id for c in game.zones[ZoneRef("string", s)])
                                                            for s in range(4)]})
        g = play_seeded(rs, seed, 4, each=look)
        assert len(rounds) == 6  # the seventh pick is the only bead left: taken without asking
        for before, after in zip(rounds, rounds[1:]):
            for s in range(4):
                kept = after["strings"][s - 1] - before["strings"][s - 1]
                assert len(kept) == 1 and kept <= before["hands"][s - 1]
                assert after["hands"][s] == before["hands"][s - 1] - kept  # the rest of the hand on the right
        strings = [list(g.zones[ZoneRef("string", s)]) for s in range(4)]
        assert all(len(st) == 7 for st in strings) and all(not g.zones[ZoneRef("hand", s)] for s in range(4))
        assert g.scores == _bead_scores(strings)


def test_a_card_s_text_names_a_parameter_as_a_label_does(tmp_path):
    """bead-draft's Pearl says '{pearl_points} points for each pair of pearls': the text players read has the value
    (the one set for the game too), where it printed the braces as written, unwarned; a name the ruleset does not have
    is warned of (W327), as in a card's name."""
    pearl = next(c for c in case_ruleset("bead-draft").cards if c.id == "pearl_1")
    assert pearl.doc == "3 points for each pair of pearls."
    loaded = load_ruleset(str(GAMES / "bead-draft.yaml"), overrides={"pearl_points": 4})
    assert next(c for c in loaded.ruleset.cards if c.id == "pearl_1").doc == "4 points for each pair of pearls."
    bad = tmp_path / "bead.yaml"
    bad.write_text((GAMES / "bead-draft.yaml").read_text(encoding="utf-8").replace("{pearl_points} points",
                                                                                  "{pearl_pionts} points"))
    warned = [d for d in load_ruleset(str(bad)).diagnostics if d.code == "W327"]
    assert len(warned) == 1 and "'{pearl_pionts}'" in warned[0].message and "pearl_points" in (warned[0].hint or "")


def _bead_scores(strings: list) -> list:
    """Each full set of the four colours 8, each pair of pearls 3, the most knots 6 and the next 3 (ties split the
    points of their place, rounded down, and fill as many places)."""
    knots = [sum(c.attrs.get("knots", 0) for c in st) for st in strings]
    award, place = [0] * len(strings), 0
    for k in sorted(set(knots), reverse=True):
        tied = [s for s, n in enumerate(knots) if n == k]
        for s in tied:
            award[s] = ([6, 3] + [0] * 9)[place] // len(tied)
        place += len(tied)
    out = []
    for s, st in enumerate(strings):
        colours = [sum(1 for c in st if c.attrs["colour"] == k) for k in ("red", "blue", "green", "amber", "pearl")]
        out.append(8 * min(colours[:4]) + 3 * (colours[4] // 2) + award[s])
    return out


def test_stall_day_one_lot_a_player_a_day_and_the_purse_pays_for_them():
    """Each day sells one stall fewer than there are players, each once around the table; nobody wins two on one
    day, nor is asked to bid once they have bought that day; every winner's coins fall by their price; a stall nobody
    bids for is not bought."""
    for g in both_engines("stall-day", seeds=range(5), players=4):
        results = [line for line in g.narrative if re.fullmatch(r"(P\d) wins the auction for \d+|Nobody bids", line)]
        assert len(results) == 3 * 5
        paid = {f"P{s + 1}": 0 for s in range(4)}
        day: set = set()
        for line in g.narrative:
            asked = re.fullmatch(r"(P\d): Bid for .*", line)
            if asked:
                assert asked.group(1) not in day, line
            won = re.fullmatch(r"(P\d) wins the auction for (\d+)", line)
            if won:
                day.add(won.group(1))
                paid[won.group(1)] += int(won.group(2))
            if won or line == "Nobody bids":
                results.pop(0)
                if len(results) % 3 == 0:
                    day = set()
        assert all(g.pvars[s]["coins"] == 20 - paid[f"P{s + 1}"] for s in range(4))
        bought = sum(len(g.zones[ZoneRef("bought", s)]) for s in range(4))
        assert bought == sum(1 for line in g.narrative if " wins the auction for " in line)


def test_scrap_yard_a_card_bought_is_in_the_next_hand_and_a_crusher_trashes_for_good():
    """A card bought goes on top of the buyer's draw pile, and the hand drawn at the end of the turn holds it; a
    Crusher trashes other cards, never a Crusher; what is trashed stays in the trash, and the score is the points of
    every card the player still has."""
    both_engines("scrap-yard", seeds=range(3), players=3)
    bought = trashed = 0
    for seed in range(4):
        said: list = []

        class Buyer(RandomAgent):
            def choose(self, d, view, said=said):
                a = super().choose(d, view)
                said.append((d.player, d.prompt, d.options[a] if isinstance(a, int) and a < len(d.options) else None))
                return a

        checked = [0]

        def look(game, decision, said=said, checked=checked):
            for seat, prompt, card in said[checked[0]:]:
                if card is not None and prompt.startswith("Buy a card?"):
                    assert card in game.zones[ZoneRef("hand", seat)], (seat, card)
            checked[0] = len(said)
        g = play_seeded(case_ruleset("scrap-yard"), seed, 3, agents=lambda seat, s: Buyer(seat, s), each=look)
        gone = [card for _, prompt, card in said if prompt == "Trash a card?" and card is not None]
        assert sorted(c.id for c in g.zones[ZoneRef("trash")]) == sorted(c.id for c in gone)
        assert not any(c.classes and "tool" in c.classes for c in gone)
        bought += sum(1 for _, prompt, card in said if card is not None and prompt.startswith("Buy"))
        trashed += len(gone)
        for s in range(3):
            held = [c for z in ("deck", "hand", "discard") for c in g.zones[ZoneRef(z, s)]]
            assert g.scores[s] == sum(c.attrs.get("points", 0) for c in held)
    assert bought > 20 and trashed > 10
