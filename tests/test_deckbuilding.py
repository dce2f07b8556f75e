"""A deck-building game in the language's own words (tests/cases/games/market-town.yaml), checked by a referee.

The referee watches every card that moves (Game.move, the one primitive every draw, deal and refill goes
through) and every decision, and checks from the state alone, without the engine's own bookkeeping:
  - reshuffles: cards go from a player's discard pile to their deck only all at once, right after that
    discard pile was shuffled, onto an empty deck (the discard becomes the deck only when a draw finds the
    deck empty), and a draw never stops short while the discard pile still holds cards;
  - conservation: every card the number of players puts in the game lies in exactly one zone after every
    step (Game's own check, on), and the piles start at the sizes the rules give for that many players;
  - gains and buys: the options are exactly the top cards of the non-empty piles within the cost limit;
  - the end: the Estates are gone or three piles are empty.
(Both engines play the game and the construct cases the same: tests/test_engines.py.)
"""

from __future__ import annotations

from pathlib import Path

import pytest


from rulecraft.agents.base import RandomAgent
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.runtime.story import line_text
from rulecraft.dsl.builtins import as_list
from rulecraft.values import Card, ZoneRef

HERE = Path(__file__).resolve().parent
GAME = str(HERE / "cases" / "games" / "market-town.yaml")
CASES = HERE / "cases" / "constructs"


def _load(path: str = GAME):
    loaded = load_ruleset(path)
    assert loaded.ok and not [d for d in loaded.diagnostics if d.severity == "error"], loaded.diagnostics
    return loaded.ruleset


class Referee:
    """Watches one game's moves and decisions; `problems` lists every rule it saw broken."""

    def __init__(self, game: Game):
        self.g = game
        self.problems: list[str] = []
        self.reshuffles = 0
        self.draws = 0
        self.gains = 0
        self._batch: dict[int, int] = {}  # seat -> cards still to come from the discard pile in a reshuffle
        referee, real = self, type(game)

        class Watched(real):  # this game only: its class swapped for one that reports its moves and draws
            __slots__ = ()

            def move(self, what, dest, place, span, player=None, **kw):
                cards = [what] if isinstance(what, Card) else list(as_list(self, what, span)) if what is not None else []
                for c in cards:
                    referee._seen_move(c, dest)
                return real.move(self, what, dest, place, span, player, **kw)

            def draw(self, count, src, dest, place, span):
                got = real.draw(self, count, src, dest, place, span)
                short = (1 if count is None else count) - (len(got) if isinstance(got, list) else got is not None)
                if src.zone == "deck" and short > 0 and self.zones[ZoneRef("discard", src.key)]:
                    referee.problems.append(f"a draw from seat {src.key}'s deck stopped short with cards in the "
                                            "discard pile")
                return got

        game.__class__ = Watched

    def _seen_move(self, c, dest: ZoneRef) -> None:
        g = self.g
        src = g.where[c.index]
        if src.zone == "discard" and dest.zone == "deck":
            seat = src.key
            if dest.key != seat:
                self.problems.append(f"{c.id} went from seat {seat}'s discard to another player's deck")
            left = self._batch.get(seat)
            if left is None:  # the first card of a reshuffle: the deck is empty, the pile was just shuffled
                if g.zones[ZoneRef("deck", seat)]:
                    self.problems.append(f"seat {seat}'s discard was moved onto a deck that still had cards")
                if not g.chance or g.chance[-1] != ["shuffle", f"discard[{seat}]"]:
                    self.problems.append(f"seat {seat}'s discard became the deck without a shuffle")
                left = len(g.zones[src])
                self.reshuffles += 1
            left -= 1
            if left:
                self._batch[seat] = left
            else:
                self._batch.pop(seat, None)
        elif src.zone == "deck":
            self.draws += 1
            if self._batch.get(src.key):
                self.problems.append(f"a card was drawn from seat {src.key}'s deck halfway through a reshuffle")
        elif src.zone == "supply" and dest.zone == "discard":
            self.gains += 1
            if g.zones[src][-1] is not c:
                self.problems.append(f"{c.id} was gained from under the top of its pile")

    def decision(self) -> None:
        """The options of a buy or a gain: exactly the tops of the non-empty piles within the cost limit."""
        g, d = self.g, self.g.pending
        if d.prompt.startswith("Buy a card?"):
            limit = g.pvars[d.player]["coins"]
        elif d.prompt.startswith("Gain a card costing up to"):
            limit = 4
        else:
            return
        tops = [g.zones[ZoneRef("supply", k)][-1] for k in g.rs.zones["supply"].per if g.zones[ZoneRef("supply", k)]]
        want = [None] + [c for c in tops if c.attrs["cost"] <= limit]
        if sorted(d.options, key=lambda c: -1 if c is None else c.index) != sorted(want, key=lambda c: -1 if c is None else c.index):
            self.problems.append(f"'{d.prompt}' offered {d.options}, the rules give {want}")


def _referee_game(rs, players: int, seed: int, stop: bool = False) -> Referee:
    g = Game(rs, players, seed, check_conservation=True, story=False)
    ref = Referee(g)
    agents = [RandomAgent(s, seed) for s in range(players)]
    while not g.over and not (stop and ref.problems):
        ref.decision()
        g.apply(agents[g.pending.player].choose(g.pending, None))
    ref.end = g
    return ref


