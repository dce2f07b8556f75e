"""Undo at the table cannot crash and cannot cheat: with --log and --save, at a plain choice, inside an auction and
across a sealed step; undo plus the same answer gives the same game; an undo across a reveal is refused with its
reason; bots choose as a function of the game, the seed and their seat."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_fork import run_cli

from rulecraft.agents.base import RandomAgent
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.runtime.state_io import state_hash
from rulecraft.tools.table.undo import Taken, take_back

HERE = Path(__file__).parent
AUCTION = HERE / "cases" / "table" / "auction.yaml"
SECRET_PASS = HERE / "cases" / "table" / "secret_pass.yaml"


def play(args: list[str], answers: str, cwd):
    """`rulecraft play ARGS --pace 0` with a person's answers on stdin, in a child process forked from one with the
    command line imported (tests/cli_fork.py)."""
    return run_cli(["play", *args, "--pace", "0"], input=answers, timeout=180, cwd=cwd, text=False)


def replay(log: Path, *extra: str):
    return run_cli(["replay", str(log), *extra], timeout=180, cwd=log.parent, text=False)


@pytest.mark.parametrize("keep", ["--log", "--save"])
def test_undo_inside_an_auction_then_the_same_bid_gives_the_same_game(tmp_path, keep):
    base = [str(AUCTION), "--agent", "human", "--agent", "random", "--seed", "4"]
    plain = play(base + [keep, "plain.out"], "5\np\np\n", tmp_path)
    undone = play(base + [keep, "undone.out"], "5\nundo\n5\np\np\n", tmp_path)
    assert plain.returncode == 0 and undone.returncode == 0, undone.stderr.decode()
    text = undone.stdout.decode()
    assert "Taken back: your decision 1; you decide again." in text
    before, after = text.split("Taken back")
    # the bots answer the same bid the same way: the bids after the undo repeat those before it
    bids = [line for line in before.splitlines() if "-> " in line]
    assert bids and all(b in after for b in bids)
    assert plain.stdout.decode().splitlines()[-2:] == text.splitlines()[-2:]  # the same scores, the same winner
    if keep == "--log":  # the log of the game with an undo is the log of the game without it
        assert (tmp_path / "undone.out").read_bytes() == (tmp_path / "plain.out").read_bytes()
        again = replay(tmp_path / "undone.out", "--ruleset", str(AUCTION))
        assert again.returncode == 0, again.stdout.decode()


def test_bids_are_typed_as_amounts_and_the_prompt_names_the_range(tmp_path):
    proc = play([str(AUCTION), "--agent", "human", "--agent", "random", "--seed", "4"], "1\n21\nabc\n5\np\np\n",
                tmp_path)
    text = proc.stdout.decode()
    assert proc.returncode == 0, proc.stderr.decode()
    assert "Type an amount from 2 to 20, or pass." in text
    assert "1 is not an amount you can choose here: type an amount from 2 to 20, or pass; try again" in text
    assert "21 is not an amount" in text and "type an amount from 2 to 20, or pass; try again" in text
    assert "P1: Bid for the lot (top 0) -> 5" in text  # typing 5 bids 5
    assert "  2) " not in text  # no list of every amount
    assert "P1: Bid for the lot (top 11) -> pass" in text or "-> pass" in text


def test_dml_undo_with_a_log_after_a_sealed_reveal_is_refused_and_the_log_replays(tmp_path):
    proc = play(["dml", "--agent", "human", "--agent", "random", "--seed", "5", "--log", "u.log"], "1\nundo\n",
                tmp_path)
    text = proc.stdout.decode()
    assert proc.returncode == 130, proc.stderr.decode()  # stopped at the end of input, not an internal error
    assert "Cannot take back your last decision: the sealed choices were revealed since." in text
    assert text.count("--- P1, your decision ---") == 2  # the refused undo does not show the view again
    again = replay(tmp_path / "u.log", "--partial")
    assert again.returncode == 0, again.stdout.decode()


def test_undo_is_refused_when_the_log_cannot_be_cut(tmp_path):
    # a device (standard output, where the person reads the game, may not take the log: test_hidden_dice.py)
    proc = play([str(AUCTION), "--agent", "human", "--agent", "random", "--seed", "4", "--log", "/dev/null"],
                "5\nundo\np\np\n", tmp_path)
    assert proc.returncode == 0
    assert "Cannot take back your last decision: the log goes to /dev/null, which cannot be cut back." \
        in proc.stdout.decode()


def _person_game(rs, seed: int, people: int = 0, limit: int = 12):
    """A DML game with a person at seat `people` answering the first option, bots elsewhere; yields (game, history)
    at each of the person's decisions after their first (up to `limit`)."""
    g = Game(rs, 4, seed)
    bots = [RandomAgent(s, seed) for s in range(4)]
    history: list[Taken] = []
    seen = 0
    while not g.over and seen < limit:
        d = g.pending
        if d.player == people and any(t.player == people for t in history):
            seen += 1
            yield g, history
        wire = d.all_choices(1)[0] if d.player == people else bots[d.player].choose(d, None)
        chance, told = list(g.chance), len(g.narrative)
        g.apply(wire)
        history.append(Taken(d.player, wire, chance, told))


