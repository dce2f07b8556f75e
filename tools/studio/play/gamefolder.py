"""A browser game's folder (`.rulecraft/games/ID/` under the studio's folder) and the checks made when one is read
back: the folder may have come from a stranger with the studio's folder, so `game.json` is checked field by field
(`checked`), every file of the game must be a plain file (`plain_files`), and the ruleset a game names is opened only
from the game's folder, the studio's folder or the bundled rulesets. The game itself: tools.studio.play.table.
"""

from __future__ import annotations

import json
import os
import re
import stat
from typing import Any

from rulecraft.agents.kinds import KINDS
from rulecraft.bundled import bundled_root
from rulecraft.files import replace_file
from rulecraft.runtime.savegame import SaveError

PERSON = "human"  # a person's seat, as the log and the save name it (`rulecraft play --agent human`)
# the bots a page may seat: the agents' own kinds that read no file and run no code of the caller's choosing
BOTS = tuple(k for k in KINDS if ":" not in k and k != PERSON)
MAX_META = 64 * 1024  # game.json: the seats, the seed, the options and the tokens of one game
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # a game's id and folder (the studio makes 12 hex digits)


def kept_copy(home: str, ruleset: str) -> str:
    """The ruleset the game is played by, kept beside its log (the studio's editor may change the file the
    game started from; `rulecraft replay game.log` finds it there). A ruleset that extends another is named
    where it is (replay then takes `--ruleset FILE`)."""
    with open(ruleset, encoding="utf-8") as fh:
        text = fh.read()
    if any(line.startswith("extends:") for line in text.splitlines()):
        return ruleset
    kept = os.path.join(home, "ruleset.yaml")
    replace_file(kept, text)
    return kept


def write_meta(home: str, meta: dict) -> None:
    """game.json: the seats, the seed, the options, the seat tokens (its owner's alone) and, once Play again made
    one, the game played next (`next`; that game's own names this one as `after`)."""
    replace_file(os.path.join(home, "game.json"), json.dumps(meta, indent=1) + "\n", private=True)


def _inside(path: str, folder: str) -> bool:
    folder = os.path.realpath(folder)
    return os.path.commonpath([os.path.realpath(path), folder]) == folder


def checked(meta: Any, home: str, root: str) -> dict:
    """game.json as read from the folder, which a stranger may have sent with its games: a seat is a person or one of
    the BOTS (a kind that runs code or reads a file is never made from a file), the tokens open those seats, the id
    is the game's folder, and the ruleset lies in the game's folder (the copy kept there, found there when the
    studio's folder was moved), the studio's folder or the bundled rulesets: nothing else is opened. ValueError
    says what is wrong."""
    if not isinstance(meta, dict):
        raise ValueError("not a mapping")
    kinds, tokens, ruleset = meta.get("kinds"), meta.get("tokens"), meta.get("ruleset")
    if meta.get("id") != os.path.basename(home):
        raise ValueError("its id is not its folder's name")
    if not GAME_ID.fullmatch(meta["id"]):  # the id is printed in the studio's output: no escape sequence, no bidi
        raise ValueError("its id is not letters, digits, '-' and '_' (the studio names a game so)")
    if not isinstance(kinds, list) or not kinds or any(k != PERSON and k not in BOTS for k in kinds):
        raise ValueError(f"a seat is a person or one of the bots {', '.join(BOTS)}")
    seats = {str(s) for s, k in enumerate(kinds) if k == PERSON} | {"spectator"}
    if not isinstance(tokens, dict) or not set(tokens) <= seats or \
            not all(isinstance(t, str) and 16 <= len(t) <= 64 for t in tokens.values()) or \
            len(set(tokens.values())) != len(tokens):  # one link for two seats: which would it open?
        raise ValueError("its tokens do not open its seats")
    if type(meta.get("seed")) is not int or not -2**63 <= meta["seed"] < 2**64 or \
            not isinstance(meta.get("overrides"), dict) or not isinstance(ruleset, str):  # (seeds as `play --seed`)
        raise ValueError("its seed, options or ruleset are not what a game keeps")
    if any(k in meta and (not isinstance(meta[k], str) or not GAME_ID.fullmatch(meta[k]) or meta[k] == meta["id"])
           for k in ("next", "after")):  # (a link to a next game is followed only when that game names this one)
        raise ValueError("the game it follows or is followed by is not named by a game's id")
    kept = os.path.join(home, "ruleset.yaml")
    if os.path.basename(ruleset) == "ruleset.yaml" and \
            os.path.basename(os.path.dirname(ruleset)) == meta["id"] and os.path.isfile(kept):
        ruleset = kept
    if not ruleset.endswith((".yaml", ".yml")) or \
            not any(_inside(ruleset, place) for place in (home, root, bundled_root())):
        raise ValueError("its ruleset is outside the game's folder, the studio's folder and the bundled rulesets")
    return {**meta, "ruleset": ruleset}


def games_home(root: str, games: str) -> str:
    """The folder under `root` the games are kept in (`games`, relative: '.rulecraft/games'), when each of its
    parts is a real folder of `root` or is not there yet. The studio's folder may have come from elsewhere (a zip, a
    git clone: both carry links): a part that is a link would have the games, their seats' tokens with them, written
    to and read from wherever it leads. ValueError says which part and why."""
    path = root
    for part in games.split(os.sep):
        path = os.path.join(path, part)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            break
        except OSError as exc:
            raise ValueError(f"{os.path.relpath(path, root)}: {(exc.strerror or str(exc)).lower()}") from None
        if not stat.S_ISDIR(st.st_mode):
            kind = "a link" if stat.S_ISLNK(st.st_mode) else "not a folder"
            raise ValueError(f"{os.path.relpath(path, root)} is {kind}: games are kept only in a folder of the "
                             f"studio's folder; remove it (or serve another folder) to play")
    return os.path.join(root, games)


GAME_FILES = ("game.json", "game.save", "game.log", "ruleset.yaml")


def plain_files(home: str) -> None:
    """Each file of a game's folder is a regular file or absent, never a link, FIFO or device: the folder may have
    come from a stranger, and the log is written into what it names (a game.log that was a FIFO hung the studio at
    its start for ever; a link to a device had the log written into the device). SaveError says which."""
    for name in GAME_FILES:
        try:
            st = os.lstat(os.path.join(home, name))
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise SaveError(f"{name}: {(exc.strerror or str(exc)).lower()}") from None
        if not stat.S_ISREG(st.st_mode):
            kind = "a link" if stat.S_ISLNK(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode) else \
                "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
            raise SaveError(f"{name} is {kind}: a game's files are plain files of its folder")
