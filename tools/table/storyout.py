"""The story for a referee: as one seat reads it (`play --seat N`), and as JSON records (`play --story-json FILE`).

A record is one JSON object a line, written as the line is told (through `rulecraft.files`, the one writer):

    {"n": 4, "decision": 2, "step": "game.yaml:30:15", "kind": "event", "seats": [1], "names": ["P1"],
     "private": "To P1 only: You put back Gem 3", "public": null}

`seats` (numbered from 1, as `--seat` counts them) and `names` say who reads `private`; every other seat reads
`public` (null: nothing). A line for everyone has `seats` null, its text in `public` and `private` null.
`decision` is the number of the decision whose answer led to the line (as the log numbers it; 0 before the
first) and `step` the place of the step that asked it; with a seat given, an answer forced in secret (read by the
seat as chosen) counts as a decision of its own, as the browser counts it, so the numbers never tell which answers
were forced. `kind` is 'event', 'tell' (a line for one player),
'reveal' (sealed choices shown), 'header' (a round or a turn begins, with its `level`) or 'taken back' (an
`undo`: the game is again as it was after `decision`; the records after it are no longer the game's).

What a seat may read of a line is the line's own (`story.Line.for_seats`), so this file and the table keep a
seat's secrets the same way. With a seat given, the records are that seat's story: a line for another seat
becomes its public text, or no record at all.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from typing import Any, Callable, Optional

from rulecraft.files import open_stream
from rulecraft.runtime.story import Line, forced_in_secret


def story_record(line: str, names: list[str], seat: Optional[int] = None) -> Optional[dict]:
    """The record of one story line, as `seat` reads it (None: with every audience), or None when that seat
    reads nothing of it."""
    kind = line.kind if isinstance(line, Line) else "event"
    only = line.only if isinstance(line, Line) else None
    rec: dict[str, Any] = {"kind": kind}
    if kind == "header":
        rec["level"] = line.level  # type: ignore[union-attr]
    if only is None:
        rec.update(seats=None, names=None, private=None, public=str(line))
    elif seat is None or seat in only:
        readers = sorted(only) if seat is None else [seat]
        rec.update(seats=[s + 1 for s in readers], names=[names[s] for s in readers if 0 <= s < len(names)],
                   private=str(line), public=line.public)  # type: ignore[union-attr]
    elif line.public is not None:  # type: ignore[union-attr]
        rec.update(seats=None, names=None, private=None, public=line.public)  # type: ignore[union-attr]
    else:
        return None
    return rec


class JsonStory:
    """Writes the story to `path` as it is told, then hands each line on to `then` (the table's listener)."""

    def __init__(self, path: str, names: list[str], seat: Optional[int] = None,
                 then: Optional[Callable[[str], None]] = None):
        self.path = path
        self.names = list(names)
        self.seat = seat
        self.then = then
        self.n = 0
        self.decision = 0  # the decision whose answer is being worked out (0: before the first)
        self.step: Optional[str] = None  # where that decision was asked
        self.forced = 0  # with a seat: the answers forced in secret so far, each counted as a decision
        self.stream = open_stream(path)

    def asked(self, number: int, node: str) -> None:
        """The lines told from now on follow from the answer to decision `number`, asked at `node`."""
        self.decision, self.step = number + self.forced, node or None

    def listener(self, line: str) -> None:
        if self.seat is not None and forced_in_secret(line) is not None:
            # an answer the rules took at once that the others read as chosen is a decision as the seat reads it
            # (as the browser counts it): numbered and placed after the last one taken, it told the seat it was forced
            self.forced += 1
            self.decision += 1
            self.step = getattr(line.forced, "node", None) or None  # type: ignore[attr-defined]
        rec = story_record(line, self.names, self.seat)
        if rec is not None:
            self._write(rec)
        if self.then is not None:
            self.then(line)

    def taken_back(self, decisions: int) -> None:
        """An `undo`: the game is again as it was after `decisions` decisions."""
        self.decision, self.step = decisions + self.forced, None
        self._write({"kind": "taken back"})

    def _write(self, rec: dict) -> None:
        self.n += 1
        self.stream.write(json.dumps({"n": self.n, "decision": self.decision, "step": self.step, **rec},
                                     ensure_ascii=False) + "\n")

    def close(self) -> None:
        self.stream.close()


def read_story(text: str) -> list[dict]:
    """The records of a JSON story (for tests and referees written in Python)."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def where_people_read(target: Optional[str]) -> bool:
    """Whether an output named on the command line reaches what the people at the table read, where the log and the
    JSON story (every seat's answers, rolls and private lines) may not go: standard output (`-`, or a name of the same
    file or pipe: the table is drawn there, read through `tee` or `less` as well as on a terminal), or a terminal."""
    if not target:
        return False
    if target == "-":
        return True
    try:
        st = os.stat(target)
    except (OSError, ValueError):  # no such file yet (a new log)
        return False
    for fd in _standard_output():
        out = os.fstat(fd)
        if (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino):
            return True
    if not stat.S_ISCHR(st.st_mode):
        return False
    try:
        fd = os.open(target, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        return os.isatty(fd)
    finally:
        os.close(fd)


def _standard_output() -> list[int]:
    """The file descriptors of standard output: 1, and Python's `sys.stdout` where it was given another."""
    fds = []
    for get in (lambda: 1, lambda: sys.stdout.fileno()):
        try:
            fd = get()
            os.fstat(fd)
        except (OSError, ValueError, AttributeError):  # closed, or a stream with no descriptor
            continue
        fds.append(fd)
    return fds
