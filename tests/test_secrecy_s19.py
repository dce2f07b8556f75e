"""The secrecy hunt of session 19 (docs/secrecy.md): games written from the docs alone (tests/cases/secrecy/: Masked
Vote, Blind Draft, Face-down Claims, Pearl Beds, Crown Slip), each seat's frames at the browser's table compared
between two games that differ only in two cards that seat cannot see, and the greedy bot's worlds.

- The greedy bot's worlds traded a card it could not see only with cards that started in the same zone: a crown and
  a stone drawn into one hand, one slipped face down to another player, and the bot named the crown's holder 40
  times in 40 (the crown, alone of its pile, never moved). Piles the rules may bring into one zone now deal as one
  (model/homes.py).
- Its worlds were dealt from the cards as they lay: two games differing in a card it could not see gave it other
  worlds from the same seed, and other answers (Pearl Beds, seed 0: P1 bid 0 or 1). They are dealt from the cards in
  a fixed order now: its answer depends on what it sees and its seed alone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rulecraft.agents.kinds import make_agent
from rulecraft.agents.base import RandomAgent
from rulecraft.loader import load_ruleset
from rulecraft.model.secrecy import cards_seen
from rulecraft.runtime.game import Game

HUNT = Path(__file__).parent / "cases" / "secrecy"
ENGINES = ["reference", "compiled"]


def _swap(g: Game, a: str, b: str) -> None:
    """Trade the places of the cards `a` and `b` (by id) in `g`."""
    ca, cb = (next(c for c in g.rs.cards if c.id == i) for i in (a, b))
    ra, rb = g.where[ca.index], g.where[cb.index]
    la, lb = g.zones[ra], g.zones[rb]
    ia, ib = la.index(ca), lb.index(cb)
    la[ia], lb[ib] = cb, ca
    g.where[ca.index], g.where[cb.index] = rb, ra


@pytest.mark.parametrize("engine", ENGINES)
def test_the_greedy_bot_does_not_know_a_card_slipped_between_hidden_hands(engine):
    rs = load_ruleset(str(HUNT / "crown-slip.yaml")).ruleset
    right = 0
    for seed in range(40):
        g = Game(rs, 3, seed, engine=engine)
        greedy, other = make_agent("greedy", 0, seed), RandomAgent(1, seed)
        while not g.over:
            d = g.pending
            g.apply(greedy.choose(d, g.view(0), g) if d.player == 0 else other.choose(d, g.view(d.player)))
        right += g.pvars[0]["right"]
    assert 8 <= right <= 32, right  # was 40 in 40; as by chance now (20)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_greedy_bots_answer_does_not_hang_on_cards_it_cannot_see(engine, seed):
    """Pearl Beds: the first sealed bid of a greedy P1, in games that differ in two cards of the beds it cannot see."""
    rs = load_ruleset(str(HUNT / "pearl-beds.yaml")).ruleset
    first = Game(rs, 3, seed, engine=engine)
    unseen = [c.id for c in rs.cards if c.index not in cards_seen(first, 0)]
    assert "pearl_1" in unseen and "shell_1" in unseen
    answers = []
    for swap in (None, ("pearl_1", "shell_1"), ("pearl_2", "shell_4")):
        g = Game(rs, 3, seed, engine=engine)
        if swap:
            _swap(g, *swap)
        answers.append(make_agent("greedy", 0, seed).choose(g.pending, g.view(0), g))
    assert answers[0] == answers[1] == answers[2], answers


def _frames(tmp_path, name: str, kinds: list[str], seed: int, seat: int, swap) -> list[str]:
    """Every frame the browser's table sends `seat` while the game goes on (the last, with the game over and every
    card turned up, left out), with the cards `swap` traded at set-up."""
    from rulecraft.tools.studio.play.table import PlayTable

    real = Game._setup

    def setup(self):
        real(self)
        if swap:
            _swap(self, *swap)

    Game._setup = setup  # (the deal of a new game only; set-up kept from an earlier game is not reused by swaps)
    try:
        table = PlayTable.new(str(tmp_path / f"{name}-{bool(swap)}"), name, str(HUNT / f"{name}.yaml"), kinds, seed,
                              {}, {"spectator": "s" * 24})
    finally:
        Game._setup = real
    out, sent = [], 0
    while True:
        frame = table.frame(seat, sent)
        sent = frame["storyEnd"]
        if not frame["view"]["over"]:
            out.append(json.dumps(frame, sort_keys=True, default=str))
        if not table.step():
            break
    table.close()
    return out


# (game, players, seed, seat, two cards that seat never sees while the game goes on): checked with first and random
# bots in every seat; the frames of that seat must not differ
SAME = [
    ("masked-vote", 5, 3, 0, ("seer", "town_2")),  # who is the seer, to a townsman
    ("masked-vote", 5, 3, 2, ("schemer_1", "seer")),  # a schemer or the seer, to a townsman
    ("blind-draft", 3, 0, 0, ("red_2", "red_4")),  # a card passed on in packs P1 never receives
    ("face-down-claims", 3, 1, 0, ("n1_1", "n1_3")),  # a card left in the deck or played face down by another
    ("pearl-beds", 3, 2, 0, ("pearl_1", "shell_1")),  # which bed holds a pearl, to a player who never looks
]


@pytest.mark.parametrize("name,players,seed,seat,swap", SAME)
def test_a_seats_frames_do_not_hang_on_cards_it_cannot_see(tmp_path, name, players, seed, seat, swap):
    for kind in ("first", "random"):
        kinds = [kind] * players
        assert _frames(tmp_path, name, kinds, seed, seat, None) == _frames(tmp_path, name, kinds, seed, seat, swap)


def _person_frames(tmp_path, swap) -> tuple[list[dict], object]:
    """Masked Vote, seed 0, a person in seat 1 (answering the first answer) and first bots: every frame the person is
    sent (the seer P5, or with `swap` P3), and the table at the first frame where a forced answer of another is held
    after the person's first vote."""
    from rulecraft.tools.studio.play.table import PlayTable

    real = Game._setup

    def setup(self):
        real(self)
        if swap:
            _swap(self, *swap)

    Game._setup = setup
    try:
        table = PlayTable.new(str(tmp_path / f"mv-{bool(swap)}"), "mv", str(HUNT / "masked-vote.yaml"),
                              ["human"] + ["first"] * 4, 0, {}, {"spectator": "s" * 24})
    finally:
        Game._setup = real
    frames, sent, holding = [], 0, None
    while True:
        frame = table.frame(0, sent)
        sent = frame["storyEnd"]
        frames.append(frame)
        if holding is None and table.held and table.waiting_for() != 0 and any(t.player == 0 for t in table.history):
            holding = len(frames)
        if table.step():
            continue
        if table.waiting_for() != 0:
            break
        table.decide(0, frame["decisions"], 0)
    table.close()
    return frames, holding


