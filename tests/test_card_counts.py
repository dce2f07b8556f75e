"""A card group's `count:` reading player_count: the ruleset holds the copies of its largest game, and each game
leaves out the copies beyond its own count (in no zone; card conservation, saves and copies know it)."""

from __future__ import annotations

from pathlib import Path

from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.runtime.state_io import clone, from_json, to_json

CASE = Path(__file__).parent / "cases" / "constructs" / "card_counts" / "ruleset.yaml"


def _deck(n: int) -> list[str]:
    rs = load_ruleset(str(CASE)).ruleset
    g = Game(rs, n, 1, check_conservation=True)
    assert g.over
    return [c.id for cards in g.zones.values() for c in cards]


def test_each_player_count_gets_its_own_copies():
    assert len(load_ruleset(str(CASE)).ruleset.cards) == 5  # the largest game's: 3 Dukes, 2 Captains
    assert _deck(2) == ["duke#1", "duke#2", "captain#1"]
    assert _deck(3) == _deck(4) == ["duke#1", "duke#2", "duke#3", "captain#1", "captain#2"]


def test_cards_out_of_a_game_stay_out_through_saves_and_copies():
    rs = load_ruleset(str(CASE)).ruleset
    g = Game(rs, 2, 1, check_conservation=True)
    assert {rs.cards[i].id for i in g.absent} == {"duke#3", "captain#2"}
    for other in (from_json(rs, to_json(g)), clone(g)):
        other.check_cards()  # conservation: the absent cards are in no zone, and none is lost
        assert other.absent == g.absent


def test_a_card_group_s_doc_names_its_attributes_as_its_name_does():
    """A group's `doc` filled only its `for` names: mill-row's "Costs at least {price}; grinds {flour} flour a round"
    reached a person's menu with its braces. It is filled from the attributes as the name template is."""
    from pathlib import Path

    from rulecraft.loader import load_ruleset

    rs = load_ruleset(str(Path(__file__).parent / "cases" / "games" / "mill-row.yaml")).ruleset
    mill = next(c for c in rs.cards if c.name == "Mill 12")
    assert mill.doc == "Costs at least 14; grinds 4 flour a round."
    assert not [c.doc for c in rs.cards if "{" in c.doc]
