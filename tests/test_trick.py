"""The trick construct's settings beyond the constructs case: no follow, a chosen next leader, a player out of the
round skipped, the card order at the table, and the trick drawn as one box with its rule in words."""

from __future__ import annotations

from pathlib import Path

from rulecraft.graph import build_graph
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.runtime.story import line_text
from rulecraft.tools.table.seatview import zone_text
from rulecraft.values import ZoneRef

RULES = """
ruleset: t
title: T
players: {min: 3, max: 3, default: 3}
cards:
  - for: {suit: [a, b], rank: 1..3}
    id: "{suit}{rank}"
card_order: {rank: descending, suit: [b, a]}
zones:
  deck: {visibility: open, initial: all}
  hand: {per: player, visibility: owner}
  table: {visibility: open}
variables: {leader: none}
start: game
sequences:
  game:
    kind: round
    steps:
      - "move [c for c in deck if c.id in ['a1', 'b3']] to players[0].hand"
      - "move [c for c in deck if c.id in ['a3', 'a2']] to players[1].hand"
      - "move [c for c in deck if c.id in ['b1', 'b2']] to players[2].hand"
      - "set leader = players[0]"
      - "add modifier out to players[1] until end of round"
      - id: play
        label: Play a trick
        trick:
          leader: leader
          table: table
          follow: FOLLOW
          next_leader: "next_player(trick.winner)"
      - "log '{trick.winner} wins with {trick.card}; next {leader}; plays {[x.player for x in trick.plays]}'"
scoring:
  score: "0"
"""


def _load(tmp_path: Path, follow: str):
    path = tmp_path / "t.yaml"
    path.write_text(RULES.replace("FOLLOW", follow), encoding="utf-8")
    res = load_ruleset(str(path))
    assert res.ok and not res.diagnostics, res.diagnostics
    return res.ruleset


def _play(rs, answers):
    g = Game(rs, 3, 1, check_conservation=True)
    for a in answers:
        g.apply(a)
    assert g.over
    return g


def test_a_player_out_is_skipped_and_the_next_leader_is_as_written(tmp_path):
    g = _play(_load(tmp_path, "true"), [0, 0])  # P1 leads a1 (first of a1, b3); P3 cannot follow: b1
    assert "P1 wins with a1; next P3; plays P1, P3" in g.narrative  # P2 is out; next_player skips P2 too


def test_without_follow_any_card_may_be_played(tmp_path):
    rs = _load(tmp_path, "false")
    g = Game(rs, 3, 1)
    g.apply(1)  # P1 leads b3
    assert [c.id for c in g.pending.options] == ["b1", "b2"]
    g.apply(0)
    # rank descending: 1 is the highest rank, so b1 takes b3; next_player(P3) skips P2, who is out
    assert "P3 wins with b1; next P1; plays P1, P3" in g.narrative
    assert g.narrative[0] == "P1: Play a card -> b3"


def test_a_hand_shows_in_the_declared_card_order(tmp_path):
    g = Game(_load(tmp_path, "true"), 3, 1)
    assert zone_text(g, ZoneRef("hand", 0), 0) == "b3, a1"  # rank descending first, then suit b before a


def test_the_trick_is_one_box_with_its_rule(tmp_path):
    rs = _load(tmp_path, "true")
    graph = build_graph(rs)
    tricks = [n for n in graph.nodes.values() if n.kind == "trick"]
    assert len(tricks) == 1
    assert tricks[0].label == "Play a trick"
    step = tricks[0].step
    assert "follow the suit led if you can" in step.rule and "FOLLOW" not in step.rule


def test_every_seat_reads_which_card_was_played(tmp_path):
    """A card played to a trick goes face up at once: the choice is open (`secret: false` in the expansion), so the
    other seats read the card, not "(chosen in secret)", though it was picked from a hand only its owner sees."""
    g = _play(_load(tmp_path, "true"), [0, 0])
    plays = [line for line in g.narrative if "Play a card" in line]
    assert plays and all(line_text(line, [1]) == str(line) for line in plays)
    assert line_text(plays[0], [1]) == "P1: Play a card -> a1"