@pytest.mark.parametrize("players", [2, 3, 4])
def test_reshuffles_gains_and_conservation_under_a_referee(players):
    rs = _load()
    total = {"reshuffles": 0, "draws": 0, "gains": 0}
    for seed in range(1):
        ref = _referee_game(rs, players, seed)
        assert ref.problems == []
        g = ref.end
        supply = {k: len(g.zones[ZoneRef("supply", k)]) for k in g.rs.zones["supply"].per}
        assert supply["estate"] == 0 or sum(1 for v in supply.values() if v == 0) >= 3  # why the game ended
        total["reshuffles"] += ref.reshuffles
        total["draws"] += ref.draws
        total["gains"] += ref.gains
    assert total["reshuffles"] > 5 and total["draws"] > 100 and total["gains"] > 10, total


@pytest.mark.parametrize("players,sizes", [
    (2, {"penny": 30, "plot": 8, "manor": 8, "estate": 8, "blight": 10}),
    (4, {"penny": 30, "plot": 12, "manor": 12, "estate": 12, "blight": 30}),
])
def test_piles_are_sized_for_the_number_of_players(players, sizes):
    rs = _load()
    g = Game(rs, players, 1, check_conservation=True, start=True)
    # after the set-up each player took 7 Pennies and 3 Plots: what is left is the supply of that many players
    left = {k: len(g.zones[ZoneRef("supply", k)]) for k in sizes}
    assert left == sizes
    in_game = sum(len(cards) for cards in g.zones.values())
    playing = sum(1 for c in rs.cards if c.index not in rs.card_players or players in rs.card_players[c.index])
    assert in_game == playing and (playing < len(rs.cards)) == (players < rs.players.max)  # the rest: in the box


def test_a_draw_finding_the_deck_empty_refills_it_and_nothing_else_does():
    """Scripted: a player's deck holds 1 card and their discard pile 5; the pile stays put until a draw finds the
    deck empty, and then all of it, shuffled, becomes the deck."""
    rs = _load()
    g = Game(rs, 2, 3, check_conservation=True, start=False)
    g._setup()
    box, deck, discard, hand = ZoneRef("box"), ZoneRef("deck", 0), ZoneRef("discard", 0), ZoneRef("hand", 0)
    g.draw(5, box, discard, "top", None)
    g.draw(1, box, deck, "top", None)
    before = list(g.zones[discard])
    g.draw(1, deck, hand, "top", None)  # the deck's own card: no reshuffle
    assert len(g.zones[hand]) == 1 and g.zones[deck] == [] and g.zones[discard] == before and g.chance == []
    g.draw(2, deck, hand, "top", None)  # finds the deck empty: the discard pile becomes it, then 2 are drawn
    assert len(g.zones[hand]) == 3 and len(g.zones[deck]) == 3 and g.zones[discard] == []
    assert sorted(c.id for c in g.zones[hand][1:] + g.zones[deck]) == sorted(c.id for c in before)
    assert g.chance == [["shuffle", "discard[0]"]]
    g.check_cards()


def test_an_attack_reads_the_same_to_the_others_whether_a_card_was_kept_hidden_or_never_held():
    rs = _load(str(CASES / "attack_reveal" / "ruleset.yaml"))
    g = Game(rs, 4, 2)
    for wire in (1, 0):  # P2 reveals; P3 holds a Shield and keeps it hidden; P4 holds none
        g.apply(wire)
    seen = [line_text(line, [0]) for line in g.narrative]
    p3 = [x for x in seen if x and x.startswith("P3")]
    p4 = [x for x in seen if x and x.startswith("P4")]
    assert [x.replace("P3", "P?") for x in p3] == [x.replace("P4", "P?") for x in p4]
    assert p3 == ["P3: Reveal a card to be unaffected? (chosen in secret)", "P3 is attacked"]


@pytest.mark.parametrize("old,new,caught", [
    # the discard pile shuffled into the deck at every turn's start, whether or not the deck is empty
    ('do: "set player.actions = 1;', 'do: "shuffle player.discard; move player.discard to player.deck; '
     'set player.actions = 1;', "still had cards"),
    # a buy offered from every pile, whatever it costs
    ('options: "[c for c in tops(supply) if c.cost <= player.coins]"', 'options: "tops(supply)"', "offered"),
    # a gain from the bottom of a pile
    ('options: "[c for c in tops(supply) if c.cost <= 4]"',
     'options: "[bottom(z) for z in supply if not z.empty and bottom(z).cost <= 4]"', "under the top"),
])
def test_the_referee_catches_planted_mistakes(old, new, caught, tmp_path):
    text = Path(GAME).read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "planted.yaml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    rs = _load(str(path))
    problems = [p for seed in range(3) for p in _referee_game(rs, 3, seed, stop=True).problems]
    assert any(caught in p for p in problems), problems[:3]


def test_the_tiny_ruleset_of_the_language_reference_loads_and_plays(tmp_path):
    import re

    text = (HERE.parent / "docs" / "language.md").read_text(encoding="utf-8")
    section = text[text.index("## Deck-building"):text.index("## Statements")]
    body = re.search(r"```yaml\n(.*?)```", section, re.S).group(1)
    path = tmp_path / "tiny.yaml"
    path.write_text(body, encoding="utf-8")
    loaded = load_ruleset(str(path))
    assert loaded.ok and not [d for d in loaded.diagnostics if d.severity == "error"], loaded.diagnostics
    for players in (2, 3):
        ref = _referee_game(loaded.ruleset, players, 1)
        assert ref.problems == [] and ref.end.over and ref.reshuffles > 0
