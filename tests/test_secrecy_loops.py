"""A loop that asks a decision of each player a hidden condition keeps tells the table what it hid: W328 says so
when the ruleset loads, with the way to write it so that everyone is asked alike (docs/secrecy.md, "What it does
not cover yet"). Found by s16-table's Lantern Watch; the loop itself is taken as written."""

from __future__ import annotations

import textwrap

from rulecraft.loader import load_ruleset

HEAD = """
    ruleset: tiny-hidden-loop
    title: Hidden loop
    players: {min: 3, max: 3, default: 3}
    cards:
      - {id: spy, name: Spy, classes: [role, spy]}
      - for: {copy: [1, 2]}
        id: "guard_{copy}"
        name: Guard
        classes: [role, guard]
    zones:
      roles: {visibility: hidden, initial: "[c for c in cards if c is role]"}
      role: {per: player, visibility: owner}
    variables:
      marks: {initial: 0}
    start: game
    sequences:
      game:
        kind: game
        steps:
          - "shuffle roles"
          - for_each: p
            in: players
            do: ["draw from roles to p.role"]
"""

LEAKY = """
          - for_each: g
            in: "[q for q in players if any([c is guard for c in q.role])]"
            do:
              - choose: {player: g, kind: yesno, prompt: "Mark the night?", as: mark}
              - if: mark
                then: ["marks += 1"]
"""

SAFE = """
          - for_each: g
            in: players
            do:
              - if: "any([c is guard for c in g.role])"
                then:
                  - choose: {player: g, kind: yesno, prompt: "Mark the night?", as: mark}
                  - if: mark
                    then: ["marks += 1"]
"""

OPEN = """
          - for_each: g
            in: "[q for q in players if count(q.role) > 0]"
            do:
              - choose: {player: g, kind: yesno, prompt: "Mark the night?", as: mark}
              - if: mark
                then: ["marks += 1"]
"""


def load(tmp_path, body: str):
    path = tmp_path / "rules.yaml"
    path.write_text(textwrap.dedent(HEAD) + textwrap.indent(textwrap.dedent(body), " " * 6))
    return load_ruleset(str(path))


def test_a_loop_over_players_a_hidden_condition_keeps_is_warned(tmp_path):
    loaded = load(tmp_path, LEAKY)
    assert loaded.ok, [str(d) for d in loaded.diagnostics]
    found = [d for d in loaded.diagnostics if d.code == "W328"]
    assert len(found) == 1, [str(d) for d in loaded.diagnostics]
    assert found[0].span.line == 26 and "whom the table asks tells everyone" in found[0].message
    assert "may be declined" in found[0].hint


def test_everyone_asked_alike_or_an_open_condition_is_not_warned(tmp_path):
    for body in (SAFE, OPEN):
        loaded = load(tmp_path, body)
        assert loaded.ok and not [d for d in loaded.diagnostics if d.code == "W328"], \
            [str(d) for d in loaded.diagnostics]
