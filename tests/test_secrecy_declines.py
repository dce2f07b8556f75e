"""A decision an `if` skips for a hidden reason is declined at once instead (docs/secrecy.md): the others must read
that decline in the very words they read when the decider could choose and declined. Found playing Night Court
(tests/cases/games/night-court.yaml): only the spy may look at a role, an open choice among players; the spy who
passed read to the others as 'P2: Look at whose role? -> pass', everyone else's forced pass as '(chosen in
secret)', so a pass told who the spy was."""

from __future__ import annotations

import textwrap

from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.runtime.story import line_text

ROLES = """\
ruleset: tiny-roles
title: Roles
players: {min: 3, max: 3, default: 3}
cards:
  - {id: spy, name: Spy, classes: [role, spy], attributes: {seat: 0}}
  - {id: judge, name: Judge, classes: [role], attributes: {seat: 1}}
  - {id: thief, name: Thief, classes: [role], attributes: {seat: 2}}
zones:
  roles: {visibility: hidden, initial: all}
  role: {per: player, visibility: owner}
start: game
sequences:
  game:
    kind: game
    steps:
      - for_each: p
        in: players
        do: ["move [c for c in roles if c.seat == p.seat] to p.role"]
      - for_each: p
        in: players
        do:
          - if: "any([c is spy for c in p.role])"
            then:
              - choose: {player: p, kind: one, options: "[q for q in players if q != p]", optional: true,
                         prompt: "Look at whose role?", as: looked}
              - if: "looked != none"
                then: ["show looked.role to p"]
scoring:
  score: "0"
"""


def _read(g: Game, seat: int) -> list[str]:
    return [t for t in (line_text(line, {seat}) for line in g.narrative) if t is not None]


def test_a_forced_decline_reads_as_the_open_decline_of_one_who_could_choose(tmp_path):
    path = tmp_path / "roles.yaml"
    path.write_text(textwrap.dedent(ROLES), encoding="utf-8")
    loaded = load_ruleset(str(path))
    assert loaded.ok, [d.message for d in loaded.diagnostics]
    g = Game(loaded.ruleset, 3, 1)
    d = g.pending
    assert d.player == 0  # the spy alone is asked; P2 and P3 decline at once
    g.apply(d.options.index(None))  # the spy passes
    assert g.over
    for seat in (1, 2):  # P2 and P3 read each other's pass and the spy's alike, and their own as it was
        lines = [t for t in _read(g, seat) if "Look at" in t]
        others = [t.split(" (the only")[0] for t in lines]
        want = [f"P{s}: Look at whose role? (chosen in secret)" for s in (1, 2, 3)]
        want[seat] = f"P{seat + 1}: Look at whose role? -> pass"
        assert others == want, (seat, lines)


def test_the_answer_of_a_decision_asked_only_for_a_hidden_reason_is_told_in_secret(tmp_path):
    """The spy who looks at P3's role read to the others as 'P1: Look at whose role? -> P3', the others' forced passes
    as '-> pass': who the spy was. A decision asked only for a hidden reason is a secret one unless it says
    `secret: false` or the rules lay its answer face up (model/answers.py's `secret_of`). Found playing a night vote
    of my own (the wolf's 'Strike whom? -> P1', read by every seat)."""
    path = tmp_path / "roles.yaml"
    path.write_text(textwrap.dedent(ROLES), encoding="utf-8")
    loaded = load_ruleset(str(path))
    assert loaded.ok, [d.message for d in loaded.diagnostics]
    g = Game(loaded.ruleset, 3, 1)
    d = g.pending
    assert d.player == 0
    g.apply(d.options.index(next(o for o in d.options if o is not None and o.seat == 2)))  # the spy looks at P3
    for seat in (1, 2):
        lines = [t for t in _read(g, seat) if "Look at" in t]
        assert lines[0] == "P1: Look at whose role? (chosen in secret)", (seat, lines)
    assert "P1: Look at whose role? -> P3" in _read(g, 0)


def test_a_decision_asked_only_for_a_hidden_reason_takes_no_standing_pass(tmp_path):
    # Only the spy is asked 'Look at whose role?' for itself; the others decline at once, and the browser asks them
    # that decline (held) as any answer. A standing pass of the spy's question would be answered by the table at
    # once, while the others' are waited for: whom the table waits for would tell who the spy is. The question's
    # options read nothing hidden; whether it is asked at all does.
    from rulecraft.tools.studio.play.table import PlayTable

    path = tmp_path / "roles.yaml"
    path.write_text(textwrap.dedent(ROLES), encoding="utf-8")
    table = PlayTable.new(str(tmp_path / "g"), "g", str(path), ["human"] * 3, 1, {}, {"spectator": "s" * 24})
    frame = table.frame(0, 0)
    assert frame["asked"] == 0 and frame["view"]["decision"]["prompt"] == "Look at whose role?"
    assert frame["passUntil"] is False
    table.close()
