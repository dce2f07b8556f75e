"""Event gates (model/gates.py): an event that no trigger on it can fire, as the first test of every such trigger's
condition shows, is not kept; the games stay the same, on both engines, as when every event is kept."""

from __future__ import annotations

import pytest

from rulecraft.loader import load_ruleset
from rulecraft.model.gates import ByField, ByResult, by_field, by_result, event_gates, may_fire
from rulecraft.runtime.game import Game
from rulecraft.runtime.machine import decision_steps, handlers, interpreter
from rulecraft.values import Card, Roll, ZoneRef

RULESET = """\
ruleset: case-event-gates
title: Event gates
players: {min: 2, max: 2, default: 2}
cards:
  - for: {rank: [1, 2, 3, 4, 5, 6, 7, 8]}
    id: "c{rank}"
    name: "Card {rank}"
    classes: [plain]
    attributes: {value: "=rank"}
  - id: joker
    name: Joker
    classes: [joker]
    count: 2
    attributes: {value: 0}
dice:
  d6:
    count: 1
    sides: 6
    results:
      - name: six
        when: "faces[0] == 6"
      - name: one
        when: "faces[0] == 1"
zones:
  deck: {visibility: hidden, initial: all}
  pile: {visibility: open}
  hand: {per: player, visibility: owner}
variables: {jokers: 0, sixes: 0, moves: 0}
start: game
sequences:
  game:
    kind: stage
    steps:
      - "shuffle deck"
      - for_each: n
        in: "1..5"
        do:
          - for_each: p
            in: players
            do:
              - "draw from deck to p.hand"
              - "roll d6 as r"
              - if: "count(p.hand) > 2"
                then: ["move top(p.hand) to pile"]
      - "log 'jokers {jokers}, sixes {sixes}, moves {moves}'"
  joker_seen:
    kind: event
    params: [card]
    steps: ["jokers += 1"]
  six_rolled:
    kind: event
    params: [roll]
    steps: ["sixes += 1"]
  card_moved:
    kind: event
    params: [card]
    steps: ["moves += 1"]
triggers:
  - id: joker_drawn
    event: drawn
    when: "card is joker and jokers < 5"
    run: joker_seen
    timing: now
  - id: six
    event: rolled
    when: "roll.result == 'six'"
    run: six_rolled
    timing: now
  - id: to_pile
    event: moved
    when: "dest == pile"
    run: card_moved
    timing: now
"""


@pytest.fixture(scope="module")
def ruleset(tmp_path_factory):
    path = tmp_path_factory.mktemp("gates") / "ruleset.yaml"
    path.write_text(RULESET)
    loaded = load_ruleset(str(path))
    assert loaded.ok, loaded.diagnostics
    return loaded.ruleset


def test_gates_are_read_off_the_first_test_of_each_condition(ruleset):
    gates = event_gates(ruleset.triggers)
    assert gates == {"drawn": (("card", Card, "joker"),), "rolled": (("roll", Roll, "six"),), "moved": None}


def _play(rs, seed: int, engine: str, gated: bool, monkeypatch) -> tuple:
    seen: list = []
    fire = handlers.fire

    def counting(g):
        seen.extend(e for e, _ in g._events)
        return fire(g)

    for module in (handlers, interpreter, decision_steps):  # (each calls it by its own name)
        monkeypatch.setattr(module, "fire", counting)
    g = Game(rs, 2, seed, engine=engine, start=False)
    if not gated:
        g.gates = {e: None for e in g.gates}  # every event some trigger is on kept, as before the gates
        g.moved_to = ByField(None if "moved" in g.gates else (), "dest")  # (a move reads its gates by destination: setup.py)
        g.drawn = ByField(None if "drawn" in g.gates else (), "card")  # (a draw by the card)
        g.rolled = ByResult(None if "rolled" in g.gates else ())  # (and a roll by its named result)
    g.play([], views=False)
    monkeypatch.undo()
    return g.narrative, dict(g.vars), g.steps, sorted(seen)


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_a_game_is_the_same_with_and_without_gates(ruleset, engine, monkeypatch):
    """The same story, variables and steps; fewer events looked at (only those some trigger may fire on)."""
    fewer = fired = 0
    for seed in range(6):
        gated = _play(ruleset, seed, engine, True, monkeypatch)
        every = _play(ruleset, seed, engine, False, monkeypatch)
        assert gated[:3] == every[:3]
        assert gated[3].count("moved") == every[3].count("moved")  # ungated: every move is looked at
        assert gated[3].count("rolled") == gated[1]["sixes"]  # only the sixes are kept
        assert gated[3].count("drawn") <= every[3].count("drawn")
        fewer += len(every[3]) - len(gated[3])
        fired += gated[1]["sixes"] * gated[1]["jokers"] * gated[1]["moves"]
    assert fewer > 0 and fired > 0  # events left out, and triggers of each kind that fired


