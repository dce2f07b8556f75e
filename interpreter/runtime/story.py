"""The game's story as lines with an audience: who may read a line, and what everyone else reads instead.

A `Line` is text (a `str`, so the narrative stays a list of texts for tests, scenarios and designers) that also
says which seats may read it (`only`, None for everyone), what the others read in its place (`public`, None for
nothing) and what kind of line it is (`kind`: 'event', or 'header' for the start of a round or turn, with its
`level`). What a person at the table is shown is decided by `Line.for_seats`, so every tool keeps a seat's secrets
the same way.
"""

from __future__ import annotations

from typing import Iterable, Optional


class Line(str):
    only: Optional[frozenset]
    public: Optional[str]
    kind: str
    level: int

    def __new__(cls, text: str, only: Optional[Iterable[int]] = None, public: Optional[str] = None,
                kind: str = "event", level: int = 0) -> "Line":
        line = super().__new__(cls, text)
        line.only = None if only is None else frozenset(only)
        line.public = public
        line.kind = kind
        line.level = level
        return line

    def for_seats(self, seats: Optional[Iterable[int]]) -> Optional[str]:
        """The text the people at `seats` may read (None: every seat, a spectator of a game of bots), or None
        when the line is not for them at all."""
        if self.only is None or seats is None:
            return str(self)
        if self.only & frozenset(seats):
            return str(self)
        return self.public


def line_text(line: str, seats: Optional[Iterable[int]]) -> Optional[str]:
    """What `seats` may read of a narrative line (a plain text is for everyone)."""
    return line.for_seats(seats) if isinstance(line, Line) else line


def one_line(text: str) -> str:
    """A story line is one line: a ruleset's text with line breaks in it is joined with spaces, so it cannot
    print lines of its own (a forged 'Winner: P2' before the real one)."""
    return " ".join(part.strip() for part in text.replace("\r", "\n").split("\n") if part.strip())