def test_the_undo_button_does_not_tell_whose_answers_were_forced(tmp_path):
    """A person alone with bots may take back. The button was off while another seat's forced answer was still asked
    (Held): in the night of Masked Vote, whoever is not the seer declines at once, so the button went off and on as
    the seats without a choice were asked, differently with the seer in P3 or in P5."""
    seer_p5, held = _person_frames(tmp_path, None)
    seer_p3, _held = _person_frames(tmp_path, ("seer", "town_1"))
    assert held is not None
    assert [f["undo"] for f in seer_p5 if not f["view"]["over"]] == \
        [f["undo"] for f in seer_p3 if not f["view"]["over"]]


def test_a_person_takes_back_while_a_forced_answer_of_another_is_asked(tmp_path):
    from rulecraft.tools.studio.play.table import PlayTable

    table = PlayTable.new(str(tmp_path / "mv"), "mv", str(HUNT / "masked-vote.yaml"), ["human"] + ["first"] * 4, 0, {},
                          {"spectator": "s" * 24})
    while not (table.held and table.waiting_for() != 0 and any(t.player == 0 for t in table.history)):
        if not table.step():
            assert table.waiting_for() == 0
            table.decide(0, table.frame(0, 0)["decisions"], 0)
    told = [line["text"] for line in table.frame(0, 0)["story"]]
    assert table.can_undo(0)
    assert table.undo(0) == "Taken back: your decision 1; you decide again."
    frame = table.frame(0, 0)
    assert frame["asked"] == 0 and frame["view"]["decision"]["prompt"] == "Unmask whom?"
    assert [line["text"] for line in frame["story"]] == told[:len(frame["story"])]
    table.close()


