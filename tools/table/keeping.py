"""Keeping a game to go on with later: the save made beside a person who quits, and the command that resumes it
as it can be typed; and keeping a ruleset's error from a table of people (`withheld`)."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Optional

from rulecraft.diagnostics import Diagnostic
from rulecraft.files import OutputError, replace_file
from rulecraft.runtime.savegame import SaveWriter

# agents a resumed game may take from the save file itself: none of them reads a file or imports code
RESUMABLE_KINDS = ("random", "first", "human")


def resume_command(ref: str, save_path: str, kinds: list[str], log_path: Optional[str]) -> str:
    """The command that goes on with a saved game, as it can be typed: the agents again when the save cannot
    choose them itself (a bot that searches, reads a file or runs code), and the log, which it continues."""
    import shlex

    words = ["rulecraft", "play", ref, "--resume", save_path]
    if not all(k in RESUMABLE_KINDS for k in kinds):
        for k in kinds:
            words += ["--agent", k]
    if log_path and log_path != "-":
        words += ["--log", log_path]
    return shlex.join(words)


def quit_save(ref: str, game, overrides: dict, kinds: list, history: list) -> tuple[Optional[str], str]:
    """A person who quits a game that was not being saved: save it beside them so they can go on later.

    When that place cannot be written (a folder, a device or a FIFO of that name, a read-only or full disk), the
    game is saved in a new folder of its own in the temporary folder instead (a fixed name there could be taken
    first by another user of the machine, and the game saved nowhere).
    Returns (where it was saved or None, what went wrong or '')."""
    import tempfile

    name = _free_name(f"{game.rs.name}-seed{game.seed}", ".save")  # never another game's save (issue 38)
    decisions = [(t.player, t.wire) for t in history]
    first = ""
    for n, path in enumerate((name, "")):
        try:
            if n:  # a folder of its own, made now: mode 0700, a name nobody can guess and take first
                path = os.path.join(tempfile.mkdtemp(prefix="rulecraft-"), os.path.basename(name))
            if os.path.lexists(path) and not os.path.isfile(path):
                raise OutputError(path, f"cannot write {path}: it exists and is not a plain file")
            saver = SaveWriter(path, ref, game, overrides, kinds, decisions=decisions)
            saver.write(game)
        except (OSError, OutputError) as exc:
            why = getattr(exc, "message", None) or str(exc)
            if not first:
                first = f"cannot save the game beside you ({why})"
                continue
            return None, f"{first}, nor in {path} ({why}); the game is lost unless a log was kept"
        return path, (f"{first}; it is saved in {path} instead" if first else "")
    return None, first


def _free_name(stem: str, ext: str) -> str:
    """STEM.EXT, or STEM-2.EXT, STEM-3.EXT, ...: the first name no file has (a save made by quitting another game
    of the same ruleset and seed is never replaced)."""
    for n in range(1, 1000):
        name = f"{stem}{ext}" if n == 1 else f"{stem}-{n}{ext}"
        if not os.path.lexists(name):
            return name
    return f"{stem}-{os.getpid()}{ext}"


def withheld(diag: Diagnostic, full: str, log_path: Optional[str]) -> Diagnostic:
    """A ruleset's error as a table of people is told it, on the screen they share: where it went wrong and its
    code, never its message, which may name what a seat cannot see (the card a rule read from a hidden hand). The
    whole of it (`full`, as rendered) is kept in LOG.error beside the game's log, readable by its owner only (the
    studio keeps it in its output the same way); without a log, the hint says how to keep it."""
    kept = None
    if log_path:
        try:
            replace_file(log_path + ".error", full, private=True)
            kept = log_path + ".error"
        except OutputError:
            pass
    how = f"the whole message is in {kept}" if kept else "play with --log FILE to keep the whole message in FILE.error"
    return replace(diag, message="a rule of the ruleset went wrong here; its message is not shown at a table of "
                                 "people, for it may name what a seat cannot see", hint=how, notes=())
