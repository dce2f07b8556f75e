"""Frozen AST nodes of the rules language; every node carries the span of its source text."""

from __future__ import annotations

from dataclasses import fields
from typing import Iterator, Optional, Union

from ..diagnostics import Span
from ..records import dataclass


_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}  # a node class -> the names of its fields but `span`, in order


@dataclass(frozen=True)
class Node:
    span: Span

    def children(self) -> Iterator["Node"]:
        names = _CHILD_FIELDS.get(self.__class__)
        if names is None:  # (dataclasses.fields builds its tuple anew at each call: worked out once per class)
            names = _CHILD_FIELDS[self.__class__] = tuple(f.name for f in fields(self) if f.name != "span")
        for name in names:
            value = getattr(self, name)
            if isinstance(value, Node):
                yield value
            elif isinstance(value, tuple):
                for v in value:
                    if isinstance(v, Node):
                        yield v
                    elif isinstance(v, tuple):  # keyword pairs
                        for w in v:
                            if isinstance(w, Node):
                                yield w

    def walk(self) -> Iterator["Node"]:
        yield self
        for c in self.children():
            yield from c.walk()


# ------------------------------------------------------------------ expressions
class Expr(Node):
    pass


@dataclass(frozen=True)
class Num(Expr):
    value: int | float


@dataclass(frozen=True)
class Str(Expr):
    """A string; `parts` mixes literal text and embedded {expressions}."""

    parts: tuple[Union[str, Expr], ...]

    @property
    def is_plain(self) -> bool:
        return all(isinstance(p, str) for p in self.parts)


@dataclass(frozen=True)
class Const(Expr):
    value: object  # True, False or None


@dataclass(frozen=True)
class Name(Expr):
    id: str


@dataclass(frozen=True)
class Attr(Expr):
    obj: Expr
    name: str
    name_span: Span


@dataclass(frozen=True)
class Index(Expr):
    obj: Expr
    key: Expr


@dataclass(frozen=True)
class Keyword(Node):
    name: str
    value: Expr


@dataclass(frozen=True)
class Call(Expr):
    func: str
    func_span: Span
    args: tuple[Expr, ...]
    kwargs: tuple[Keyword, ...]


@dataclass(frozen=True)
class ListLit(Expr):
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class Comprehension(Expr):
    element: Expr
    var: str
    iterable: Expr
    condition: Expr | None


@dataclass(frozen=True)
class Unary(Expr):
    op: str  # '-' or 'not'
    operand: Expr


@dataclass(frozen=True)
class BinOp(Expr):
    op: str  # + - * / // % and or
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Compare(Expr):
    op: str  # == != < <= > >= in 'not in'
    left: Expr
    right: Expr


@dataclass(frozen=True)
class IsClass(Expr):
    obj: Expr
    cls: str
    cls_span: Span
    negate: bool


@dataclass(frozen=True)
class Ternary(Expr):
    then: Expr
    cond: Expr
    other: Expr


@dataclass(frozen=True)
class Range(Expr):
    low: Expr
    high: Expr


# ------------------------------------------------------------------ statements
class Stmt(Node):
    pass


@dataclass(frozen=True)
class Move(Stmt):
    what: Expr
    dest: Expr
    place: str  # 'top' or 'bottom'
    under: Expr | None = None  # `move X to Z under N`: N cards left above it (`place` is then 'top')


@dataclass(frozen=True)
class Draw(Stmt):
    count: Expr | None
    source: Expr
    dest: Expr | None
    place: str
    bind: str | None


@dataclass(frozen=True)
class Shuffle(Stmt):
    zone: Expr


@dataclass(frozen=True)
class Reverse(Stmt):
    zone: Expr


@dataclass(frozen=True)
class Assign(Stmt):
    target: Expr  # Name, Attr or Index
    op: str  # '=', '+=', '-='
    value: Expr


@dataclass(frozen=True)
class Let(Stmt):
    name: str
    value: Expr


@dataclass(frozen=True)
class Roll(Stmt):
    dice: str  # a dice id, or 'NdM'
    dice_span: Span
    roller: Expr | None  # the player who rolls (and may be asked to re-roll)
    against: Expr | None
    bind: str | None


@dataclass(frozen=True)
class Break(Stmt):
    loop: str | None


@dataclass(frozen=True)
class Continue(Stmt):
    loop: str | None


@dataclass(frozen=True)
class End(Stmt):
    kind: str
    kind_span: Span


@dataclass(frozen=True)
class CallSeq(Stmt):
    sequence: str
    sequence_span: Span
    kwargs: tuple[Keyword, ...]
    bind: str | None = None  # 'call SEQ ... as NAME': the local name given the sequence's result
    target: Optional["Expr"] = None  # 'call TABLE[KEY].COLUMN': the sequence a table's cell names (sequence is '')


@dataclass(frozen=True)
class Emit(Stmt):
    event: str
    event_span: Span
    kwargs: tuple[Keyword, ...]


@dataclass(frozen=True)
class Log(Stmt):
    message: Expr


@dataclass(frozen=True)
class Tell(Stmt):
    """A line of the story only `player` reads (the others read nothing)."""

    player: Expr
    message: Expr


@dataclass(frozen=True)
class Show(Stmt):
    """Cards (a card, a list of them, or a zone's) shown to a player or players: the seat now knows them."""

    what: Expr
    player: Expr


@dataclass(frozen=True)
class Win(Stmt):
    who: Expr


@dataclass(frozen=True)
class AddModifier(Stmt):
    modifier: str
    modifier_span: Span
    target: Expr | None
    value: Expr | None
    until: str
    until_span: Span
    next: bool = False  # 'until next KIND': lapses when the next KIND of the player it is on starts


@dataclass(frozen=True)
class RemoveModifier(Stmt):
    modifier: str
    modifier_span: Span
    target: Expr | None


@dataclass(frozen=True)
class CreateZone(Stmt):
    family: str
    family_span: Span
    bind: str | None


@dataclass(frozen=True)
class Tally(Stmt):
    """Add `value` (default 1) to a metric of the ruleset, under the key `key` (default: one total)."""

    metric: str
    metric_span: Span
    key: Expr | None
    value: Expr | None


@dataclass(frozen=True)
class Pass(Stmt):
    pass


@dataclass(frozen=True)
class Assert(Stmt):
    """A condition the designer states holds here; a game that checks itself stops when it does not."""

    cond: Expr
    message: Expr | None = None


@dataclass(frozen=True)
class Return(Stmt):
    """Leave the sequence; with a value, the result that a 'call ... as NAME' binds (none without one)."""

    value: Expr | None