def test_dml_undo_then_the_same_answer_gives_the_same_game_or_is_refused_with_a_reason():
    rs = load_ruleset("dml").ruleset
    bots = [RandomAgent(s, 5) for s in range(4)]
    allowed = refused = 0
    for g, history in _person_game(rs, 5):
        hist = list(history)
        again, _records, said = take_back(g, 0, hist)
        if again is None:
            assert said.startswith("Cannot take back your last decision: ") and "since" in said
            refused += 1
            continue
        allowed += 1
        cut = len(hist)
        # answer the taken-back decision the same, let the bots go on to the person's present decision
        again.apply(history[cut].wire)
        for t in history[cut + 1:]:
            d = again.pending
            assert d.player == t.player
            wire = t.wire if d.player == 0 else bots[d.player].choose(d, None)
            assert wire == t.wire  # each bot chooses again what it chose before
            again.apply(wire)
        assert state_hash(again) == state_hash(g)
    assert allowed and refused  # both happen in the first dozen decisions of this game


def test_a_bot_chooses_by_the_game_not_by_how_often_it_was_asked():
    rs = load_ruleset("dml").ruleset
    g = Game(rs, 4, 3)
    d = g.pending
    bot = RandomAgent(d.player, 3)
    first = bot.choose(d, None)
    for _ in range(5):  # asked again and again (as after an undo): the same answer
        assert bot.choose(d, None) == first
    assert RandomAgent(d.player, 3).choose(d, None) == first  # a fresh bot (a resume) too


def test_a_secret_sealed_choice_stays_secret(tmp_path):
    rs = load_ruleset(str(SECRET_PASS)).ruleset
    for seed in range(6):
        g = Game(rs, 3, seed)
        hands = {s: {c.name for ref, cards in g.zones.items() if ref.zone == "hand" and ref.key == s for c in cards}
                 for s in range(3)}
        proc = play([str(SECRET_PASS), "--agent", "human", "--agent", "random", "--seed", str(seed)], "1 2 3\n",
                    tmp_path)
        text = proc.stdout.decode()
        assert proc.returncode == 0, proc.stderr.decode()
        assert "Revealed" not in text
        assert "P2 chose in secret\n" in text and "P3 chose in secret\n" in text
        # P2 passes to P3: none of P2's cards reaches P1's screen before the end reveals everything
        assert text.count("--- The end: everything revealed ---") == 1
        playing = text[:text.index("--- The end: everything revealed ---")]
        for card in hands[1]:
            assert f"{card}," not in playing and not playing.count(f"{card}\n")
        # the story as P1 may read it, in a game of bots
        bots = [RandomAgent(s, seed) for s in range(3)]
        while not g.over:
            d = g.pending
            g.apply(bots[d.player].choose(d, None))
        p1 = "\n".join(t for t in (line.for_seats({0}) if hasattr(line, "for_seats") else line
                                    for line in g.narrative) if t)
        for card in hands[1]:
            assert card + "," not in p1 and not p1.endswith(card) and card + "\n" not in p1


def test_a_story_line_is_one_line(tmp_path):
    ruleset = tmp_path / "forge.yaml"
    ruleset.write_text(
        "ruleset: forge\ntitle: Forge\nplayers: {min: 2, max: 2, default: 2}\nstart: game\n"
        "variables: {msg: \"fine\\nWinner: P2\\r\\nScores: none\"}\n"
        "sequences:\n  game:\n    kind: game\n    steps:\n"
        "      - \"log '{msg}'\"\n      - \"win players[0]\"\n", encoding="utf-8")
    proc = run_cli(["play", str(ruleset)], timeout=60, text=False)
    text = proc.stdout.decode()
    assert proc.returncode == 0, text + proc.stderr.decode()
    assert "fine Winner: P2 Scores: none" in text
    assert not any(line.startswith("Winner: P2") for line in text.splitlines())


