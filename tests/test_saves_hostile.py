"""A game's save that cannot be written any more (session 13): the message says what happened and where the game is
kept, and the game goes on from there as if it had never stopped."""

from __future__ import annotations

from rulecraft.files import OutputError
from rulecraft.tools.cli.main import main


def _last_lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.startswith(("Scores:", "Winner:"))]


def test_a_save_that_fails_mid_game_says_where_the_game_is_kept(tmp_path, monkeypatch, capsys):
    """A disk that fills up mid-game said only 'cannot write g.save: the disk is full' (exit 1): not that the file still
    holds the game up to its last save, nor how to go on with it."""
    from rulecraft.runtime import savegame

    argv = ["play", "pig", "--agent", "random", "--agent", "random", "--seed", "3"]
    assert main(argv) == 0
    unbroken = _last_lines(capsys.readouterr().out)
    save = tmp_path / "g.save"
    real, writes = savegame.atomic_write, []

    def filling_up(path, text, sync=True):
        writes.append(path)
        if len(writes) > 6:
            raise OutputError(path, f"cannot write {path}: the disk is full")
        return real(path, text, sync)

    monkeypatch.setattr(savegame, "atomic_write", filling_up)
    assert main(argv + ["--save", str(save)]) == 1
    err = capsys.readouterr().err
    assert f"cannot write {save}: the disk is full" in err
    assert f"{save} holds the game up to decision 5 (its last save that was written)" in err, err
    assert f"go on with: rulecraft play pig --resume {save}" in err
    monkeypatch.setattr(savegame, "atomic_write", real)  # room made
    assert main(["play", "pig", "--resume", str(save)]) == 0
    assert unbroken and _last_lines(capsys.readouterr().out) == unbroken  # the game the unbroken one was
