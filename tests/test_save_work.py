"""A save's work grows with the game, not with its square (session 14). `play --save` replaced the file whole after
every decision: a stranger's ruleset whose bots decide for ever (78,000 decisions before the step budget stops it,
5 s without a save) made a save of 5 MB written 78,000 times, about 180 GB and half an hour. Runs of bots' decisions are
now written in batches that grow with the game; a person's decision, the one before a person is asked, and the end
are always written at once. Work is counted (writes, bytes), never timed."""

from __future__ import annotations

from rulecraft.loader import load_ruleset
from rulecraft.runtime import savegame
from rulecraft.runtime.game import Game
from rulecraft.runtime.savegame import SaveWriter, read_save, restore

RULESET = """\
ruleset: many
title: Many decisions
version: "1"
source: A test of a long run of decisions, in our own words.
players: {min: 2, max: 2, default: 2}
player_variables:
  score: 0
sequences:
  game:
    kind: stage
    title: The game
    steps:
      - loop: rounds
        do:
          - for_each: p
            in: "players"
            do:
              - choose: {player: p, kind: yesno, prompt: "Again?", as: again, default: "true"}
              - "p.score += 1"
              - if: "p.score >= 1000"
                then: ["end game"]
start: game
scoring:
  score: "p.score"
"""


def _play(tmp_path, monkeypatch, agents):
    (tmp_path / "many.yaml").write_text(RULESET)
    rs = load_ruleset(str(tmp_path / "many.yaml")).ruleset
    written = []
    real = savegame.atomic_write
    monkeypatch.setattr(savegame, "atomic_write", lambda path, text, sync=True: written.append(
        (text.count("\n") - 2, len(text))) or real(path, text, sync))
    game = Game(rs, 2, 1)
    saver = SaveWriter(str(tmp_path / "g.save"), str(tmp_path / "many.yaml"), game, {}, agents)
    saver.write(game)
    while not game.over:
        d = game.pending
        game.apply(True)
        saver.record(d.player, True)
        saver.write(game)
    return rs, game, written


def test_a_long_run_of_bots_decisions_is_saved_in_batches_and_the_end_whole(tmp_path, monkeypatch):
    rs, game, written = _play(tmp_path, monkeypatch, ["first", "first"])
    assert game.decisions == 1999
    assert len(written) <= 200, len(written)  # was 2,000 (one a decision)
    # each batch 1/32 of the game: the bytes written are a geometric series, at most about 33 times the last file
    # (was 2,000 writes of 1,000 times it on average: the game's square)
    assert sum(size for _n, size in written) <= 40 * written[-1][1]
    assert [n for n, _size in written[:64]] == list(range(64))  # the start and the first 63 decisions at once
    assert written[-1][0] == 1999  # the end, whole
    again, records = restore(read_save(str(tmp_path / "g.save")), rs)
    assert again.over and len(records) == 1999


def test_a_person_s_decision_and_the_one_before_a_person_is_asked_are_written_at_once(tmp_path, monkeypatch):
    _rs, game, written = _play(tmp_path, monkeypatch, ["human", "first"])
    assert [n for n, _size in written] == list(range(2000))  # every decision touches a person's turn