# a card moved into one of the players' hands: `owner(dest) != none and dest == owner(dest).hand` tells it by the zone
OWNED = RULESET.replace('when: "dest == pile"', 'when: "owner(dest) != none and dest == owner(dest).hand and count(dest) > 2"')


@pytest.fixture(scope="module")
def owned(tmp_path_factory):
    path = tmp_path_factory.mktemp("gates") / "owned.yaml"
    path.write_text(OWNED)
    loaded = load_ruleset(str(path))
    assert loaded.ok, loaded.diagnostics
    return loaded.ruleset


def test_a_move_into_a_players_zone_is_told_by_the_zone(owned):
    gates = event_gates(owned.triggers)
    assert gates["moved"] == (("dest", ZoneRef, "hand"),)
    assert may_fire(gates["moved"], {"dest": ZoneRef("hand", 1)})
    assert not may_fire(gates["moved"], {"dest": ZoneRef("pile")})
    assert may_fire(gates["moved"], {"dest": None})  # not a zone ref: kept, its condition decides


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_moves_elsewhere_are_left_out_and_the_game_is_the_same(owned, engine, monkeypatch):
    fewer = fired = 0
    for seed in range(6):
        gated = _play(owned, seed, engine, True, monkeypatch)
        every = _play(owned, seed, engine, False, monkeypatch)
        assert gated[:3] == every[:3]
        fewer += every[3].count("moved") - gated[3].count("moved")
        fired += gated[1]["moves"]
    assert fewer > 0 and fired > 0  # moves to the pile left out; moves into a hand fired the trigger


def test_one_card_moved_is_moved_as_a_list_of_it(ruleset):
    """Board.move writes out the move of one card onto the top of a zone (most moves): the same zones, places, what
    seats know and events kept as the move of a list of that one card, for the top card of its zone and another,
    with the ruleset's gates and with every event kept."""
    pile, deck = ZoneRef("pile"), ZoneRef("deck")
    for gated in (True, False):
        ends = []
        for one in (True, False):
            g = Game(ruleset, 2, 3, start=False)
            g._setup()
            if not gated:
                g.gates = {e: None for e in g.gates}
            cards = g.zones[deck]
            top, under = cards[-1], cards[2]
            g.known = {0: {top.index: (deck, True), under.index: (deck, False)}, 1: {under.index: (pile, False)}}
            for c in (top, under):
                g.move(c if one else [c], pile, "top", None, g.players[1])
            ends.append((dict(g.zones), dict(g.where), g.known, list(g._events)))
        assert ends[0] == ends[1] and ends[0][0][pile] == [top, under]
        assert len(ends[0][3]) == 2 and ends[0][2] == {0: {}, 1: {under.index: (pile, False)}}


def test_a_gate_read_off_the_destination_or_the_result_alone_is_told_once():
    """by_field and by_result say what may_fire says of every event they stand for: None (kept, no test) when a gate
    lets each through, () when every gate lets none through, else the gates (may_fire asks them at each event)."""
    pile, hand = ZoneRef("pile"), ZoneRef("hand", 1)
    to_pile, card_gate = ("dest", ZoneRef, "pile"), ("card", Card, "joker")
    assert by_field((to_pile,), "dest", pile) is None and by_field((to_pile,), "dest", hand) == ()
    both = (card_gate, to_pile)
    assert by_field(both, "dest", pile) is None and by_field(both, "dest", hand) == both
    six, player_gate = ("roll", Roll, "six"), ("player", Card, "joker")
    assert by_result((six,), "six") is None and by_result((six,), None) == () and by_result((six,), "one") == ()
    assert by_result((player_gate, six), None) == (player_gate, six) and by_result((player_gate, six), "six") is None
    for gates, dest in (((to_pile,), pile), ((to_pile,), hand)):  # (a card of no class: only the dest tells)
        told = by_field(gates, "dest", dest)
        said = may_fire(gates, {"card": None, "dest": dest})
        assert said if told is None else not said
    r = Roll.__new__(Roll)
    for result in ("six", "one", None):
        r.result = result
        for gates in ((six,), (player_gate, six)):
            told = by_result(gates, result)
            for player in (None, 1):
                said = may_fire(gates, {"roll": r, "player": player})
                assert said if told is None else not said if told == () else told == gates


def test_a_drawn_card_is_told_by_the_card(ruleset):
    """The 'drawn' gate (`card is joker`) read off each card once: a joker kept with no test, any other card not."""
    g = Game(ruleset, 2, 0)
    cards = [c for cards in g.zones.values() for c in cards]
    assert sorted(c.id for c in cards if g.drawn[c] is None) == ["joker#1", "joker#2"] and len(cards) == 10
    for c in cards:
        joker = "joker" in c.classes
        assert g.drawn[c] == (None if joker else ())
        assert may_fire(g.gates["drawn"], {"card": c, "source": None, "dest": None, "player": None}) == joker