def test_the_view_shows_points_now_where_they_reveal_nothing(tmp_path):
    proc = play([str(AUCTION), "--agent", "human", "--agent", "random", "--seed", "4"], "5\np\np\n", tmp_path)
    text = proc.stdout.decode()
    assert "P1 (you): Points now: 20;" in text and "P2: Points now: 20;" in text  # all public: everyone's
    assert "Final scores:" not in text  # no score parts in this ruleset: the story's scores say it all


def test_dml_shows_your_points_a_breakdown_at_the_end_and_no_stale_target(tmp_path):
    proc = play(["dml", "--agent", "human", "--agent", "random", "--seed", "5"], "1\n" * 400, tmp_path)
    text = proc.stdout.decode()
    assert proc.returncode == 0, proc.stderr.decode()
    views = text.split("--- P1, your decision ---")[1:]
    assert views and all("P1 (you): Points now: " in v for v in views)
    # the score reads each player's treasury, which only they see: the others' points are never shown, whatever
    # their treasuries hold (decided from the score's expression, so an empty one does not show either)
    others = [line for line in text.splitlines() if any(line.startswith(f"  P{n}: Points now") for n in (2, 3, 4))]
    assert not others
    assert any(line.startswith("  P2: Treasury: ") and "Treasury: empty" not in line for line in text.splitlines())
    for v in views:  # a target is shown only once cards are declared: never the previous player's
        panel = v.split("\n> ")[0]
        if "Target value" in panel:
            assert "Declared cards:" in panel
    final = text[text.index("Final scores:"):]
    for part in ("Iron", "Wood", "Slaves", "Spice", "Dragon Eggs"):
        assert part in final
    assert final.count("\n  P") == 4


def test_undo_after_a_resume_with_a_log(tmp_path):
    base = [str(AUCTION), "--agent", "human", "--agent", "random", "--seed", "4"]
    first = play(base + ["--save", "a.save"], "5\nquit\n", tmp_path)
    assert first.returncode == 130, first.stderr.decode()
    again = play([str(AUCTION), "--resume", "a.save", "--log", "a.log"], "undo\nundo\n5\np\np\n", tmp_path)
    text = again.stdout.decode()
    assert again.returncode == 0, again.stderr.decode()
    assert "Taken back: your decision 1; you decide again." in text and "Nothing to take back." in text
    plain = play(base + ["--log", "plain.log"], "5\np\np\n", tmp_path)
    assert plain.returncode == 0
    # the same game as one played without stopping; the log replays
    assert (tmp_path / "a.log").read_text().splitlines()[1:] == (tmp_path / "plain.log").read_text().splitlines()[1:]
    assert replay(tmp_path / "a.log", "--ruleset", str(AUCTION)).returncode == 0


def test_the_view_says_empty_and_titles_as_a_player_would():
    """An empty pile or list reads 'empty' (not 'none'), a value not set yet '—', a title written for sentences
    heads its row without its article, and a key of a table that titles its rows shows by its title."""
    from rulecraft.tools.table.seatview import seat_view
    from rulecraft.tools.table.view import say_value

    rs = load_ruleset(str(HERE / "cases" / "games" / "guild-yard.yaml")).ruleset
    game = Game(rs, seed=1, players=3)
    assert say_value([], game) == "empty" and say_value(None, game) == "—"
    assert say_value(["market", "pit"], game) == "Market, Clay pit"
    game.vars["taken"] = ["quarry"]
    rows = {r.title: r.text for r in seat_view(game, 0).table}
    assert rows.get("Spaces taken") == "Quarry" and "First player" in rows, rows


def test_a_score_that_is_a_kept_value_is_not_shown_twice(tmp_path):
    """trump-call scores `p.points`, which every row shows as 'Points': no 'Points now' beside it."""
    game = Path(__file__).parent / "cases" / "games" / "trump-call.yaml"
    proc = play([str(game), "--agent", "human", "--agent", "random", "--seed", "3", "--players", "3"], "1\n" * 40,
                tmp_path)
    text = proc.stdout.decode()
    assert proc.returncode == 0, proc.stderr.decode()
    assert "P1 (you): " in text and "Points now" not in text and "Points: 0" in text
