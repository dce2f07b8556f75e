"""What a step tells beyond its written statements, for a hidden reason (docs/secrecy.md, "Modifiers and triggers",
"A look at cards the others hear of").

A `sealed` step raises `revealed` when its answers are laid open, and a `stack` step moves each card played onto its
zone itself (runtime/machine/decision_steps.py): no `emit` or `move` is written. Reached for a reason some seat cannot
see (under an `if` whose condition reads a hidden role), a trigger on `revealed` then ran for that reason too, but
model/secrecy.py's walk followed only written statements: the trigger's sequence was announced, its show told to
everyone and its modifier listed on every screen, each telling who held the spy. The walk now fires the events a step
kind says it raises (`raises` of its StepKind) where the step is reached for a hidden reason. A `log` told only when
such an `if` holds is warned of when the ruleset loads (W331).
"""

from __future__ import annotations

import textwrap

from rulecraft.loader import load_ruleset
from rulecraft.model import secrecy

RULES = """
    ruleset: tiny-kind-events
    title: Kind events
    players: {min: 3, max: 3, default: 3}
    cards:
      - {id: spy, name: Spy, classes: [role, spy]}
      - for: {copy: [1, 2]}
        id: "guard_{copy}"
        name: Guard
        classes: [role, guard]
      - for: {copy: [1, 2, 3]}
        id: "gem_{copy}"
        name: "Gem {copy}"
        classes: [gem]
    zones:
      roles: {visibility: hidden, initial: "[c for c in cards if c is role]"}
      gems: {visibility: hidden, initial: "[c for c in cards if c is gem]"}
      role: {per: player, visibility: owner}
      hand: {per: player, visibility: open}
      pile: {visibility: open}
    modifiers:
      rung: {doc: Rang the bell.}
    triggers:
      - {id: laid, event: revealed, run: bell}
    start: game
    sequences:
      bell:
        steps: ["show gems.top to (players[0])", "add modifier rung to (players[0]) until end of game"]
      game:
        kind: game
        steps:
          - "shuffle roles"
          - for_each: p
            in: players
            do: ["draw from roles to p.role", "draw from gems to p.hand"]
          - for_each: p
            in: players
            do:
              - if: "any([c is spy for c in p.role])"
                then:
                  - sealed:
                      each: q
                      in: "[p]"
                      choose: {kind: yesno, prompt: Ring the bell?}
                      as: rings
"""


def test_a_sealed_step_reached_for_a_hidden_reason_runs_its_triggers_for_that_reason(tmp_path):
    path = tmp_path / "kinds.yaml"
    path.write_text(textwrap.dedent(RULES), encoding="utf-8")
    loaded = load_ruleset(str(path))
    assert loaded.ok, [d.message for d in loaded.diagnostics]
    rs = loaded.ruleset
    assert not secrecy.header_told(rs, "bell")
    assert "rung" in secrecy.hidden_modifiers(rs)
    show = next(n for st in rs.sequences["bell"].steps for s in st.stmts for n in s.ast.walk()
                if type(n).__name__ == "Show")
    assert not secrecy.show_told(rs, show.span)


LOGGED = """
    ruleset: tiny-hidden-log
    title: Hidden log
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
            do: ["draw from roles to p.role", "log '{p} takes a role'"]
          - for_each: p
            in: players
            do:
              - if: "any([c is spy for c in p.role])"
                because: "{p} slips out at night"
                then: ["log 'Someone stirs near {p}'", "tell p 'You are the spy'"]
"""


def test_a_log_reached_for_a_hidden_reason_is_warned_of_when_the_ruleset_loads(tmp_path):
    """Both logs under the spy's `if` (its `because:` and its `log`) told every seat who the spy was, and loaded
    without a word; the log every player's deal says, and the `tell`, are not warned of. No bundled ruleset or game
    case is warned: their logs under a hidden `if` come with what the rules lay open (a player out, cards moved, the
    game over) or with an `else` saying the other."""
    path = tmp_path / "logged.yaml"
    path.write_text(textwrap.dedent(LOGGED), encoding="utf-8")
    loaded = load_ruleset(str(path))
    assert loaded.ok, [d.message for d in loaded.diagnostics]
    warned = [d for d in loaded.diagnostics if d.code == "W331"]
    assert sorted(d.span.line for d in warned) == [27, 28], [(d.span.line, d.message) for d in warned]
    assert all("tell PLAYER" in (d.hint or "") for d in warned)


KEPT = """
    ruleset: tiny-kept
    title: Kept face down
    players: {min: 3, max: 3, default: 3}
    cards:
      - for: {copy: [1, 2, 3, 4, 5, 6]}
        id: "gem_{copy}"
        name: "Gem {copy}"
    zones:
      bag: {visibility: hidden, initial: all}
      hand: {per: player, visibility: owner}
      kept: {per: player, visibility: PLACE}
    start: game
    sequences:
      game:
        kind: game
        steps:
          - for_each: p
            in: players
            do: ["draw 2 from bag to p.hand"]
          - sealed:
              each: p
              in: players
              choose: {kind: one, options: "p.hand", prompt: "Keep which gem?"}
              as: picks
          - for_each: p
            in: players
            do: ["move picks[p] to p.kept"]
"""


def test_a_sealed_reveal_of_cards_the_rules_keep_face_down_is_warned_of(tmp_path):
    """A draft written to hunt leaks kept each pick face down (`kept` an owner zone) and every seat read 'Revealed:
    P1: Gem 3, P2: Gem 5, ...': a sealed step reveals its answers, as documented, but here the rules hide them after.
    W332 says so at the step; with the picks laid in an open zone (the reveal is the rules') it says nothing."""
    warned = {}
    for place in ("owner", "open"):
        path = tmp_path / f"{place}.yaml"
        path.write_text(textwrap.dedent(KEPT).replace("PLACE", place), encoding="utf-8")
        loaded = load_ruleset(str(path))
        assert loaded.ok, [d.message for d in loaded.diagnostics]
        warned[place] = [d.span.line for d in loaded.diagnostics if d.code == "W332"]
    assert warned == {"owner": [21], "open": []}