SEAT_NUMBERED = """\
ruleset: seat-numbered
title: Seat Numbered
players: {min: 3, max: 3, default: 3}
cards:
  - for: {n: [1, 2, 3, 4, 5, 6, 7, 8, 9]}
    id: "gem{n}"
    name: "Gem {n}"
    attributes: {worth: "=n"}
zones:
  bag: {visibility: hidden, initial: all, title: Bag}
  hand: {per: player, visibility: owner, title: Hand}
player_variables:
  purse: {initial: 4, visibility: owner, title: Purse}
view:
  values:
    - {title: Worth of the first hand, value: "sum([c.worth for c in players[0].hand])"}
    - {title: Purse of the first player, value: "players[0].purse"}
start: game
sequences:
  game:
    kind: game
    steps:
      - "shuffle bag"
      - for_each: p
        in: players
        do: ["draw 2 from bag to p.hand"]
      - "log 'The first player holds {cards(players[0].hand)}'"
      - choose: {player: "players[1]", kind: yesno, prompt: "Go on?", as: go}
      - "end game"
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_hand_reached_through_its_players_seat_number_is_read_by_that_player(tmp_path, engine):
    """'{cards(players[0].hand)}' in a log, and a view's value reading `players[0].hand` or `players[0].purse`, were
    read as of a hand of nobody known: P1 read '…' of their own hand, and no seat was shown the values. The player at
    a seat written as a number is now known as the owner it reaches (model/reading.py's `via_of`); the others still
    read '…' and are not shown the values."""
    from rulecraft.runtime.story import line_text
    from rulecraft.tools.table.seatview import seat_view

    path = tmp_path / "seat-numbered.yaml"
    path.write_text(SEAT_NUMBERED, encoding="utf-8")
    g = Game(load_ruleset(str(path)).ruleset, 3, 2, engine=engine)
    mine = ", ".join(c.name for c in g.zones[next(r for r in g.zones if r.zone == "hand" and r.key == 0)])
    read = {seat: [t for t in (line_text(line, {seat}) for line in g.narrative) if t is not None] for seat in range(3)}
    assert f"The first player holds {mine}" in read[0], read[0]
    for seat in (1, 2):
        assert "The first player holds …" in read[seat], read[seat]
    titles = {seat: [v.title for v in seat_view(g, seat, None).now] for seat in range(3)}
    assert titles[0] == ["Worth of the first hand", "Purse of the first player"], titles
    assert titles[1] == titles[2] == [], titles


NUMBER_UNDER_A_NAME = """\
ruleset: number-under-a-name
title: Number Under a Name
players: {min: 3, max: 3, default: 3}
cards:
  - for: {n: [1, 2, 3, 4, 5, 6, 7, 8, 9]}
    id: "gem{n}"
    name: "Gem {n}"
    attributes: {worth: "=n"}
zones:
  bag: {visibility: hidden, initial: all, title: Bag}
  hand: {per: player, visibility: owner, title: Hand}
start: game
sequences:
  game:
    kind: game
    steps:
      - "shuffle bag"
      - for_each: p
        in: players
        do:
          - "draw 3 from bag to p.hand"
          - "let high = [c for c in p.hand if c.worth > 5]"
          - "let n = count(high)"
          - "let w = sum([c.worth for c in p.hand])"
          - "log '{p} holds {n} high gems worth {w}'"
          - "log '{p} holds {count(p.hand)} gems'"
      - choose: {player: "players[1]", kind: yesno, prompt: "Go on?", as: go}
      - "end game"
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_number_worked_out_from_a_hidden_hand_and_kept_under_a_name_is_not_told_to_the_others(tmp_path, engine):
    """'let n = count(high)' (the high gems of a hidden hand), then '{n}' in a log: every seat read 'P1 holds 0 high
    gems worth 9' (a name holding no card was read as a card's name holding none, told to all). A number kept under a
    name is now read as the number it is, worked out from what the name is given (docs/secrecy.md): the others read
    '…'. (So does its owner: a local's reading keeps no owner.) A hand's size is told as before."""
    from rulecraft.runtime.story import line_text

    path = tmp_path / "number-under-a-name.yaml"
    path.write_text(NUMBER_UNDER_A_NAME, encoding="utf-8")
    g = Game(load_ruleset(str(path)).ruleset, 3, 2, engine=engine)
    for seat in range(3):
        read = [t for t in (line_text(line, {seat}) for line in g.narrative) if t is not None]
        for other in range(3):
            if other != seat:
                assert f"P{other + 1} holds … high gems worth …" in read, (seat, read)
            assert f"P{other + 1} holds 3 gems" in read, (seat, read)
