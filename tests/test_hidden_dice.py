"""Dice under a cup (docs/secrecy.md, "Dice whose faces are hidden"), and the records of a game kept for its owner.

Session 15 wrote two hidden-information games from the docs alone (tests/cases/games/under-cups.yaml, dice under
cups with bids and a challenge that lifts them; palace-notes.yaml, private looks, a comparison shown to two players,
hands traded face down). Under Cups could not be written at all: every roll was told to every seat with its faces
('P2 rolls 1d6: 6=6'). Dice now say who sees their faces (`visibility: roller` or `hidden`); the cases below each
failed before that, and the log and story of a game, which hold every hidden roll and card, were readable by every
user of the machine while a game's save was its owner's alone.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from cli_fork import run_cli

from rulecraft.agents.base import RandomAgent
from rulecraft.agents.greedy import GreedyAgent
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.runtime.story import line_text

GAMES_DIR = Path(__file__).parent / "cases" / "games"

CUP = """\
ruleset: tiny-cup
title: A die under a cup
players: {min: 2, max: 2, default: 2}
dice:
  die: {count: 1, sides: 6, visibility: VIS}
start: game
sequences:
  game:
    kind: game
    steps:
      - "roll die by (players[0]) as r"
      - choose: {player: "players[0]", kind: one, options: "[x for x in [1, 2] if x <= r.total]", prompt: "Show", as: shown}
      - choose: {player: "players[1]", kind: one, options: "1..6", prompt: "Guess the die", as: guess}
      - if: "guess == r.total"
        then: ["win players[1]"]
        else: ["win players[0]"]
"""


def _cup(tmp_path, vis: str):
    path = tmp_path / f"cup-{vis}.yaml"
    path.write_text(CUP.replace("VIS", vis), encoding="utf-8")
    loaded = load_ruleset(str(path))
    assert loaded.ok, [d.message for d in loaded.diagnostics]
    return loaded.ruleset


def _read(g: Game, seat: int) -> list[str]:
    return [t for t in (line_text(line, {seat}) for line in g.narrative) if t is not None]


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_dice_under_a_cup_are_told_to_their_roller_alone(tmp_path, engine):
    """P1's roll read 'P1 rolls die: 4=4' to both seats; now P1 reads it and P2 reads that P1 rolled."""
    rs = _cup(tmp_path, "roller")
    g = Game(rs, 2, 3, engine=engine)
    faces = g.chance[0][2][0]
    assert _read(g, 0)[0] == f"P1 rolls die: {faces}={faces}"
    assert _read(g, 1)[0] == "P1 rolls die in secret"
    hidden = Game(_cup(tmp_path, "hidden"), 2, 3, engine=engine)
    assert _read(hidden, 0)[0] == _read(hidden, 1)[0] == "P1 rolls die in secret"
    opened = Game(_cup(tmp_path, "open"), 2, 3, engine=engine)
    assert _read(opened, 1)[0] == f"P1 rolls die: {faces}={faces}"  # open dice as before


def test_a_forced_answer_worked_out_from_a_hidden_roll_reads_as_chosen_to_the_others(tmp_path):
    """With a 1 under the cup, P1's 'Show' has one answer: '(the only choice)' told P2 the die showed a 1."""
    rs = _cup(tmp_path, "roller")
    forced = 0
    for seed in range(1, 30):
        g = Game(rs, 2, seed)
        if g.chance[0][2][0] != 1:
            continue
        while g.pending.player == 0:
            g.apply(0)
        forced += 1
        assert "P1: Show -> 1 (the only choice)" in _read(g, 0)
        assert "P1: Show -> 1" in _read(g, 1) and not any("only choice" in t for t in _read(g, 1))
    assert forced


def test_greedy_does_not_read_a_die_under_another_seats_cup(tmp_path):
    """Greedy P2 guesses P1's die kept under the local `r`: its look-ahead read the real roll and guessed it in 20
    games of 20; now the roll is rolled again in each rollout, as unknown to the bot as to its player."""
    rs = _cup(tmp_path, "roller")
    won = 0
    for seed in range(1, 21):
        g = Game(rs, 2, seed=seed, story=False)
        first, bot = RandomAgent(0, seed), GreedyAgent(1, seed)
        while not g.over:
            d = g.pending
            g.apply(bot.choose(d, None, g) if d.player == 1 else first.choose(d, None))
        won += g.winners == [1]
    assert won < 10


def test_a_game_log_and_its_story_are_readable_by_their_owner_only(tmp_path):
    """The log holds the seed and every roll (`chance`), the JSON story every seat's private lines: they were made
    readable by every user of the machine (0644) while a save of the same game was its owner's alone (0600)."""
    log, story, save = tmp_path / "g.log", tmp_path / "g.jsonl", tmp_path / "g.save"
    done = run_cli(["play", str(GAMES_DIR / "under-cups.yaml"), "--seed", "2", "--quiet", "--log", str(log),
                    "--story-json", str(story), "--save", str(save)])
    assert done.returncode == 0, done.stderr
    for f in (log, story, save):
        assert stat.S_IMODE(os.stat(f).st_mode) == 0o600, f


