"""The secrecy sweep of session 19, second round (docs/secrecy.md): every game of tests/cases/games from Lantern Guild
on, the seven games added in session 19, the four secrecy games of its first round and the bundled rulesets, each
played at the browser's table with a person in one seat and bots in the others, twice, in games that differ only in
two cards that seat never sees; every frame that seat is sent (story, view, undo, pass-until, `?` help, who is asked,
the decisions counted) compared.

- The undo button went off while the others' forced answers were still asked when the game behind them was over: a
  person alone with bots in Lantern Watch (seed 0, P1 a shade) saw undo go off after naming the night's victim when
  the seer's card lay undealt (nobody could look, so the night's last answers were forced and the game was won), and
  stay on when a bot held the seer. Whether the game is over is now read from the game as the seats are told it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rulecraft.runtime.game import Game

CASES = Path(__file__).parent / "cases"
ENGINES = ["reference", "compiled"]


def _swap(g: Game, a: str, b: str) -> None:
    """Trade the places of the cards `a` and `b` (by id) in `g`."""
    ca, cb = (next(c for c in g.rs.cards if c.id == i) for i in (a, b))
    ra, rb = g.where[ca.index], g.where[cb.index]
    la, lb = g.zones[ra], g.zones[rb]
    ia, ib = la.index(ca), lb.index(cb)
    la[ia], lb[ib] = cb, ca
    g.where[ca.index], g.where[cb.index] = rb, ra


def _frames(tmp_path, monkeypatch, path: str, kinds: list[str], seed: int, seat: int, swap, engine: str) -> list[str]:
    """Every frame the browser's table sends `seat` (a person answering each question with its first answer, or its
    least amount) until the game is over (the last frame, every card turned up, left out), with the cards `swap`
    traded at set-up, on `engine`."""
    from rulecraft.tools.studio.play import table as tables

    real = Game._setup

    def setup(self):
        real(self)
        if swap:
            _swap(self, *swap)

    class Engine(Game):
        def __init__(self, *args, **kw):
            super().__init__(*args, engine=engine, **kw)

    with monkeypatch.context() as m:
        m.setattr(Game, "_setup", setup)
        m.setattr(tables, "Game", Engine)
        table = tables.PlayTable.new(str(tmp_path / f"{Path(path).stem}-{bool(swap)}-{engine}"), "g", path, kinds,
                                     seed, {}, {"spectator": "s" * 24})
    out, sent = [], 0
    for _ in range(2000):
        frame = table.frame(seat, sent)
        sent = frame["storyEnd"]
        if table.waiting_for() == seat:
            frame["help"] = table.help(seat)
        if not frame["view"]["over"]:
            out.append(json.dumps(frame, sort_keys=True, default=str))
        if not table.step():
            if table.waiting_for() != seat:
                break
            asked = frame["view"]["decision"]
            table.decide(seat, frame["decisions"], asked["min"] if asked["kind"] == "number" else
                         False if asked["kind"] == "yesno" else 0)
    table.close()
    return out


@pytest.mark.parametrize("engine", ENGINES)
def test_the_undo_button_does_not_tell_that_the_game_behind_forced_answers_is_over(tmp_path, monkeypatch, engine):
    """Lantern Watch, seed 0, a person in seat 1 (a shade) with first bots: the seer is P5, or with the swap the seer's
    card lies undealt (nobody looks at night, and the game is won behind the others' forced answers)."""
    path = str(CASES / "games" / "lantern-watch.yaml")
    kinds = ["human"] + ["first"] * 4
    plain = _frames(tmp_path, monkeypatch, path, kinds, 0, 0, None, engine)
    swapped = _frames(tmp_path, monkeypatch, path, kinds, 0, 0, ("seer", "watcher_2"), engine)
    assert [json.loads(f)["undo"] for f in plain] == [json.loads(f)["undo"] for f in swapped]
    assert plain == swapped


@pytest.mark.parametrize("engine", ENGINES)
def test_sealed_rebids_tell_the_others_only_what_the_reveal_does(tmp_path, monkeypatch, engine):
    """Dead Heat (sealed bids, the tied bid again, only they), seed 1: a person in seat 2 (passing), random bots,
    in games that differ in two relics of the pile that never come up, is sent the same frames; each re-bid is told as
    the rules say (who tied, at what, that they bid again), asks the tied alone, each `has answered` until revealed."""
    path = str(CASES / "games" / "dead-heat.yaml")
    kinds = ["random", "human", "random", "random"]
    plain = _frames(tmp_path, monkeypatch, path, kinds, 1, 1, None, engine)
    assert plain == _frames(tmp_path, monkeypatch, path, kinds, 1, 1, ("relic3a", "relic4b"), engine)
    story = [line["text"] for frame in plain for line in json.loads(frame)["story"]]
    ties = [i for i, text in enumerate(story) if text.endswith(": they bid again")]
    assert len(ties) >= 2, story
    for i in ties:
        who = story[i].split(" tie at ")[0].split(", ")
        after = story[i + 1:]
        reveal = next(n for n, text in enumerate(after) if text.startswith("Revealed: "))
        bids = after[reveal].removeprefix("Revealed: ").split(", ")
        assert [bid.split(":")[0] for bid in bids] == who  # the tied alone, in the same order
        assert [text if p != "P2" else text.startswith("P2: Bid for ") for p, text in zip(who, after[:reveal])] == \
            [f"{p} has answered" if p != "P2" else True for p in who] and reveal == len(who)


@pytest.mark.xfail(strict=True, reason="bots draw their answers' chance from the game's count of decisions, which "
                   "counts an answer only when it was not forced: whether another seat's answer was forced is hidden")
@pytest.mark.parametrize("engine", ENGINES)
def test_the_greedy_bots_answer_does_not_hang_on_whether_anothers_answer_was_forced(engine):
    """Three-Suit Tricks, seed 1, random bots, a greedy P3 with the same hand and the same trick before it: P2 held
    the 5 of red (two reds: P2 chose the 7) or the 5 of blue (one red: the 7 forced, told as chosen). Found by the
    sweep; left for a later session (docs/secrecy.md, what it does not cover yet)."""
    from rulecraft.agents.base import RandomAgent
    from rulecraft.agents.kinds import make_agent
    from rulecraft.loader import load_ruleset

    rs = load_ruleset(str(CASES / "games" / "three-suit-tricks.yaml")).ruleset
    answers, seen = [], []
    real = Game._setup
    for swap in (None, ("red5", "blue5")):
        g = Game(rs, 3, 1, engine=engine, start=False)

        def setup(self, swap=swap):
            real(self)
            if swap:
                _swap(self, *swap)

        Game._setup = setup
        try:
            g._begin()
        finally:
            Game._setup = real
        bots = [RandomAgent(i, 1) for i in range(3)]
        while g.pending.player != 2:
            g.apply(bots[g.pending.player].choose(g.pending, g.view(g.pending.player)))
        seen.append(repr(g.view(2)))
        answers.append(make_agent("greedy", 2, 1).choose(g.pending, g.view(2), g))
    assert seen[0] == seen[1]
    assert answers[0] == answers[1], answers
