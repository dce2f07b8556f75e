"""A `show` tells the others only what they could see for themselves (docs/secrecy.md, "A look at cards").

`show CARDS to PLAYER` tells the players shown the cards and the others that they looked ("P2 looks at the role of
P5"). That line is the table's own words, not the rules': where the show is reached for a reason some seat cannot
see (under an `if` whose condition reads a hidden role, in a sequence called from there), or shows to a player, or
a number of cards, worked out from something hidden (a secret answer, a hidden hand), the others read nothing of
it, as of a `tell`. Found by Lantern Watch (`tests/cases/games/lantern-watch.yaml`, first written with `show`): the
two shades were shown each other's role at the start, and every seat read "P2 looks at the role of P5" - who the
shades were.
"""

from __future__ import annotations

import textwrap

from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.runtime.story import line_text
from rulecraft.values import ZoneRef

RULES = """
    ruleset: tiny-shows
    title: Shows
    players: {min: 3, max: 3, default: 3}
    cards:
      - {id: spy, name: Spy, classes: [role, spy]}
      - for: {copy: [1, 2]}
        id: "guard_{copy}"
        name: Guard
        classes: [role, guard]
      - for: {copy: [1, 2, 3, 4, 5, 6]}
        id: "gem_{copy}"
        name: "Gem {copy}"
        classes: [gem]
    zones:
      roles: {visibility: hidden, initial: "[c for c in cards if c is role]"}
      gems: {visibility: hidden, initial: "[c for c in cards if c is gem]"}
      role: {per: player, visibility: owner}
      hand: {per: player, visibility: owner}
    start: game
    sequences:
      game:
        kind: game
        steps:
          - "shuffle gems"
          - for_each: p
            in: players
            do: ["draw from roles to p.role", "draw 2 from gems to p.hand"]
          - label: The spy looks at the next player's role
            for_each: p
            in: players
            do:
              - if: "any([c is spy for c in p.role])"
                then: ["show next_player(p).role to p"]
          - choose:
              player: "players[0]"
              kind: one
              options: "[q for q in players if q != players[0]]"
              secret: true
              prompt: "Whose hand?"
              as: whose
          - "show whose.hand to (players[0])"
          - "show [c for c in players[1].hand if c.name == 'Gem 1' or c.name == 'Gem 2'] to (players[2])"
          - "show players[2].hand to (players[1])"
"""


def _game(tmp_path, seed: int) -> Game:
    path = tmp_path / "shows.yaml"
    path.write_text(textwrap.dedent(RULES), encoding="utf-8")
    loaded = load_ruleset(str(path))
    assert loaded.ok, [d.message for d in loaded.diagnostics]
    g = Game(loaded.ruleset, 3, seed)
    while not g.over:
        g.apply(g.pending.all_choices(1)[0])
    return g


def _read(g: Game, seat: int) -> list[str]:
    return [t for t in (line_text(line, {seat}) for line in g.narrative) if t is not None]


def test_a_show_reached_for_a_hidden_reason_or_worked_out_from_a_secret_tells_the_others_nothing(tmp_path):
    for seed in range(1, 7):
        g = _game(tmp_path, seed)
        spy = next(p.seat for p in g.players if any(c.id == "spy" for c in g.zones[ZoneRef("role", p.seat)]))
        for seat in range(3):
            lines = _read(g, seat)
            looks = [t for t in lines if "role" in t]
            # only the spy reads of the spy's look; the others read nothing that tells who the spy is
            assert bool(looks) == (seat == spy), (seed, seat, lines)
            # whose hand P1 chose in secret is P1's to know
            hands = [t for t in lines if "P1 looks at the hand" in t]
            assert bool(hands) == (seat == 0), (seed, seat, lines)
            # how many of P2's cards are Gem 1 or Gem 2 is for P3 (shown them) and P2 (who holds them)
            counted = [t for t in lines if "P3 is shown" in t or "P3 are shown" in t]
            assert bool(counted) == (seat == 2), (seed, seat, lines)
            # a show of a hand reached for no hidden reason is told as before
            assert any(t.startswith("P2 looks at the hand of P3") for t in lines), (seed, seat, lines)


HEADERS = """
    ruleset: tiny-headers
    title: Headers
    players: {min: 3, max: 3, default: 3}
    cards:
      - {id: spy, name: Spy, classes: [role, spy]}
      - for: {copy: [1, 2]}
        id: "guard_{copy}"
        name: Guard
        classes: [role, guard]
    zones:
      roles: {visibility: hidden, initial: all}
      role: {per: player, visibility: owner}
    start: game
    sequences:
      game:
        kind: game
        steps:
          - "shuffle roles"
          - for_each: p
            in: players
            do: ["draw from roles to p.role"]
          - for_each: p
            in: players
            do:
              - {call: turn, with: {player: p}}
              - label: Is this player the spy?
                if: "any([c is spy for c in p.role])"
                then: [{call: spy_turn, with: {who: p}}]
          - choose: {player: "players[0]", kind: one, options: "[q for q in players]", secret: true, as: picked}
          - {call: visit, with: {player: picked}}
      visit:
        kind: turn
        title: A visit
        params: [player]
        steps: ["log '{player} is visited'"]
      turn:
        kind: turn
        title: A turn
        params: [player]
        steps: ["log '{player} waits'"]
      spy_turn:
        kind: turn
        title: The spy's look
        params: [who]
        steps: ["tell who 'You are the spy'"]
"""


def test_a_turn_begun_for_a_hidden_reason_is_announced_to_nobody(tmp_path):
    # the table announces a round or turn as it begins ("--- The spy's look: P3 ---"): for a sequence called for a
    # reason some seat cannot see, or with a player worked out from a secret answer, that told everyone the reason.
    # (Decided per sequence: one called so anywhere is announced nowhere.)
    path = tmp_path / "headers.yaml"
    path.write_text(textwrap.dedent(HEADERS), encoding="utf-8")
    loaded = load_ruleset(str(path))
    assert loaded.ok, [d.message for d in loaded.diagnostics]
    for seed in range(1, 4):
        heard: list = []
        g = Game(loaded.ruleset, 3, seed, headers=("turn",), listener=heard.append)
        while not g.over:
            g.apply(g.pending.all_choices(1)[0])
        headers = [str(line) for line in heard if getattr(line, "kind", "") == "header"]
        assert headers == ["A turn: P1", "A turn: P2", "A turn: P3"], (seed, headers)