def test_under_cups_tells_each_seat_its_own_dice_until_the_cups_are_lifted():
    """A game of Under Cups: before each lift no seat reads another's faces; the lift shows every cup to all."""
    rs = load_ruleset(str(GAMES_DIR / "under-cups.yaml")).ruleset
    g = Game(rs, 3, 4)
    while not g.over:
        g.apply(RandomAgent(g.pending.player, 4).choose(g.pending, None))
    for seat in range(3):
        read = _read(g, seat)
        rolls = [t for t in read if " rolls die" in t]
        assert rolls and all(t.endswith("in secret") != t.startswith(f"P{seat + 1} ") for t in rolls), rolls
    assert any("lifts their cup" in t for t in _read(g, 0))


def test_palace_notes_shows_a_duel_to_its_two_players_only():
    """The Duelist's comparison names the notes to the two who compare; the third reads that they looked."""
    rs = load_ruleset(str(GAMES_DIR / "palace-notes.yaml")).ruleset
    duels = 0
    for seed in range(1, 12):
        g = Game(rs, 3, seed)
        while not g.over:
            g.apply(RandomAgent(g.pending.player, seed).choose(g.pending, None))
        for line in g.narrative:
            text = str(line)
            if " looks at the note of " in text and ":" in text:
                looker = int(text[1]) - 1
                whose = int(text.split(" looks at the note of P")[1][0]) - 1
                third = ({0, 1, 2} - {looker, whose}).pop()
                assert line_text(line, {looker}) == text
                assert line_text(line, {third}) == text.split(":")[0]
                duels += 1
    assert duels


def test_each_seat_of_under_cups_in_the_browser_is_sent_its_own_dice_alone(tmp_path):
    """The browser's table (tools/studio/play/table.py's frames, as the server sends them), three people and a
    spectator: before the cups are lifted, no frame holds another seat's roll (in the story or the view); seen in
    headless Chromium too (docs/security.md, section 12)."""
    from rulecraft.tools.studio.play.table import SPECTATOR, PlayTable

    table = PlayTable.new(str(tmp_path / "g"), "g", str(GAMES_DIR / "under-cups.yaml"), ["human"] * 3, 5, {},
                          {"spectator": "s" * 24})
    sent = {SPECTATOR: 0, 0: 0, 1: 0, 2: 0}
    frames: dict = {seat: [] for seat in sent}
    try:
        while True:
            for seat in sent:
                frame = table.frame(seat, sent[seat])
                sent[seat] = frame["storyEnd"]
                frames[seat].append(frame)
            asked = table.waiting_for()
            if asked is None:
                break
            frame = table.frame(asked, 0)
            kind = frame["view"]["decision"]["kind"]
            table.decide(asked, frame["decisions"], asked == 2 if kind == "yesno" else 0)  # P3 calls, the others raise
            while table.step():
                pass
    finally:
        table.close()
    for seat, got in frames.items():
        lines = [line["text"] for f in got for line in f["story"]]
        mine = f"P{seat + 1} rolls die: "
        assert not [t for t in lines if " rolls die: " in t and not t.startswith(mine)], seat
        assert (seat == SPECTATOR) != any(t.startswith(mine) for t in lines)
        for f in got:
            for p in f["view"]["players"]:
                assert p["you"] or f["view"]["over"] or all(r["title"] != "Under your cup" for r in p["rows"])
    assert any("lifts their cup" in line["text"] for f in frames[SPECTATOR] for line in f["story"])


@pytest.mark.parametrize("flag, target", [("--story-json", "-"), ("--log", "-")])
def test_the_log_and_story_never_go_where_a_person_reads_the_game(flag, target):
    """`play --agent human --story-json -` piped (through `tee`, say) printed every seat's private lines and rolls
    among the person's own screens ('"private": "P2 rolls die: 6=6"'); the check was only for a terminal. Standard
    output, by any name, is where the people read the game: refused (exit 2), whatever it is."""
    done = run_cli(["play", str(GAMES_DIR / "under-cups.yaml"), "--agent", "human", "--seed", "2", "--pace", "0",
                    flag, target], input="1\n" * 40)
    assert done.returncode == 2, done.stdout[-300:]
    assert "rolls die:" not in done.stdout and "where they read the game: write it to a file" in done.stderr


def test_standard_output_by_another_name_is_where_people_read(tmp_path, monkeypatch):
    """`--log /dev/stdout`, or the name of the file standard output was sent to, is standard output too."""
    from rulecraft.tools.table.storyout import where_people_read

    shown, other = tmp_path / "shown.txt", tmp_path / "other.log"
    other.write_text("")
    with open(shown, "w", encoding="utf-8") as out:
        monkeypatch.setattr("sys.stdout", out)
        assert where_people_read("-") and where_people_read(str(shown))
        assert not where_people_read(str(other)) and not where_people_read(str(tmp_path / "new.log"))
        assert not where_people_read("/dev/null")


@pytest.mark.parametrize("vis, said", [("roller", "seen by its roller alone"), ("hidden", "seen by nobody until shown"),
                                       ("open", None)])
def test_the_printed_rules_say_who_sees_the_dice(tmp_path, vis, said):
    """A cold reader of the aid and the book learns that the die is rolled under a cup: its entry says who sees its
    faces (the aid listed a die with no results and no doc not at all, and neither said it was hidden)."""
    from rulecraft.tools.print.aid import aid_view
    from rulecraft.tools.print.book import _dice
    from rulecraft.tools.words import Words

    rs = _cup(tmp_path, vis)
    aid = [d["name"] for d in aid_view(rs).dice]
    book = str(_dice(rs, Words(rs, detail="players")))
    if said is None:
        assert aid == [] and "seen by" not in book
    else:
        assert aid == [f"A six-sided die (1d6, {said})"] and said in book
