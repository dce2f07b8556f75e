"""The kinds of value a running game handles besides numbers, text, lists and cards."""

from __future__ import annotations

from typing import Any, Mapping
from weakref import WeakValueDictionary

from .diagnostics import Span


class Card:
    """A card: immutable, shared by every game of a ruleset; equal by identity."""

    __slots__ = ("index", "id", "name", "classes", "attrs", "span", "order", "doc")

    def __init__(self, index: int, id: str, name: str, classes: frozenset, attrs: Mapping[str, Any], span: Span,
                 doc: str = ""):
        self.index = index
        self.doc = doc  # the card's rules text in the ruleset's words (its group's `doc:`), for what players read
        self.order = index  # its place in the ruleset's card order (card_order:), else in declaration order
        self.id = id
        self.name = name
        self.classes = classes
        self.attrs = dict(attrs)
        self.span = span

    @property
    def text(self) -> str:
        """What the card does, in players' words (its group's `doc:`): shown wherever it is chosen or printed."""
        return self.doc

    def __repr__(self) -> str:
        return f"Card({self.id})"

    def __str__(self) -> str:
        return self.name

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.order < other.order

    def __gt__(self, other: object) -> bool:  # said directly: a trick compares cards in the card order
        if not isinstance(other, Card):
            return NotImplemented
        return self.order > other.order


class Player:
    """A seat at the table; seats are numbered 0.. in clockwise order.

    One object per seat and name: Player(seat, name) gives the same object each time (interned, as ZoneRef; held
    weakly, so the names of games long over are let go), and so does every copy or save restored (by
    `__reduce__`, or the game's own list). Two players are equal when they are the same object, and hashing is
    Python's own: a player compared in a list or used as a key costs no call of Python code (session 19)."""

    __slots__ = ("seat", "name", "__weakref__")
    seat: int
    name: str

    def __new__(cls, seat: int, name: str) -> "Player":
        made = _PLAYERS_MADE.get((seat, name))
        if made is None:
            made = object.__new__(cls)
            made.seat = seat
            made.name = name
            made = _PLAYERS_MADE.setdefault((seat, name), made)
        return made

    def __reduce__(self):
        return (Player, (self.seat, self.name))

    # (no __lt__: players have no order in the rules, so 'p < q' is refused while playing as at load; sorted(),
    # min() and max() of players put them in seat order themselves, builtins._ordered)

    def __repr__(self) -> str:
        return f"Player({self.seat})"

    def __str__(self) -> str:
        return self.name


_PLAYERS_MADE: WeakValueDictionary = WeakValueDictionary()  # (seat, name) -> the one Player of them


class ZoneRef:
    """Names one zone: a zone id plus, for a family of zones, the key (seat, key or number).

    Zone refs are interned: ZoneRef('deck') is always the same object, so equality is identity
    and hashing is Python's own, done in C (a game looks zones up by ref at almost every step).
    """

    __slots__ = ("zone", "key")
    zone: str
    key: Any
    _interned: dict = {}

    def __new__(cls, zone: str, key: Any = None):
        try:
            return cls._interned[(zone, key)]
        except KeyError:
            self = object.__new__(cls)
            self.zone = zone
            self.key = key
            return cls._interned.setdefault((zone, key), self)

    def __reduce__(self):
        return (ZoneRef, (self.zone, self.key))

    def __repr__(self) -> str:
        return f"ZoneRef({self.zone!r}, {self.key!r})"

    @property
    def slot(self) -> str:
        """The key of this zone in the game state's zone table."""
        if self.key is None:
            return self.zone
        return f"{self.zone}[{self.key}]"

    def __str__(self) -> str:
        return self.slot


class FamilyRef:
    """A family of zones (one per key, or created at run time), before it is indexed."""

    __slots__ = ("zone",)

    def __init__(self, zone: str):
        self.zone = zone

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FamilyRef) and other.zone == self.zone

    def __hash__(self) -> int:
        return hash(("family", self.zone))

    def __repr__(self) -> str:
        return f"FamilyRef({self.zone!r})"


class Roll:
    """The outcome of one dice roll after any re-rolls."""

    __slots__ = ("dice", "faces", "total", "result", "success", "doubles", "target", "by")

    def __init__(self, dice: str, faces: tuple, result: str | None, success: bool | None, target: Any,
                 by: int | None = None):
        self.by = by  # the seat that rolled dice whose faces are not open (only a bot's look-ahead asks; not saved)
        self.dice = dice
        self.faces = faces
        self.total = sum(faces)
        self.result = result
        self.success = success
        self.doubles = len(faces) > 1 and len(set(faces)) == 1
        self.target = target

    def to_json(self) -> dict:
        return {"dice": self.dice, "faces": list(self.faces), "result": self.result, "success": self.success,
                "target": self.target}

    def __repr__(self) -> str:
        return f"Roll({self.dice}, {self.faces}, {self.result})"

    def __str__(self) -> str:
        faces = "+".join(str(f) for f in self.faces)
        named = f" {self.result}!" if self.result else ""
        return f"{faces}={self.total}{named}"


class Row(dict):
    """A table row: a read-only mapping of column to value."""

    def __setitem__(self, key, value):  # pragma: no cover - guard
        raise TypeError("table rows are read-only")


ROLL_FIELDS = ("dice", "faces", "total", "result", "success", "doubles", "target")
CARD_FIELDS = ("id", "name", "classes", "zone", "owner")
PLAYER_FIELDS = ("seat", "name", "out")
OUT = "out"  # the built-in modifier that puts a player out: skipped by every order of play


def out_seats(ctx) -> frozenset:
    """The seats of the players who are out now (an 'out' modifier on them; one on everyone puts all out)."""
    mods = getattr(ctx, "modifiers", None)
    if not mods:
        return _NONE_OUT
    seats = []
    for m in mods:  # (a loop, not a list comprehension's call: asked at every order of play while modifiers are on)
        if m[0] == OUT:
            seats.append(m[1])
    if not seats:  # (modifiers in force, none of them 'out': the usual case)
        return _NONE_OUT
    return frozenset(range(len(ctx.players))) if None in seats else frozenset(seats)


_NONE_OUT: frozenset = frozenset()
ZONE_FIELDS = ("size", "top", "bottom", "cards", "owner", "key", "empty")
