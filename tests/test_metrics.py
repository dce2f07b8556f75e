"""Metrics declared in a ruleset: the `tally` statement, per_player and per_game metrics, their checks and state."""

from __future__ import annotations

import json
import textwrap

import pytest

from conftest import play_seeded

from rulecraft.loader import load_ruleset
from rulecraft.runtime.state_io import clone, from_json, state_hash, to_json

HEAD = """\
ruleset: m
title: Metrics
players: {min: 2, max: 3, default: 2}
start: game
player_variables: {score: 0}
variables: {round: 0}
scoring: {score: "p.score"}
"""


def load(tmp_path, text: str):
    path = tmp_path / "m.yaml"
    path.write_text(text, encoding="utf-8")
    return load_ruleset(str(path))


def codes(loaded) -> list[tuple[str, int, int]]:
    return [(d.code, d.span.line, d.span.col) for d in loaded.diagnostics]


def play(rs, players=None, seed=1):
    return play_seeded(rs, seed, players)


GAME = HEAD + """\
metrics:
  rolls: {kind: tally, doc: Rolls by face; the mean is how often a roll is a six.}
  turns: {kind: tally, role: length}
  won: {kind: per_player, by: "p.seat"}
  margin: {kind: per_game, value: "max([q.score for q in players]) - min([q.score for q in players])"}
  winner_count: {kind: per_game, by: "count(winners())"}
sequences:
  game:
    steps:
      - for_each: p
        in: players
        do:
          - "roll 1d6 as r; tally rolls by r.total value r.total == 6; tally turns"
          - "p.score += r.total"
      - "set round = 1"
"""


def test_tallies_and_end_metrics(tmp_path):
    loaded = load(tmp_path, GAME)
    assert loaded.ok and not loaded.diagnostics, loaded.diagnostics
    g = play(loaded.ruleset, 3, seed=4)
    t = g.tallies
    assert t["turns"] == {None: [3, 3, 3]}
    assert sum(v[0] for v in t["rolls"].values()) == 3
    assert all(v[1] == (v[0] if k == 6 else 0) for k, v in t["rolls"].items())
    # per_player: every seat once, value 1 for a winner
    assert sorted(t["won"]) == [0, 1, 2] and all(v[0] == 1 for v in t["won"].values())
    assert sum(v[1] for v in t["won"].values()) == len(g.winners)
    scores = g.scores
    assert t["margin"] == {None: [1, max(scores) - min(scores), (max(scores) - min(scores)) ** 2]}
    assert t["winner_count"] == {len(g.winners): [1, 1, 1]}


def test_tallies_survive_save_load_and_clone(tmp_path):
    rs = load(tmp_path, GAME).ruleset
    g = play(rs, 2, seed=9)
    data = json.loads(json.dumps(to_json(g)))
    back = from_json(rs, data)
    assert back.tallies == g.tallies and state_hash(back) == state_hash(g)
    c = clone(g)
    c.tallies["turns"][None][0] += 5
    assert g.tallies["turns"][None][0] == 2  # the copy is independent


def test_a_game_without_metrics_saves_as_before():
    g = play(load_ruleset("sealed-auction").ruleset)
    assert g.tallies == {} and "tallies" not in to_json(g)


def test_winners_is_empty_before_the_end(tmp_path):
    text = HEAD + textwrap.dedent("""\
    metrics:
      seen: {kind: tally}
    sequences:
      game:
        steps:
          - "tally seen by count(winners())"
          - "win players[0]"
          - "tally seen by count(winners())"
          - "end game"
    """)
    g = play(load(tmp_path, text).ruleset)
    assert g.tallies["seen"] == {0: [2, 2, 2]}  # 'win' names the winner, but the game is not over yet


@pytest.mark.parametrize("steps,expected", [
    (['"tally turn"'], [("E322", 14, 16)]),
    (['"tally won"'], [("E323", 14, 16)]),
    (['"tally turns value \'x\'"'], [("E303", 14, 28)]),
    (['"tally turns by nope"'], [("E301", 14, 25)]),
])
def test_tally_checks(tmp_path, steps, expected):
    text = HEAD + "metrics:\n  turns: {kind: tally}\n  won: {kind: per_player}\nsequences:\n  game:\n    steps:\n" + \
        "".join(f"      - {s}\n" for s in steps) + "      - \"end game\"\n"
    loaded = load(tmp_path, text)
    assert codes(loaded) == expected
    if expected[0][0] == "E322":
        assert loaded.diagnostics[0].hint == "did you mean 'turns'?"


def test_metric_declaration_checks(tmp_path):
    text = HEAD + textwrap.dedent("""\
    metrics:
      a: {doc: no kind}
      b: {kind: tally, by: "p.seat"}
      c: {kind: per_player, by: "p.sco"}
    sequences:
      game:
        steps: ["end game"]
    """)
    assert [d.code for d in load(tmp_path, text).diagnostics] == ["E202", "E204", "E305"]


def test_schema_refuses_an_unknown_kind(tmp_path):
    text = HEAD + "metrics:\n  a: {kind: tallly}\nsequences:\n  game:\n    steps: [\"end game\"]\n"
    d = load(tmp_path, text).diagnostics
    assert [x.code for x in d] == ["E204"] and "did you mean 'tally'" in (d[0].hint or "")


def test_dml_declares_its_metrics():
    rs = load_ruleset("dml").ruleset
    assert {"king_wins", "acquisitions", "seizes", "black_market", "victory"} <= set(rs.metrics)
    g = play(rs, 4, seed=3)
    assert set(g.tallies["king_wins"]) <= {"iron", "wood", "slaves", "spice"}
    assert sum(v[0] for v in g.tallies["acquisitions"].values()) > 0
