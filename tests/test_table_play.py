"""People at the table: what a person reads never shows another seat's hidden cards or private messages; with two
people at one terminal each private view comes after a hand-off; the view is in the game's words."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_fork import run_cli

from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game

SECRETS = Path(__file__).parent / "cases" / "constructs" / "secrets" / "ruleset.yaml"


def play(args: list[str], answers: str, cwd=None):
    """`rulecraft play ARGS` with a person's answers on stdin, in a child process forked from one with the command
    line imported (tests/cli_fork.py: the file's 40 games paid Python's start and the imports 40 times)."""
    return run_cli(["play", *args], input=answers, timeout=120, cwd=cwd, text=False)


END = "--- The end: everything revealed ---"


def hands_at_deal(seed: int, players: int = 2) -> list[set[str]]:
    """The names of the gems each seat is dealt (before any decision: chance alone decides them)."""
    rs = load_ruleset(str(SECRETS)).ruleset
    g = Game(rs, players, seed)
    return [{c.name for ref, cards in g.zones.items() if ref.zone == "hand" and ref.key == s for c in cards}
            for s in range(players)]


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("answers", ["1\n3\ny\n", "2\n0\nn\n"])
def test_a_person_never_reads_another_seats_hidden_cards(seed, answers):
    mine, theirs = hands_at_deal(seed)
    proc = play([str(SECRETS), "--agent", "human", "--agent", "random", "--seed", str(seed)], answers)
    assert proc.returncode == 0, proc.stderr.decode()
    full = proc.stdout.decode()
    text = full[:full.index(END)]  # the game as played; at its end everything is revealed (tested below)
    assert "Gem" in full[full.index(END):]
    for gem in theirs:  # P2's gems stay in their hand or go back to the hidden pile: never named to P1
        assert gem not in text, f"{gem} of P2 shown to P1:\n{text}"
    assert "P2: Put one gem back (chosen in secret)" in text  # the others learn that it happened
    assert "To P2 only" not in text
    assert "To P1 only: You put back" in text  # the person's own private message
    assert "Grudge" in text and text.count("Grudge") == text.count("P1 (you)")  # an owner-only variable: only P1's
    assert any(g in text for g in mine)  # their own hand by name


def test_two_people_at_one_terminal_get_a_hand_off_before_each_private_view():
    mine, theirs = hands_at_deal(5)
    proc = play([str(SECRETS), "--agent", "human", "--agent", "human", "--seed", "5"], "1\n1\n2\n3\nn\n")
    assert proc.returncode == 0, proc.stderr.decode()
    text = proc.stdout.decode()
    text = text[:text.index(END)]  # at the end of the game everything is revealed
    to_p2 = text.index("--- pass to P2 ---")
    to_p1_again = text.index("--- pass to P1 ---", to_p2)
    for gem in theirs:  # P2's hand is not on the screen before the terminal is passed to P2
        assert gem not in text[:to_p2]
    for gem in mine:  # nor P1's hand while P2 has the terminal
        assert gem not in text[to_p2:to_p1_again]
    assert "To P1 only" not in text[to_p2:to_p1_again]
    # a private line is shown at once to the person who has the terminal (issue 32), before it is passed on
    assert text.index("To P1 only") < to_p2 and text.count("To P1 only") == 1
    assert to_p2 < text.index("To P2 only") < to_p1_again and text.count("To P2 only") == 1


def test_a_bot_game_is_still_told_in_full():
    proc = play([str(SECRETS), "--seed", "3"], "")
    text = proc.stdout.decode()
    assert proc.returncode == 0
    assert "To P1 only" in text and "To P2 only" in text  # nobody at the table: the whole story


def test_help_and_undo_and_quit(tmp_path):
    proc = play([str(SECRETS), "--agent", "human", "--agent", "random", "--seed", "4"], "2\n?\nundo\n1\n3\nquit\n",
                cwd=tmp_path)
    text = proc.stdout.decode()
    assert "Asked: Secret bid" in text and "Any whole number from 0 to 5" in text
    # P1 was told which gem they put back since: taking it back would let them choose knowing it
    assert "Cannot take back your last decision: you were told something since." in text
    assert text.count("Put one gem back\n") == 1  # not asked again
    assert proc.returncode == 130
    assert "go on with: rulecraft play" in text and "--resume case-secrets-seed4.save" in text
    again = play([str(SECRETS), "--resume", str(tmp_path / "case-secrets-seed4.save")], "n\n", cwd=tmp_path)
    assert again.returncode == 0, again.stderr.decode()
    assert "resumed after 4 decisions" in again.stdout.decode()  # both put back a gem, both bid


@pytest.mark.parametrize("blocker", ["folder", "fifo", "another game's save"])
def test_a_quit_save_never_replaces_what_has_its_name(tmp_path, blocker):
    """A folder, a FIFO or another game's save of that name (the same ruleset and seed) is left as it is: the game is
    saved beside it under the next free name (issue 38: a second game quit the same way replaced the first's save)."""
    import os
    import re

    target = tmp_path / "case-secrets-seed4.save"
    if blocker == "folder":
        target.mkdir()
    elif blocker == "fifo":
        os.mkfifo(target)
    else:
        target.write_text("another game's save\n", encoding="utf-8")
    proc = play([str(SECRETS), "--agent", "human", "--agent", "random", "--seed", "4"], "2\nquit\n", cwd=tmp_path)
    err = proc.stderr.decode()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "internal error" not in err
    where = re.search(r"--resume (\S+)", proc.stdout.decode()).group(1)
    assert where == "case-secrets-seed4-2.save"
    if blocker == "another game's save":
        assert target.read_text(encoding="utf-8") == "another game's save\n"
    again = play([str(SECRETS), "--resume", where], "1\nn\n", cwd=tmp_path)
    assert again.returncode == 0, again.stderr.decode()
    assert "resumed after 2 decisions" in again.stdout.decode()
    os.unlink(tmp_path / where)


def test_a_quit_save_that_cannot_go_beside_the_player_goes_to_a_folder_nobody_could_take_first(tmp_path, monkeypatch):
    """The fallback was `$TMPDIR/rulecraft-PID-NAME.save`, a name another user of the machine could guess and take
    first (a folder or a file of theirs there, and the game was saved nowhere). Now a new folder of its own (0700,
    tempfile.mkdtemp), whatever lies in the temporary folder already."""
    import os
    import stat
    import tempfile

    from rulecraft.runtime import savegame
    from rulecraft.tools.table import keeping

    class BesideFails(savegame.SaveWriter):
        def write(self, game):
            if os.path.dirname(self.path) == "":  # the save beside the player: a full disk, say
                raise OSError(28, "No space left on device")
            return super().write(game)

    temp = tmp_path / "shared-tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setattr(keeping, "SaveWriter", BesideFails)
    monkeypatch.chdir(tmp_path)
    g = Game(load_ruleset(str(SECRETS)).ruleset, 2, 4)
    name = f"{g.rs.name}-seed4.save"
    (temp / f"rulecraft-{os.getpid()}-{name}").mkdir()  # what another user could have made at the old name
    where, said = keeping.quit_save(str(SECRETS), g, {}, ["human", "random"], [])
    assert where is not None, said
    assert "cannot save the game beside you" in said and where in said
    folder = Path(where).parent
    assert folder.parent == temp and folder.name.startswith("rulecraft-") and Path(where).name == name
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert Path(where).is_file()
